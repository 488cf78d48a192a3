// Press by mail as a digest per recipient: a press message is stored once (PressStore) and read
// on the web at once; mail carries it later, gathered. Each player gets at most one press mail
// per interval holding every message to them since their last one, oldest first, cut at
// max_bytes (the rest: "and N more, on your press page"). So the mail one message causes no
// longer multiplies by the number of recipients and messages: per recipient, at most one mail
// per interval (plus one when a turn's deadline has come), each at most max_bytes.
//
// Due: a player with unmailed press to them is mailed when they never had a digest, when their
// last one is `interval` old, or once per deadline when it has come (before the turn runs). A new
// holder of a position gets none of its private press from before their start
// (Press::holder_since). Players with nothing to read have their mark moved without mail.
//
// Anonymity: a digest names a message's sender only when it is not anonymous; its subject and
// thread name no sender. Its outbox kind is "press" (the GM outbox view withholds it unless the
// game lets the GM read private press).
//
// Concurrency: each digest is claimed in one transaction with its notice
// (PressStore::queue_press_digest), so threads and processes may run digests at once and each
// message is mailed to each recipient once.
// Thread-safety: one PressDigest per thread, like Press. Ownership: borrows its arguments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "server/app/press.h"

namespace adj {

struct PressDigestConfig {
  std::int64_t interval_seconds = 15 * 60;  // --press-digest-minutes
  std::size_t max_bytes = 64 * 1024;        // --press-digest-kib: message text per digest
};

class PressDigest {
 public:
  PressDigest(Services& services, PressStore& store, Clock clock, AdminStore* audit,
              PressDigestConfig config)
      : services_(services),
        store_(store),
        now_(std::move(clock)),
        audit_(audit),
        config_(config) {}

  // Queues the due digests of `game`; returns how many were queued by this call. `deadline`, when
  // not 0, is a deadline that has come: a player whose last digest is older is due whatever the
  // interval (so at most one more per deadline). NotFound for an unknown game.
  Result<int> run(const std::string& game, UnixTime deadline = 0);

  // The text of one digest for `player` (exposed for tests): `messages` oldest first.
  std::string text(const Json& state, const std::string& game,
                   const std::vector<PressMessage>& messages, std::size_t* included) const;

 private:
  Services& services_;
  PressStore& store_;
  Clock now_;
  AdminStore* audit_;
  PressDigestConfig config_;
};

}  // namespace adj
