// PgStore: resolving, committing, rolling back and reading resolved turns.
//
// Every write that depends on the game's open turn or resolving mark holds the game's row lock
// (SELECT ... FOR NO KEY UPDATE, which does not block foreign-key checks of other tables) for
// its whole transaction, so put_submission, commit_turn and rollback of one game are serialised
// across connections and processes. begin_resolving is one conditional UPDATE.
#include <algorithm>

#include "storage/core/codec.h"
#include "storage/core/messages.h"
#include "storage/core/record_checks.h"
#include "storage/core/turn_attendance.h"
#include "storage/postgres/pg_copy_in.h"
#include "storage/postgres/pg_store.h"

namespace adj {

using store_checks::check_commit;

Status PgStore::commit_turn(const std::string& game, const TurnCommit& commit) {
  ADJ_RETURN_IF_ERROR(check_commit(game, commit));
  const std::string where = "game " + game + " turn " + std::to_string(commit.turn);
  std::string summary_dump;  // empty when written from commit.summary_text
  if (commit.summary_text.empty()) {
    ADJ_TRY(summary_dump, json_to_text(commit.summary, "summary of " + where));
  }
  const std::string& summary = commit.summary_text.empty() ? summary_dump : commit.summary_text;
  std::string next_state_dump;  // empty when written from commit.next_state_text
  if (commit.next_state_text.empty()) {
    ADJ_TRY(next_state_dump, json_to_text(to_json(commit.next_state), "next state of " + where));
  }
  const std::string& next_state =
      commit.next_state_text.empty() ? next_state_dump : commit.next_state_text;

  ADJ_TRY(auto tx, pg::Transaction::begin(conn_));
  ADJ_RETURN_IF_ERROR(check_commit_start(game, commit.turn, commit.submissions));
  const auto failed = [&](const Status& s) {
    return Status(s.code(), "commit_turn " + where + ": " + s.message());
  };

  if (auto s = conn_.query(
          "INSERT INTO turns(game_id, turn, seed, summary_json, ran_at) "
          "VALUES ($1, $2, $3, $4, $5)",
          {game, commit.turn, seed_to_text(commit.seed), summary, std::int64_t{commit.ran_at}});
      !s.ok())
    return failed(s.status());
  if (const std::optional<std::string> listed = without_orders_text(commit))
    if (auto s = conn_.query("INSERT INTO turn_attendance(game_id, turn, ran_at, without_orders) "
                             "VALUES ($1, $2, $3, $4)",
                             {game, commit.turn, std::int64_t{commit.ran_at}, *listed});
        !s.ok())
      return failed(s.status());

  {
    // Battles and reports by COPY: a 10,000-player turn is two statements, not 75,000.
    pg::CopyIn battles(
        conn_,
        "COPY battles(game_id, turn, battle_id, seed, engine, input_json, outcome_json) "
        "FROM STDIN");
    if (auto s = battles.start(); !s.ok()) return failed(s);
    const std::string turn_text = std::to_string(commit.turn);
    for (const BattleRecord& b : commit.battles) {
      std::string input = b.input_text;  // records.h: text given is stored as is
      if (input.empty()) {
        ADJ_TRY(input, json_to_text(b.input, "battle " + b.id + " input"));
      }
      std::string outcome_dump;  // empty when written from b.outcome_text
      if (b.outcome_text.empty()) {
        ADJ_TRY(outcome_dump, json_to_text(b.outcome, "battle " + b.id + " outcome"));
      }
      const std::string& outcome = b.outcome_text.empty() ? outcome_dump : b.outcome_text;
      battles.field(game);
      battles.field(turn_text);
      battles.field(b.id);
      battles.field(seed_to_text(b.seed));
      battles.field(b.engine);
      battles.field(input);
      battles.field(outcome);
      if (auto s = battles.end_row(); !s.ok()) return failed(s);
    }
    if (auto s = battles.finish(); !s.ok()) return failed(s);

    pg::CopyIn reports(conn_, "COPY reports(game_id, turn, player, text, json) FROM STDIN");
    if (auto s = reports.start(); !s.ok()) return failed(s);
    for (const ReportRecord& rep : commit.reports) {
      std::string json = rep.json_text;  // records.h: text given is stored as is
      if (json.empty()) {
        ADJ_TRY(json, json_to_text(rep.json, "report of " + rep.player));
      }
      reports.field(game);
      reports.field(turn_text);
      reports.field(rep.player);
      reports.field(rep.text);
      reports.field(json);
      if (auto s = reports.end_row(); !s.ok()) return failed(s);
    }
    if (auto s = reports.finish(); !s.ok()) return failed(s);
  }

  if (auto s = conn_.query("INSERT INTO turn_states(game_id, turn, state_json) "
                           "VALUES ($1, $2, $3)",
                           {game, commit.turn + 1, next_state});
      !s.ok())
    return failed(s.status());
  if (auto s = index_open_state(game, commit.next_state, next_state); !s.ok()) return failed(s);
  // A summary with "ending" (the turn ended the game, server/app/ending.h) finishes the game.
  if (auto s = conn_.query("UPDATE games SET open_turn = $1, resolving_turn = NULL, "
                           "resolving_since = NULL, "
                           "status = CASE WHEN $3 THEN 'finished' ELSE status END WHERE id = $2",
                           {commit.turn + 1, game, commit.summary.contains("ending")});
      !s.ok())
    return failed(s.status());
  return tx.commit();
}

}  // namespace adj
