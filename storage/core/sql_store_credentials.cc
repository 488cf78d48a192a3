// SqlStore: the CredentialStore tables (SQLite migrations 0005 and 0021; PostgreSQL
// 0002_admin.sql and 0011_session_activity.sql): secret hashes, token hashes, session use. The
// hash shapes are checked by the tables' CHECKs (InvalidArgument). SQLite's one-time upgrade of
// databases written before 0005 stays with it (sqlite_store_credentials.cc).
#include "storage/core/messages.h"
#include "storage/core/sql_store.h"

namespace adj {

namespace {

// A refused write of a hash, without the values the server's detail quotes ("Failing row
// contains (...)", "Key (token_hash)=(...) already exists"): its code, what was refused and the
// SQLSTATE. Errors that quote no row (a lost connection, a timeout) pass as they are.
Status without_values(const Status& s, const std::string& what) {
  if (s.ok()) return s;
  const StatusCode c = s.code();
  if (c != StatusCode::kInvalidArgument && c != StatusCode::kAlreadyExists &&
      c != StatusCode::kFailedPrecondition)
    return s;
  std::string sqlstate;
  if (const auto at = s.message().find("(SQLSTATE "); at != std::string::npos)
    sqlstate = " " + s.message().substr(at, s.message().find(')', at) + 1 - at);
  const char* why = c == StatusCode::kAlreadyExists ? "the token hash is in use already"
                    : c == StatusCode::kInvalidArgument
                        ? "the value is not a hash of the stored form (or is empty)"
                        : "the game is gone";
  return Status(c, what + ": " + why + sqlstate);
}

// Runs `sql`, a write of a hash through the game's row with ?1 game, ?2 player, ?3 hash and
// ?4 now: InvalidArgument for an empty player, NotFound when the game does not exist.
Status put_hash(sql::Session& s, const std::string& what, std::string_view sql,
                const std::string& game, const std::string& player, const std::string& hash,
                UnixTime now) {
  if (player.empty()) return Status::InvalidArgument(what + ": the player code is empty");
  const Result<std::int64_t> n = s.run(sql, {game, player, hash, std::int64_t{now}});
  if (!n.ok()) return without_values(n.status(), what);
  return sql::changed_or(n, Status::NotFound(no_such_game(game)));
}

}  // namespace

Result<std::string> SqlStore::secret_hash(const std::string& game, const std::string& player) {
  ADJ_TRY(const sql::Rows r, session().query("SELECT secret_hash FROM player_secrets "
                                             "WHERE game_id = ?1 AND player = ?2",
                                             {game, player}));
  if (r.empty()) return Status::NotFound("no secret for player " + player + " in game " + game);
  return r.text(0, 0);
}

Status SqlStore::set_secret_hash(const std::string& game, const std::string& player,
                                 const std::string& hash, UnixTime now) {
  return put_hash(session(), "set_secret_hash",
                  "INSERT INTO player_secrets(game_id, player, secret_hash, changed_at) "
                  "SELECT id, CAST(?2 AS TEXT), CAST(?3 AS TEXT), CAST(?4 AS BIGINT) "
                  "FROM games WHERE id = ?1 "
                  "ON CONFLICT (game_id, player) DO UPDATE SET "
                  "secret_hash = excluded.secret_hash, changed_at = excluded.changed_at",
                  game, player, hash, now);
}

Status SqlStore::set_link_token(const std::string& game, const std::string& player,
                                const std::string& token_hash, UnixTime now) {
  // One statement replaces the player's link row (the partial unique index is the arbiter), so
  // two concurrent calls leave exactly one link: the later one's.
  return put_hash(session(), "set_link_token",
                  "INSERT INTO player_token_hashes(token_hash, game_id, player, kind, "
                  "created_at) SELECT CAST(?3 AS TEXT), id, CAST(?2 AS TEXT), 'link', "
                  "CAST(?4 AS BIGINT) FROM games "
                  "WHERE id = ?1 ON CONFLICT (game_id, player) WHERE kind = 'link' "
                  "DO UPDATE SET token_hash = excluded.token_hash, "
                  "created_at = excluded.created_at",
                  game, player, token_hash, now);
}

Status SqlStore::add_session_token(const std::string& game, const std::string& player,
                                   const std::string& token_hash, UnixTime now) {
  ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
  ADJ_RETURN_IF_ERROR(put_hash(session(), "add_session_token",
                               "INSERT INTO player_token_hashes(token_hash, game_id, player, kind, "
                               "created_at) SELECT CAST(?3 AS TEXT), id, CAST(?2 AS TEXT), "
                               "'session', CAST(?4 AS BIGINT) FROM games WHERE id = ?1",
                               game, player, token_hash, now));
  // Keep the newest kMaxSessions: of equal created_at, the new token counts as the newest and
  // the others go by hash (PostgreSQL has no rowid to order by insertion).
  ADJ_RETURN_IF_ERROR(
      session().write("DELETE FROM player_token_hashes WHERE token_hash IN ("
                      "SELECT token_hash FROM player_token_hashes WHERE game_id = ?1 "
                      "AND player = ?2 AND kind = 'session' "
                      "ORDER BY created_at DESC, token_hash = ?3 DESC, token_hash DESC "
                      "LIMIT ?5 OFFSET ?4)",
                      {game, player, token_hash, kMaxSessions, sql::limit_param(-1)}));
  return tx.commit();
}

Status SqlStore::revoke_tokens(const std::string& game, const std::string& player) {
  return session().write("DELETE FROM player_token_hashes WHERE game_id = ?1 AND player = ?2",
                         {game, player});
}

Result<TokenRecord> SqlStore::token_record(const std::string& token_hash) {
  ADJ_TRY(const sql::Rows r,
          session().query("SELECT t.game_id, t.player, t.kind, t.created_at, "
                          "COALESCE(a.last_used_at, t.created_at) "
                          "FROM player_token_hashes t LEFT JOIN session_activity a "
                          "ON a.token_hash = t.token_hash WHERE t.token_hash = ?1",
                          {token_hash}));
  if (r.empty()) return Status::NotFound("unknown player token");  // never echo the token
  TokenRecord out;
  r.read(0, out.game, out.player, sql::Skip{}, out.created_at, out.last_used_at);
  out.session = r.text(0, 2) == "session";
  return out;
}

Status SqlStore::touch_session(const std::string& token_hash, UnixTime now) {
  return session().write(
      "INSERT INTO session_activity AS a (token_hash, last_used_at) "
      "SELECT token_hash, CAST(?2 AS BIGINT) FROM player_token_hashes "
      "WHERE token_hash = ?1 AND kind = 'session' "
      "ON CONFLICT (token_hash) DO UPDATE SET "
      "last_used_at = CASE WHEN excluded.last_used_at > a.last_used_at THEN "
      "excluded.last_used_at ELSE a.last_used_at END",
      {token_hash, std::int64_t{now}});
}

Status SqlStore::revoke_sessions(const std::string& game, const std::string& player,
                                 const std::string& keep_hash) {
  return session().write(
      "DELETE FROM player_token_hashes WHERE game_id = ?1 AND player = ?2 "
      "AND kind = 'session' AND token_hash <> ?3",
      {game, player, keep_hash});
}

}  // namespace adj
