// The GM's desk for a player's orders: read the file on record for the open turn, and enter or
// replace a player's orders as if the player had sent them (the GM vouches for the player; no
// secret). Every channel (web page, JSON API) calls these.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "server/app/services.h"
#include "storage/admin_store.h"

namespace adj {

// A player's current accepted order file for the open turn, if any (its raw text is stored with
// the PLAYER line's secret masked). NotFound for an unknown game or player.
struct OrdersOnFile {
  std::string player;  // upper-case code
  int turn = 0;        // the open turn
  std::optional<SubmissionRecord> file;
};
Result<OrdersOnFile> orders_on_file(Stores stores, const std::string& game,
                                    const std::string& player);

// Enters `text` as `player`'s orders for the open turn, as if the player had sent it (source
// "gm"). The text must not carry a PLAYER line (InvalidArgument saying so: the GM has no secret
// to put on it); a GAME line is optional. When the file is accepted (even with some lines
// rejected) the GM's action is audited ("orders", {player, turn, accepted, rejected}) with
// `actor`, and the player is told by a notice (kind "orders-entered", the orders and the answer).
// A refused file is stored for the record as any refused file, and neither audited nor told.
// `expected_turn`: as Services::run_turn (turn_guard.h), nothing stored when stale.
Result<SubmitOutcome> enter_orders_for_player(Services& services, Stores stores, AdminStore& admin,
                                              UnixTime now, const std::string& game,
                                              const std::string& player, std::string_view text,
                                              const std::string& actor,
                                              std::optional<int> expected_turn);

}  // namespace adj
