#include "server/web/html_gm_confirm.h"

#include "base/escape.h"
#include "server/app/audit_log.h"
#include "server/app/membership.h"
#include "server/web/page_render.h"
#include "server/web/route_util.h"
#include "server/web/web_session.h"

namespace adj::web::html {

std::optional<Response> confirm_rollback(WebContext& ctx, const Request& req,
                                         const std::string& game) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  if (field(form, "confirm") == "1") return std::nullopt;
  const std::string back = "/gm/games/" + url_encode(game);
  const std::string to_field = field(form, "to");
  if (!to_field.empty())
    if (auto stale = stale_form(ctx, form, game, back)) return *stale;
  const auto to = positive_int(to_field.empty() ? field(form, "turn") : to_field);
  if (!to) return error_page(400, "The turn must be a positive whole number.");
  Status err;
  auto g = find_game(ctx, game, &err);
  if (!g) return status_page(err);
  if (*to >= g->turn) return std::nullopt;  // nothing to confirm: the rollback says why not
  auto st = ctx.services().show_game(game);
  if (!st.ok()) return status_page(st.status());
  const std::string t = std::to_string(*to);
  const CsrfToken csrf = csrf_token(req);
  Json model = {
      {"id", game},
      {"name", g->name},
      {"to", *to},
      {"turn", g->turn},
      {"withdrawn",
       g->turn - 1 > *to ? "turns " + t + " to " + std::to_string(g->turn - 1) : "turn " + t},
      {"players", (*st)["players"].size()},
      {"reason", field(form, "reason").substr(0, kMaxGmReason)},
      {"csrf", csrf.value}};
  return form_page(ctx, csrf,
                   render_page("Roll back to turn " + t + "?", "gm_confirm_rollback", model,
                               nav(game, g->name, req, ctx)));
}

std::optional<Response> confirm_delete(WebContext& ctx, const Request& req,
                                       const std::string& game) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  if (auto stale = stale_form(ctx, form, game, "/gm/games/" + url_encode(game))) return *stale;
  if (field(form, "confirm") == "1") return std::nullopt;
  Status err;
  auto g = find_game(ctx, game, &err);
  if (!g) return status_page(err);
  auto started = ctx.admin().has_started(game);
  if (!started.ok()) return status_page(started.status());
  if (*started) return std::nullopt;  // the deletion says why not
  auto st = ctx.services().show_game(game);
  if (!st.ok()) return status_page(st.status());
  auto signups = ctx.membership().signups(game);
  auto files = ctx.services().all_files(game);
  const CsrfToken csrf = csrf_token(req);
  Json model = {{"id", game},
                {"name", g->name},
                {"turn", g->turn},
                {"status", g->status},
                {"players", (*st)["players"].size()},
                {"signups", signups.ok() ? signups->size() : 0},
                {"files", files.ok() ? files->size() : 0},
                {"reason", field(form, "reason").substr(0, kMaxGmReason)},
                {"csrf", csrf.value}};
  return form_page(ctx, csrf,
                   render_page("Delete " + g->name + "?", "gm_confirm_delete", model,
                               nav(game, g->name, req, ctx)));
}

}  // namespace adj::web::html
