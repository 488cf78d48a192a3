// SqlStore: MembershipStore (signups, confirmations, contacts; SQLite migrations 0010 and 0020,
// PostgreSQL 0003_mail.sql and 0010). add_signup and add_confirmation hold the game's row lock
// while they count, so concurrent requests never pass a bound together.
#include "base/ascii.h"
#include "storage/core/sql_store.h"

namespace adj {

namespace {

// add_confirmation's argument checks (InvalidArgument naming the field).
Status check_confirmation(const PendingConfirmation& c) {
  if (c.kind != "signup" && c.kind != "standby")
    return Status::InvalidArgument("a confirmation's kind must be signup or standby, not \"" +
                                   c.kind.substr(0, 16) + "\"");
  if (c.address.empty()) return Status::InvalidArgument("a confirmation needs an address");
  if (c.client.empty()) return Status::InvalidArgument("a confirmation needs a client");
  if (c.code_hash.size() != 64)
    return Status::InvalidArgument("a confirmation's code hash must have 64 characters");
  return Status::Ok();
}

// add_confirmation's Unavailable for the bound `which` ("client", "address" or "game") of `l`.
Status confirmation_limit(const std::string& which, const ConfirmationLimits& l) {
  if (which == "client")
    return Status::Unavailable("client: at most " + std::to_string(l.per_client) +
                               " requests per client in " + std::to_string(l.window / 60) +
                               " minutes");
  if (which == "address")
    return Status::Unavailable("address: at most " + std::to_string(l.per_address) +
                               " requests per address in " + std::to_string(l.window / 60) +
                               " minutes");
  return Status::Unavailable("game: at most " + std::to_string(l.per_game) +
                             " unconfirmed requests per game");
}

}  // namespace

Result<std::int64_t> SqlStore::add_signup(const Signup& s, int max) {
  if (s.email.empty()) return Status::InvalidArgument("a sign-up needs an address");
  return sql::with_retry(session(), [&]() -> Result<std::int64_t> {
    ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
    // Sign-ups of one game take turns here: the count below is the committed one.
    ADJ_RETURN_IF_ERROR(require_game_row(s.game, /*lock=*/true));
    ADJ_RETURN_IF_ERROR(refuse_archived(s.game, "sign-ups"));
    ADJ_TRY(sql::Rows dup,
            session().query("SELECT 1 FROM signups WHERE game_id = ?1 AND email_key = ?2",
                            {s.game, ascii::lower(s.email)}));
    if (!dup.empty()) return Status::AlreadyExists(s.email + " is already on the sign-up list");
    ADJ_TRY(sql::Rows count,
            session().query("SELECT count(*) FROM signups WHERE game_id = ?1", {s.game}));
    if (!count.empty() && count.int64(0, 0) >= max)
      return Status::FailedPrecondition("the sign-up list is full (" + std::to_string(max) +
                                        " sign-ups)");
    ADJ_TRY(sql::Rows id,
            session().query("INSERT INTO signups(game_id, email, email_key, preferences, "
                            "channel, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
                            "RETURNING id",
                            {s.game, s.email, ascii::lower(s.email),
                             ascii::joined(s.preferences, ' '), s.channel, s.created_at}));
    ADJ_RETURN_IF_ERROR(tx.commit());
    return id.int64(0, 0);
  });
}

Result<std::vector<Signup>> SqlStore::signups(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(sql::Rows r,
          session().query("SELECT id, game_id, email, preferences, state, player, channel, "
                          "created_at FROM signups WHERE game_id = ?1 ORDER BY id",
                          {game}));
  return sql::map_rows(r, [](const sql::Rows& r, int i) {
    Signup s;
    r.read(i, s.id, s.game, s.email, sql::Skip{}, s.state, s.player, s.channel, s.created_at);
    s.preferences = ascii::words(r.text(i, 3));
    return s;
  });
}

Status SqlStore::set_signup_state(const std::string& game, std::int64_t id,
                                  const std::string& state, const std::string& player) {
  return sql::changed_or(session().run("UPDATE signups SET state = ?1, player = ?2 "
                                       "WHERE game_id = ?3 AND id = ?4",
                                       {state, player, game, id}),
                         Status::NotFound("sign-up " + std::to_string(id)));
}

Status SqlStore::remove_signup(const std::string& game, std::int64_t id) {
  return sql::changed_or(
      session().run("DELETE FROM signups WHERE game_id = ?1 AND id = ?2", {game, id}),
      Status::NotFound("sign-up " + std::to_string(id)));
}

Result<std::int64_t> SqlStore::add_confirmation(const PendingConfirmation& c,
                                                const ConfirmationLimits& l) {
  ADJ_RETURN_IF_ERROR(check_confirmation(c));
  return sql::with_retry(session(), [&]() -> Result<std::int64_t> {
    ADJ_TRY(auto tx, sql::WriteTx::begin(session()));
    // Requests for one game take turns here (the game's row lock), so its counts are the
    // committed ones; the per-client and per-address counts may miss a request of another
    // game committing at the same instant (at most one per concurrent connection).
    ADJ_RETURN_IF_ERROR(require_game_row(c.game, /*lock=*/true));
    ADJ_RETURN_IF_ERROR(refuse_archived(c.game, "sign-ups"));
    ADJ_RETURN_IF_ERROR(
        session().write("DELETE FROM confirmations WHERE expires_at <= ?1", {c.created_at}));
    const UnixTime since = c.created_at - l.window;
    ADJ_TRY(sql::Rows by_client,
            session().query("SELECT count(*) FROM confirmations WHERE client = ?1 AND "
                            "created_at > ?2",
                            {c.client, since}));
    if (by_client.int64(0, 0) >= l.per_client) return confirmation_limit("client", l);
    ADJ_TRY(sql::Rows by_address,
            session().query("SELECT count(*) FROM confirmations WHERE address_key = ?1 AND "
                            "created_at > ?2",
                            {ascii::lower(c.address), since}));
    if (by_address.int64(0, 0) >= l.per_address) return confirmation_limit("address", l);
    ADJ_TRY(sql::Rows by_game,
            session().query("SELECT count(*) FROM confirmations WHERE game_id = ?1 AND "
                            "confirmed_at IS NULL AND expires_at > ?2",
                            {c.game, c.created_at}));
    if (by_game.int64(0, 0) >= l.per_game) return confirmation_limit("game", l);
    ADJ_TRY(sql::Rows id,
            session().query("INSERT INTO confirmations(game_id, kind, address, address_key, "
                            "client, payload, code_hash, created_at, expires_at) VALUES "
                            "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING id",
                            {c.game, c.kind, c.address, ascii::lower(c.address), c.client,
                             c.payload, c.code_hash, c.created_at, c.expires_at}));
    ADJ_RETURN_IF_ERROR(tx.commit());
    return id.int64(0, 0);
  });
}

Result<std::optional<PendingConfirmation>> SqlStore::use_confirmation(const std::string& code_hash,
                                                                      UnixTime now) {
  // One statement: of two concurrent uses of one code, the second finds it confirmed.
  ADJ_TRY(sql::Rows r,
          session().query("UPDATE confirmations SET confirmed_at = ?2 WHERE code_hash = "
                          "?1 AND confirmed_at IS NULL AND expires_at > ?2 RETURNING id, "
                          "game_id, kind, address, client, payload, code_hash, "
                          "created_at, expires_at",
                          {code_hash, now}));
  if (r.empty()) return std::optional<PendingConfirmation>();
  PendingConfirmation c;
  r.read(0, c.id, c.game, c.kind, c.address, c.client, c.payload, c.code_hash, c.created_at,
         c.expires_at);
  c.confirmed_at = now;
  return std::optional<PendingConfirmation>(std::move(c));
}

Status SqlStore::set_contact(const std::string& game, const Contact& c) {
  if (c.player.empty()) return Status::InvalidArgument("a contact needs a player code");
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  // A game deleted meanwhile fails the foreign key (FailedPrecondition).
  return session().write(
      "INSERT INTO contacts(game_id, player, email, name, updated_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (game_id, player) DO UPDATE "
      "SET email = excluded.email, name = excluded.name, "
      "updated_at = excluded.updated_at",
      {game, c.player, c.email, c.name, c.updated_at});
}

Result<std::vector<Contact>> SqlStore::contacts(const std::string& game) {
  ADJ_RETURN_IF_ERROR(require_game_row(game));
  ADJ_TRY(sql::Rows r, session().query("SELECT player, email, name, updated_at FROM contacts "
                                       "WHERE game_id = ?1 ORDER BY player" +
                                           std::string(session().bytewise()),
                                       {game}));
  return sql::map_rows(r, [](const sql::Rows& r, int i) {
    return Contact{r.text(i, 0), r.text(i, 1), r.text(i, 2), r.int64(i, 3)};
  });
}

}  // namespace adj
