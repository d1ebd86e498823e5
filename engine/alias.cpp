// NormalizeAlias: the key of the alias column family and of schema entity matching.
#include <string>

#include "engine/store.h"

namespace chipkg {

std::string NormalizeAlias(const std::string& name) {
  std::string out;
  out.reserve(name.size());
  for (unsigned char c : name) {
    if (c >= 0x80) {
      out.push_back(static_cast<char>(c));  // part of a UTF-8 sequence: kept as written
    } else if (c >= 'A' && c <= 'Z') {
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

}  // namespace chipkg
