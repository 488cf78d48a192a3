// SqlStore: the end of a game (AdminStore): deleting one that has not started and archiving
// (migration 0024_archive); the host audit log that outlives the games it names is with the
// game's own (sql_store_admin.cc).
#include "storage/core/messages.h"
#include "storage/core/record_checks.h"
#include "storage/core/sql_store.h"

namespace adj {

using store_checks::quote_identifier;

namespace {

// The game's audit entries as the host record keeps them (the game's log goes with the game).
Json audit_json(const std::vector<AuditEntry>& log) {
  Json out = Json::array();
  for (const AuditEntry& e : log)
    out.push_back({{"at", e.at}, {"actor", e.actor}, {"action", e.action}, {"detail", e.detail}});
  return out;
}

// The tables with a game_id column but the outbox (which keeps mail that left), by name.
Result<std::vector<std::string>> game_tables(sql::Session& s) {
  const char* sql = s.dialect() == sql::Dialect::kSqlite
                        ? "SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) p "
                          "WHERE m.type = 'table' AND p.name = 'game_id' ORDER BY m.name"
                        : "SELECT table_name::text FROM information_schema.columns "
                          "WHERE table_schema = current_schema() AND column_name = 'game_id' "
                          "ORDER BY table_name COLLATE \"C\"";
  ADJ_TRY(const sql::Rows r, s.query(sql, {}));
  std::vector<std::string> out;
  for (int i = 0; i < r.size(); ++i)
    if (r.text(i, 0) != "outbox") out.push_back(r.text(i, 0));
  return out;
}

}  // namespace

Status SqlStore::refuse_archived(const std::string& game, const std::string& what) {
  ADJ_TRY(const sql::Rows r,
          session().query("SELECT archived_at FROM " + games_small_columns() + " WHERE id = ?",
                          {game}));
  if (!r.empty() && !r.is_null(0, 0))
    return Status::FailedPrecondition(archived_refusal(game, what));
  return Status::Ok();
}

Result<GameDeletion> SqlStore::delete_game(const std::string& game, const AuditEntry& record) {
  ADJ_RETURN_IF_ERROR(store_checks::check_audit_entry(record));
  sql::Session& s = session();
  return sql::with_retry(s, [&]() -> Result<GameDeletion> {
    ADJ_TRY(auto tx, sql::WriteTx::begin(s));
    // FOR UPDATE (not lock_rows()): the row is deleted below, and a writer that would add a row
    // of the game (its foreign key check) waits here rather than between the counts and the
    // delete.
    const std::string lock = s.dialect() == sql::Dialect::kPostgres ? " FOR UPDATE" : "";
    ADJ_TRY(const sql::Rows g,
            game_rows(game,
                      "SELECT name, open_turn, resolving_turn, resolving_since FROM games "
                      "WHERE id = ?" +
                          lock,
                      {game}));
    GameDeletion out;
    out.game = game;
    out.name = g.text(0, 0);
    ADJ_TRY(const sql::Rows ran,
            s.query("SELECT max(t) FROM (SELECT max(turn) AS t FROM turns WHERE game_id = ?1 "
                    "UNION ALL SELECT max(CAST(" +
                        json_member("detail_json", "turn") +
                        " AS BIGINT)) FROM audit_log WHERE game_id = ?1 AND action = 'run') x",
                    {game}));
    if (!ran.empty() && !ran.is_null(0, 0))
      return Status::FailedPrecondition(
          "game " + game + " has started (turn " + std::to_string(ran.int64(0, 0)) +
          " ran); archive it instead: an archived game leaves the game lists and stays readable. "
          "Nothing was deleted.");
    if (!g.is_null(0, 2) && g.int32(0, 2) == g.int32(0, 1) && !g.is_null(0, 3) &&
        g.int64(0, 3) + resolving_lease_seconds() > record.at)
      return Status::Unavailable("a turn of game " + game +
                                 " is being resolved right now; nothing was deleted");

    ADJ_TRY(const std::vector<std::string> tables, game_tables(s));
    for (const std::string& t : tables) {
      ADJ_TRY(
          const sql::Rows n,
          s.query("SELECT count(*) FROM " + quote_identifier(t) + " WHERE game_id = ?", {game}));
      if (n.int64(0, 0) > 0) out.rows[t] = n.int64(0, 0);
    }
    out.rows["games"] = 1;
    ADJ_TRY(const sql::Rows mail,
            s.query("SELECT count(*) FILTER (WHERE state = 'pending'), "
                    "count(*) FILTER (WHERE state <> 'pending') FROM outbox WHERE game_id = ?",
                    {game}));
    out.mail_dropped = mail.int64(0, 0);
    out.mail_kept = mail.int64(0, 1);
    ADJ_TRY(const std::vector<AuditEntry> log, audit_log(game));

    AuditEntry host = record;
    host.game = game;
    if (!host.detail.is_object()) host.detail = Json::object();
    host.detail["name"] = out.name;
    host.detail["removed"] = out.rows;
    host.detail["mail_dropped"] = out.mail_dropped;
    host.detail["mail_kept"] = out.mail_kept;
    host.detail["audit"] = audit_json(log);
    ADJ_TRY(out.host_audit_id, insert_host_audit(host));
    ADJ_RETURN_IF_ERROR(
        s.write("DELETE FROM outbox WHERE game_id = ? AND state = 'pending'", {game}));
    // Every other row of the game goes with it (ON DELETE CASCADE, in both schemas).
    ADJ_RETURN_IF_ERROR(s.write("DELETE FROM games WHERE id = ?", {game}));
    ADJ_RETURN_IF_ERROR(tx.commit());
    return out;
  });
}

Status SqlStore::set_archived(const std::string& game, std::optional<UnixTime> at) {
  return sql::changed_or(session().run("UPDATE games SET archived_at = ? WHERE id = ?", {at, game}),
                         Status::NotFound(no_such_game(game)));
}

}  // namespace adj
