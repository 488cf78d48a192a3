// The GM desk's forms about a game's end (admin.h, game_lifecycle.cc), each a POST with the GM's
// cookie, the CSRF field and the open turn the page was made for (a stale form changes nothing):
//   /gm/games/{game}/delete     a draft (no turn ran): first the confirmation page
//                               (html_gm_confirm.h), then the deletion, then the GM desk
//                               (?done=deleted); a started game gets the 409 page saying to
//                               archive it instead
//   /gm/games/{game}/archive    out of the game lists, readable, takes nothing new
//   /gm/games/{game}/unarchive  back into the lists
#include "base/escape.h"
#include "server/web/html_gm_confirm.h"
#include "server/web/html_pages.h"
#include "server/web/web_session.h"

namespace adj::web::html {

namespace {
namespace end_local {

// Checks as every GM form does, then archives or unarchives; the GM page with the result.
Response archive_form(WebContext& ctx, const Request& req, const std::string& game, bool on) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  const std::string back = "/gm/games/" + url_encode(game);
  if (auto stale = stale_form(ctx, form, game, back)) return *stale;
  const std::string why = trim(field(form, "reason"));
  const Status s = on ? ctx.admin().archive_game(game, kGmActor, why)
                      : ctx.admin().unarchive_game(game, kGmActor, why);
  if (!s.ok()) return status_page(s);
  return redirect(back + "?done=" + (on ? "archived" : "unarchived"));
}

Response delete_form(WebContext& ctx, const Request& req, const std::string& game) {
  if (auto ask = confirm_delete(ctx, req, game)) return *ask;  // GM, CSRF and stale checked
  const auto form = req.form();
  auto out = ctx.admin().delete_game(game, kGmActor, trim(field(form, "reason")));
  if (!out.ok()) return status_page(out.status());
  return redirect("/gm?done=deleted");
}

}  // namespace end_local
}  // namespace

void add_gm_end_routes(http::Router& router, WebContext& ctx) {
  using namespace end_local;
  router.add("POST", "/gm/games/{game}/delete",
             guarded([&ctx](const Request& req, const Params& p) {
               return delete_form(ctx, req, param(p, "game"));
             }),
             "html_gm_delete");
  router.add("POST", "/gm/games/{game}/archive",
             guarded([&ctx](const Request& req, const Params& p) {
               return archive_form(ctx, req, param(p, "game"), true);
             }),
             "html_gm_archive");
  router.add("POST", "/gm/games/{game}/unarchive",
             guarded([&ctx](const Request& req, const Params& p) {
               return archive_form(ctx, req, param(p, "game"), false);
             }),
             "html_gm_unarchive");
}

}  // namespace adj::web::html
