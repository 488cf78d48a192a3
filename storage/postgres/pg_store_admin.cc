// PgStore: the AdminStore tables of schemas/pg/0002_admin.sql (schedules, audit log, run
// attempts, daemon state) and the game's status. Behaviour, error codes and texts are
// SqliteStore's (storage/sqlite/sqlite_store_admin.cc). Writes that several daemons may race on
// are single statements: an upsert for record_failed_attempt and set_last_tick, and writes that
// need the game are INSERT ... SELECT FROM games, so "no such game" and the write are one step.
#include <cstdint>

#include "storage/core/codec.h"
#include "storage/core/messages.h"
#include "storage/core/record_checks.h"
#include "storage/postgres/pg_store.h"

namespace adj {

using store_checks::check_schedule;

using pg::Param;

namespace {

Param optional_int(const std::optional<std::int64_t>& v) { return v ? Param(*v) : Param(); }

}  // namespace

Result<Schedule> PgStore::schedule(const std::string& game) {
  // One row per existing game; the schedule's columns are NULL when it has none.
  ADJ_TRY(const pg::Rows r,
          conn_.query("SELECT s.kind, s.deadline, s.interval_seconds, s.time_of_day, "
                      "s.early_when_all_in, s.max_attempts, s.nmr_guard_ratio, "
                      "s.downtime_grace_seconds FROM games g "
                      "LEFT JOIN schedules s ON s.game_id = g.id WHERE g.id = $1",
                      {Param(game)}));
  if (r.empty()) return Status::NotFound(no_such_game(game));
  Schedule s;
  if (r.is_null(0, 0)) return s;
  s.kind = r.text(0, 0);
  if (!r.is_null(0, 1)) s.deadline = r.int64(0, 1);
  s.interval_seconds = r.int64(0, 2);
  if (!r.is_null(0, 3)) s.time_of_day = r.int32(0, 3);
  s.early_when_all_in = r.int64(0, 4) != 0;
  s.max_attempts = r.int32(0, 5);
  s.nmr_guard_ratio = r.float64(0, 6);
  s.downtime_grace_seconds = r.int64(0, 7);
  return s;
}

Status PgStore::set_schedule(const std::string& game, const Schedule& s) {
  ADJ_RETURN_IF_ERROR(check_schedule(s));
  ADJ_TRY(
      const std::int64_t n,
      conn_.run(
          "INSERT INTO schedules(game_id, kind, deadline, interval_seconds, "
          "time_of_day, early_when_all_in, max_attempts, nmr_guard_ratio, "
          "downtime_grace_seconds) "
          "SELECT id, $2::text, $3::bigint, $4::bigint, $5::bigint, $6::bigint, "
          "$7::bigint, $8::double precision, $9::bigint FROM games WHERE id = $1 "
          "ON CONFLICT (game_id) DO UPDATE SET kind = excluded.kind, "
          "deadline = excluded.deadline, interval_seconds = excluded.interval_seconds, "
          "time_of_day = excluded.time_of_day, "
          "early_when_all_in = excluded.early_when_all_in, "
          "max_attempts = excluded.max_attempts, "
          "nmr_guard_ratio = excluded.nmr_guard_ratio, "
          "downtime_grace_seconds = excluded.downtime_grace_seconds",
          {Param(game), Param(s.kind), optional_int(s.deadline), Param(s.interval_seconds),
           s.time_of_day ? Param(std::int64_t{*s.time_of_day}) : Param(),
           Param(std::int64_t{s.early_when_all_in ? 1 : 0}), Param(std::int64_t{s.max_attempts}),
           Param(s.nmr_guard_ratio), Param(s.downtime_grace_seconds)}));
  if (n == 0) return Status::NotFound(no_such_game(game));
  return Status::Ok();
}

Status PgStore::append_audit(const AuditEntry& e) {
  if (e.actor.empty() || e.action.empty())
    return Status::InvalidArgument("audit entry needs an actor and an action");
  ADJ_TRY(const std::string detail, json_to_text(e.detail, "audit detail"));
  ADJ_TRY(const std::int64_t n,
          conn_.run("INSERT INTO audit_log(game_id, at, actor, action, detail_json) "
                    "SELECT id, $2::bigint, $3::text, $4::text, $5::text FROM games "
                    "WHERE id = $1",
                    {Param(e.game), Param(e.at), Param(e.actor), Param(e.action), Param(detail)}));
  if (n == 0) return Status::NotFound(no_such_game(e.game));
  return Status::Ok();
}

Result<std::vector<AuditEntry>> PgStore::audit_log(const std::string& game) {
  // The game's row joined to its entries: no row when the game does not exist, one row with
  // NULL entry columns when it has none.
  ADJ_TRY(const pg::Rows r,
          conn_.query("SELECT a.id, a.at, a.actor, a.action, a.detail_json FROM games g "
                      "LEFT JOIN audit_log a ON a.game_id = g.id WHERE g.id = $1 "
                      "ORDER BY a.id",
                      {Param(game)}));
  if (r.empty()) return Status::NotFound(no_such_game(game));
  std::vector<AuditEntry> out;
  for (int i = 0; i < r.size(); ++i) {
    if (r.is_null(i, 0)) continue;
    AuditEntry e;
    e.id = r.int64(i, 0);
    e.game = game;
    e.at = r.int64(i, 1);
    e.actor = r.text(i, 2);
    e.action = r.text(i, 3);
    ADJ_TRY(e.detail, json_from_text(r.text(i, 4), "audit entry " + std::to_string(e.id)));
    out.push_back(std::move(e));
  }
  return out;
}

Result<int> PgStore::failed_attempts(const std::string& game) {
  ADJ_TRY(const pg::Rows r, conn_.query("SELECT a.failed FROM games g LEFT JOIN run_attempts a "
                                        "ON a.game_id = g.id WHERE g.id = $1",
                                        {Param(game)}));
  if (r.empty()) return Status::NotFound(no_such_game(game));
  return r.is_null(0, 0) ? 0 : r.int32(0, 0);
}

Status PgStore::record_failed_attempt(const std::string& game, const std::string& why) {
  // One statement: concurrent failures (two daemons) both count.
  ADJ_TRY(const std::int64_t n,
          conn_.run("INSERT INTO run_attempts(game_id, failed, last_error) "
                    "SELECT id, 1, $2::text FROM games WHERE id = $1 "
                    "ON CONFLICT (game_id) DO UPDATE SET failed = run_attempts.failed + 1, "
                    "last_error = excluded.last_error",
                    {Param(game), Param(why)}));
  if (n == 0) return Status::NotFound(no_such_game(game));
  return Status::Ok();
}

Status PgStore::reset_attempts(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  return conn_.run("DELETE FROM run_attempts WHERE game_id = $1", {Param(game)}).status();
}

Result<UnixTime> PgStore::last_tick() {
  ADJ_TRY(const pg::Rows r, conn_.query("SELECT last_tick FROM daemon_state WHERE id = 1"));
  return r.empty() ? UnixTime{0} : r.int64(0, 0);
}

Status PgStore::set_last_tick(UnixTime t) {
  return conn_
      .run(
          "INSERT INTO daemon_state(id, last_tick) VALUES (1, $1::bigint) "
          "ON CONFLICT (id) DO UPDATE SET last_tick = excluded.last_tick",
          {Param(t)})
      .status();
}

Status PgStore::set_game_status(const std::string& game, const std::string& status) {
  if (status.empty()) return Status::InvalidArgument("game status must not be empty");
  ADJ_TRY(const std::int64_t n,
          conn_.run("UPDATE games SET status = $1 WHERE id = $2", {Param(status), Param(game)}));
  if (n == 0) return Status::NotFound(no_such_game(game));
  return Status::Ok();
}

}  // namespace adj
