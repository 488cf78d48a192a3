// Messages the game sends on its own to players or addresses (press, sign-up answers, takeover
// offers, rollback notices, corrected reports, final standings, "the GM entered your orders"):
// a durable queue between the application, which appends a notice in the same database as the
// action that caused it, and the mail layer, which turns each pending notice into outbox mail
// (server/mail/mail_ingest.h deliver_notices). One-way: the application never waits for mail.
// Thread-safety: as the other stores, one object per thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rules/core/status.h"
#include "storage/records.h"

namespace adj {

struct Notice {
  std::int64_t id = 0;  // assigned by the store
  std::string game;
  // Outbox kind and what the message is: "press", "join", "standby", "takeover", "rollback",
  // "correction", "standings", "orders-entered", "address", ...
  std::string kind;
  std::vector<std::string> players;    // player codes of `game`: mailed to their address on file
  std::vector<std::string> addresses;  // plain addresses (sign-ups, standby players, invitations)
  std::string subject;                 // UTF-8; the game's name is not added
  std::string text;                    // the plain-text body; the signature is added when mailed
  // Unique per logical message (AlreadyExists when appended twice: the caller treats that as
  // done). Each recipient's outbox dedupe key is "notice:<dedupe_key>:<address>".
  std::string dedupe_key;
  // Messages with the same thread key are one thread in the recipient's mail reader (they
  // share a References root); "" for none.
  std::string thread;
  UnixTime created_at = 0;
  std::string state = "pending";  // "pending" until the mail layer has queued it, then "done"
};

class NoticeStore {
 public:
  virtual ~NoticeStore() = default;
  // Appends a pending notice; returns its id. NotFound for an unknown game; InvalidArgument when
  // kind, subject, text or dedupe_key is empty or there is no recipient; AlreadyExists when the
  // dedupe key was used before (nothing written).
  virtual Result<std::int64_t> append_notice(const Notice& n) = 0;
  // Pending notices, oldest first, at most `limit`.
  virtual Result<std::vector<Notice>> pending_notices(int limit) = 0;
  // Marks a notice done (its mail is queued). A notice of kind "takeover" carries a takeover code:
  // its text is replaced then, so the code is kept in clear only until it is in the outbox (whose
  // copy keeps only its header once delivered). NotFound for an unknown id.
  virtual Status mark_notice_done(std::int64_t id) = 0;
  // Every notice of a game, oldest first (the GM's view; the archive).
  virtual Result<std::vector<Notice>> notices(const std::string& game) = 0;
};

}  // namespace adj
