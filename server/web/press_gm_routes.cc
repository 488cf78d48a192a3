// The GM's press on the web and in the JSON API (server/app/press.h has the rules):
//   GET  /gm/games/{g}/press            the GM inbox (gm-inbox), the GM's press form
//                                       (gm-press-form: to, body, turn), the options form
//                                       (press-options-form) and the press the GM may read
//   POST /gm/games/{g}/press            sends the GM's press; 303 back; errors keep the text
//   POST /gm/games/{g}/press/options    press, gm_reads_private, gm_address, turn
//   GET  /api/games/{g}/gm/messages     the messages to the GM, newest first (GM token)
// Thread-safety: as html_routes.cc (per-thread stores and services).
#include "base/escape.h"
#include "server/app/time_text.h"
#include "server/web/auth_guard.h"
#include "server/web/page_render.h"
#include "server/web/pages_view.h"
#include "server/web/press_internal.h"
#include "server/web/routes.h"
#include "server/web/web_session.h"

namespace adj::web {

using http::Params;
using http::Request;
using http::Response;

namespace {
namespace press_gm_local {

using namespace press_detail;
using route::field;

struct GmForm {  // what the GM's press form keeps after an error
  std::string body;
  std::vector<std::string> to;
};

Response gm_page(WebContext& ctx, const Request& req, const std::string& game,
                 const std::string& flash, const std::string& error, int status,
                 const GmForm& kept = {}) {
  auto state = ctx.services().show_game(game);
  if (!state.ok()) return status_page(state.status());
  Press press = press_of(ctx);
  auto opts = press.options(game);
  if (!opts.ok()) return status_page(opts.status());
  auto list = press.gm_view(game);
  if (!list.ok()) return status_page(list.status());
  auto inbox = press.gm_inbox(game);
  if (!inbox.ok()) return status_page(inbox.status());
  const std::string address = effective_gm_address(*opts, ctx.app().config().gm_address);
  const CsrfToken csrf = csrf_token(req);
  Json levels = Json::array();
  for (const char* l : {"none", "public", "private", "anonymous"})
    levels.push_back({{"value", l}, {"selected", opts->press == l}});
  const auto kept_has = [&](const std::string& code) {
    return std::find(kept.to.begin(), kept.to.end(), code) != kept.to.end();
  };
  Json kingdoms = Json::array();
  for (const Json& p : (*state)["players"]) {
    const std::string code = p.value("code", "");
    kingdoms.push_back(
        {{"code", code}, {"label", Press::label(*state, code)}, {"checked", kept_has(code)}});
  }
  Json model = {{"game", game},
                {"game_name", state->value("name", game)},
                {"turn", state->value("turn", 1)},
                {"csrf", csrf.value},
                {"levels", std::move(levels)},
                {"rules", Press::describe(*opts)},
                {"gm_reads_private", opts->gm_reads_private},
                {"gm_address", opts->gm_address},
                {"host_gm_address", route::or_null(ctx.app().config().gm_address)},
                {"effective_gm_address", route::or_null(address)},
                {"can_send", state->value("status", "") != "finished"},
                {"kingdoms", std::move(kingdoms)},
                {"all_checked", kept.to.empty() || kept_has("ALL")},
                {"body", kept.body},
                {"max_bytes", press.limits().max_body_bytes},
                {"flash", flash.empty() ? Json() : Json(flash)},
                {"error", error.empty() ? Json() : Json(error)},
                {"inbox", messages_view(*inbox)},
                {"has_inbox", !inbox->empty()},
                {"messages", messages_view(*list)},
                {"has_messages", !list->empty()}};
  Response r = page(render_page("Press of " + state->value("name", game), "gm_press", model,
                                nav(game, state->value("name", game), "", ctx, req)),
                    status, true);
  set_csrf_cookie(r, csrf, ctx.config().base_url.rfind("https://", 0) == 0);
  return r;
}

// The form's turn is the open one; else the page again with why nothing was done (409).
std::optional<Response> stale_turn(WebContext& ctx, const Request& req, const std::string& game,
                                   const std::map<std::string, std::string>& form,
                                   const std::string& what, const GmForm& kept = {}) {
  auto state = ctx.services().show_game(game);
  if (!state.ok()) return status_page(state.status());
  const std::string turn = field(form, "turn");
  const int open = state->value("turn", 1);
  if (turn.empty() || turn == std::to_string(open)) return std::nullopt;
  return gm_page(ctx, req, game, "", "Turn " + turn + " already ran; " + what, 409, kept);
}

Response gm_options_post(WebContext& ctx, const Request& req, const std::string& game) {
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url))
    return error_page(403,
                      "This form has expired or was sent from another site. Reload the page and "
                      "try again.");
  if (auto stale = stale_turn(ctx, req, game, form,
                              "nothing was changed. Check the options below and save them again."))
    return *stale;
  PressOptions o;
  if (auto cur = press_of(ctx).options(game); cur.ok()) o = *cur;  // keeps what the form lacks
  o.press = field(form, "press");
  o.gm_reads_private = !field(form, "gm_reads_private").empty();
  if (form.count("gm_address")) o.gm_address = route::trim(field(form, "gm_address"));
  const Status s = press_of(ctx).set_options(game, o, kGmActor);
  if (!s.ok()) {
    if (http::http_status(s) == 500) return status_page(s);
    return gm_page(ctx, req, game, "", s.message() + ". Nothing was changed.", 400);
  }
  return redirect("/gm/games/" + url_encode(game) + "/press?done=options");
}

Response gm_send_post(WebContext& ctx, const Request& req, const std::string& game) {
  std::map<std::string, std::string> form;
  auto draft = draft_from_form(ctx, req, &form);
  if (auto* r = std::get_if<Response>(&draft)) return *r;
  const PressDraft& d = std::get<PressDraft>(draft);  // anonymous: refused by send_as_gm
  const GmForm kept{d.body, d.to};
  if (auto stale = stale_turn(ctx, req, game, form,
                              "nothing was sent. Check your message and send it again.", kept))
    return *stale;
  auto sent = press_of(ctx).send_as_gm(game, d);
  if (!sent.ok()) {
    const int code = http::http_status(sent.status());
    if (code == 500) return status_page(sent.status());
    return gm_page(ctx, req, game, "", "Not sent: " + sent.status().message() + ".", code, kept);
  }
  ctx.app().mail_queued();
  return redirect("/gm/games/" + url_encode(game) + "/press?done=sent");
}

Response api_gm_messages(WebContext& ctx, const Request& req, const std::string& game) {
  route::ApiCaller c = identify(req, ctx, game);
  if (c.denied) return *c.denied;
  if (!c.gm) return route::json_error(c.player.empty() ? 401 : 403, "this needs the GM token");
  auto inbox = press_of(ctx).gm_inbox(game);
  if (!inbox.ok()) return route::api_fail(inbox.status());
  Json out = Json::array();
  for (const auto& v : *inbox) {
    Json m = message_json(v);
    m["signed"] = v.message.source.find("#gm-unsigned") == std::string::npos;
    out.push_back(std::move(m));
  }
  return route::json_response({{"game", game}, {"messages", std::move(out)}});
}

}  // namespace press_gm_local
}  // namespace

Json press_detail::gm_inbox_summary(WebContext& ctx, const std::string& game, std::size_t newest) {
  auto inbox = press_of(ctx).gm_inbox(game);
  if (!inbox.ok()) return nullptr;
  Json list = Json::array();
  for (std::size_t i = 0; i < inbox->size() && i < newest; ++i) {
    const PressView& v = (*inbox)[i];
    std::string text = v.message.body.substr(0, 300);
    while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xC0) == 0x80)
      text.pop_back();  // not a UTF-8 sequence cut in two
    if (text.size() < v.message.body.size()) text += "...";
    list.push_back({{"from", v.from}, {"time", time_html(v.message.sent_at)}, {"text", text}});
  }
  return {{"count", inbox->size()}, {"messages", std::move(list)}};
}

void register_press_gm_routes(http::Router& router, WebContext& ctx) {
  using namespace press_gm_local;
  router.add("GET", "/gm/games/{game}/press",
             guarded(
                 [&ctx](const Request& r, const Params& p) {
                   if (auto denied = gm_refused(r, ctx)) return *denied;
                   std::string flash;
                   if (auto it = r.query.find("done"); it != r.query.end()) {
                     if (it->second == "options") flash = "The press options are saved.";
                     if (it->second == "sent")
                       flash =
                           "Your press is sent; the players read it on their press page now "
                           "and by mail in their next press digest.";
                   }
                   return gm_page(ctx, r, p.at("game"), flash, "", 200);
                 },
                 false),
             "gm_press");
  router.add("POST", "/gm/games/{game}/press",
             guarded(
                 [&ctx](const Request& r, const Params& p) {
                   if (auto denied = gm_refused(r, ctx)) return *denied;
                   return gm_send_post(ctx, r, p.at("game"));
                 },
                 false),
             "gm_press_send");
  router.add("POST", "/gm/games/{game}/press/options",
             guarded(
                 [&ctx](const Request& r, const Params& p) {
                   if (auto denied = gm_refused(r, ctx)) return *denied;
                   return gm_options_post(ctx, r, p.at("game"));
                 },
                 false),
             "gm_press_options");
  router.add("GET", "/api/games/{game}/gm/messages",
             guarded([&ctx](const Request& r,
                            const Params& p) { return api_gm_messages(ctx, r, p.at("game")); },
                     true),
             "api_gm_messages");
}

}  // namespace adj::web
