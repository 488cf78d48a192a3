// This process's allocator: mimalloc's settings, when the program is linked with it
// (CMakeLists.txt ADJUTANT_MIMALLOC); under another allocator (the sanitizer build) these do
// nothing. Call from the main thread before the work they are for: an option applies to the
// memory mimalloc takes from the system after it is set.
#pragma once

#include <functional>

namespace adj {

// "mimalloc" or "system".
const char* allocator_name();

// Memory is taken from the system in 2 MiB pages where the kernel gives transparent huge pages
// on request (mimalloc's large_os_pages: its segments are madvise'd MADV_HUGEPAGE), unless the
// environment sets MIMALLOC_LARGE_OS_PAGES (or 2.1's MIMALLOC_ALLOW_LARGE_OS_PAGES). A
// 10,000-player `turn run` faulted in 4 KiB pages for about a fifth of its time (a page fault costs
// ~5 us in this virtual machine). Such memory is not given back to the system until the process
// ends, so this is for batch commands. Returns whether large pages are asked for. Each thread's
// first 32 MiB segment is in large pages too (mimalloc's eager_commit_delay 0), unless
// MIMALLOC_EAGER_COMMIT_DELAY is set; but the segments taken before the call keep their small pages
// (see run_on_large_pages).
bool use_large_pages();

// use_large_pages(), then `work` on a thread of its own (whose memory is all taken after it, where
// the calling thread's first segment was taken at start-up in small pages); returns what `work`
// returns. A 10,000-player turn run's loading took 260 ms on the main thread, 110 ms on its own.
int run_on_large_pages(const std::function<int()>& work);

// Memory a thread frees goes back to the system after `ms` unused (mimalloc's decommit_delay,
// purge_delay from 2.1), unless MIMALLOC_DECOMMIT_DELAY or MIMALLOC_PURGE_DELAY is set. Returns
// the delay in effect; -1 without mimalloc.
long set_decommit_delay(long ms);

}  // namespace adj
