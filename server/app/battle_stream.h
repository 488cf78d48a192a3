// A turn's battles shown in reports (report_shared.h) on a second thread while the turn is still
// being resolved: the resolving thread leaves one core idle, and a big turn's 65,000 battles took
// a quarter of a second of its reports phase on two cores.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rules/report/report_shared.h"
#include "rules/turn/turn_resolver.h"

namespace adj {

// A BattleSink that makes report_battle(log, start) for each battle on a thread of its own.
// `start` is the turn's starting state: its area names are the next state's (a turn changes no
// area's name or code), so the output is report_battle(log, next_state)'s byte for byte. `start`
// must outlive the stream and stay unchanged while it is open.
// Thread-safety: battle() and close() from the resolving thread (BattleSink's contract); the
// results only after close().
class ReportBattleStream final : public BattleSink {
 public:
  explicit ReportBattleStream(const GameState& start);
  ~ReportBattleStream() override { close(); }
  ReportBattleStream(const ReportBattleStream&) = delete;
  ReportBattleStream& operator=(const ReportBattleStream&) = delete;

  void battle(const BattleLog& log) override;
  void close() override;

  // After close(): whether every battle was shown (false when no thread could be started, or
  // showing one threw something other than a Json::exception: the caller shows them itself, and
  // meets that again), then each battle's shown form, and its error ("" when none: a
  // Json::exception's message, e.g. invalid UTF-8), in battle order. Moves them out.
  bool complete() const { return started_ && !gave_up_; }
  std::vector<ReportBattle> take_shown() { return std::move(shown_); }
  std::vector<std::string> take_errors() { return std::move(errors_); }

 private:
  // Battles are handed over in batches of this many (and the rest at close()), so that the
  // resolving thread wakes the other once per batch rather than once per battle.
  static constexpr std::size_t kBatch = 64;
  void work();

  const GameState& start_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<const BattleLog*> pending_;  // guarded by mu_
  bool closing_ = false;                   // guarded by mu_
  bool started_ = false;
  bool closed_ = false;  // the resolving thread's
  std::thread worker_;
  bool gave_up_ = false;             // the worker's until close() returned
  std::vector<ReportBattle> shown_;  // likewise
  std::vector<std::string> errors_;  // likewise
};

}  // namespace adj
