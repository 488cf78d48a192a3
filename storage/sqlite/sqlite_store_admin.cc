// SqliteStore: the AdminStore tables of migration 0002 (schedules, audit log, run attempts,
// daemon state). The player_tokens table of 0002 is no longer used: link tokens are hashed
// (sqlite_store_credentials.cc, migration 0005).
#include <cstdint>

#include "storage/core/codec.h"
#include "storage/core/record_checks.h"
#include "storage/sqlite/sqlite_store.h"

namespace adj {

using store_checks::check_schedule;

using sqlite::Transaction;

namespace {}  // namespace

Result<Schedule> SqliteStore::schedule(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("SELECT kind, deadline, interval_seconds, time_of_day, "
                               "early_when_all_in, max_attempts, nmr_guard_ratio, "
                               "downtime_grace_seconds FROM schedules WHERE game_id = ?"));
  st.bind_text(1, game);
  ADJ_TRY(bool row, st.step());
  Schedule s;
  if (!row) return s;
  s.kind = st.column_text(0);
  if (!st.column_is_null(1)) s.deadline = st.column_int64(1);
  s.interval_seconds = st.column_int64(2);
  if (!st.column_is_null(3)) s.time_of_day = st.column_int(3);
  s.early_when_all_in = st.column_int(4) != 0;
  s.max_attempts = st.column_int(5);
  s.nmr_guard_ratio = st.column_double(6);
  s.downtime_grace_seconds = st.column_int64(7);
  return s;
}

Status SqliteStore::set_schedule(const std::string& game, const Schedule& s) {
  ADJ_RETURN_IF_ERROR(check_schedule(s));
  ADJ_TRY(auto tx, Transaction::begin(db_));
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("INSERT OR REPLACE INTO schedules(game_id, kind, deadline, "
                               "interval_seconds, time_of_day, early_when_all_in, "
                               "max_attempts, nmr_guard_ratio, downtime_grace_seconds) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  st.bind_text(1, game).bind_text(2, s.kind);
  if (s.deadline)
    st.bind_int64(3, *s.deadline);
  else
    st.bind_null(3);
  st.bind_int64(4, s.interval_seconds);
  if (s.time_of_day)
    st.bind_int(5, *s.time_of_day);
  else
    st.bind_null(5);
  st.bind_int(6, s.early_when_all_in ? 1 : 0)
      .bind_int(7, s.max_attempts)
      .bind_double(8, s.nmr_guard_ratio)
      .bind_int64(9, s.downtime_grace_seconds);
  ADJ_RETURN_IF_ERROR(st.run());
  return tx.commit();
}

Status SqliteStore::append_audit(const AuditEntry& e) {
  if (e.actor.empty() || e.action.empty())
    return Status::InvalidArgument("audit entry needs an actor and an action");
  ADJ_TRY(const std::string detail, json_to_text(e.detail, "audit detail"));
  ADJ_TRY(auto tx, Transaction::begin(db_));
  ADJ_RETURN_IF_ERROR(require_game(e.game));
  ADJ_TRY(auto st, db_.prepare("INSERT INTO audit_log(game_id, at, actor, action, "
                               "detail_json) VALUES (?, ?, ?, ?, ?)"));
  st.bind_text(1, e.game)
      .bind_int64(2, e.at)
      .bind_text(3, e.actor)
      .bind_text(4, e.action)
      .bind_text(5, detail);
  ADJ_RETURN_IF_ERROR(st.run());
  return tx.commit();
}

Result<std::vector<AuditEntry>> SqliteStore::audit_log(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("SELECT id, game_id, at, actor, action, detail_json "
                               "FROM audit_log WHERE game_id = ? ORDER BY id"));
  st.bind_text(1, game);
  std::vector<AuditEntry> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    AuditEntry e;
    e.id = st.column_int64(0);
    e.game = st.column_text(1);
    e.at = st.column_int64(2);
    e.actor = st.column_text(3);
    e.action = st.column_text(4);
    ADJ_TRY(e.detail, json_from_text(st.column_text(5), "audit entry " + std::to_string(e.id)));
    out.push_back(std::move(e));
  }
}

Result<int> SqliteStore::failed_attempts(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("SELECT failed FROM run_attempts WHERE game_id = ?"));
  st.bind_text(1, game);
  ADJ_TRY(bool row, st.step());
  return row ? st.column_int(0) : 0;
}

Status SqliteStore::record_failed_attempt(const std::string& game, const std::string& why) {
  ADJ_TRY(auto tx, Transaction::begin(db_));
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("INSERT INTO run_attempts(game_id, failed, last_error) "
                               "VALUES (?1, 1, ?2) ON CONFLICT(game_id) DO UPDATE SET "
                               "failed = failed + 1, last_error = ?2"));
  st.bind_text(1, game).bind_text(2, why);
  ADJ_RETURN_IF_ERROR(st.run());
  return tx.commit();
}

Status SqliteStore::reset_attempts(const std::string& game) {
  ADJ_TRY(auto tx, Transaction::begin(db_));
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("DELETE FROM run_attempts WHERE game_id = ?"));
  st.bind_text(1, game);
  ADJ_RETURN_IF_ERROR(st.run());
  return tx.commit();
}

Result<UnixTime> SqliteStore::last_tick() {
  ADJ_TRY(auto st, db_.prepare("SELECT last_tick FROM daemon_state WHERE id = 1"));
  ADJ_TRY(bool row, st.step());
  return row ? st.column_int64(0) : UnixTime{0};
}

Status SqliteStore::set_last_tick(UnixTime t) {
  ADJ_TRY(auto st, db_.prepare("INSERT INTO daemon_state(id, last_tick) VALUES (1, ?1) "
                               "ON CONFLICT(id) DO UPDATE SET last_tick = ?1"));
  st.bind_int64(1, t);
  return st.run();
}

}  // namespace adj
