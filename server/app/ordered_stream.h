// Items made on worker threads and taken on the calling thread in index order, at most a window
// ahead: a big turn's reports go to the store while the next ones are made, without holding all
// of them at once.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "rules/core/status.h"

namespace adj {

// For i in [0, n): make(i, T& out) -> Status on up to `workers` threads of its own, then
// take(i, T&&) -> Status on the calling thread, in index order; no item is made more than `window`
// (>= 1) ahead of the last one taken. Stops at the first item whose make or take fails (items
// before it were all taken; none after it is taken) and returns that Status; Ok when all were
// taken. An exception thrown by make or take is rethrown here once every worker has ended (make's
// for item i only after items before i were taken). With workers == 0, one core, or no thread to
// be had, each item is made and taken on the calling thread in turn.
// REQUIRES: make may run on several threads at once for different items (reads shared data only,
// writes only its `out`); take runs on the calling thread only. T is default-constructible.
template <class T, class Make, class Take>
Status stream_in_order(std::size_t n, std::size_t window, unsigned workers, Make&& make,
                       Take&& take) {
  const auto one_by_one = [&]() -> Status {
    for (std::size_t i = 0; i < n; ++i) {
      T item{};
      if (Status s = make(i, item); !s.ok()) return s;
      if (Status s = take(i, std::move(item)); !s.ok()) return s;
    }
    return Status::Ok();
  };
  if (window == 0) window = 1;
  if (workers == 0 || n < 2 || std::thread::hardware_concurrency() < 2) return one_by_one();

  struct Slot {
    bool ready = false;
    Status status;
    std::exception_ptr error;
    T item{};
  };
  std::vector<Slot> slots(window);
  std::mutex mu;
  std::condition_variable made_one, taken_one;
  std::size_t next = 0, taken = 0;  // guarded by mu
  bool stop = false;                // guarded by mu
  const auto work = [&] {
    for (;;) {
      std::size_t i = 0;
      {
        std::unique_lock lock(mu);
        taken_one.wait(lock, [&] { return stop || next >= n || next < taken + window; });
        if (stop || next >= n) return;
        i = next++;
      }
      Slot done;
      try {
        done.status = make(i, done.item);
      } catch (...) {
        done.error = std::current_exception();
      }
      std::lock_guard lock(mu);
      Slot& slot = slots[i % window];
      slot = std::move(done);
      slot.ready = true;
      made_one.notify_all();
    }
  };
  std::vector<std::thread> threads;
  try {
    for (unsigned w = 0; w < workers; ++w) threads.emplace_back(work);
  } catch (const std::system_error&) {
    if (threads.empty()) return one_by_one();
  }
  const auto end_workers = [&] {
    {
      std::lock_guard lock(mu);
      stop = true;
    }
    taken_one.notify_all();
    for (std::thread& t : threads) t.join();
  };
  Status result = Status::Ok();
  std::exception_ptr error;
  for (std::size_t i = 0; i < n && result.ok() && !error; ++i) {
    Slot got;
    {
      std::unique_lock lock(mu);
      Slot& slot = slots[i % window];
      made_one.wait(lock, [&] { return slot.ready; });
      got = std::move(slot);
      slot = Slot{};
      taken = i + 1;
    }
    taken_one.notify_all();
    if (got.error) {
      error = got.error;
    } else if (!got.status.ok()) {
      result = got.status;
    } else {
      try {
        result = take(i, std::move(got.item));
      } catch (...) {
        error = std::current_exception();
      }
    }
  }
  end_workers();
  if (error) std::rethrow_exception(error);
  return result;
}

}  // namespace adj
