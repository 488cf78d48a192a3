#include "server/app/allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
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

// This process's anonymous memory in transparent huge pages, in KiB.
long anon_huge_kib() {
  std::ifstream in("/proc/self/smaps_rollup");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("AnonHugePages:", 0) == 0) return std::atol(line.c_str() + 14);
  return -1;
}

TEST(Allocator, NamesTheAllocatorTheProgramRunsWith) {
  const std::string name = allocator_name();
  EXPECT_TRUE(name == "mimalloc" || name == "system") << name;
}

// The memory `work` allocates on its own thread comes in 2 MiB pages where the kernel gives them
// only on request (madvise mode), so the huge pages seen came from use_large_pages().
TEST(Allocator, WorkOnLargePagesGetsTheKernelsHugePages) {
  if (std::string(allocator_name()) == "system") {
    EXPECT_FALSE(use_large_pages());
    GTEST_SKIP() << "built without mimalloc: nothing to ask";
  }
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") || std::getenv("MIMALLOC_ALLOW_LARGE_OS_PAGES") ||
      std::getenv("MIMALLOC_EAGER_COMMIT_DELAY"))
    GTEST_SKIP() << "the environment sets mimalloc's large pages itself";
  if (thp_mode() != "madvise")
    GTEST_SKIP() << "the kernel's transparent huge pages are '" << thp_mode()
                 << "', not given on request";
  const long before = anon_huge_kib();
  ASSERT_GE(before, 0) << "no AnonHugePages in /proc/self/smaps_rollup";
  long during = -1;
  const int rc = run_on_large_pages([&] {
    // 48 MiB in blocks of 64 KiB, every byte written.
    std::vector<std::unique_ptr<char[]>> blocks;
    for (int i = 0; i < 768; ++i) {
      blocks.push_back(std::make_unique<char[]>(64 * 1024));
      std::memset(blocks.back().get(), 1, 64 * 1024);
    }
    during = anon_huge_kib();
    return 7;
  });
  EXPECT_EQ(rc, 7);
  EXPECT_GE(during - before, 16 * 1024)
      << "huge pages before " << before << " KiB, during " << during << " KiB";
}

}  // namespace
}  // namespace adj
