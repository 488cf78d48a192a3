// This process's allocator: mimalloc's settings, when the program is linked with it
// (CMakeLists.txt ADJUTANT_MIMALLOC); under another allocator (the sanitizer build) these do
// nothing. Call from the main thread before the work they are for: an option applies to the
// memory mimalloc takes from the system after it is set.
#pragma once

#include <functional>

namespace adj {

// "mimalloc" or "system".
const char* allocator_name();

// For a batch command: memory is taken from the system in 2 MiB pages (mimalloc's
// large_os_pages, each thread's first segment too: eager_commit_delay 0). A 10,000-player
// `turn run` spent 17% of its samples in the kernel's page-fault path with 4 KiB pages. Such
// memory stays with the process until it ends, even once freed (mimalloc keeps large-page
// segments, whole ones too), so a long-running process must not ask.
// Asks only where it helps and takes nothing from others: under mimalloc 2.0 (2.1 reads the option
// at start-up only: set MIMALLOC_ALLOW_LARGE_OS_PAGES=1 there), when the kernel gives transparent
// huge pages ("always" or "madvise" in /sys/kernel/mm/transparent_hugepage/enabled), and when no
// huge pages are reserved (vm.nr_hugepages 0: mimalloc would try those first, and they are kept
// for another program, such as PostgreSQL's huge_pages). MIMALLOC_LARGE_OS_PAGES in the
// environment decides instead. Returns whether large pages are on.
bool use_large_pages();

// use_large_pages(), then `work` on a thread of its own, whose memory is all taken after it (the
// calling thread's first segment was taken at start-up, in small pages: loading a 10,000-player
// state took ~260 ms on the main thread, 115-236 ms on a new one); returns what `work` returns, or
// rethrows what it throws. `work` runs on the calling thread when large pages are off or no
// thread can be started.
int run_on_large_pages(const std::function<int()>& work);

// Memory a thread frees goes back to the system after `ms` unused (mimalloc's decommit_delay,
// purge_delay from 2.1), unless MIMALLOC_DECOMMIT_DELAY or MIMALLOC_PURGE_DELAY is set. Returns
// the delay in effect; -1 without mimalloc.
long set_decommit_delay(long ms);

}  // namespace adj
