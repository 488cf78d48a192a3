// Press between players: who may send what to whom under the game's press options, storing each
// message (mailed to its recipients later, gathered in a digest per recipient:
// server/app/press_digest.h), and who may read which messages (a player's mailbox, the public
// press, the GM's view, the archive).
//
// Rules (every channel: mail PRESS blocks, the web inbox, the JSON API):
//   * Options (PressOptions): "none" refuses all press; "public" only to everyone; "private" also
//     to some kingdoms; "anonymous" also without the sender's name. Anonymous press never
//     reveals its sender to players: not in the mail (subject, text, headers, thread) nor on any
//     page or API answer; the GM sees the sender only when gm_reads_private.
//   * Press may be sent while the game is "signup", "open", "paused" or "held"; not once it is
//     "finished" (then every message belongs to the archive, readable by anyone).
//   * Recipients are kingdoms of the game named by code or name (case-insensitive); ALL is
//     everyone. The sender is never a recipient of their own message.
//   * The GM: "GM" names the game master (kGmPressCode in the store). A player may always write
//     to the GM alone (whatever the press level; never anonymously), and the GM may always write
//     to all or some kingdoms (send_as_gm), marked as from the GM. Messages to the GM are
//     forwarded to the GM's address (the game's, else the host's) as they arrive, and only the
//     GM and the sender ever read them: not the public press, not the archive.
//   * Bounds (PressLimits): body size, recipients, messages per player per turn, per game; each
//     refusal names the bound.
// Thread-safety: one Press per thread, like Services. Ownership: borrows its arguments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/app/services.h"
#include "storage/admin_store.h"
#include "storage/press_store.h"

namespace adj {

struct PressLimits {
  std::size_t max_body_bytes = 8 * 1024;
  PressBounds bounds;
};

// The GM's address of a game: its own when set, else `host_default` ("" for none).
inline std::string effective_gm_address(const PressOptions& o, const std::string& host_default) {
  return o.gm_address.empty() ? host_default : o.gm_address;
}

// A message to send: recipients as the sender wrote them (codes or names; "ALL" for everyone).
struct PressDraft {
  std::vector<std::string> to;
  bool anonymous = false;
  std::string body;
  std::string source;  // "web", "api", "email:<message-id>#<block>"
};

// A message as one reader may see it.
struct PressView {
  PressMessage message;  // sender "" when hidden from this reader
  std::string from;      // "Wessex (WSX)", or "anonymous"
  std::string to;        // "everyone", or "Mercia (MRC), Northumbria (NUM)"
  bool sent = false;     // the reader sent it
};

class Press {
 public:
  // `host_gm_address`: the GM's address of games that set none ("" for none).
  Press(Services& services, PressStore& store, Clock clock, AdminStore* audit = nullptr,
        PressLimits limits = {}, std::string host_gm_address = "")
      : services_(services),
        store_(store),
        now_(std::move(clock)),
        audit_(audit),
        limits_(limits),
        host_gm_address_(std::move(host_gm_address)) {}

  // Stores a message from `player` for the recipients' press pages and their next digest mail
  // (authenticated by the caller). Errors, each a sentence for the sender: NotFound (unknown game
  // or player), FailedPrecondition (press off, private or anonymous press not allowed, the game is
  // over, a bound reached), InvalidArgument (unknown recipient, empty or too long text, no
  // recipient).
  Result<PressView> send(const std::string& game, const std::string& player,
                         const PressDraft& draft);
  // Stores a message from the GM to all or some kingdoms (never anonymous; any press level; the
  // game not over). The same errors as send() otherwise.
  Result<PressView> send_as_gm(const std::string& game, const PressDraft& draft);
  // The messages to the GM, newest first (senders always named).
  Result<std::vector<PressView>> gm_inbox(const std::string& game);
  // The GM's address for `game`: its own, else the host's; "" when neither is set.
  Result<std::string> gm_address(const std::string& game);

  // The player's received and sent messages, newest first. A position's new player (the last
  // audit "replace", which a takeover makes too) sees of the private press before their start
  // nothing, unless the game's new_holder_reads_earlier says so (needs the audit store).
  Result<std::vector<PressView>> mailbox(const std::string& game, const std::string& player);
  // What anyone may read: press to everyone; once the game is finished, every message.
  // Newest first; anonymous senders stay hidden.
  Result<std::vector<PressView>> archive(const std::string& game);
  // The GM desk's view: every message when gm_reads_private (anonymous senders named), else
  // what archive() shows and the messages to and from the GM. Newest first.
  Result<std::vector<PressView>> gm_view(const std::string& game);

  Result<PressOptions> options(const std::string& game);
  // Sets the options (audited "press-options" by `actor` when an audit store is given).
  // InvalidArgument for an unknown level, naming the allowed ones.
  Status set_options(const std::string& game, const PressOptions& o, const std::string& actor);

  // The upper-case codes `names` stand for (codes or kingdom names, case-insensitive; "ALL"
  // alone for everyone: an empty list and *all = true). InvalidArgument naming what is unknown
  // and the kingdoms there are.
  static Result<std::vector<std::string>> resolve(const Json& state,
                                                  const std::vector<std::string>& names, bool* all);
  // "Wessex (WSX)" for a code of the game's state, "the GM" for kGmPressCode; the code alone
  // when unknown.
  static std::string label(const Json& state, const std::string& code);
  // A sentence describing the options for players ("Private press: ...").
  static std::string describe(const PressOptions& o);

  const PressLimits& limits() const { return limits_; }

  // When `player`'s present holder took the position over: nullopt for its first player, with
  // new_holder_reads_earlier, or without an audit store.
  Result<std::optional<UnixTime>> holder_since(const std::string& game, const std::string& player);

 private:
  PressView view(const Json& state, const PressMessage& m, const std::string& reader,
                 bool reveal) const;
  // The codes `draft` names (resolve), without `sender`; *all for ALL. InvalidArgument when it
  // names none, too many, or an unknown kingdom.
  static Result<std::vector<std::string>> recipients(const Json& state, const PressDraft& draft,
                                                     const std::string& sender, bool* all);
  // send() and send_as_gm(): `sender` a player code or kGmPressCode.
  Result<PressView> store_message(const Json& state, const std::string& game,
                                  const std::string& sender, const PressDraft& draft);
  // Mails a stored message to the GM's address (a notice; nothing when there is none).
  Status forward_to_gm(const Json& state, const PressMessage& m);

  Services& services_;
  PressStore& store_;
  Clock now_;
  AdminStore* audit_;
  PressLimits limits_;
  std::string host_gm_address_;
};

}  // namespace adj
