// Attendance: missed turns, civil disorder, standby players, takeovers and absences. Every
// channel (mail, web, JSON API, command line) and the scheduler call these; no transports here.
//
// Missed turns. A player missed a resolved turn when its turn record lists them in
// summary.players_without_orders. The count shown is the run of consecutive misses ending with
// the last resolved turn (from the turn a takeover happened on; at most kLookback turns back),
// so a rollback changes it with the records. Misses on a UTC day inside one of the player's
// declared absences are excused: shown, but not counted toward civil disorder.
//
// Civil disorder. After a committed run (GameAdmin::finish_run -> after_run), a position whose
// counted misses reach the game's civil_disorder_after (0: never) goes into civil disorder from
// the next open turn: it holds (a player without orders moves nothing), it does not count for the
// NMR guard nor for "every order is in", the player is told (notice "disorder"), and each
// address on the standby list gets a takeover offer (notice "takeover") with its own code.
// A rollback to before that turn ends the disorder with it (disorder_turn > open turn).
//
// Takeover codes: new_secret() text, stored as hash_token (never in clear except the offer mail
// or the GM's one-time page), single use, bound to game and position, valid takeover_code_days;
// a takeover voids the position's other codes. A code opens the position only while it is open:
// an offered code (standby) only while the position is still in civil disorder; any code is void
// once an accepted order file for the position arrived after it was issued (from the first turn
// in disorder on), or once the player or the GM acted on the position since (audit replace,
// address, reset, token, orders, secret, absence). Derived from the stores at each attempt, so
// every channel that accepts orders or acts voids it. A void code gets FailedPrecondition "... no
// longer open for takeover ..." (not counted as a guess). Callers throttle code guesses
// (auth_throttle.h) with the account key takeover_throttle_key(game, kingdom).
//
// Absences. A player declares inclusive UTC dates; with absence_extends, a deadline that passes
// on a day inside the absence of a player who has no orders in (and is not in disorder) is
// extended once per turn, to the same time of day after the absence, by at most
// absence_max_days (audit "extend", reason "absence").
//
// Audit log (AdminStore; actor as given):
//   attendance      {options}                          the GM changed the policy
//   civil-disorder  {player, turn (first turn in disorder), missed, offers}
//   standby         {address}                          actor "standby"
//   standby-remove  {address}                          the GM removed it
//   takeover-code   {player, expires}                  (never the code)
//   takeover        {player, to (address), channel}
//   absence         {player, from, to}
//   extend          {from, to, reason: "absence", turn, players, message} (actor "scheduler")
//
// Thread-safety: one Attendance per thread (it borrows that thread's stores).
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "server/app/services.h"
#include "storage/admin_store.h"
#include "storage/attendance_store.h"

namespace adj {

// One position's attendance at the open turn.
struct PlayerAttendance {
  std::string player;
  std::string name;
  int missed = 0;   // consecutive missed turns up to the last resolved one
  int counted = 0;  // of those, the ones outside a declared absence
  bool disorder = false;
  std::optional<int> disorder_since;  // the first turn in disorder
  std::vector<Absence> absences;      // declared and not over yet (to >= today)
  // "2026-12-01 to 2026-12-05" for each absence, joined with ", "; "" when none.
  std::string absence_text() const;
};
Json to_json(const PlayerAttendance& p);
Json to_json(const AttendanceOptions& o);

// What a takeover did; `secret` is the position's new secret in clear: mail it privately.
struct TakeoverOutcome {
  std::string game;
  std::string player;
  std::string email;
  std::string secret;
};

// Gives a position to `email` with a new secret (Membership::replace). Set by the caller, so this
// layer does not depend on how members are stored.
using Replacer =
    std::function<Result<TakeoverOutcome>(const std::string& game, const std::string& player,
                                          const std::string& email, const std::string& actor)>;

// The throttle account key of takeover-code guesses for one position.
std::string takeover_throttle_key(const std::string& game, const std::string& kingdom);

class Attendance {
 public:
  // `base_url` (no trailing /) builds the web links in offers; "" leaves them out.
  Attendance(Services& services, Stores stores, AdminStore& admin, AttendanceStore& store,
             Clock clock, std::string base_url = "")
      : svc_(services),
        s_(stores),
        admin_(admin),
        a_(store),
        now_(std::move(clock)),
        base_url_(std::move(base_url)) {}

  // InvalidArgument naming the field and its range: civil_disorder_after 0..20, absence_max_days
  // 0..60, absence_max_per_game 0..50, takeover_code_days 1..60.
  static Status validate(const AttendanceOptions& o);
  // Reads options from JSON (only the fields present change `o`); InvalidArgument naming an
  // unknown field or a value of the wrong type.
  static Status merge_json(const Json& j, AttendanceOptions& o);

  Result<AttendanceOptions> options(const std::string& game);
  Status set_options(const std::string& game, const AttendanceOptions& o, const std::string& actor);

  // Every position of the open turn, in the state's player order.
  Result<std::vector<PlayerAttendance>> players(const std::string& game);
  // As above, from `open`: the game's open-turn state as load_state gives it (after_run passes
  // the state the run just committed, so the game is not loaded a second time).
  Result<std::vector<PlayerAttendance>> players(const std::string& game, const GameState& open);
  // The positions in civil disorder at the open turn.
  Result<std::set<std::string>> in_disorder(const std::string& game);

  // After a committed run of out.turn: civil disorder where due (see above).
  Status after_run(const std::string& game, const TurnRunOutcome& out, const std::string& actor);
  // For the scheduler when the open turn `turn` is due: extends the deadline for an absence
  // (see above); the message when it did, "" when not.
  Result<std::string> extend_for_absence(const std::string& game, int turn);

  // Declares an absence of `player` (dates YYYY-MM-DD, inclusive, UTC). InvalidArgument for bad
  // dates (from after to, to in the past, longer than kMaxAbsenceDays, more than a year ahead),
  // FailedPrecondition past absence_max_per_game or when the game is over.
  Result<Absence> declare_absence(const std::string& game, const std::string& player,
                                  const std::string& from, const std::string& to,
                                  const std::string& actor);

  // Puts `address` on the standby list (at most kMaxStandby per game) and tells it (notice
  // "standby", once per address and game). Returns the answer text for the caller to show.
  // With notify false no notice is queued (the mail channel answers the sender itself). Public
  // channels come here only once the address confirmed (server/app/confirmations.h), so only
  // confirmed addresses count toward kMaxStandby and get takeover offers.
  Result<std::string> standby(const std::string& game, const std::string& address,
                              bool notify = true);
  Result<std::vector<StandbyEntry>> standby_list(const std::string& game);
  // The GM removes `address` (any case) from the standby list (audit standby-remove {address}).
  // NotFound when it is not on the list.
  Status remove_standby(const std::string& game, const std::string& address,
                        const std::string& actor);

  // A new takeover code for `player` (the GM's; any position); returned once, stored hashed.
  Result<std::string> issue_code(const std::string& game, const std::string& player,
                                 const std::string& actor);

  // Takes `kingdom` over for `email` with `code` (see above): PermissionDenied("... wrong, used
  // or expired ...") when the code does not fit; FailedPrecondition when the code is void (the
  // position is no longer open) or the game is over or has not started; NotFound for an unknown
  // kingdom; InvalidArgument for a bad address.
  Result<TakeoverOutcome> takeover(const std::string& game, const std::string& kingdom,
                                   const std::string& code, const std::string& email,
                                   const Replacer& replace, const std::string& channel);

  static constexpr int kLookback = 50;
  static constexpr int kMaxStandby = 20;
  static constexpr int kMaxAbsenceDays = 90;

 private:
  Status audit(const std::string& game, const std::string& actor, const std::string& action,
               Json detail);
  // The open-turn state of `game`; NotFound listing the kingdoms when it has no `code`.
  Result<GameState> state_with(const std::string& game, const std::string& code);
  // A new code for game/player offered to `address` ("" for the GM's); the code in clear.
  Result<std::string> new_code(const std::string& game, const std::string& player,
                               const std::string& address, const std::string& actor,
                               int valid_days);
  // Why the position of the genuine, unused code `c` is no longer open (see above); "" when
  // it is. `open_turn`: the game's open turn.
  Result<std::string> closed_reason(const std::string& game, const TakeoverCode& c, int open_turn);
  std::string takeover_instructions(const std::string& game, const std::string& player,
                                    const std::string& code) const;

  Services& svc_;
  Stores s_;
  AdminStore& admin_;
  AttendanceStore& a_;
  Clock now_;
  std::string base_url_;
};

// Civil date helpers (UTC): "YYYY-MM-DD" <-> days since 1970-01-01. nullopt for text that is not
// a real date.
std::optional<std::int64_t> days_of(const std::string& ymd);
std::string ymd_of_days(std::int64_t days);
std::string ymd_of(UnixTime t);

}  // namespace adj
