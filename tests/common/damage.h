// Damage as a disk does it, for the tests of check and salvage.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace chipkg::test_support {

// Inverts 16 bytes in the middle of `file`: inside a data block of a table
// file large enough to have several.
inline void FlipBytesInTheMiddle(const std::filesystem::path& file) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  const std::streamoff middle = static_cast<std::streamoff>(std::filesystem::file_size(file) / 2);
  std::string bytes(16, '\0');
  f.seekg(middle);
  f.read(bytes.data(), 16);
  for (char& c : bytes) c = static_cast<char>(~c);
  f.seekp(middle);
  f.write(bytes.data(), 16);
}

}  // namespace chipkg::test_support
