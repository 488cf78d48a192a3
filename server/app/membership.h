// Joining, leaving and replacing: sign-ups for a game open for sign-ups, the start that assigns
// kingdoms to them, invitations, address changes and the GM's replacement of a player. Every
// channel (mail, web, JSON API, command line) calls these; nothing here knows about transports.
//
// Thread-safety: one Membership per thread (it borrows that thread's stores and Services).
//
// Errors carry a message a player or GM can read as is: what is wrong and what to do.
//   NotFound            unknown game, player or sign-up
//   InvalidArgument     a bad address, name or preference (named in the message)
//   FailedPrecondition  not in this game status (not open for sign-ups, already started), full list
//   AlreadyExists       the address is already on the sign-up list
//
// Audit log (AdminStore, actor as given; a player's own change has actor "player:<code>"):
//   signup-open  {from (status)}
//   approve      {signup, address}
//   signup-remove {signup, address}
//   assign       {player, address, preference_rank (1-based; null when no preference was free)}
//   start        {assigned, vacant: [codes], unassigned, seed_used: true}
//   invite       {address}
//   address      {player, from, to}           (never a secret)
//   replace      {player, from, to, name, why (the GM's reason, when given)} (never a secret)
//
// Mail: every message to players and addresses goes through Services::notify (kind "join",
// "invite", "address", "replace"), except new secrets, which are returned to the caller to be
// mailed privately (WebContext::secrets_issued -> MailIngest::queue_new_secrets) and never
// stored in clear.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/app/services.h"
#include "storage/admin_store.h"
#include "storage/membership_store.h"

namespace adj {

// What join() recorded.
struct JoinOutcome {
  std::string game;  // the stored game id
  std::string game_name;
  std::int64_t id = 0;
  int position = 0;  // 1-based place on the list
  int places = 0;    // positions in the game
  std::vector<std::string> preferences;
  // The answer for the player, in plain text (what happened and what comes next).
  std::string text;
};

// One sign-up given a position by start().
struct Assignment {
  std::string player;
  std::string email;
  std::optional<int> preference_rank;  // 1 = first choice; nullopt: no preference was free
};

struct StartOutcome {
  std::vector<Assignment> assigned;            // in the order they were assigned
  std::vector<std::string> vacant;             // positions nobody took
  std::vector<std::string> unassigned;         // addresses left without a position
  std::map<std::string, std::string> secrets;  // code -> new secret (in clear, mail it privately)
};

// What replace() did.
struct Replacement {
  std::string player;
  std::string old_email;
  std::string email;
  std::string secret;  // the position's new secret (in clear, mail it privately)
};

class Membership {
 public:
  static constexpr int kInviteValidDays = 14;
  // `base_url` (no trailing /) builds the links in invitations; "" leaves them out.
  Membership(Services& services, Stores stores, AdminStore& admin, MembershipStore& members,
             Clock clock, std::string base_url = "")
      : svc_(services),
        s_(stores),
        admin_(admin),
        m_(members),
        now_(std::move(clock)),
        base_url_(std::move(base_url)) {}

  // Ok for an address the server will mail: an addr-spec of at most 254 printable ASCII
  // characters, one '@', no spaces, line breaks or <>()[],;:\" (so it cannot inject a header).
  // InvalidArgument naming what is wrong otherwise.
  static Status check_address(std::string_view address);
  // The kingdoms named in `text` (codes or names, any case, separated by spaces or commas; a name
  // of several words may be written with spaces), as codes, most wanted first, duplicates
  // dropped. InvalidArgument naming the first word that is no kingdom, and listing the kingdoms.
  static Result<std::vector<std::string>> parse_preferences(const GameState& state,
                                                            std::string_view text);

  // Status "signup" for a game that has not started (status "open" or "paused" and no turn
  // resolved). FailedPrecondition otherwise.
  Status open_signups(const std::string& game, const std::string& actor);
  // Puts `email` on the sign-up list with its preferences (see parse_preferences). The game must
  // be in status "signup"; at most kSignupsPerPlace x places sign-ups; one per address.
  // Public channels do not call this directly but ask for a confirmation first
  // (server/app/confirmations.h); the GM's channels may.
  Result<JoinOutcome> join(const std::string& game, const std::string& email,
                           std::string_view preferences, const std::string& channel);
  // What join() checks before it records anything (errors as join's): the stored game id, its
  // name, the preferences as codes and as kingdom names, and the number of places. Says nothing
  // about the list.
  struct JoinCheck {
    std::string game;
    std::string game_name;
    std::vector<std::string> preferences;
    std::vector<std::string> preference_names;
    int places = 0;
  };
  Result<JoinCheck> check_join(const std::string& game, const std::string& email,
                               std::string_view preferences);
  // The GM removes sign-up `id` (audit signup-remove {signup, address}). NotFound for an
  // unknown sign-up; FailedPrecondition for one that was given a position (replace the player
  // instead).
  Status remove_signup(const std::string& game, std::int64_t signup, const std::string& actor);
  Result<std::vector<Signup>> signups(const std::string& game);
  // Marks a pending sign-up approved (approving twice is Ok). Status "signup" only.
  Status approve(const std::string& game, std::int64_t signup, const std::string& actor);
  // Assigns kingdoms and opens the game (status "signup" -> "open"). The sign-ups considered are
  // the approved ones, or every pending one when the GM approved none; the first `places` of them
  // by sign-up order get a position. Who chooses first is a shuffle seeded from the game's seed
  // (the same sign-ups always get the same kingdoms); each gets their most wanted kingdom still
  // free, else a free one. Each assigned position gets the address, a new random secret (in the
  // result) and has its old tokens revoked; vacant positions lose the scenario's address. Sign-ups
  // left out are told by notice (they may ask to stand by). FailedPrecondition when nobody can be
  // assigned.
  Result<StartOutcome> start(const std::string& game, const std::string& actor);
  // Sends `email` an invitation (notice) with a code that enrols it when used
  // (Confirmations::confirm: on the list, approved), valid kInviteValidDays, and how to join with
  // preferences by mail and on the web. Status "signup" only.
  Status invite(const std::string& game, const std::string& email, const std::string& actor);
  // Changes the address of a position; the old and the new address are told (notice). `actor`
  // is "gm" (or the GM's name) or "player:<code>". InvalidArgument for a bad address or the same
  // address.
  Status change_address(const std::string& game, const std::string& player,
                        const std::string& email, const std::string& actor);
  // Gives the position to someone else: the new address and the person's name, a new random
  // secret (returned), every old token revoked, the old address told (notice). `name` may be
  // empty (at most 100 characters, no control characters). `reason`, when not empty
  // (check_gm_reason, server/app/audit_log.h), is quoted to the old address and audited.
  Result<Replacement> replace(const std::string& game, const std::string& player,
                              const std::string& email, const std::string& name,
                              const std::string& actor, const std::string& reason = {});
  // The contacts of the game's positions (address and name), by player code.
  Result<std::vector<Contact>> contacts(const std::string& game);

  static constexpr int kSignupsPerPlace = 10;
  static constexpr std::size_t kMaxPreferencesText = 1000;

 private:
  // The stored id of `game`; NotFound("There is no game ...") otherwise.
  Result<std::string> game_id(const std::string& game);
  Status audit(const std::string& game, const std::string& actor, const std::string& action,
               Json detail);
  // Sign-up `id` of `game` (a stored game id); NotFound naming both when there is none.
  Result<Signup> signup_by_id(const std::string& game, std::int64_t id);
  // The game's summary when it has `status`; FailedPrecondition naming why not (`doing` is what
  // was asked), and archived_refusal when it is archived.
  Result<GameSummary> summary_in(const std::string& game, const std::string& status,
                                 const std::string& doing);
  // A generated world for its sign-ups (docs/worlds.md): made again for `joining` players (the
  // sign-ups start() will place) and stored as the game's opening, *state replaced; nothing when
  // the game is not such a world or already has that many positions (membership_world.cc).
  // FailedPrecondition when fewer than two players would join.
  Status fit_world_to_signups(const std::string& game, std::size_t joining, GameState* state,
                              const std::string& actor);

  Services& svc_;
  Stores s_;
  AdminStore& admin_;
  MembershipStore& m_;
  Clock now_;
  std::string base_url_;
};

}  // namespace adj
