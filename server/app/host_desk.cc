#include "server/app/host_desk.h"

#include "storage/store.h"

namespace adj {

Result<std::vector<InboxMessage>> HostDesk::inbox(const std::string& state, int limit) {
  return store_.inbox_list(state, limit, true);
}

Result<std::vector<OutboxMessage>> HostDesk::outbox(const std::string& game, int limit) {
  return store_.outbox(game, limit);
}

Result<OutboxMessage> HostDesk::outbox_message(std::int64_t id) {
  return store_.outbox_message(id);
}

Result<int> HostDesk::pending_count() { return store_.pending_count(); }

Result<int> HostDesk::failing_count() { return store_.failing_count(); }

Result<std::vector<GameStorage>> HostDesk::storage_by_game() { return store_.storage_by_game(); }

}  // namespace adj
