#include "server/app/allocator.h"

#include <cstdlib>
#include <thread>

// mimalloc's, when the program is linked with it; null in a build without it.
extern "C" void mi_option_set(int option, long value) __attribute__((weak));
extern "C" long mi_option_get(int option) __attribute__((weak));

namespace adj {

namespace {

// mi_option_t of mimalloc.h (the same numbers in 2.0 and 2.1).
constexpr int kLargeOsPages = 6;  // mi_option_allow_large_os_pages in 2.1
constexpr int kEagerCommitDelay = 14;
constexpr int kDecommitDelay = 15;  // mi_option_decommit_delay; mi_option_purge_delay in 2.1

bool linked() { return mi_option_set && mi_option_get; }

}  // namespace

const char* allocator_name() { return linked() ? "mimalloc" : "system"; }

bool use_large_pages() {
  if (!linked()) return false;
  if (!std::getenv("MIMALLOC_LARGE_OS_PAGES") && !std::getenv("MIMALLOC_ALLOW_LARGE_OS_PAGES"))
    mi_option_set(kLargeOsPages, 1);
  if (!std::getenv("MIMALLOC_EAGER_COMMIT_DELAY")) mi_option_set(kEagerCommitDelay, 0);
  return mi_option_get(kLargeOsPages) != 0;
}

int run_on_large_pages(const std::function<int()>& work) {
  use_large_pages();
  int out = 0;
  std::thread([&] { out = work(); }).join();
  return out;
}

long set_decommit_delay(long ms) {
  if (!linked()) return -1;
  if (!std::getenv("MIMALLOC_DECOMMIT_DELAY") && !std::getenv("MIMALLOC_PURGE_DELAY"))
    mi_option_set(kDecommitDelay, ms);
  return mi_option_get(kDecommitDelay);
}

}  // namespace adj
