// What the host's pages read of the whole server rather than of one game's play: the mail
// queues (received mail waiting or failed, a game's outgoing mail, the counts) and the bytes
// stored per game. The GM desk's mail pages and /metrics read these; nothing here writes.
//
// Thread-safety: as the MailStore it reads (one thread at a time).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rules/core/status.h"
#include "storage/mail_store.h"

namespace adj {

class Store;

class HostDesk {
 public:
  // REQUIRES: `store` outlives this object.
  explicit HostDesk(Store& store) : store_(store) {}

  // Received mail in `state` ("new", "failed"; "" for any), newest first, without the raw bytes.
  Result<std::vector<InboxMessage>> inbox(const std::string& state, int limit);
  // A game's outgoing mail, newest first; one message by id (NotFound when there is none).
  Result<std::vector<OutboxMessage>> outbox(const std::string& game, int limit);
  Result<OutboxMessage> outbox_message(std::int64_t id);
  // Messages waiting to be sent, and of those the ones whose latest attempt failed.
  Result<int> pending_count();
  Result<int> failing_count();
  // Bytes stored per game, by kind.
  Result<std::vector<GameStorage>> storage_by_game();

 private:
  Store& store_;
};

}  // namespace adj
