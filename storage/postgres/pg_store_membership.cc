// PgStore: MembershipStore over schemas/pg/0003_mail.sql (signups, contacts); pg_store.cc applies
// the contacts to loaded states. Behaves as sqlite_store_membership.cc. add_signup holds the game's
// row lock while it counts, so concurrent sign-ups never pass `max` together.
#include <cctype>
#include <sstream>

#include "base/ascii.h"
#include "storage/core/record_checks.h"
#include "storage/postgres/pg_store.h"

namespace adj {

using store_checks::join_words;
using store_checks::split_words;
namespace {

using pg::Rows;

}  // namespace

Result<std::int64_t> PgStore::add_signup(const Signup& s, int max) {
  if (s.email.empty()) return Status::InvalidArgument("a sign-up needs an address");
  return pg::with_retry([&]() -> Result<std::int64_t> {
    ADJ_TRY(auto tx, pg::Transaction::begin(conn_));
    // Sign-ups of one game take turns here: the count below is the committed one.
    ADJ_TRY(Rows game,
            conn_.query("SELECT 1 FROM games WHERE id = $1 FOR NO KEY UPDATE", {s.game}));
    if (game.empty()) {
      Status missing = require_game(s.game);
      return missing.ok() ? Status::NotFound("game " + s.game) : missing;
    }
    ADJ_TRY(Rows dup, conn_.query("SELECT 1 FROM signups WHERE game_id = $1 AND email_key = $2",
                                  {s.game, ascii::lower(s.email)}));
    if (!dup.empty()) return Status::AlreadyExists(s.email + " is already on the sign-up list");
    ADJ_TRY(Rows count, conn_.query("SELECT count(*) FROM signups WHERE game_id = $1", {s.game}));
    if (!count.empty() && count.int64(0, 0) >= max)
      return Status::FailedPrecondition("the sign-up list is full (" + std::to_string(max) +
                                        " sign-ups)");
    ADJ_TRY(Rows id, conn_.query("INSERT INTO signups(game_id, email, email_key, preferences, "
                                 "channel, created_at) VALUES ($1, $2, $3, $4, $5, $6) "
                                 "RETURNING id",
                                 {s.game, s.email, ascii::lower(s.email), join_words(s.preferences),
                                  s.channel, s.created_at}));
    ADJ_RETURN_IF_ERROR(tx.commit());
    return id.int64(0, 0);
  });
}

Result<std::vector<Signup>> PgStore::signups(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(Rows r, conn_.query("SELECT id, game_id, email, preferences, state, player, channel, "
                              "created_at FROM signups WHERE game_id = $1 ORDER BY id",
                              {game}));
  std::vector<Signup> out;
  out.reserve(static_cast<std::size_t>(r.size()));
  for (int i = 0; i < r.size(); ++i) {
    Signup s;
    s.id = r.int64(i, 0);
    s.game = r.text(i, 1);
    s.email = r.text(i, 2);
    s.preferences = split_words(r.text(i, 3));
    s.state = r.text(i, 4);
    s.player = r.text(i, 5);
    s.channel = r.text(i, 6);
    s.created_at = r.int64(i, 7);
    out.push_back(std::move(s));
  }
  return out;
}

Status PgStore::set_signup_state(const std::string& game, std::int64_t id, const std::string& state,
                                 const std::string& player) {
  ADJ_TRY(std::int64_t n, conn_.run("UPDATE signups SET state = $1, player = $2 "
                                    "WHERE game_id = $3 AND id = $4",
                                    {state, player, game, id}));
  if (n == 0) return Status::NotFound("sign-up " + std::to_string(id));
  return Status::Ok();
}

Status PgStore::remove_signup(const std::string& game, std::int64_t id) {
  ADJ_TRY(std::int64_t n,
          conn_.run("DELETE FROM signups WHERE game_id = $1 AND id = $2", {game, id}));
  if (n == 0) return Status::NotFound("sign-up " + std::to_string(id));
  return Status::Ok();
}

Result<std::int64_t> PgStore::add_confirmation(const PendingConfirmation& c,
                                               const ConfirmationLimits& l) {
  ADJ_RETURN_IF_ERROR(store_checks::check_confirmation(c));
  return pg::with_retry([&]() -> Result<std::int64_t> {
    ADJ_TRY(auto tx, pg::Transaction::begin(conn_));
    // Requests for one game take turns here (the game's row lock), so its counts are the
    // committed ones; the per-client and per-address counts may miss a request of another
    // game committing at the same instant (at most one per concurrent connection).
    ADJ_TRY(Rows game,
            conn_.query("SELECT 1 FROM games WHERE id = $1 FOR NO KEY UPDATE", {c.game}));
    if (game.empty()) {
      Status missing = require_game(c.game);
      return missing.ok() ? Status::NotFound("game " + c.game) : missing;
    }
    ADJ_TRY(std::int64_t purged,
            conn_.run("DELETE FROM confirmations WHERE expires_at <= $1", {c.created_at}));
    (void)purged;
    const UnixTime since = c.created_at - l.window;
    ADJ_TRY(Rows by_client, conn_.query("SELECT count(*) FROM confirmations WHERE client = $1 AND "
                                        "created_at > $2",
                                        {c.client, since}));
    if (by_client.int64(0, 0) >= l.per_client) return store_checks::confirmation_limit("client", l);
    ADJ_TRY(Rows by_address,
            conn_.query("SELECT count(*) FROM confirmations WHERE address_key = $1 AND "
                        "created_at > $2",
                        {ascii::lower(c.address), since}));
    if (by_address.int64(0, 0) >= l.per_address)
      return store_checks::confirmation_limit("address", l);
    ADJ_TRY(Rows by_game, conn_.query("SELECT count(*) FROM confirmations WHERE game_id = $1 AND "
                                      "confirmed_at IS NULL AND expires_at > $2",
                                      {c.game, c.created_at}));
    if (by_game.int64(0, 0) >= l.per_game) return store_checks::confirmation_limit("game", l);
    ADJ_TRY(Rows id, conn_.query("INSERT INTO confirmations(game_id, kind, address, address_key, "
                                 "client, payload, code_hash, created_at, expires_at) VALUES "
                                 "($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
                                 {c.game, c.kind, c.address, ascii::lower(c.address), c.client,
                                  c.payload, c.code_hash, c.created_at, c.expires_at}));
    ADJ_RETURN_IF_ERROR(tx.commit());
    return id.int64(0, 0);
  });
}

Result<std::optional<PendingConfirmation>> PgStore::use_confirmation(const std::string& code_hash,
                                                                     UnixTime now) {
  // One statement: of two concurrent uses of one code, the second finds it confirmed.
  ADJ_TRY(Rows r, conn_.query("UPDATE confirmations SET confirmed_at = $2 WHERE code_hash = "
                              "$1 AND confirmed_at IS NULL AND expires_at > $2 RETURNING id, "
                              "game_id, kind, address, client, payload, code_hash, "
                              "created_at, expires_at",
                              {code_hash, now}));
  if (r.empty()) return std::optional<PendingConfirmation>();
  PendingConfirmation c;
  c.id = r.int64(0, 0);
  c.game = r.text(0, 1);
  c.kind = r.text(0, 2);
  c.address = r.text(0, 3);
  c.client = r.text(0, 4);
  c.payload = r.text(0, 5);
  c.code_hash = r.text(0, 6);
  c.created_at = r.int64(0, 7);
  c.expires_at = r.int64(0, 8);
  c.confirmed_at = now;
  return std::optional<PendingConfirmation>(std::move(c));
}

Status PgStore::set_contact(const std::string& game, const Contact& c) {
  if (c.player.empty()) return Status::InvalidArgument("a contact needs a player code");
  ADJ_RETURN_IF_ERROR(require_game(game));
  // A game deleted meanwhile fails the foreign key (FailedPrecondition).
  ADJ_TRY(std::int64_t n,
          conn_.run("INSERT INTO contacts(game_id, player, email, name, updated_at) "
                    "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (game_id, player) DO UPDATE "
                    "SET email = excluded.email, name = excluded.name, "
                    "updated_at = excluded.updated_at",
                    {game, c.player, c.email, c.name, c.updated_at}));
  (void)n;
  return Status::Ok();
}

Result<std::vector<Contact>> PgStore::contacts(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game(game));
  ADJ_TRY(Rows r, conn_.query("SELECT player, email, name, updated_at FROM contacts "
                              "WHERE game_id = $1 ORDER BY player COLLATE \"C\"",
                              {game}));
  std::vector<Contact> out;
  out.reserve(static_cast<std::size_t>(r.size()));
  for (int i = 0; i < r.size(); ++i)
    out.push_back(Contact{r.text(i, 0), r.text(i, 1), r.text(i, 2), r.int64(i, 3)});
  return out;
}

}  // namespace adj
