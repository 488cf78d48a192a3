#include "server/http/fair_queue.h"

#include <cassert>
#include <utility>

namespace adj::http {

void FairQueue::push(const std::string& client, Job job) {
  std::lock_guard<std::mutex> lock(mu_);
  std::deque<Job>& mine = jobs_[client];
  if (mine.empty()) turns_.push_back(client);
  mine.push_back(std::move(job));
  ++size_;
}

FairQueue::Job FairQueue::pop() {
  std::lock_guard<std::mutex> lock(mu_);
  assert(!turns_.empty());
  std::string client = std::move(turns_.front());
  turns_.pop_front();
  auto it = jobs_.find(client);
  Job job = std::move(it->second.front());
  it->second.pop_front();
  if (it->second.empty())
    jobs_.erase(it);
  else
    turns_.push_back(std::move(client));
  --size_;
  return job;
}

std::size_t FairQueue::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return size_;
}

}  // namespace adj::http
