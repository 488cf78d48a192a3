// PgStore: AttendanceStore over schemas/pg/0003_mail.sql. Behaves as sqlite_store_attendance.cc.
// use_takeover_code locks the position's codes (in id order) before it checks one, so two
// concurrent uses of one code, or of two codes of one position, let exactly one through.
#include <algorithm>

#include "storage/postgres/pg_store.h"

namespace adj {

using pg::Param;
using pg::Rows;

Result<std::vector<TurnAttendance>> PgStore::turns_without_orders(const std::string& game,
                                                                  int from_turn) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  // As SQLite's: a turn's turn_attendance row (schemas/pg/0008), else its summary's list, where
  // a JSON null reads as SQL NULL, as SQLite's json_extract gives it.
  ADJ_TRY(Rows r, conn_.query("SELECT t.turn, CASE WHEN a.turn IS NOT NULL THEN "
                              "a.without_orders ELSE nullif(t.summary_json::jsonb -> "
                              "'players_without_orders', 'null'::jsonb)::text END, "
                              "coalesce(a.ran_at, t.ran_at) FROM turns t "
                              "LEFT JOIN turn_attendance a "
                              "ON a.game_id = t.game_id AND a.turn = t.turn "
                              "WHERE t.game_id = $1 AND t.turn >= $2 ORDER BY t.turn DESC",
                              {game, from_turn}));
  std::vector<TurnAttendance> out;
  out.reserve(static_cast<std::size_t>(r.size()));
  for (int i = 0; i < r.size(); ++i) {
    TurnAttendance t;
    t.turn = r.int32(i, 0);
    t.ran_at = r.int64(i, 2);
    if (!r.is_null(i, 1)) {
      const Json list = Json::parse(r.text(i, 1), nullptr, false);
      if (!list.is_array())
        return Status::Corruption("game " + game + " turn " + std::to_string(t.turn) +
                                  ": players_without_orders is not a list");
      for (const Json& code : list)
        if (code.is_string()) t.without_orders.push_back(code.get<std::string>());
    }
    out.push_back(std::move(t));
  }
  return out;
}

Result<AttendanceOptions> PgStore::attendance_options(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(Rows r, conn_.query("SELECT civil_disorder_after, absence_extends, absence_max_days, "
                              "absence_max_per_game, takeover_code_days "
                              "FROM attendance_options WHERE game_id = $1",
                              {game}));
  AttendanceOptions o;
  if (r.empty()) return o;
  o.civil_disorder_after = r.int32(0, 0);
  o.absence_extends = r.int64(0, 1) != 0;
  o.absence_max_days = r.int32(0, 2);
  o.absence_max_per_game = r.int32(0, 3);
  o.takeover_code_days = r.int32(0, 4);
  return o;
}

Status PgStore::set_attendance_options(const std::string& game, const AttendanceOptions& o) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  auto n = conn_.run(
      "INSERT INTO attendance_options(game_id, civil_disorder_after, "
      "absence_extends, absence_max_days, absence_max_per_game, "
      "takeover_code_days) VALUES ($1, $2, $3, $4, $5, $6) "
      "ON CONFLICT (game_id) DO UPDATE SET "
      "civil_disorder_after = excluded.civil_disorder_after, "
      "absence_extends = excluded.absence_extends, "
      "absence_max_days = excluded.absence_max_days, "
      "absence_max_per_game = excluded.absence_max_per_game, "
      "takeover_code_days = excluded.takeover_code_days",
      {game, o.civil_disorder_after, o.absence_extends ? 1 : 0, o.absence_max_days,
       o.absence_max_per_game, o.takeover_code_days});
  return n.ok() ? Status::Ok() : n.status();
}

Result<std::vector<AttendanceRecord>> PgStore::attendance_records(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(Rows r, conn_.query("SELECT player, misses_from_turn, disorder_turn FROM "
                              "attendance_players WHERE game_id = $1 "
                              "ORDER BY player COLLATE \"C\"",
                              {game}));
  std::vector<AttendanceRecord> out;
  out.reserve(static_cast<std::size_t>(r.size()));
  for (int i = 0; i < r.size(); ++i) {
    AttendanceRecord a;
    a.player = r.text(i, 0);
    a.misses_from_turn = r.int32(i, 1);
    if (!r.is_null(i, 2)) a.disorder_turn = r.int32(i, 2);
    out.push_back(std::move(a));
  }
  return out;
}

Status PgStore::put_attendance_record(const std::string& game, const AttendanceRecord& r) {
  if (r.player.empty()) return Status::InvalidArgument("an attendance record needs a player");
  ADJ_RETURN_IF_ERROR(require_game(game));
  auto n = conn_.run(
      "INSERT INTO attendance_players(game_id, player, misses_from_turn, "
      "disorder_turn) VALUES ($1, $2, $3, $4) "
      "ON CONFLICT (game_id, player) DO UPDATE SET "
      "misses_from_turn = excluded.misses_from_turn, "
      "disorder_turn = excluded.disorder_turn",
      {game, r.player, std::max(1, r.misses_from_turn),
       r.disorder_turn ? Param(*r.disorder_turn) : Param()});
  return n.ok() ? Status::Ok() : n.status();
}

Result<std::int64_t> PgStore::add_absence(const Absence& a) {
  if (a.player.empty() || a.from.size() != 10 || a.to.size() != 10 || a.to < a.from)
    return Status::InvalidArgument("an absence needs a player and dates from <= to");
  ADJ_RETURN_IF_ERROR(require_game(a.game));
  ADJ_TRY(Rows r, conn_.query("INSERT INTO absences(game_id, player, from_day, to_day, "
                              "declared_at) VALUES ($1, $2, $3, $4, $5) RETURNING id",
                              {a.game, a.player, a.from, a.to, a.declared_at}));
  return r.int64(0, 0);
}

Result<std::vector<Absence>> PgStore::absences(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(Rows r, conn_.query("SELECT id, player, from_day, to_day, declared_at FROM "
                              "absences WHERE game_id = $1 ORDER BY id",
                              {game}));
  std::vector<Absence> out;
  out.reserve(static_cast<std::size_t>(r.size()));
  for (int i = 0; i < r.size(); ++i) {
    Absence a;
    a.id = r.int64(i, 0);
    a.game = game;
    a.player = r.text(i, 1);
    a.from = r.text(i, 2);
    a.to = r.text(i, 3);
    a.declared_at = r.int64(i, 4);
    out.push_back(std::move(a));
  }
  return out;
}

Result<bool> PgStore::add_standby(const std::string& game, const std::string& address,
                                  UnixTime now) {
  if (address.empty()) return Status::InvalidArgument("a standby entry needs an address");
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(std::int64_t n, conn_.run("INSERT INTO standby(game_id, address, created_at) "
                                    "VALUES ($1, $2, $3) "
                                    "ON CONFLICT (game_id, address) DO NOTHING",
                                    {game, address, now}));
  return n > 0;
}

Result<std::vector<StandbyEntry>> PgStore::standby_list(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(Rows r, conn_.query("SELECT id, address, created_at FROM standby WHERE game_id = $1 "
                              "ORDER BY id",
                              {game}));
  std::vector<StandbyEntry> out;
  out.reserve(static_cast<std::size_t>(r.size()));
  for (int i = 0; i < r.size(); ++i) {
    StandbyEntry e;
    e.id = r.int64(i, 0);
    e.game = game;
    e.address = r.text(i, 1);
    e.created_at = r.int64(i, 2);
    out.push_back(std::move(e));
  }
  return out;
}

Status PgStore::remove_standby(const std::string& game, const std::string& address) {
  auto n = conn_.run("DELETE FROM standby WHERE game_id = $1 AND address = $2", {game, address});
  return n.ok() ? Status::Ok() : n.status();
}

Result<std::int64_t> PgStore::add_takeover_code(const TakeoverCode& c) {
  if (c.player.empty() || c.code_hash.size() != 64)
    return Status::InvalidArgument("a takeover code needs a player and a 64-digit hash");
  ADJ_RETURN_IF_ERROR(require_game(c.game));
  ADJ_TRY(Rows r, conn_.query("INSERT INTO takeover_codes(game_id, player, code_hash, "
                              "address, issued_by, created_at, expires_at) "
                              "VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                              {c.game, c.player, c.code_hash, c.address, c.issued_by, c.created_at,
                               c.expires_at}));
  return r.int64(0, 0);
}

Result<bool> PgStore::use_takeover_code(const std::string& game, const std::string& player,
                                        const std::string& code_hash, const std::string& used_by,
                                        UnixTime now) {
  return pg::with_retry([&]() -> Result<bool> {
    ADJ_TRY(auto tx, pg::Transaction::begin(conn_));
    // The position's codes, locked in one order by every user: the statements after this one
    // see what an earlier user committed.
    ADJ_TRY(Rows locked, conn_.query("SELECT id FROM takeover_codes WHERE game_id = $1 AND "
                                     "player = $2 ORDER BY id FOR UPDATE",
                                     {game, player}));
    (void)locked;
    ADJ_TRY(std::int64_t used,
            conn_.run("UPDATE takeover_codes SET used_at = $1, used_by = $2 "
                      "WHERE game_id = $3 AND player = $4 AND code_hash = $5 AND "
                      "used_at IS NULL AND expires_at > $1",
                      {now, used_by, game, player, code_hash}));
    if (used == 0) return false;  // the destructor rolls back
    ADJ_TRY(std::int64_t voided,
            conn_.run("UPDATE takeover_codes SET expires_at = $1 WHERE game_id = $2 "
                      "AND player = $3 AND used_at IS NULL AND expires_at > $1",
                      {now, game, player}));
    (void)voided;
    ADJ_RETURN_IF_ERROR(tx.commit());
    return true;
  });
}

Result<std::vector<TakeoverCode>> PgStore::takeover_codes(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(Rows r, conn_.query("SELECT id, player, code_hash, address, issued_by, created_at, "
                              "expires_at, used_at, used_by FROM takeover_codes "
                              "WHERE game_id = $1 ORDER BY id",
                              {game}));
  std::vector<TakeoverCode> out;
  out.reserve(static_cast<std::size_t>(r.size()));
  for (int i = 0; i < r.size(); ++i) {
    TakeoverCode c;
    c.id = r.int64(i, 0);
    c.game = game;
    c.player = r.text(i, 1);
    c.code_hash = r.text(i, 2);
    c.address = r.text(i, 3);
    c.issued_by = r.text(i, 4);
    c.created_at = r.int64(i, 5);
    c.expires_at = r.int64(i, 6);
    if (!r.is_null(i, 7)) c.used_at = r.int64(i, 7);
    if (!r.is_null(i, 8)) c.used_by = r.text(i, 8);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace adj
