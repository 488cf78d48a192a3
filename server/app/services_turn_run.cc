// Services::run_turn: a turn run from the stored state and order files to the commit (the
// rest of Services is in services.cc).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#ifdef __GLIBC__
#include <malloc.h>  // malloc_trim
#endif
#include <optional>
#include <set>

#include "base/log_escape.h"
#include "rules/report/report.h"
#include "rules/report/report_shared.h"
#include "server/app/battle_stream.h"
#include "server/app/commit_battles.h"
#include "server/app/ending.h"
#include "server/app/engine_catalog.h"
#include "server/app/ordered_stream.h"
#include "server/app/services.h"
#include "server/app/split_work.h"
#include "server/app/turn_guard.h"
#include "server/app/turn_summary.h"
#include "storage/admin_store.h"

namespace adj {

namespace {

// Records the wall time since the previous mark under `name`.
class PhaseTimer {
 public:
  explicit PhaseTimer(std::vector<std::pair<std::string, double>>& out) : out_(out) {}
  void mark(const char* name) {
    const auto now = std::chrono::steady_clock::now();
    out_.emplace_back(name, std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }

 private:
  std::vector<std::pair<std::string, double>>& out_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// Below this many battles they are shown on one thread.
constexpr std::size_t kMinSplit = 64;
// Reports made ahead of the store, at most (~22 KB each in the scale benchmark's world), and the
// threads that make them.
constexpr std::size_t kReportWindow = 512;
constexpr unsigned kReportThreads = 2;

// Every battle as reports show it (report_shared.h): from `stream` when it did them all while the
// turn was resolved, else here on two threads. InvalidArgument naming the first battle in order
// that cannot be shown as JSON.
Status show_battles(const TurnResult& result, ReportBattleStream& stream,
                    std::vector<ReportBattle>& shown) {
  const std::vector<BattleLog>& battles = result.battles;
  std::vector<std::string> errors;
  if (stream.complete()) {
    shown = stream.take_shown();
    errors = stream.take_errors();
    assert(shown.size() == battles.size() && errors.size() == battles.size());
  } else {
    shown.resize(battles.size());
    errors.resize(battles.size());
    split_in_two(battles.size(), kMinSplit, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) try {
          shown[i] = report_battle(battles[i], result.next_state);
        } catch (const Json::exception& e) {
          errors[i] = e.what();
        }
    });
  }
  for (std::size_t i = 0; i < battles.size(); ++i)
    if (!errors[i].empty())
      return Status::InvalidArgument("battle " + battles[i].id +
                                     " cannot be shown in reports as JSON: " + errors[i]);
  return Status::Ok();
}

// Every player's report of a committed run (in the order of start.players) as JSON text and
// text, made on threads of their own a window ahead and handed to `writer` one by one, so that a
// big turn never holds them all. InvalidArgument naming the first player in order whose report
// cannot be JSON (nothing after it is written). Reads the result's battles' attackers, defenders
// and areas only: `add_battles` may move their inputs out meanwhile.
Status write_reports(const GameState& start, const TurnResult& result, const ReportIndex& index,
                     const std::map<std::string, std::vector<LineResult>>& rejected,
                     const std::vector<ReportBattle>& shown, TurnWriter& writer) {
  const std::vector<Player>& players = start.players;
  const auto make = [&](std::size_t i, ReportRecord& r) -> Status {
    const std::string& code = players[i].code;
    const auto lines = rejected.find(code);
    try {
      RenderedReport made = render_report(start, result, code, index, shown,
                                          lines == rejected.end() ? nullptr : &lines->second);
      r.player = code;
      r.turn = start.turn;
      r.text = std::move(made.text);
      r.json_text = std::move(made.json_text);  // json stays null: the text is what is stored
    } catch (const Json::exception& e) {
      return Status::InvalidArgument("the report of " + code +
                                     " cannot be stored as JSON: " + e.what());
    }
    return Status::Ok();
  };
  return stream_in_order<ReportRecord>(
      players.size(), kReportWindow, players.size() < kMinSplit ? 0 : kReportThreads, make,
      [&](std::size_t, ReportRecord&& r) { return writer.add_report(std::move(r)); });
}

}  // namespace

Result<TurnRunOutcome> Services::run_turn(const std::string& game, bool preview) {
  return run_turn(game, preview, std::nullopt);
}

Result<TurnRunOutcome> Services::run_turn(const std::string& game, bool preview,
                                          std::optional<int> expected_turn) {
  if (auto over = game_over(s_, game)) return Status::FailedPrecondition(*over);
  // (A committed run is refused by begin_resolving too, in the same words.)
  if (Result<GameSummary> g = s_.games.game_summary(game); g.ok() && g->archived_at)
    return Status::FailedPrecondition(archived_refusal(game, "turn runs"));
  if (expected_turn) {
    Result<GameSummary> open = s_.games.game_summary(game);
    if (!open.ok()) return open.status();
    ADJ_RETURN_IF_ERROR(stale_turn(*expected_turn, open->turn));
  }
  if (preview) {
    std::vector<std::int64_t> used;
    return run_once(game, true, used);
  }
  Result<GameSummary> g = s_.games.game_summary(game);
  if (!g.ok()) return g.status();
  const int turn = expected_turn.value_or(g->turn);
  for (int attempt = 1;; ++attempt) {
    if (Status b = s_.games.begin_resolving(game, turn, now_()); !b.ok()) {
      auto moved = s_.games.game_summary(game);  // another request ran this turn first
      if (expected_turn && moved.ok() && moved->turn != turn) return stale_turn(turn, moved->turn);
      return b;
    }
    std::vector<std::int64_t> used;
    Result<TurnRunOutcome> out = run_once(game, false, used);
    if (out.ok()) {
      // The run is committed: a failure to queue the standings mail must not undo its answer.
      if (out->ending)
        if (Status queued = notify(standings_notice(game, *out, now_())); !queued.ok())
          spdlog::error("event=standings_notice_failed game={} error=\"{}\"", log_escape(game),
                        log_escape(queued.to_string()));
      return out;
    }
    (void)s_.games.end_resolving(game, turn);  // reopens the turn to files; best effort
    if (out.status().code() != StatusCode::kFailedPrecondition || attempt == kRunAttempts)
      return out;
    // Resolve again only when the turn is still open and its files changed under the run.
    auto still = s_.games.game_summary(game);
    auto files = s_.submissions.current_submissions(game, turn);
    if (!still.ok() || still->turn != turn || !files.ok()) return out;
    std::vector<std::int64_t> now_ids;
    for (const auto& f : *files) now_ids.push_back(f.id);
    std::sort(now_ids.begin(), now_ids.end());
    std::sort(used.begin(), used.end());
    if (now_ids == used) return out;
  }
}

Result<TurnRunOutcome> Services::run_once(const std::string& game, bool preview,
                                          std::vector<std::int64_t>& used) {
  TurnRunOutcome out;
  PhaseTimer timer(out.phase_ms);
  Result<GameState> st = s_.games.load_state(game, std::nullopt);
  if (!st.ok()) return st.status();
  // A Lua game runs the script version for this turn, which the next state's EngineSpec records.
  Result<EngineHandle> engine = current_engine(s_.scripts, game, st->turn, st->engine);
  if (!engine.ok()) {
    if (engine.status().code() == StatusCode::kNotFound && st->engine.name != kScriptEngineName)
      return Status::Corruption("game " + game + " names an unknown engine");
    return engine.status();
  }
  const GameState& state = *st;
  auto subs = s_.submissions.current_submissions(game, state.turn);
  if (!subs.ok()) return subs.status();
  timer.mark("load");

  // Orders are re-checked from the raw text: one validator, one source of truth.
  OrderBook book;
  std::map<std::string, std::vector<LineResult>> rejected;  // shown in each player's report
  std::set<std::string> with_orders;                        // counts_as_orders
  std::set<std::string> draws;  // players whose current file proposes a draw
  for (const auto& sub : *subs) {
    used.push_back(sub.id);
    // Authenticated when accepted; the stored PLAYER secret is masked, so it is not checked again.
    OrderAck ack = check_order_file(sub.raw_text, state, engine->get(),
                                    [](const std::string&, std::string_view) { return true; });
    if (ack.refused) continue;
    if (counts_as_orders(ack)) with_orders.insert(ack.player);  // reads ack.lines: before the moves
    if (ack.draw) draws.insert(ack.player);
    book[ack.player] = std::move(ack.orders);
    rejected[ack.player] = std::move(ack.lines);
  }
  timer.mark("orders");
  out.turn = state.turn;
  out.preview = preview;
  for (const Player& p : state.players)
    if (!with_orders.count(p.code)) out.players_without_orders.push_back(p.code);

  // A committed run's battles are shown in reports while the turn is resolved (a preview's
  // reports are trees, made below).
  std::optional<ReportBattleStream> stream;
  if (!preview) stream.emplace(state);
  Result<TurnResult> res =
      resolve_turn(state, std::move(book), **engine, stream ? &*stream : nullptr);
  if (!res.ok()) {
    if (script_id_of(**engine))  // the GM's script failed: say which turn, keep the message
      return Status(res.status().code(), "turn " + std::to_string(state.turn) +
                                             " was not run: " + res.status().message());
    return res.status();
  }
  out.result = std::move(res).value();
  out.digest = out.result.digest;
  out.ending = check_ending(out.result.next_state, state.turn, draws);
  timer.mark("resolve");

  TurnCommit commit;
  commit.turn = state.turn;
  commit.seed = out.result.seed;
  commit.ran_at = now_();
  out.roundup = build_roundup(out.result);
  if (preview) {  // the reports as trees, as the caller shows them
    const ReportIndex index(out.result);
    for (const Player& p : state.players) {
      ReportRecord r;
      r.player = p.code;
      r.turn = state.turn;
      r.json = build_report(state, out.result, p.code, index);
      if (auto it = rejected.find(p.code); it != rejected.end())
        add_rejected_lines(r.json, it->second);
      r.text = render_report_text(r.json);
      out.reports.push_back(std::move(r));
    }
    timer.mark("reports");
    return out;
  }
  std::vector<ReportBattle> shown;
  ADJ_RETURN_IF_ERROR(show_battles(out.result, *stream, shown));
  // The commit's first part (storage/turn_writer.h) begins before the reports are made: the
  // battles go to the store one by one while a second thread indexes the result for the reports
  // and writes the summary (every action and order of the turn, as text; the tree keeps only
  // "ending", records.h); then the reports, each as soon as it is made, while the next are made.
  // So a big turn never holds every battle input and report text at once.
  Result<std::unique_ptr<TurnWriter>> writer =
      s_.games.begin_commit(game, state.turn, std::vector<std::int64_t>(used));
  if (!writer.ok()) return writer.status();
  Status written = Status::Ok(), summary_made = Status::Ok();
  std::optional<ReportIndex> index;
  const TurnSummaryParts parts{&out.digest,        &out.roundup,        &out.players_without_orders,
                               &out.result.orders, &out.result.actions, &draws,
                               &out.ending};
  run_beside([&] { written = add_battles(out.result.battles, **writer); },
             [&] {
               index.emplace(out.result);
               try {
                 commit.summary_text = turn_summary_text(parts);
               } catch (const Json::exception& e) {
                 summary_made =
                     Status::InvalidArgument("the summary of turn " + std::to_string(state.turn) +
                                             " cannot be stored as JSON: " + e.what());
               }
             });
  if (written.ok()) written = write_reports(state, out.result, *index, rejected, shown, **writer);
  if (!written.ok()) return written;
  if (!summary_made.ok()) return summary_made;
  shown = {};
  if (out.ending) commit.summary["ending"] = to_json(*out.ending);
#ifdef __GLIBC__
  // Under glibc's malloc (the sanitizer build; under mimalloc, the default, this does nothing): the
  // other threads freed their work (the shown battles, the reports, scratch text) into arenas of
  // their own, which the rest of the commit on this thread would not reuse: give those pages back
  // before its last part (the next state).
  malloc_trim(0);
#endif
  timer.mark("reports");

  commit.next_state = std::move(out.result.next_state);            // moved back after the commit
  commit.next_state_text = std::move(out.result.next_state_text);  // the digest's dump of it
  commit.submissions = used;
  commit.without_orders = out.players_without_orders;  // as the summary lists them
  ADJ_RETURN_IF_ERROR((*writer)->finish(commit));
  writer->reset();
  out.result.next_state = std::move(commit.next_state);
  timer.mark("commit");
  return out;
}

}  // namespace adj
