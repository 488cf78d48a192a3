// The GM desk's HTML pages that are not about one game: signing in and out, the list of
// games, and creating a game (with "Check and preview" first).
#include "base/escape.h"
#include "server/web/html_pages.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <variant>

#include "base/log_escape.h"
#include "rules/game/scenario.h"
#include "rules/game/scenario_lint.h"
#include "rules/orders/parser.h"
#include "schemas/embedded.h"
#include "server/app/audit_text.h"
#include "server/app/engine_catalog.h"
#include "server/app/gm_orders.h"
#include "server/app/history.h"
#include "server/app/mail_delivery.h"
#include "server/app/secrets.h"
#include "server/app/time_text.h"
#include "server/app/turn_guard.h"
#include "server/render/state_map.h"
#include "server/render/svg_map.h"
#include "server/web/auth_guard.h"
#include "server/web/map_view.h"
#include "server/web/order_builder.h"
#include "server/web/orders_view.h"
#include "server/web/page_render.h"
#include "server/web/pages_view.h"
#include "server/web/route_util.h"
#include "server/web/routes.h"
#include "server/web/svg_charts.h"
#include "server/web/web_session.h"

namespace adj::web::html {

namespace {
namespace desk_local {

Response gm_login_form(WebContext& ctx, const Request& req, const std::string& error, int status) {
  const CsrfToken csrf = csrf_token(req);
  Json model = {{"csrf", csrf.value},
                {"disabled", ctx.config().gm_token.empty()},
                {"error", error.empty() ? Json() : Json(error)}};
  return form_page(ctx, csrf, render_page("GM sign-in", "gm_login", model, nav("", "", req, ctx)),
                   status);
}

Response gm_login_post(WebContext& ctx, const Request& req) {
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  const std::string& real = ctx.config().gm_token;
  if (real.empty()) return gm_login_form(ctx, req, "", 403);
  // Guessing limit on the GM token (auth_guard.h).
  const ThrottleKeys keys = guard_keys(req, kThrottleKeyGm);
  if (auto r = guard_check(ctx, keys, "web_gm_signin", false))
    return locked_form(gm_login_form(ctx, req, locked_message(*r), 429), *r);
  if (!constant_time_equal(field(form, "token"), real)) {
    guard_record(ctx, keys, "web_gm_signin", false, "wrong_token");
    spdlog::info("event=gm_sign_in_failed remote=\"{}\"", log_escape(req.remote));
    return gm_login_form(ctx, req, "Wrong GM token.", 403);
  }
  guard_record(ctx, keys, "web_gm_signin", true, "");
  // is_gm compares the cookie's raw value with the token: it must be a valid cookie value.
  for (char c : real)
    if (c <= ' ' || c == '"' || c == ',' || c == ';' || c == '\\' || c > '~')
      return gm_login_form(ctx, req,
                           "This GM token has characters a cookie cannot hold; use the API "
                           "(Authorization: Bearer) or choose a token of letters and digits.",
                           400);
  Response r = redirect("/gm");
  r.headers.emplace_back("Set-Cookie", cookie_header(kGmCookie, real, "/", secure(ctx)));
  return r;
}

Response gm_logout_post(WebContext& ctx, const Request& req) {
  if (!csrf_ok(req, req.form(), ctx.config().base_url)) return csrf_failed();
  Response r = redirect("/");
  r.headers.emplace_back("Set-Cookie", cookie_header(kGmCookie, "", "/", secure(ctx), 0));
  return r;
}

// The bundled scenarios for the create form's select, `chosen` selected.
Json bundled_options(const std::string& chosen) {
  Json out = Json::array();
  for (const auto& name : bundled_scenarios())
    out.push_back({{"name", name}, {"selected", name == chosen}});
  return out;
}

// How many entries of the host's audit log the GM desk shows, newest first.
constexpr int kHostLogRows = 20;

// `check`: the "Check and preview" block (gm_check), null for none.
Response gm_index(WebContext& ctx, const Request& req, const std::string& error = "",
                  int status = 200, const Json& kept = Json::object(), const Json& check = Json()) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  auto games = ctx.services().list_games();
  if (!games.ok()) return status_page(games.status());
  Json rows = game_rows(ctx, *games);
  Json archived = game_rows(ctx, *games, /*archived=*/true);  // listed apart
  Json host_log = Json::array();  // the host's own audit log: deletions, archiving
  if (auto log = ctx.admin().host_audit_log(kHostLogRows); log.ok())
    for (const AuditEntry& e : *log) {
      Json row = audit_row(e);
      row["game"] = e.game;
      host_log.push_back(std::move(row));
    }
  const CsrfToken csrf = csrf_token(req);
  const std::string flash = done_message(req);
  // An error of several lines (a scenario's every problem, one a line) is its first line and a
  // list of the others.
  Json problem;
  if (!error.empty()) {
    std::size_t end = error.find('\n');
    problem = {{"lead", error.substr(0, end)}, {"items", Json::array()}};
    while (end != std::string::npos) {
      const std::size_t start = end + 1;
      end = error.find('\n', start);
      const std::string line = error.substr(start, end == std::string::npos ? end : end - start);
      if (!trim(line).empty()) problem["items"].push_back(line);
    }
    problem["has_items"] = !problem["items"].empty();
  }
  Json model = {{"csrf", csrf.value},
                {"has_games", !rows.empty()},
                {"games", std::move(rows)},
                {"has_archived", !archived.empty()},
                {"archived", std::move(archived)},
                {"has_host_log", !host_log.empty()},
                {"host_log", std::move(host_log)},
                {"bundled", bundled_options(kept.value("bundled", ""))},
                {"kept", kept},
                {"flash", flash.empty() ? Json() : Json(flash)},
                {"error", problem},
                {"check", check}};
  return form_page(ctx, csrf, render_page("GM desk", "gm_index", model, nav("", "", req, ctx)),
                   status);
}

// Game ids as the create form and the API accept them (create_game.request.schema.json).
bool valid_game_id(const std::string& id) {
  if (id.empty() || id.size() > 64 || !std::isalnum(static_cast<unsigned char>(id[0])))
    return false;
  for (char c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-')
      return false;
  return true;
}

// The create form's "Check and preview": the scenario's errors and warnings, each on its own line
// (rules/game/scenario_lint.h), and its map as the game would start, under the form (kept);
// nothing is created.
Response gm_check(WebContext& ctx, const Request& req, const Json& scenario, const Json& kept) {
  Json findings = Json::array();
  std::size_t errors = 0;
  for (const ScenarioFinding& f : lint_scenario(scenario)) {
    const bool error = f.severity == ScenarioFinding::Severity::kError;
    errors += error ? 1 : 0;
    findings.push_back({{"severity", to_string(f.severity)},
                        {"error", error},
                        {"path", f.path.empty() ? "/" : f.path},
                        {"message", f.message}});
  }
  const std::size_t warnings = findings.size() - errors;
  auto count = [](std::size_t n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
  };
  std::string summary =
      errors == 0 && warnings == 0 ? "No errors, no warnings: the scenario is ready to create."
      : errors == 0 ? "No errors (the game can be created), " + count(warnings, "warning") + ":"
                    : count(errors, "error") + " (the game cannot be created), " +
                          count(warnings, "warning") + ":";
  Json check = {{"summary", summary},
                {"findings", std::move(findings)},
                {"has_findings", errors + warnings > 0}};
  if (Result<GameState> st = state_from_scenario(scenario, 0); st.ok()) {
    const render::MapModel m = render::map_model_from_state(render::drawable_state(to_json(*st)));
    check["map_svg"] = render::render_svg_map(m, {false, 1});
    check["map_legend"] = render::render_map_legend_html(m);
  }
  return gm_index(ctx, req, "", 200, kept, check);
}

Response gm_create(WebContext& ctx, const Request& req) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  Json scenario;
  const std::string bundled = trim(field(form, "bundled"));
  const std::string id = trim(field(form, "id"));
  const std::string name = trim(field(form, "name"));
  std::string text = field(form, "file");
  if (trim(text).empty()) text = field(form, "scenario");
  // Shown again in the form when the game is not created.
  const Json kept = {{"bundled", bundled},
                     {"id", id},
                     {"name", name},
                     {"seed", trim(field(form, "seed"))},
                     {"signup", !field(form, "signup").empty()},
                     {"scenario", text.size() <= kMaxOrderBytes ? text : std::string()}};
  auto again = [&](const std::string& error, int status) {
    return gm_index(ctx, req, error, status, kept);
  };
  if (!bundled.empty()) {
    auto b = bundled_scenario(bundled);
    if (!b.ok())
      return again("There is no bundled scenario " + bundled + "; choose one from the list.", 404);
    scenario = std::move(b).value();
  } else {
    if (trim(text).empty())
      return again("Choose a bundled scenario, paste one or upload one.", 400);
    scenario = Json::parse(text, nullptr, false);
    if (scenario.is_discarded() || !scenario.is_object())
      return again("The scenario is not a JSON object; check it and send it again.", 400);
  }
  if (!id.empty()) {
    if (!valid_game_id(id))
      return again(
          "The game id may have letters, digits and . _ - (at most 64, starting with a "
          "letter or digit), not '" +
              id.substr(0, 70) + "'.",
          400);
    scenario["id"] = id;
  }
  if (!name.empty()) {
    if (name.size() > 200) return again("The game name may be at most 200 characters.", 400);
    scenario["name"] = name;
  }
  Seed seed = new_game_seed();
  const std::string seed_text = trim(field(form, "seed"));
  if (!seed_text.empty()) {
    try {
      std::size_t used = 0;
      seed = std::stoull(seed_text, &used);
      if (used != seed_text.size()) throw std::invalid_argument("seed");
    } catch (const std::exception&) {
      return again("The seed must be a whole number.", 400);
    }
    scenario["seed"] = std::to_string(seed);  // the GM's seed wins over a pasted document's
  }
  if (field(form, "action") == "check") return gm_check(ctx, req, scenario, kept);
  // A bundled scenario's secrets are public (docs/scenarios.md): its players get fresh ones, shown
  // once.
  std::map<std::string, std::string> issued;
  const bool fresh = !bundled.empty() && field(form, "demo_secrets").empty();
  auto g = ctx.admin().create_game(scenario, seed, kGmActor, fresh, &issued);
  if (!g.ok()) {
    const int code = is_script_check_busy(g.status()) ? 429 : http::http_status(g.status());
    if (code == 500) return status_page(g.status());
    return again("The game was not created: " + g.status().message(), code);
  }
  if (!field(form, "signup").empty()) {  // open for sign-ups: secrets are issued at the start
    if (Status s = open_signups_after_create(ctx, g->id); !s.ok()) return status_page(s);
    return redirect("/gm/games/" + url_encode(g->id) + "?done=signups-open");
  }
  // The credentials page is the POST's answer (its secrets exist only now); sending the form
  // again is refused, as the game id is taken by then.
  if (!issued.empty()) {
    Json rows = Json::array();
    for (const auto& [code, secret] : issued) rows.push_back({{"code", code}, {"secret", secret}});
    ctx.secrets_issued(g->id, issued);  // mailed to the players that have an address
    return credentials_page(ctx, req, g->id, g->name, std::move(rows));
  }
  return redirect("/gm/games/" + url_encode(g->id) + "?done=created");
}

}  // namespace desk_local
}  // namespace

void add_gm_desk_routes(http::Router& router, WebContext& ctx) {
  using namespace desk_local;
  router.add("GET", "/gm/login", guarded([&ctx](const Request& req, const Params&) {
               return gm_login_form(ctx, req, "", 200);
             }),
             "html_gm_login");
  router.add("POST", "/gm/login",
             guarded([&ctx](const Request& req, const Params&) { return gm_login_post(ctx, req); }),
             "html_gm_login_post");
  router.add("POST", "/gm/logout", guarded([&ctx](const Request& req, const Params&) {
               return gm_logout_post(ctx, req);
             }),
             "html_gm_logout");
  router.add("GET", "/gm",
             guarded([&ctx](const Request& req, const Params&) { return gm_index(ctx, req); }),
             "html_gm");
  router.add("POST", "/gm/games",
             guarded([&ctx](const Request& req, const Params&) { return gm_create(ctx, req); }),
             "html_gm_create");
}

}  // namespace adj::web::html
