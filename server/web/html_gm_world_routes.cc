// The GM desk's "New game from a generated world" (docs/worlds.md): the form, a preview of the
// map and the fairness figures before anything is created, then the game (opened for sign-ups
// when asked, and always for a world made for its sign-ups).
#include <nlohmann/json.hpp>

#include "base/escape.h"
#include "rules/game/scenario.h"
#include "rules/game/scenario_lint.h"
#include "rules/world/world_generator.h"
#include "server/app/secrets.h"
#include "server/app/world_request.h"
#include "server/render/svg_map.h"
#include "server/web/html_pages.h"
#include "server/web/map_view.h"
#include "server/web/page_render.h"
#include "server/web/route_util.h"
#include "server/web/routes.h"

namespace adj::web::html {

namespace {
namespace world_local {

using route::field;

constexpr const char* kWorldFields[] = {
    "engine", "players", "areas_per_player", "seed", "seas", "for_signups", "id", "name"};

// The form's fields as a world request (world_request.h); "seas" is "", "yes" or "no".
Json world_request_of(const std::map<std::string, std::string>& form) {
  Json r = Json::object();
  for (const char* f : kWorldFields) {
    const std::string v = trim(field(form, f));
    if (v.empty()) continue;
    if (std::string(f) == "seas")
      r[f] = v == "yes";
    else if (std::string(f) == "for_signups")
      r[f] = true;
    else
      r[f] = v;
  }
  return r;
}

Json engine_choices(const std::string& chosen) {
  Json out = Json::array();
  for (const auto& e : world::generator_engines())
    out.push_back({{"name", e}, {"selected", e == (chosen.empty() ? "dark-age" : chosen)}});
  return out;
}

// The page: the form (kept as sent), an error, and with `preview` the world's map and figures
// and the form that creates it.
Response world_page(WebContext& ctx, const Request& req, const Json& kept, const std::string& error,
                    int status, const Json& preview = Json()) {
  const CsrfToken csrf = csrf_token(req);
  Json model = {{"csrf", csrf.value},
                {"engines", engine_choices(kept.value("engine", ""))},
                {"kept", kept},
                {"seas_default", kept.value("seas", "").empty()},
                {"seas_yes", kept.value("seas", "") == "yes"},
                {"seas_no", kept.value("seas", "") == "no"},
                {"error", error.empty() ? Json() : Json(error)},
                {"preview", preview}};
  return form_page(
      ctx, csrf,
      render_page("New game from a generated world", "gm_world", model, nav("", "", req, ctx)),
      status);
}

Json kept_of(const std::map<std::string, std::string>& form) {
  Json kept = Json::object();
  for (const char* f : kWorldFields) kept[f] = trim(field(form, f)).substr(0, 200);
  kept["for_signups"] = !field(form, "for_signups").empty();
  kept["signup"] = !field(form, "signup").empty();
  return kept;
}

Response world_form(WebContext& ctx, const Request& req) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  return world_page(ctx, req, Json{{"players", "6"}, {"areas_per_player", "5"}}, "", 200);
}

// A big world's preview is drawn around the first kingdom's areas (map_block).
MapFocus first_kingdom(const render::MapModel& map) {
  if (map.players.empty()) return {};
  return {render::areas_of(map, map.players.front().code),
          "the areas of " + map.players.front().code};
}

Response world_preview(WebContext& ctx, const Request& req) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  Json kept = kept_of(form);
  Json request = world_request_of(form);
  // The preview fixes the seed, so "Create this game" makes exactly the world shown.
  if (!request.contains("seed")) request["seed"] = std::to_string(new_game_seed());
  kept["seed"] = request["seed"];
  world::WorldFairness f;
  auto doc = world_from_request(request, &f);
  if (!doc.ok()) return world_page(ctx, req, kept, "No world: " + doc.status().message(), 400);
  auto state = state_from_scenario(*doc, 1);
  if (!state.ok())
    return world_page(ctx, req, kept, "The world is not valid: " + state.status().message(), 500);
  const render::MapModel map = render::map_model_from_state(to_json(*state));
  Json lines = Json::array();
  const std::string text = world::fairness_text(f);
  for (std::size_t at = 0, nl; at < text.size(); at = nl + 1) {
    nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    if (nl > at) lines.push_back(text.substr(at, nl - at));
  }
  Json findings = Json::array();  // what `adjutant scenario check` says (none, for a fair world)
  for (const ScenarioFinding& x : lint_scenario(*doc))
    findings.push_back(std::string(to_string(x.severity)) + " " + x.path + ": " + x.message);
  Json preview = {{"check", findings.empty() ? Json("no errors, no warnings") : Json()},
                  {"findings", findings},
                  {"name", (*doc)["name"]},
                  {"id", (*doc)["id"]},
                  {"areas", (*doc)["areas"].size()},
                  {"figures", lines},
                  {"map", map_block(map, {}, "/gm/world", first_kingdom(map))}};
  // The zoom links and the region's form would GET an empty form: the preview is drawn at 1x,
  // a big world around its first kingdom (the game page zooms and moves).
  preview["map"]["zoom_links"] = Json::array();
  if (preview["map"]["region"].is_object()) preview["map"]["region"].erase("path");
  return world_page(ctx, req, kept, "", 200, preview);
}

Response world_create(WebContext& ctx, const Request& req) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  const Json kept = kept_of(form);
  if (trim(field(form, "seed")).empty())
    return world_page(ctx, req, kept,
                      "Preview the world first: the game is made from the world "
                      "the preview showed.",
                      400);
  auto doc = world_from_request(world_request_of(form));
  if (!doc.ok()) return world_page(ctx, req, kept, "No world: " + doc.status().message(), 400);
  std::map<std::string, std::string> issued;
  auto g = ctx.admin().create_game(*doc, new_game_seed(), kGmActor, true, &issued);
  if (!g.ok()) {
    const int code = http::http_status(g.status());
    if (code == 500) return status_page(g.status());
    return world_page(ctx, req, kept, "The game was not created: " + g.status().message(), code);
  }
  if (!field(form, "signup").empty() || world::generated_for_signups(*doc)) {
    if (Status s = open_signups_after_create(ctx, g->id); !s.ok()) return status_page(s);
    return redirect("/gm/games/" + url_encode(g->id) + "?done=signups-open");
  }
  Json rows = Json::array();
  for (const auto& [code, secret] : issued) rows.push_back({{"code", code}, {"secret", secret}});
  ctx.secrets_issued(g->id, issued);  // mailed to the players that have an address
  return credentials_page(ctx, req, g->id, g->name, std::move(rows));
}

}  // namespace world_local
}  // namespace

void add_gm_world_routes(http::Router& router, WebContext& ctx) {
  using namespace world_local;
  router.add("GET", "/gm/world",
             guarded([&ctx](const Request& req, const Params&) { return world_form(ctx, req); }),
             "html_gm_world");
  router.add("POST", "/gm/world/preview",
             guarded([&ctx](const Request& req, const Params&) { return world_preview(ctx, req); }),
             "html_gm_world_preview");
  router.add("POST", "/gm/world",
             guarded([&ctx](const Request& req, const Params&) { return world_create(ctx, req); }),
             "html_gm_world_create");
}

}  // namespace adj::web::html
