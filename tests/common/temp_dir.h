// Every suite's scratch space: a fresh directory under the system's temporary
// directory ($TMPDIR, else /tmp), removed with everything in it when the
// object goes.
#pragma once

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace chipkg::test_support {

class TempDir {
 public:
  // `prefix` names the directory ("chipkg-engine-test-Ab12Cd") so that one a
  // crashed test left behind says which suite made it.
  explicit TempDir(const std::string& prefix = "chipkg-test") {
    std::error_code ec;
    std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    if (ec) base = "/tmp";
    std::string pattern = (base / (prefix + "-XXXXXX")).string();
    char* made = ::mkdtemp(pattern.data());
    if (made == nullptr) {
      std::fprintf(stderr, "cannot make a temporary directory %s\n", pattern.c_str());
      std::abort();  // every test of the suite needs one: nothing to run without it
    }
    path_ = made;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  const std::string& str() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }
  // Writes `content` to the file `name` in the directory; returns its path.
  std::string Write(const std::string& name, const std::string& content) const {
    const std::string file = Sub(name);
    std::ofstream(file, std::ios::binary) << content;
    return file;
  }

 private:
  std::string path_;
};

}  // namespace chipkg::test_support
