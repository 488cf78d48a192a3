#include "server/app/allocator.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace adj {
namespace {

// The kernel's transparent huge page mode ("always", "madvise", "never"; "" when unknown).
std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  const auto open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return line.substr(open + 1, close - open - 1);
}

// The number after `key` on its line of `path` (-1 when there is none).
long counter(const char* path, const std::string& key) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + key.size());
  return -1;
}

long anon_huge_kib() { return counter("/proc/self/smaps_rollup", "AnonHugePages:"); }
long thp_fallbacks() { return counter("/proc/vmstat", "thp_fault_fallback "); }

// The death test's child: 0 when 48 MiB written by work on large pages are in huge pages, 3 when
// the kernel had none to give (its fallbacks to 4 KiB pages grew), 1 otherwise.
int huge_pages_child() {
  const long before = anon_huge_kib(), fallbacks = thp_fallbacks();
  long during = -1;
  const int rc = run_on_large_pages([&] {
    std::vector<std::unique_ptr<char[]>> blocks;
    for (int i = 0; i < 768; ++i) {  // 64 KiB each
      blocks.push_back(std::make_unique<char[]>(64 * 1024));
      std::memset(blocks.back().get(), 1, 64 * 1024);
    }
    during = anon_huge_kib();
    return 7;
  });
  if (rc != 7) return 4;
  if (during - before >= 16 * 1024) return 0;
  return thp_fallbacks() > fallbacks ? 3 : 1;
}

bool huge_or_none_to_give(int status) {
  return WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3);
}

bool large_pages_env() {
  return std::getenv("MIMALLOC_LARGE_OS_PAGES") || std::getenv("MIMALLOC_ALLOW_LARGE_OS_PAGES") ||
         std::getenv("MIMALLOC_EAGER_COMMIT_DELAY");
}

// mimalloc when the process has it loaded (the test binaries link it as the programs do; the
// sanitizer build does not), looked up here by name rather than through allocator.cc's weak
// symbols.
TEST(Allocator, NamesTheAllocatorTheProgramRunsWith) {
  const bool loaded = ::dlsym(RTLD_DEFAULT, "mi_option_get") != nullptr;
  EXPECT_EQ(std::string(allocator_name()), loaded ? "mimalloc" : "system");
}

TEST(Allocator, WorkOnLargePagesReturnsWhatItReturnsAndRethrowsWhatItThrows) {
  EXPECT_EQ(run_on_large_pages([] { return 42; }), 42);
  EXPECT_THROW(run_on_large_pages([]() -> int { throw std::runtime_error("no"); }),
               std::runtime_error);
}

// In a fresh process (the death test runs this binary again for it), so no segment an earlier test
// freed is reused. Where the kernel gives huge pages only on request, the ones seen came from
// use_large_pages().
TEST(AllocatorDeathTest, WorkOnLargePagesGetsTheKernelsHugePages) {
  if (std::string(allocator_name()) == "system") {
    EXPECT_FALSE(use_large_pages());
    GTEST_SKIP() << "built without mimalloc: nothing to ask";
  }
  if (large_pages_env()) GTEST_SKIP() << "the environment sets mimalloc's large pages itself";
  if (thp_mode() != "madvise")
    GTEST_SKIP() << "the kernel's transparent huge pages are '" << thp_mode()
                 << "', not given on request only";
  if (counter("/proc/sys/vm/nr_hugepages", "") != 0) {
    EXPECT_FALSE(use_large_pages()) << "huge pages are reserved: they are another program's";
    GTEST_SKIP() << "huge pages are reserved on this machine";
  }
  ASSERT_GE(anon_huge_kib(), 0) << "no AnonHugePages in /proc/self/smaps_rollup";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(huge_pages_child()), huge_or_none_to_give, "");
}

}  // namespace
}  // namespace adj
