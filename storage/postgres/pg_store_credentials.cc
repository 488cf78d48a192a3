// PgStore: the CredentialStore tables of schemas/pg/0002_admin.sql (secret hashes, token hashes).
// Behaviour, error codes and texts are SqliteStore's (storage/sqlite/sqlite_store_credentials.cc);
// the hash shapes are checked by the tables' CHECKs (InvalidArgument). PostgreSQL databases
// never held secrets in clear, so there is nothing to upgrade (pg_store.h).
#include <cstdint>

#include "storage/postgres/pg_store.h"
#include "storage/sqlite/messages.h"

#define ADJ_PG_CONCAT_INNER_(a, b) a##b
#define ADJ_PG_CONCAT_(a, b) ADJ_PG_CONCAT_INNER_(a, b)
#define ADJ_PG_TRY_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                     \
  if (!tmp.ok()) return tmp.status();    \
  lhs = std::move(tmp).value()
#define ADJ_PG_TRY(lhs, expr) ADJ_PG_TRY_IMPL_(ADJ_PG_CONCAT_(adj_pg_try_, __LINE__), lhs, expr)

namespace adj {

using pg::Param;

Result<std::string> PgStore::secret_hash(const std::string& game, const std::string& player) {
  ADJ_PG_TRY(const pg::Rows r, conn_.query("SELECT secret_hash FROM player_secrets "
                                           "WHERE game_id = $1 AND player = $2",
                                           {Param(game), Param(player)}));
  if (r.empty()) return Status::NotFound("no secret for player " + player + " in game " + game);
  return r.text(0, 0);
}

Status PgStore::set_secret_hash(const std::string& game, const std::string& player,
                                const std::string& hash, UnixTime now) {
  if (player.empty()) return Status::InvalidArgument("set_secret_hash: the player code is empty");
  ADJ_PG_TRY(const std::int64_t n,
             conn_.run("INSERT INTO player_secrets(game_id, player, secret_hash, changed_at) "
                       "SELECT id, $2::text, $3::text, $4::bigint FROM games WHERE id = $1 "
                       "ON CONFLICT (game_id, player) DO UPDATE SET "
                       "secret_hash = excluded.secret_hash, changed_at = excluded.changed_at",
                       {Param(game), Param(player), Param(hash), Param(now)}));
  if (n == 0) return Status::NotFound(no_such_game(game));
  return Status::Ok();
}

Status PgStore::set_link_token(const std::string& game, const std::string& player,
                               const std::string& token_hash, UnixTime now) {
  if (player.empty()) return Status::InvalidArgument("set_link_token: the player code is empty");
  // One statement replaces the player's link row (the partial unique index is the arbiter), so
  // two concurrent calls leave exactly one link: the later one's.
  ADJ_PG_TRY(const std::int64_t n,
             conn_.run("INSERT INTO player_token_hashes(token_hash, game_id, player, kind, "
                       "created_at) SELECT $3::text, id, $2::text, 'link', $4::bigint FROM games "
                       "WHERE id = $1 ON CONFLICT (game_id, player) WHERE kind = 'link' "
                       "DO UPDATE SET token_hash = excluded.token_hash, "
                       "created_at = excluded.created_at",
                       {Param(game), Param(player), Param(token_hash), Param(now)}));
  if (n == 0) return Status::NotFound(no_such_game(game));
  return Status::Ok();
}

Status PgStore::add_session_token(const std::string& game, const std::string& player,
                                  const std::string& token_hash, UnixTime now) {
  if (player.empty()) return Status::InvalidArgument("add_session_token: the player code is empty");
  ADJ_PG_TRY(auto tx, pg::Transaction::begin(conn_));
  ADJ_PG_TRY(const std::int64_t n,
             conn_.run("INSERT INTO player_token_hashes(token_hash, game_id, player, kind, "
                       "created_at) SELECT $3::text, id, $2::text, 'session', $4::bigint "
                       "FROM games WHERE id = $1",
                       {Param(game), Param(player), Param(token_hash), Param(now)}));
  if (n == 0) return Status::NotFound(no_such_game(game));
  // Keep the newest kMaxSessions. There is no rowid to order rows of equal created_at by
  // insertion: the new token counts as the newest of its second, the others by hash.
  ADJ_PG_TRY(const std::int64_t dropped,
             conn_.run("DELETE FROM player_token_hashes WHERE token_hash IN ("
                       "SELECT token_hash FROM player_token_hashes WHERE game_id = $1 "
                       "AND player = $2 AND kind = 'session' "
                       "ORDER BY created_at DESC, token_hash = $3 DESC, token_hash DESC "
                       "OFFSET $4::bigint)",
                       {Param(game), Param(player), Param(token_hash),
                        Param(std::int64_t{kMaxSessions})}));
  (void)dropped;
  return tx.commit();
}

Status PgStore::revoke_tokens(const std::string& game, const std::string& player) {
  return conn_
      .run("DELETE FROM player_token_hashes WHERE game_id = $1 AND player = $2",
           {Param(game), Param(player)})
      .status();
}

Result<std::pair<std::string, std::string>> PgStore::token_owner(const std::string& token_hash) {
  ADJ_PG_TRY(const pg::Rows r, conn_.query("SELECT game_id, player FROM player_token_hashes "
                                           "WHERE token_hash = $1",
                                           {Param(token_hash)}));
  if (r.empty()) return Status::NotFound("unknown player token");  // never echo the token
  return std::make_pair(r.text(0, 0), r.text(0, 1));
}

}  // namespace adj
