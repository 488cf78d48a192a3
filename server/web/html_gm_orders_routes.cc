// The GM desk's page of one player's orders for the open turn: the file on record with its
// answer, and the form with which the GM enters or replaces them (server/app/gm_orders.h).
#include "base/escape.h"
#include "server/app/gm_orders.h"
#include "server/web/html_pages.h"
#include "server/web/orders_view.h"
#include "server/web/page_render.h"
#include "server/web/route_util.h"
#include "server/web/routes.h"
#include "server/web/web_session.h"

namespace adj::web::html {

namespace {

// /gm/games/{game}/players/{player}/orders: the player's file on record for the open turn with
// its answer, and the form to enter or replace their orders (gm_orders.h). `result`: the answer
// to that form when it was not accepted (shown with the text kept), else null.
Response gm_orders_page(WebContext& ctx, const Request& req, const std::string& game,
                        const std::string& player_arg, Json result = nullptr,
                        const std::string& kept = "", int status = 200) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  auto file = ctx.admin().orders_on_file(game, player_arg);
  if (!file.ok()) return status_page(file.status());
  auto st = ctx.services().show_game(game);
  if (!st.ok()) return status_page(st.status());
  std::string name, email;
  for (const auto& p : (*st)["players"])
    if (p.value("code", "") == file->player) {
      name = p.value("name", "");
      email = p.value("email", "");
    }
  const CsrfToken csrf = csrf_token(req);
  std::string flash;
  if (auto it = req.query.find("done"); it != req.query.end() && it->second == "orders")
    flash = "Orders entered for " + file->player + " for turn " + std::to_string(file->turn) +
            "; the player is told by mail.";
  Json model = {{"id", game},
                {"name", st->value("name", game)},
                {"player", file->player},
                {"player_name", name},
                {"email", email.empty() ? "(none on file)" : email},
                {"turn", file->turn},
                {"on_record", file->file ? on_record_view(*file->file) : Json()},
                {"orders_text", !result.is_null() ? kept
                                : file->file      ? editable_text(file->file->raw_text)
                                                  : std::string()},
                {"result", std::move(result)},
                {"flash", flash.empty() ? Json() : Json(flash)},
                {"csrf", csrf.value}};
  return form_page(ctx, csrf,
                   render_page("Orders of " + file->player + ": " + st->value("name", game),
                               "gm_orders", model, nav(game, st->value("name", game), req, ctx)),
                   status);
}

Response gm_orders_post(WebContext& ctx, const Request& req, const std::string& game,
                        const std::string& player_arg) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  const std::string player = upper(player_arg);
  const std::string back =
      "/gm/games/" + url_encode(game) + "/players/" + url_encode(player) + "/orders";
  if (auto stale = stale_form(ctx, form, game, back)) return *stale;
  const std::string text = field(form, "orders");
  auto again = [&](Json result, int status) {
    return gm_orders_page(ctx, req, game, player, std::move(result),
                          text.size() > kMaxOrderBytes ? std::string() : text, status);
  };
  if (text.size() > kMaxOrderBytes)
    return again({{"error", "The order file is too long (at most 64 KB). Nothing was stored."}},
                 413);
  if (trim(text).empty())
    return again({{"error", "Write the orders to enter; nothing was stored."}}, 400);
  auto out = ctx.admin().enter_orders(game, player, text, kGmActor, std::nullopt);
  if (!out.ok()) {
    if (http::http_status(out.status()) == 500) return status_page(out.status());
    return again({{"error", out.status().message()}}, http::http_status(out.status()));
  }
  if (!out->ack.refused) return redirect(back + "?done=orders");
  return again({{"error", "The file was refused: " + out->ack.refusal + " Nothing was entered."},
                {"lines", marked_lines(text, out->ack)},
                {"has_lines", !out->ack.lines.empty()}},
               422);
}

}  // namespace

void add_gm_orders_routes(http::Router& router, WebContext& ctx) {
  router.add("GET", "/gm/games/{game}/players/{player}/orders",
             guarded([&ctx](const Request& req, const Params& p) {
               return gm_orders_page(ctx, req, param(p, "game"), param(p, "player"));
             }),
             "html_gm_orders");
  router.add("POST", "/gm/games/{game}/players/{player}/orders",
             guarded([&ctx](const Request& req, const Params& p) {
               return gm_orders_post(ctx, req, param(p, "game"), param(p, "player"));
             }),
             "html_gm_orders_post");
}

}  // namespace adj::web::html
