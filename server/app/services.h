// Application services: what every front end (command line, web, email) calls. They tie the pure
// rules library to the stores; nothing here knows about sockets, HTTP or SMTP.
//
// Thread-safety: a Services object uses its stores from the calling thread; create one per thread.
// Ownership: the stores and the clock are borrowed and must outlive the Services object.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rules/combat/engine_resolver.h"
#include "rules/game/victory.h"
#include "rules/orders/validator.h"
#include "rules/turn/turn_resolver.h"
#include "storage/credential_store.h"
#include "storage/engine_script_store.h"
#include "storage/game_store.h"
#include "storage/notice_store.h"

namespace adj {

struct Stores {
  GameStore& games;
  SubmissionStore& submissions;
  ReportStore& reports;
  CredentialStore& credentials;
  NoticeStore& notices;
  EngineScriptStore& scripts;  // the scripts of games whose engine is a Lua script
};

struct GameHistory;

using Clock = std::function<UnixTime()>;

// Server-side limits of sign-in sessions (docs/security.md): a session unused for idle_seconds,
// or older than absolute_seconds, is refused and removed. A use is recorded at most once per
// touch_seconds, so reading pages is not a write per request.
struct SessionLimits {
  std::int64_t idle_seconds = 14 * 86400;      // --session-idle-days
  std::int64_t absolute_seconds = 30 * 86400;  // --session-max-days
  std::int64_t touch_seconds = 60;
};

// What a turn run (or preview) produced.
struct TurnRunOutcome {
  int turn = 0;
  bool preview = false;
  std::string digest;
  std::vector<std::string> players_without_orders;
  // A preview's reports: each player's own report (text without the roundup). Empty after a
  // committed run: its reports went to the store as they were written (ReportStore::report
  // reads them back, Services::report with the roundup).
  std::vector<ReportRecord> reports;
  Json roundup;  // the turn's shared roundup (report.h build_roundup)
  // Wall time of each phase in milliseconds: load, orders, resolve, reports, commit.
  std::vector<std::pair<std::string, double>> phase_ms;
  TurnResult result;
  // Set when the run ended the game (rules/game/victory.h): stored with the turn record as
  // summary "ending"; committing it makes the game "finished" (server/app/ending.h).
  std::optional<Ending> ending;

  // A player's full report text as they receive it: their report with the roundup.
  std::string full_text(const ReportRecord& r) const;
};

// The outcome of submitting (or checking) an order file.
struct SubmitOutcome {
  OrderAck ack;
  std::optional<std::int64_t> submission_id;  // set when stored
  // Set when the open turn changed while the file arrived (a turn was resolved or rolled back),
  // so the file was checked against, and applies to, ack.turn rather than the turn it was sent
  // for. Every front end shows it above the acknowledgement.
  std::string note;

  // The acknowledgement as a player reads it: the note (if any), then render_ack_text(ack).
  std::string text() const;
};

// Whether an order file counts as orders for its turn (one definition for the turn run's
// players_without_orders, reminders, submission status, the NMR guard and the scheduler's "all
// in"): accepted (not refused whole) with at least one order line carried out, or with no order
// line at all (a deliberate "hold everything"). A file whose every order line was rejected is no
// orders: its player is reminded and counted as missing.
bool counts_as_orders(const OrderAck& ack);
// The same for a stored submission (its acknowledgement JSON).
bool counts_as_orders(const SubmissionRecord& submission);

class Services {
 public:
  Services(Stores stores, Clock clock) : s_(stores), now_(std::move(clock)) {}
  // The stores this object uses (for other app services over the same stores).
  const Stores& stores() const { return s_; }

  // Creates a game from a scenario document. `seed` is used unless the scenario fixes one. A
  // scenario with errors (rules/game/scenario_lint.h scenario_errors: validate_scenario's, or a
  // terrain word, feature key or border flag the game does not read) is InvalidArgument "the
  // scenario is not valid:" with one "<path>: <message>" line per error; nothing is written.
  // Secrets are stored only as hashes (server/app/secrets.h), never in the stored scenario copy
  // or state. With `fresh_secrets` every player gets a new random secret (the scenario's are
  // ignored; for bundled scenarios, whose secrets are public); otherwise a player without a
  // secret in the scenario gets one. `issued` (when not null) receives each new secret by player
  // code: the only time they exist in clear.
  Result<GameSummary> create_game(const Json& scenario, Seed seed, bool fresh_secrets = false,
                                  std::map<std::string, std::string>* issued = nullptr);
  Result<std::vector<GameSummary>> list_games();
  // The game's open-turn state as the `game show --json` document, with "status" and, when the
  // game is archived, "archived_at". `typed`, when not null, receives the state it was made of.
  Result<Json> show_game(const std::string& game, GameState* typed = nullptr);
  // The game's summary; its state at the start of `turn` (the open turn when nullopt); its id as
  // stored (ids compare without regard to case). Errors as the GameStore's (NotFound).
  Result<GameSummary> game_summary(const std::string& game) { return s_.games.game_summary(game); }
  Result<GameState> load_state(const std::string& game, std::optional<int> turn = std::nullopt) {
    return s_.games.load_state(game, turn);
  }
  // The open-turn state's head and `player` alone (no areas, borders or other players): what a
  // page about one player reads of a big game. Errors as load_state.
  Result<GameState> load_player(const std::string& game, const std::string& player) {
    return s_.games.load_view(game, std::nullopt, {player}, {});
  }
  Result<std::string> stored_game_id(const std::string& game) {
    return s_.games.stored_game_id(game);
  }
  // Every file on record for `turn` (the latest per player, whether it counts as orders or not),
  // and every file the game ever stored, oldest first. Errors as the SubmissionStore's.
  Result<std::vector<SubmissionRecord>> files_on_record(const std::string& game, int turn) {
    return s_.submissions.current_submissions(game, turn);
  }
  Result<std::vector<SubmissionRecord>> all_files(const std::string& game) {
    return s_.submissions.all_submissions(game);
  }
  // game_history (history.h) of this game.
  Result<GameHistory> history(const std::string& game, int open_turn, int max_turns);

  // Validates an order file against the game's open turn; stores nothing.
  Result<SubmitOutcome> check_orders(const std::string& game, std::string_view text);
  // Validates and stores an order file (raw text, time, source, parsed form). A refused file is
  // kept for audit but never used as orders; an accepted one replaces the player's earlier file.
  // The file is stored only for the turn it was checked against, checked again in the storing
  // transaction: when the open turn changed meanwhile the file is checked against the new open
  // turn (SubmitOutcome::note says so); while the open turn is being resolved nothing is stored
  // and the answer is FailedPrecondition with the reason (send again after the run).
  Result<SubmitOutcome> submit_orders(const std::string& game, std::string_view text,
                                      const std::string& source);

  // For a front end that already knows the player (web sign-in, API token, JSON body): when the
  // file has no PLAYER line and `player` is not empty, "GAME <game>" (if missing) and "PLAYER
  // <player> ..." are put before it, and the acknowledgement's line numbers are those of `text`
  // as given. With a `secret` it is checked as any PLAYER line's; without one the caller vouches
  // that it has authenticated `player` (link token, sign-in session). A file with its own PLAYER
  // line is always checked by its secret. With check_only nothing is stored.
  Result<SubmitOutcome> submit_as(const std::string& game, const std::string& player,
                                  const std::optional<std::string>& secret, std::string_view text,
                                  const std::string& source, bool check_only);

  // The current files of `turn` that count as orders (counts_as_orders), one per player.
  Result<std::vector<SubmissionRecord>> orders_on_file(const std::string& game, int turn);

  // ---- Credentials: the one place every channel authenticates a player ----
  // Ok when `secret` is the player's secret (Argon2id verify, constant time; at most
  // SecretHashCost::max_concurrent run at once). PermissionDenied("wrong player code or secret")
  // for an unknown player, a player without a secret or a wrong secret; NotFound for an unknown
  // game. `player` is matched case-insensitively.
  Status authenticate_player(const std::string& game, const std::string& player,
                             std::string_view secret);
  // The limits token_owner and credential apply to sign-in sessions (defaults: SessionLimits).
  void set_session_limits(const SessionLimits& limits) { sessions_ = limits; }
  // The (game, player) a link or sign-in token belongs to. NotFound when unknown (also for
  // anything that is not a token, and for a session past its idle or absolute limit). Records the
  // session's use (at most once per SessionLimits::touch_seconds).
  Result<std::pair<std::string, std::string>> token_owner(const std::string& token);
  // The same with what the token is (TokenRecord::session: a sign-in session, else the link).
  Result<TokenRecord> credential(const std::string& token);
  // Ends every sign-in session of the player (sign-out; the link token stays).
  Status end_sessions(const std::string& game, const std::string& player);
  // A new link token for the player, replacing the previous link (sign-in sessions stay). The
  // token exists in clear only in the result. NotFound for an unknown game or player.
  Result<std::string> issue_link_token(const std::string& game, const std::string& player);
  // A new sign-in session token (the web cookie). NotFound for an unknown game or player.
  Result<std::string> new_session_token(const std::string& game, const std::string& player);
  // Revokes every token of the player (link and sessions, the caller's too) and issues a new link
  // token.
  Result<std::string> rotate_tokens(const std::string& game, const std::string& player);
  // Sets the player's secret and ends every sign-in session of the player except the session
  // `keep_token` (the caller's own, when it is one; the link token stays). InvalidArgument
  // (nothing changed) unless acceptable_secret.
  Status change_secret(const std::string& game, const std::string& player,
                       const std::string& new_secret, const std::string& keep_token = "");
  // A new random secret for the player (the GM's reset); returned once, stored hashed.
  Result<std::string> reset_secret(const std::string& game, const std::string& player);

  // Resolves the open turn with every player's current orders. With preview nothing is written;
  // otherwise the next state, battles and reports are committed in one transaction. A real run
  // first marks the turn as being resolved (GameStore::begin_resolving), so no file is accepted
  // for it that the run would not read; should the turn's files still change (a run that
  // outlived its lease), the commit is refused and the turn resolved again, up to
  // kRunAttempts times.
  Result<TurnRunOutcome> run_turn(const std::string& game, bool preview);
  // With `expected_turn`, the run (or preview) is for that turn only: when another turn is open
  // the answer is turn_guard.h stale_turn and nothing runs (the check is repeated by
  // begin_resolving, so two requests for the same turn never run two turns).
  Result<TurnRunOutcome> run_turn(const std::string& game, bool preview,
                                  std::optional<int> expected_turn);
  static constexpr int kRunAttempts = 3;
  Status rollback(const std::string& game, int turn);

  // A player's report of a resolved turn (the latest when turn is nullopt), as the player receives
  // it: the text includes the turn's roundup and the JSON carries it under "roundup".
  Result<ReportRecord> report(const std::string& game, const std::string& player,
                              std::optional<int> turn);
  // The roundup of a resolved turn (its turn record's summary "roundup"; an empty object when it
  // has none), and a player's report of that turn with it: report(game, player, turn) is the two
  // together. A caller mailing every report of a turn reads the roundup, whose turn record holds
  // the whole turn's summary, once.
  Result<Json> turn_roundup(const std::string& game, int turn);
  Result<ReportRecord> report(const std::string& game, const std::string& player, int turn,
                              const Json& roundup);

  // Queues a message the game sends on its own (storage/notice_store.h): created_at is set from
  // the clock; a notice whose dedupe key was used before is not queued again (Ok). The mail
  // layer delivers it later; nothing here waits for mail.
  Status notify(Notice n);

  // ---- Script engines (server/app/engine_catalog.h) ----
  // Stores `source` as the next version of a Lua game's script, used from the next turn run,
  // after check_script: InvalidArgument with the reason (too big, does not compile, or the
  // conformance suite's report) when it fails; FailedPrecondition for a game whose engine is
  // built in; NotFound for an unknown game. `who` is recorded ("gm:web", "gm:api", ...). The
  // result has no source.
  Result<EngineScript> upload_engine_script(const std::string& game, std::string_view source,
                                            const std::string& who);
  // The engine the game's next turn runs (for a Lua game its newest script version).
  Result<EngineHandle> engine_of(const std::string& game);
  // Every stored version of the game's script, oldest first, without the sources.
  Result<std::vector<EngineScript>> engine_scripts(const std::string& game);
  // Re-runs a stored battle from its logged input and seed; the result says whether it matches.
  Result<Json> replay_battle(const std::string& game, int turn, const std::string& battle_id);

 private:
  // One attempt of run_turn (see there); `used` receives the submission ids it resolved.
  Result<TurnRunOutcome> run_once(const std::string& game, bool preview,
                                  std::vector<std::int64_t>& used);
  // The upper-case code of a player of the game's open turn; NotFound otherwise.
  Result<std::string> player_code(const std::string& game, const std::string& player);
  Result<SubmitOutcome> check_or_submit(const std::string& game, std::string_view text,
                                        const std::string& source, bool store,
                                        const std::string& authenticated_player);

  Stores s_;
  Clock now_;
  SessionLimits sessions_;
};

}  // namespace adj
