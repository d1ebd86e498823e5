// UTF-8 well-formedness, for every module that takes text from outside: the
// query parser (queries), ingest (fetched pages), export (spans cut inside a
// character).
#pragma once

#include <cstddef>
#include <string_view>

namespace chipkg {

// Offset of the first byte that is not part of well-formed UTF-8 (a stray
// continuation byte, a sequence cut short, an overlong form, a surrogate, a
// code point past U+10FFFF), or std::string_view::npos.
size_t FirstInvalidUtf8(std::string_view s);

inline bool IsValidUtf8(std::string_view s) { return FirstInvalidUtf8(s) == std::string_view::npos; }

}  // namespace chipkg
