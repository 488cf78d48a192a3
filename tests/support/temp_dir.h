// TempDir: a fresh, private directory for one test, removed with its contents on destruction.
// Created under $TMPDIR (default /tmp). Not copyable or movable; one per test object.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace adj::testing {

class TempDir {
 public:
  // Aborts the program when no directory can be created: no test can run without it.
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // path() / name, as a string (not created).
  std::string file(std::string_view name) const;

 private:
  std::filesystem::path path_;
};

}  // namespace adj::testing
