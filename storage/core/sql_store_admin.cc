// SqlStore: the AdminStore tables (schedules, audit log, run attempts, daemon state; SQLite
// migration 0002, PostgreSQL 0002_admin.sql; the host audit log, migration 0024_archive) and the
// game's status. Writes that several daemons
// may race on are single statements: an upsert for record_failed_attempt and set_last_tick, and
// writes that need the game are INSERT ... SELECT FROM games, so "no such game" and the write are
// one step.
#include "storage/core/codec.h"
#include "storage/core/messages.h"
#include "storage/core/record_checks.h"
#include "storage/core/sql_store.h"

namespace adj {

namespace {

// The entry of columns id, at, actor, action, game, detail_json; `what` names it in errors.
Result<AuditEntry> audit_from_row(const sql::Rows& r, int i, const std::string& what) {
  AuditEntry e;
  r.read(i, e.id, e.at, e.actor, e.action, e.game);
  ADJ_TRY(e.detail, json_from_text(r.text(i, 5), what + " " + std::to_string(e.id)));
  return e;
}

// AdminStore::set_schedule's ranges (InvalidArgument naming the field).
Status check_schedule(const Schedule& s) {
  if (s.kind != "none" && s.kind != "fixed" && s.kind != "interval")
    return Status::InvalidArgument("schedule kind must be none, fixed or interval, not '" + s.kind +
                                   "'");
  if (s.interval_seconds < 0)
    return Status::InvalidArgument("schedule interval must not be negative");
  if (s.time_of_day && (*s.time_of_day < 0 || *s.time_of_day > 86399))
    return Status::InvalidArgument("schedule time of day must be 0..86399 seconds after midnight");
  if (s.max_attempts < 1) return Status::InvalidArgument("schedule max_attempts must be >= 1");
  if (!(s.nmr_guard_ratio >= 0 && s.nmr_guard_ratio <= 1))
    return Status::InvalidArgument("schedule nmr_guard_ratio must be between 0 and 1");
  if (s.downtime_grace_seconds < 0)
    return Status::InvalidArgument("schedule downtime grace must not be negative");
  return Status::Ok();
}

}  // namespace

Result<Schedule> SqlStore::schedule(const std::string& game) {
  // One row per existing game; the schedule's columns are NULL when it has none.
  ADJ_TRY(const sql::Rows r,
          game_rows(game,
                    "SELECT s.kind, s.deadline, s.interval_seconds, s.time_of_day, "
                    "s.early_when_all_in, s.max_attempts, s.nmr_guard_ratio, "
                    "s.downtime_grace_seconds FROM games g "
                    "LEFT JOIN schedules s ON s.game_id = g.id WHERE g.id = ?",
                    {game}));
  Schedule s;
  if (!r.is_null(0, 0))
    r.read(0, s.kind, s.deadline, s.interval_seconds, s.time_of_day, s.early_when_all_in,
           s.max_attempts, s.nmr_guard_ratio, s.downtime_grace_seconds);
  return s;
}

Status SqlStore::set_schedule(const std::string& game, const Schedule& s) {
  ADJ_RETURN_IF_ERROR(check_schedule(s));
  return sql::changed_or(
      session().run("INSERT INTO schedules(game_id, kind, deadline, interval_seconds, "
                    "time_of_day, early_when_all_in, max_attempts, nmr_guard_ratio, "
                    "downtime_grace_seconds) "
                    "SELECT id, CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT), "
                    "CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), "
                    "CAST(? AS DOUBLE PRECISION), CAST(? AS BIGINT) FROM games WHERE id = ? "
                    "ON CONFLICT (game_id) DO UPDATE SET kind = excluded.kind, "
                    "deadline = excluded.deadline, interval_seconds = excluded.interval_seconds, "
                    "time_of_day = excluded.time_of_day, "
                    "early_when_all_in = excluded.early_when_all_in, "
                    "max_attempts = excluded.max_attempts, "
                    "nmr_guard_ratio = excluded.nmr_guard_ratio, "
                    "downtime_grace_seconds = excluded.downtime_grace_seconds",
                    {s.kind, s.deadline, std::int64_t{s.interval_seconds}, s.time_of_day,
                     sql::flag(s.early_when_all_in), s.max_attempts, s.nmr_guard_ratio,
                     std::int64_t{s.downtime_grace_seconds}, game}),
      Status::NotFound(no_such_game(game)));
}

Status SqlStore::append_audit(const AuditEntry& e) {
  ADJ_RETURN_IF_ERROR(store_checks::check_audit_entry(e));
  ADJ_TRY(const std::string detail, json_to_text(e.detail, "audit detail"));
  return sql::changed_or(
      session().run("INSERT INTO audit_log(game_id, at, actor, action, detail_json) "
                    "SELECT id, CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), "
                    "CAST(? AS TEXT) FROM games WHERE id = ?",
                    {std::int64_t{e.at}, e.actor, e.action, detail, e.game}),
      Status::NotFound(no_such_game(e.game)));
}

Result<std::vector<AuditEntry>> SqlStore::audit_log(const std::string& game) {
  // The game's row joined to its entries: no row when the game does not exist, one row with
  // NULL entry columns when it has none.
  ADJ_TRY(const sql::Rows r,
          game_rows(game,
                    "SELECT a.id, a.at, a.actor, a.action, g.id, a.detail_json "
                    "FROM games g LEFT JOIN audit_log a ON a.game_id = g.id WHERE g.id = ? "
                    "ORDER BY a.id",
                    {game}));
  std::vector<AuditEntry> out;
  for (int i = 0; i < r.size(); ++i) {
    if (r.is_null(i, 0)) continue;
    ADJ_TRY(AuditEntry e, audit_from_row(r, i, "audit entry"));
    out.push_back(std::move(e));
  }
  return out;
}

Status SqlStore::append_host_audit(const AuditEntry& e) { return insert_host_audit(e).status(); }

Result<std::int64_t> SqlStore::insert_host_audit(const AuditEntry& e) {
  ADJ_RETURN_IF_ERROR(store_checks::check_audit_entry(e));
  ADJ_TRY(const std::string detail, json_to_text(e.detail, "host audit detail"));
  ADJ_TRY(const sql::Rows id,
          session().query("INSERT INTO host_audit(at, actor, action, game, detail_json) "
                          "VALUES (?, ?, ?, ?, ?) RETURNING id",
                          {std::int64_t{e.at}, e.actor, e.action, e.game, detail}));
  return id.int64(0, 0);
}

Result<std::vector<AuditEntry>> SqlStore::host_audit_log(int limit) {
  ADJ_TRY(const sql::Rows r,
          session().query("SELECT id, at, actor, action, game, detail_json FROM host_audit "
                          "ORDER BY id DESC LIMIT ?",
                          {sql::limit_param(limit)}));
  return sql::map_rows(
      r, [](const sql::Rows& r, int i) { return audit_from_row(r, i, "host audit entry"); });
}

Result<int> SqlStore::failed_attempts(const std::string& game) {
  ADJ_TRY(const sql::Rows r, game_rows(game,
                                       "SELECT a.failed FROM games g LEFT JOIN "
                                       "run_attempts a ON a.game_id = g.id WHERE g.id = ?",
                                       {game}));
  return r.is_null(0, 0) ? 0 : r.int32(0, 0);
}

Status SqlStore::record_failed_attempt(const std::string& game, const std::string& why) {
  // One statement: concurrent failures (two daemons) both count.
  return sql::changed_or(
      session().run("INSERT INTO run_attempts(game_id, failed, last_error) "
                    "SELECT id, 1, CAST(? AS TEXT) FROM games WHERE id = ? "
                    "ON CONFLICT (game_id) DO UPDATE SET failed = run_attempts.failed + 1, "
                    "last_error = excluded.last_error",
                    {why, game}),
      Status::NotFound(no_such_game(game)));
}

Status SqlStore::reset_attempts(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  return session().write("DELETE FROM run_attempts WHERE game_id = ?", {game});
}

Result<UnixTime> SqlStore::last_tick() {
  ADJ_TRY(const sql::Rows r,
          session().query("SELECT last_tick FROM daemon_state WHERE id = 1", {}));
  return r.empty() ? UnixTime{0} : r.int64(0, 0);
}

Status SqlStore::set_last_tick(UnixTime t) {
  return session().write(
      "INSERT INTO daemon_state(id, last_tick) VALUES (1, CAST(? AS BIGINT)) "
      "ON CONFLICT (id) DO UPDATE SET last_tick = excluded.last_tick",
      {std::int64_t{t}});
}

Status SqlStore::set_game_status(const std::string& game, const std::string& status) {
  if (status.empty()) return Status::InvalidArgument("game status must not be empty");
  return sql::changed_or(session().run("UPDATE games SET status = ? WHERE id = ?", {status, game}),
                         Status::NotFound(no_such_game(game)));
}

}  // namespace adj
