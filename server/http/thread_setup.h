// Per-thread settings of the daemon's threads (Linux): a name for top -H, ps -L and gdb, and a
// lower CPU priority for background work. Each call applies to the calling thread only.
#pragma once

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cerrno>

#include <string>

namespace adj::http {

// Names the calling thread (cut to the kernel's 15 characters).
inline void name_this_thread(const std::string& name) {
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

// Raises the calling thread's nice value to `nice` (0..19), so that under CPU contention it
// yields to the other threads; with spare CPU it runs as fast as ever. Returns false when the
// kernel refused (the thread then keeps its priority).
inline bool lower_this_thread_priority(int nice) {
  const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
  // Never raise it: under a service manager's Nice=10 the thread stays at 10, not 5.
  errno = 0;
  const int now = ::getpriority(PRIO_PROCESS, tid);
  if (errno == 0 && now >= nice) return true;
  return ::setpriority(PRIO_PROCESS, tid, nice) == 0;
}

}  // namespace adj::http
