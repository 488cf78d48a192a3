// AttendanceStore over SQLite (migration 0011).
#include <algorithm>

#include "storage/sqlite/sqlite_store.h"

namespace adj {

using sqlite::Transaction;

Result<std::vector<TurnAttendance>> SqliteStore::turns_without_orders(const std::string& game,
                                                                      int from_turn) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  // A turn's turn_attendance row (schemas/sql/0018) when it has one; else its summary's list.
  // The summary (and ran_at, stored after it) is read only in that branch: a row needs none of
  // the turn record's overflow pages.
  ADJ_TRY(auto st,
          db_.prepare("SELECT t.turn, CASE WHEN a.turn IS NOT NULL THEN a.without_orders "
                      "ELSE json_extract(t.summary_json, '$.players_without_orders') END, "
                      "coalesce(a.ran_at, t.ran_at) FROM turns t LEFT JOIN turn_attendance a "
                      "ON a.game_id = t.game_id AND a.turn = t.turn "
                      "WHERE t.game_id = ? AND t.turn >= ? ORDER BY t.turn DESC"));
  st.bind_text(1, game).bind_int(2, from_turn);
  std::vector<TurnAttendance> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    TurnAttendance t;
    t.turn = st.column_int(0);
    t.ran_at = st.column_int64(2);
    if (!st.column_is_null(1)) {
      const Json list = Json::parse(st.column_text(1), nullptr, false);
      if (!list.is_array())
        return Status::Corruption("game " + game + " turn " + std::to_string(t.turn) +
                                  ": players_without_orders is not a list");
      for (const Json& code : list)
        if (code.is_string()) t.without_orders.push_back(code.get<std::string>());
    }
    out.push_back(std::move(t));
  }
}

Result<AttendanceOptions> SqliteStore::attendance_options(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("SELECT civil_disorder_after, absence_extends, absence_max_days, "
                               "absence_max_per_game, takeover_code_days "
                               "FROM attendance_options WHERE game_id = ?"));
  st.bind_text(1, game);
  ADJ_TRY(bool row, st.step());
  AttendanceOptions o;
  if (!row) return o;
  o.civil_disorder_after = st.column_int(0);
  o.absence_extends = st.column_int(1) != 0;
  o.absence_max_days = st.column_int(2);
  o.absence_max_per_game = st.column_int(3);
  o.takeover_code_days = st.column_int(4);
  return o;
}

Status SqliteStore::set_attendance_options(const std::string& game, const AttendanceOptions& o) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("INSERT INTO attendance_options(game_id, civil_disorder_after, "
                               "absence_extends, absence_max_days, absence_max_per_game, "
                               "takeover_code_days) VALUES (?, ?, ?, ?, ?, ?) "
                               "ON CONFLICT(game_id) DO UPDATE SET "
                               "civil_disorder_after = excluded.civil_disorder_after, "
                               "absence_extends = excluded.absence_extends, "
                               "absence_max_days = excluded.absence_max_days, "
                               "absence_max_per_game = excluded.absence_max_per_game, "
                               "takeover_code_days = excluded.takeover_code_days"));
  st.bind_text(1, game)
      .bind_int(2, o.civil_disorder_after)
      .bind_int(3, o.absence_extends ? 1 : 0)
      .bind_int(4, o.absence_max_days)
      .bind_int(5, o.absence_max_per_game)
      .bind_int(6, o.takeover_code_days);
  return st.run();
}

Result<std::vector<AttendanceRecord>> SqliteStore::attendance_records(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("SELECT player, misses_from_turn, disorder_turn FROM "
                               "attendance_players WHERE game_id = ? ORDER BY player"));
  st.bind_text(1, game);
  std::vector<AttendanceRecord> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    AttendanceRecord r;
    r.player = st.column_text(0);
    r.misses_from_turn = st.column_int(1);
    if (!st.column_is_null(2)) r.disorder_turn = st.column_int(2);
    out.push_back(std::move(r));
  }
}

Status SqliteStore::put_attendance_record(const std::string& game, const AttendanceRecord& r) {
  if (r.player.empty()) return Status::InvalidArgument("an attendance record needs a player");
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("INSERT INTO attendance_players(game_id, player, "
                               "misses_from_turn, disorder_turn) VALUES (?, ?, ?, ?) "
                               "ON CONFLICT(game_id, player) DO UPDATE SET "
                               "misses_from_turn = excluded.misses_from_turn, "
                               "disorder_turn = excluded.disorder_turn"));
  st.bind_text(1, game).bind_text(2, r.player).bind_int(3, std::max(1, r.misses_from_turn));
  if (r.disorder_turn)
    st.bind_int(4, *r.disorder_turn);
  else
    st.bind_null(4);
  return st.run();
}

Result<std::int64_t> SqliteStore::add_absence(const Absence& a) {
  if (a.player.empty() || a.from.size() != 10 || a.to.size() != 10 || a.to < a.from)
    return Status::InvalidArgument("an absence needs a player and dates from <= to");
  ADJ_RETURN_IF_ERROR(require_game(a.game));
  ADJ_TRY(auto st, db_.prepare("INSERT INTO absences(game_id, player, from_day, to_day, "
                               "declared_at) VALUES (?, ?, ?, ?, ?)"));
  st.bind_text(1, a.game)
      .bind_text(2, a.player)
      .bind_text(3, a.from)
      .bind_text(4, a.to)
      .bind_int64(5, a.declared_at);
  ADJ_RETURN_IF_ERROR(st.run());
  return db_.last_insert_rowid();
}

Result<std::vector<Absence>> SqliteStore::absences(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("SELECT id, player, from_day, to_day, declared_at FROM "
                               "absences WHERE game_id = ? ORDER BY id"));
  st.bind_text(1, game);
  std::vector<Absence> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    Absence a;
    a.id = st.column_int64(0);
    a.game = game;
    a.player = st.column_text(1);
    a.from = st.column_text(2);
    a.to = st.column_text(3);
    a.declared_at = st.column_int64(4);
    out.push_back(std::move(a));
  }
}

Result<bool> SqliteStore::add_standby(const std::string& game, const std::string& address,
                                      UnixTime now) {
  if (address.empty()) return Status::InvalidArgument("a standby entry needs an address");
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("INSERT INTO standby(game_id, address, created_at) "
                               "VALUES (?, ?, ?) ON CONFLICT(game_id, address) DO NOTHING"));
  st.bind_text(1, game).bind_text(2, address).bind_int64(3, now);
  ADJ_RETURN_IF_ERROR(st.run());
  return db_.changes() > 0;
}

Result<std::vector<StandbyEntry>> SqliteStore::standby_list(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("SELECT id, address, created_at FROM standby WHERE game_id = ? "
                               "ORDER BY id"));
  st.bind_text(1, game);
  std::vector<StandbyEntry> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    StandbyEntry e;
    e.id = st.column_int64(0);
    e.game = game;
    e.address = st.column_text(1);
    e.created_at = st.column_int64(2);
    out.push_back(std::move(e));
  }
}

Status SqliteStore::remove_standby(const std::string& game, const std::string& address) {
  ADJ_TRY(auto st, db_.prepare("DELETE FROM standby WHERE game_id = ? AND address = ?"));
  st.bind_text(1, game).bind_text(2, address);
  return st.run();
}

Result<std::int64_t> SqliteStore::add_takeover_code(const TakeoverCode& c) {
  if (c.player.empty() || c.code_hash.size() != 64)
    return Status::InvalidArgument("a takeover code needs a player and a 64-digit hash");
  ADJ_RETURN_IF_ERROR(require_game(c.game));
  ADJ_TRY(auto st, db_.prepare("INSERT INTO takeover_codes(game_id, player, code_hash, "
                               "address, issued_by, created_at, expires_at) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?)"));
  st.bind_text(1, c.game)
      .bind_text(2, c.player)
      .bind_text(3, c.code_hash)
      .bind_text(4, c.address)
      .bind_text(5, c.issued_by)
      .bind_int64(6, c.created_at)
      .bind_int64(7, c.expires_at);
  ADJ_RETURN_IF_ERROR(st.run());
  return db_.last_insert_rowid();
}

Result<bool> SqliteStore::use_takeover_code(const std::string& game, const std::string& player,
                                            const std::string& code_hash,
                                            const std::string& used_by, UnixTime now) {
  ADJ_TRY(auto tx, Transaction::begin(db_));
  {
    ADJ_TRY(auto st, db_.prepare("UPDATE takeover_codes SET used_at = ?, used_by = ? "
                                 "WHERE game_id = ? AND player = ? AND code_hash = ? AND "
                                 "used_at IS NULL AND expires_at > ?"));
    st.bind_int64(1, now)
        .bind_text(2, used_by)
        .bind_text(3, game)
        .bind_text(4, player)
        .bind_text(5, code_hash)
        .bind_int64(6, now);
    ADJ_RETURN_IF_ERROR(st.run());
    if (db_.changes() == 0) return false;  // the destructor rolls back
  }
  {
    ADJ_TRY(auto st, db_.prepare("UPDATE takeover_codes SET expires_at = ? WHERE game_id = ? "
                                 "AND player = ? AND used_at IS NULL AND expires_at > ?"));
    st.bind_int64(1, now).bind_text(2, game).bind_text(3, player).bind_int64(4, now);
    ADJ_RETURN_IF_ERROR(st.run());
  }
  ADJ_RETURN_IF_ERROR(tx.commit());
  return true;
}

Result<std::vector<TakeoverCode>> SqliteStore::takeover_codes(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(auto st, db_.prepare("SELECT id, player, code_hash, address, issued_by, created_at, "
                               "expires_at, used_at, used_by FROM takeover_codes "
                               "WHERE game_id = ? ORDER BY id"));
  st.bind_text(1, game);
  std::vector<TakeoverCode> out;
  for (;;) {
    ADJ_TRY(bool row, st.step());
    if (!row) return out;
    TakeoverCode c;
    c.id = st.column_int64(0);
    c.game = game;
    c.player = st.column_text(1);
    c.code_hash = st.column_text(2);
    c.address = st.column_text(3);
    c.issued_by = st.column_text(4);
    c.created_at = st.column_int64(5);
    c.expires_at = st.column_int64(6);
    if (!st.column_is_null(7)) c.used_at = st.column_int64(7);
    if (!st.column_is_null(8)) c.used_by = st.column_text(8);
    out.push_back(std::move(c));
  }
}

}  // namespace adj
