// Independent work spread over the machine's two cores (a big turn's reports): the caller's
// thread and one more.
#pragma once

#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>

namespace adj {

// Calls fn(begin, end) for [0, n/2) on the calling thread and [n/2, n) on a second thread (one
// call for [0, n) when n < min_split, the machine has one core or no thread can be started), and
// returns when both are done. An exception from either call is rethrown here after both ended
// (the first half's when both threw). REQUIRES: fn is safe to run on two threads at once for
// disjoint ranges (each writes only its own slots of shared output).
template <class Fn>
void split_in_two(std::size_t n, std::size_t min_split, Fn&& fn) {
  if (n < min_split || std::thread::hardware_concurrency() < 2) {
    fn(std::size_t{0}, n);
    return;
  }
  const std::size_t mid = n / 2;
  std::exception_ptr second_error;
  std::thread second;
  try {
    second = std::thread([&] {
      try {
        fn(mid, n);
      } catch (...) {
        second_error = std::current_exception();
      }
    });
  } catch (const std::system_error&) {  // no thread to be had: all on this one
    fn(std::size_t{0}, n);
    return;
  }
  std::exception_ptr first_error;
  try {
    fn(std::size_t{0}, mid);
  } catch (...) {
    first_error = std::current_exception();
  }
  second.join();
  if (first_error) std::rethrow_exception(first_error);
  if (second_error) std::rethrow_exception(second_error);
}

// Calls main() on the calling thread and side() on a second thread at once, and returns when both
// are done (one after the other on this thread, main first, on a one-core machine or when no
// thread can be started). An exception from either is rethrown here after both ended (main's
// when both threw). REQUIRES: main and side are safe to run at the same time.
template <class Main, class Side>
void run_beside(Main&& main, Side&& side) {
  if (std::thread::hardware_concurrency() < 2) {
    main();
    side();
    return;
  }
  std::exception_ptr side_error;
  std::thread second;
  try {
    second = std::thread([&] {
      try {
        side();
      } catch (...) {
        side_error = std::current_exception();
      }
    });
  } catch (const std::system_error&) {
    main();
    side();
    return;
  }
  std::exception_ptr main_error;
  try {
    main();
  } catch (...) {
    main_error = std::current_exception();
  }
  second.join();
  if (main_error) std::rethrow_exception(main_error);
  if (side_error) std::rethrow_exception(side_error);
}

}  // namespace adj
