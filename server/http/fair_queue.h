// The handler work of the HTTP listener shared out fairly among clients: with more requests than
// worker threads, the clients with requests waiting take turns, one request each, so one client's
// many slow requests (64 connections of pages that take a second to make) delay another client's
// by at most one request each, not by all of them. A client's own requests start in the order
// they came. No Asio: the listener posts one runner to its pool per push(), and each runner runs
// whatever pop() gives (server/http/http_server.cc).
//
// Thread-safety: every member may be called from any thread (one mutex, never held while a job
// runs).
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

namespace adj::http {

class FairQueue {
 public:
  using Job = std::function<void()>;

  // Queues `job` for `client` (the request's client address; "" when unknown, which is one client).
  void push(const std::string& client, Job job);
  // Removes the next job: the clients with jobs queued take turns in the order each last had a turn
  // (a new one joins at the end), one job per turn. REQUIRES: a job is queued (one pop per push).
  Job pop();
  // Jobs queued, in all.
  std::size_t size() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::deque<Job>> jobs_;  // only clients with jobs queued
  std::deque<std::string> turns_;                          // those clients, next first
  std::size_t size_ = 0;
};

}  // namespace adj::http
