// SqlStore: AttendanceStore (SQLite migrations 0011 and 0018, PostgreSQL 0003_mail.sql and
// 0008). use_takeover_code locks the position's codes (in id order) before it checks one, so two
// concurrent uses of one code, or of two codes of one position, let exactly one through.
#include <algorithm>

#include "storage/core/sql_store.h"

namespace adj {

Result<std::vector<TurnAttendance>> SqlStore::turns_without_orders(const std::string& game,
                                                                   int from_turn) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  // A turn's turn_attendance row (SQLite migration 0018, PostgreSQL 0008), else its summary's
  // list (a JSON null reads as SQL NULL), not through the turn record's overflow pages.
  ADJ_TRY(sql::Rows r,
          session().query("SELECT t.turn, CASE WHEN a.turn IS NOT NULL THEN "
                          "a.without_orders ELSE " +
                              json_member("t.summary_json", "players_without_orders") +
                              " END, "
                              "coalesce(a.ran_at, t.ran_at) FROM turns t "
                              "LEFT JOIN turn_attendance a "
                              "ON a.game_id = t.game_id AND a.turn = t.turn "
                              "WHERE t.game_id = ?1 AND t.turn >= ?2 ORDER BY t.turn DESC",
                          {game, from_turn}));
  return sql::map_rows(r, [&game](const sql::Rows& r, int i) -> Result<TurnAttendance> {
    TurnAttendance t;
    r.read(i, t.turn, sql::Skip{}, t.ran_at);
    if (r.is_null(i, 1)) return t;
    const Json list = Json::parse(r.text(i, 1), nullptr, false);
    if (!list.is_array())
      return Status::Corruption("game " + game + " turn " + std::to_string(t.turn) +
                                ": players_without_orders is not a list");
    for (const Json& code : list)
      if (code.is_string()) t.without_orders.push_back(code.get<std::string>());
    return t;
  });
}

Result<AttendanceOptions> SqlStore::attendance_options(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(sql::Rows r,
          session().query("SELECT civil_disorder_after, absence_extends, absence_max_days, "
                          "absence_max_per_game, takeover_code_days "
                          "FROM attendance_options WHERE game_id = ?1",
                          {game}));
  AttendanceOptions o;
  if (!r.empty())
    r.read(0, o.civil_disorder_after, o.absence_extends, o.absence_max_days, o.absence_max_per_game,
           o.takeover_code_days);
  return o;
}

Status SqlStore::set_attendance_options(const std::string& game, const AttendanceOptions& o) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  return session().write(
      "INSERT INTO attendance_options(game_id, civil_disorder_after, "
      "absence_extends, absence_max_days, absence_max_per_game, "
      "takeover_code_days) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
      "ON CONFLICT (game_id) DO UPDATE SET "
      "civil_disorder_after = excluded.civil_disorder_after, "
      "absence_extends = excluded.absence_extends, "
      "absence_max_days = excluded.absence_max_days, "
      "absence_max_per_game = excluded.absence_max_per_game, "
      "takeover_code_days = excluded.takeover_code_days",
      {game, o.civil_disorder_after, sql::flag(o.absence_extends), o.absence_max_days,
       o.absence_max_per_game, o.takeover_code_days});
}

Result<std::vector<AttendanceRecord>> SqlStore::attendance_records(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(sql::Rows r, session().query("SELECT player, misses_from_turn, disorder_turn FROM "
                                       "attendance_players WHERE game_id = ?1 "
                                       "ORDER BY player" +
                                           std::string(session().bytewise()),
                                       {game}));
  return sql::map_rows(r, [](const sql::Rows& r, int i) {
    AttendanceRecord a;
    r.read(i, a.player, a.misses_from_turn, a.disorder_turn);
    return a;
  });
}

Status SqlStore::put_attendance_record(const std::string& game, const AttendanceRecord& r) {
  if (r.player.empty()) return Status::InvalidArgument("an attendance record needs a player");
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  return session().write(
      "INSERT INTO attendance_players(game_id, player, misses_from_turn, "
      "disorder_turn) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT (game_id, player) DO UPDATE SET "
      "misses_from_turn = excluded.misses_from_turn, "
      "disorder_turn = excluded.disorder_turn",
      {game, r.player, std::max(1, r.misses_from_turn), r.disorder_turn});
}

Result<std::int64_t> SqlStore::add_absence(const Absence& a) {
  if (a.player.empty() || a.from.size() != 10 || a.to.size() != 10 || a.to < a.from)
    return Status::InvalidArgument("an absence needs a player and dates from <= to");
  ADJ_RETURN_IF_ERROR(require_game_row(a.game));
  ADJ_TRY(sql::Rows r, session().query("INSERT INTO absences(game_id, player, from_day, to_day, "
                                       "declared_at) VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
                                       {a.game, a.player, a.from, a.to, a.declared_at}));
  return r.int64(0, 0);
}

Result<std::vector<Absence>> SqlStore::absences(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(sql::Rows r, session().query("SELECT id, player, from_day, to_day, declared_at FROM "
                                       "absences WHERE game_id = ?1 ORDER BY id",
                                       {game}));
  return sql::map_rows(r, [&game](const sql::Rows& r, int i) {
    Absence a;
    a.game = game;
    r.read(i, a.id, a.player, a.from, a.to, a.declared_at);
    return a;
  });
}

Result<bool> SqlStore::add_standby(const std::string& game, const std::string& address,
                                   UnixTime now) {
  if (address.empty()) return Status::InvalidArgument("a standby entry needs an address");
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(std::int64_t n, session().run("INSERT INTO standby(game_id, address, created_at) "
                                        "VALUES (?1, ?2, ?3) "
                                        "ON CONFLICT (game_id, address) DO NOTHING",
                                        {game, address, now}));
  return n > 0;
}

Result<std::vector<StandbyEntry>> SqlStore::standby_list(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(sql::Rows r,
          session().query("SELECT id, address, created_at FROM standby WHERE game_id = ?1 "
                          "ORDER BY id",
                          {game}));
  return sql::map_rows(r, [&game](const sql::Rows& r, int i) {
    StandbyEntry e;
    e.game = game;
    r.read(i, e.id, e.address, e.created_at);
    return e;
  });
}

Status SqlStore::remove_standby(const std::string& game, const std::string& address) {
  return session().write("DELETE FROM standby WHERE game_id = ?1 AND address = ?2",
                         {game, address});
}

Result<std::int64_t> SqlStore::add_takeover_code(const TakeoverCode& c) {
  if (c.player.empty() || c.code_hash.size() != 64)
    return Status::InvalidArgument("a takeover code needs a player and a 64-digit hash");
  ADJ_RETURN_IF_ERROR(require_game_row(c.game));
  ADJ_TRY(sql::Rows r, session().query("INSERT INTO takeover_codes(game_id, player, code_hash, "
                                       "address, issued_by, created_at, expires_at) "
                                       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
                                       {c.game, c.player, c.code_hash, c.address, c.issued_by,
                                        c.created_at, c.expires_at}));
  return r.int64(0, 0);
}

Result<bool> SqlStore::use_takeover_code(const std::string& game, const std::string& player,
                                         const std::string& code_hash, const std::string& used_by,
                                         UnixTime now) {
  return sql::with_retry(session(), [&]() -> Result<bool> {
    ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
    // The position's codes, locked in one order by every user: the statements after this one
    // see what an earlier user committed.
    ADJ_RETURN_IF_ERROR(
        session().write("SELECT id FROM takeover_codes WHERE game_id = ?1 AND "
                        "player = ?2 ORDER BY id" +
                            std::string(session().lock_rows()),
                        {game, player}));
    ADJ_TRY(std::int64_t used,
            session().run("UPDATE takeover_codes SET used_at = ?1, used_by = ?2 "
                          "WHERE game_id = ?3 AND player = ?4 AND code_hash = ?5 AND "
                          "used_at IS NULL AND expires_at > ?1",
                          {now, used_by, game, player, code_hash}));
    if (used == 0) return false;  // the destructor rolls back
    ADJ_RETURN_IF_ERROR(
        session().write("UPDATE takeover_codes SET expires_at = ?1 WHERE game_id = ?2 "
                        "AND player = ?3 AND used_at IS NULL AND expires_at > ?1",
                        {now, game, player}));
    ADJ_RETURN_IF_ERROR(tx.commit());
    return true;
  });
}

Result<std::vector<TakeoverCode>> SqlStore::takeover_codes(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(sql::Rows r,
          session().query("SELECT id, player, code_hash, address, issued_by, created_at, "
                          "expires_at, used_at, used_by FROM takeover_codes "
                          "WHERE game_id = ?1 ORDER BY id",
                          {game}));
  return sql::map_rows(r, [&game](const sql::Rows& r, int i) {
    TakeoverCode c;
    c.game = game;
    r.read(i, c.id, c.player, c.code_hash, c.address, c.issued_by, c.created_at, c.expires_at,
           c.used_at, c.used_by);
    return c;
  });
}

}  // namespace adj
