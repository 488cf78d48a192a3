#include "server/app/allocator.h"

#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#include <system_error>
#include <thread>

// mimalloc's, when the program is linked with it; null in a build without it.
extern "C" void mi_option_set(int option, long value) __attribute__((weak));
extern "C" long mi_option_get(int option) __attribute__((weak));
extern "C" int mi_version(void) __attribute__((weak));

namespace adj {

namespace {

// mi_option_t of mimalloc.h (the same numbers in 2.0 and 2.1).
constexpr int kLargeOsPages = 6;  // mi_option_allow_large_os_pages in 2.1
constexpr int kEagerCommitDelay = 14;
constexpr int kDecommitDelay = 15;  // mi_option_decommit_delay; mi_option_purge_delay in 2.1

bool linked() { return mi_option_set && mi_option_get; }

// The first line of `path` ("" when it cannot be read).
std::string first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// True when the kernel gives transparent huge pages to memory that asks ("[always]" or
// "[madvise]").
bool kernel_gives_huge_pages() {
  const std::string mode = first_line("/sys/kernel/mm/transparent_hugepage/enabled");
  return mode.find("[always]") != std::string::npos || mode.find("[madvise]") != std::string::npos;
}

}  // namespace

const char* allocator_name() { return linked() ? "mimalloc" : "system"; }

bool use_large_pages() {
  if (!linked()) return false;
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") || std::getenv("MIMALLOC_ALLOW_LARGE_OS_PAGES"))
    return mi_option_get(kLargeOsPages) != 0;
  if (!mi_version || mi_version() >= 210 || !kernel_gives_huge_pages() ||
      std::atol(first_line("/proc/sys/vm/nr_hugepages").c_str()) != 0)
    return false;
  mi_option_set(kLargeOsPages, 1);
  if (!std::getenv("MIMALLOC_EAGER_COMMIT_DELAY")) mi_option_set(kEagerCommitDelay, 0);
  return true;
}

int run_on_large_pages(const std::function<int()>& work) {
  if (!use_large_pages()) return work();
  int out = 0;
  std::exception_ptr thrown;
  try {
    std::thread([&] {
      try {
        out = work();
      } catch (...) {
        thrown = std::current_exception();
      }
    }).join();
  } catch (const std::system_error&) {  // no thread to be had: `work` has not run
    return work();
  }
  if (thrown) std::rethrow_exception(thrown);
  return out;
}

long set_decommit_delay(long ms) {
  if (!linked()) return -1;
  if (!std::getenv("MIMALLOC_DECOMMIT_DELAY") && !std::getenv("MIMALLOC_PURGE_DELAY"))
    mi_option_set(kDecommitDelay, ms);
  return mi_option_get(kDecommitDelay);
}

}  // namespace adj
