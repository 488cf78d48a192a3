#include "server/app/battle_stream.h"

#include <system_error>
#include <utility>

namespace adj {

ReportBattleStream::ReportBattleStream(const GameState& start) : start_(start) {
  if (std::thread::hardware_concurrency() < 2) return;
  try {
    worker_ = std::thread([this] { work(); });
    started_ = true;
  } catch (const std::system_error&) {  // no thread to be had: the caller shows the battles
  }
}

void ReportBattleStream::battle(const BattleLog& log) {
  if (!started_ || closed_) return;
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(&log);
    wake = pending_.size() == kBatch;
  }
  if (wake) cv_.notify_one();
}

void ReportBattleStream::close() {
  if (closed_) return;
  closed_ = true;
  if (!started_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  cv_.notify_one();
  worker_.join();
}

void ReportBattleStream::work() {
  std::vector<const BattleLog*> batch;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return pending_.size() >= kBatch || closing_; });
    if (pending_.empty()) return;  // closing, and nothing left
    batch.swap(pending_);
    lock.unlock();
    for (const BattleLog* b : batch) {
      if (gave_up_) break;
      try {
        try {
          shown_.push_back(report_battle(*b, start_));
          errors_.emplace_back();
        } catch (const Json::exception& e) {
          shown_.emplace_back();
          errors_.emplace_back(e.what());
        }
      } catch (...) {  // e.g. std::bad_alloc: left to the caller, which meets it on its thread
        gave_up_ = true;
        shown_ = {};
        errors_ = {};
      }
    }
    batch.clear();
    lock.lock();
  }
}

}  // namespace adj
