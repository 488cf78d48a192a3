#include "tests/support/temp_dir.h"

#include <stdlib.h>  // mkdtemp

#include <cstdio>
#include <cstdlib>
#include <system_error>

namespace adj::testing {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/adj-test-XXXXXX";
  if (!mkdtemp(pattern.data())) {
    std::perror(("TempDir: mkdtemp " + pattern).c_str());
    std::abort();
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;  // best effort: a leftover directory must not fail the test run
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::file(std::string_view name) const { return (path_ / name).string(); }

}  // namespace adj::testing
