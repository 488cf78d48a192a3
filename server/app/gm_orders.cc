#include "server/app/gm_orders.h"

#include "base/ascii.h"
#include "rules/orders/parser.h"
#include "server/app/audit_log.h"
#include "server/app/turn_guard.h"

namespace adj {

namespace {

using ascii::upper;

}  // namespace

Result<OrdersOnFile> orders_on_file(Stores stores, const std::string& game,
                                    const std::string& player) {
  OrdersOnFile out;
  out.player = upper(player);
  // The state's head and this player only (a big game's whole state is megabytes).
  Result<GameState> st = stores.games.load_view(game, std::nullopt, {out.player}, {});
  if (!st.ok()) return st.status();
  out.turn = st->turn;
  if (!st->find_player(out.player))
    return Status::NotFound("There is no player " + out.player + " in game " + game + ".");
  auto file = stores.submissions.current_submission(game, st->turn, out.player);
  if (!file.ok()) return file.status();
  out.file = std::move(file).value();
  return out;
}

Result<SubmitOutcome> enter_orders_for_player(Services& services, Stores stores, AdminStore& admin,
                                              UnixTime now, const std::string& game,
                                              const std::string& player, std::string_view text,
                                              const std::string& actor,
                                              std::optional<int> expected_turn) {
  Result<OrdersOnFile> who = orders_on_file(stores, game, player);
  if (!who.ok()) return who.status();
  if (expected_turn) ADJ_RETURN_IF_ERROR(stale_turn(*expected_turn, who->turn));
  const ParsedOrderFile parsed = parse_order_file(text);
  if (parsed.player)
    return Status::InvalidArgument("Leave out the PLAYER line: the orders are entered for " +
                                   who->player + " without their secret. Nothing was stored.");
  Result<SubmitOutcome> out =
      services.submit_as(game, who->player, std::nullopt, text, "gm", /*check_only=*/false);
  if (!out.ok() || out->ack.refused || !out->submission_id) return out;
  const OrderAck& ack = out->ack;
  ADJ_RETURN_IF_ERROR(record_audit(admin, game, now, actor, "orders",
                                   {{"player", who->player},
                                    {"turn", ack.turn},
                                    {"accepted", ack.accepted_count()},
                                    {"rejected", ack.rejected_count()}}));
  Notice n;
  n.game = game;
  n.kind = "orders-entered";
  n.players = {who->player};
  n.subject = "The GM entered your orders for turn " + std::to_string(ack.turn);
  n.text = "The GM entered orders for you (" + who->player + ") for turn " +
           std::to_string(ack.turn) +
           ". They replace any orders you sent before for this turn. If they are not what you "
           "want, send your own orders before the deadline: your newest file counts.\n\n"
           "The orders and their answer:\n\n" +
           out->text();
  n.dedupe_key = "orders-entered:" + game + ":" + std::to_string(*out->submission_id);
  n.thread = "orders-entered:" + game + ":" + who->player;
  ADJ_RETURN_IF_ERROR(services.notify(std::move(n)));
  return out;
}

}  // namespace adj
