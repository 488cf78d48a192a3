#pragma once
// Which turns' reports this process is queueing (MailIngest::queue_turn_reports), so that a
// tick's recovery (GameAdmin::tick: "reports") does not queue a turn again while a queueing of it
// is still at work (a big turn takes longer than the recovery's grace), nor retry one that keeps
// failing on every tick. A run (or rerun) always queues. Thread-safe.

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace adj {

class ReportsInFlight {
 public:
  // A queueing that failed is not begun again for this long (the tick retries after it).
  static constexpr std::int64_t kRetrySeconds = 300;

  // True when the caller may queue (game, turn) now (`now`: seconds, any monotonic origin), and
  // then must call end(). Always true for a run; for a `recovery`, false while the turn is being
  // queued or within kRetrySeconds of a failed queueing.
  bool begin(const std::string& game, int turn, bool recovery, std::int64_t now) {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, fresh] = turns_.try_emplace({game, turn}, State{});
    if (recovery && !fresh &&
        (it->second.running > 0 || now - it->second.failed_at < kRetrySeconds))
      return false;
    ++it->second.running;
    return true;
  }

  // Ends what begin() allowed; `ok`: the queueing succeeded.
  void end(const std::string& game, int turn, bool ok, std::int64_t now) {
    std::lock_guard<std::mutex> lock(mu_);
    State& s = turns_[{game, turn}];
    if (s.running > 0) --s.running;
    s.failed_at = ok ? kNever : now;
    // Turns neither running nor failed within the retry delay are forgotten: the map holds only
    // turns being queued or failed just now.
    for (auto it = turns_.begin(); it != turns_.end();)
      it = it->second.running == 0 && now - it->second.failed_at >= kRetrySeconds ? turns_.erase(it)
                                                                                  : std::next(it);
  }

 private:
  static constexpr std::int64_t kNever = INT64_MIN / 2;
  struct State {
    int running = 0;  // queueings begun and not ended
    std::int64_t failed_at = kNever;
  };
  std::mutex mu_;
  std::map<std::pair<std::string, int>, State> turns_;
};

}  // namespace adj
