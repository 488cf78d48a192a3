// The GM desk's HTML pages about one game: its controls (schedule, deadline, pause, players,
// credentials) and its turns (run, preview, roll back). The orders a GM enters for a player:
// html_gm_orders_routes.cc.
#include "base/escape.h"
#include "server/web/html_pages.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <variant>

#include "base/log_escape.h"
#include "rules/game/scenario.h"
#include "rules/orders/parser.h"
#include "schemas/embedded.h"
#include "server/app/audit_text.h"
#include "server/app/engine_catalog.h"
#include "server/app/history.h"
#include "server/app/mail_delivery.h"
#include "server/app/secrets.h"
#include "server/app/time_text.h"
#include "server/app/turn_guard.h"
#include "server/render/svg_map.h"
#include "server/web/auth_guard.h"
#include "server/web/html_gm_confirm.h"
#include "server/web/map_view.h"
#include "server/web/order_builder.h"
#include "server/web/page_render.h"
#include "server/web/pages_view.h"
#include "server/web/press_internal.h"
#include "server/web/route_util.h"
#include "server/web/routes.h"
#include "server/web/svg_charts.h"
#include "server/web/web_session.h"

namespace adj::web::html {

namespace {
namespace game_local {

std::string schedule_text(const Schedule& s) {
  if (s.kind == "fixed")
    return s.deadline ? "fixed: the turn runs at its deadline"
                      : "fixed, but no deadline is set: the game is run by hand until you set "
                        "the next deadline";
  if (s.kind == "interval") {
    std::string t = "every " + std::to_string(s.interval_seconds / 3600) + " hours";
    if (s.time_of_day) {
      char b[48];
      std::snprintf(b, sizeof b, " at %02d:%02d UTC", *s.time_of_day / 3600,
                    *s.time_of_day / 60 % 60);
      t += b;
    }
    return t + (s.early_when_all_in ? ", or as soon as every player has orders in" : "");
  }
  return "none: turns run only by hand";
}

// A big game's GM page lists its players kGmPlayersShown at a time (orders, attendance,
// addresses and credentials alike): from `?from=N` (0-based, in the game's order), or the stretch
// holding `?player=CODE`. A page of every row of 10,000 players was 31 MB.
constexpr std::size_t kGmPlayersShown = 200;

struct PlayerStretch {
  std::size_t begin = 0, end = 0, total = 0;
  std::string missing;  // the ?player= code asked for when the game has no such player
  bool whole() const { return begin == 0 && end == total; }
};

PlayerStretch player_stretch(const Request& req, const Json& players) {
  PlayerStretch w;
  w.total = players.size();
  std::size_t from = 0;
  if (auto it = req.query.find("player"); it != req.query.end()) {
    const std::string code = upper(trim(it->second));
    bool found = false;
    for (std::size_t i = 0; i < players.size() && !found; ++i)
      if (players[i].value("code", "") == code) {
        from = i / kGmPlayersShown * kGmPlayersShown;
        found = true;
      }
    if (!found) w.missing = code.substr(0, 32);
  } else if (auto f = req.query.find("from"); f != req.query.end()) {
    std::size_t n = 0;
    const auto [end, ec] =
        std::from_chars(f->second.data(), f->second.data() + f->second.size(), n);
    if (ec == std::errc() && end == f->second.data() + f->second.size() && n < w.total) from = n;
  }
  w.begin = w.total > kGmPlayersShown ? from : 0;
  w.end = std::min(w.total, w.begin + kGmPlayersShown);
  return w;
}

// The links between stretches and the form that finds a player; null for a small game.
Json stretch_nav(const PlayerStretch& w, const std::string& game) {
  if (w.whole()) return Json();
  const std::string base = "/gm/games/" + url_encode(game) + "?from=";
  Json nav = {{"id", game},
              {"first", w.begin + 1},
              {"last", w.end},
              {"total", w.total},
              {"per", kGmPlayersShown}};
  if (w.begin > 0)
    nav["prev_href"] =
        base + std::to_string(w.begin > kGmPlayersShown ? w.begin - kGmPlayersShown : 0);
  if (w.end < w.total) nav["next_href"] = base + std::to_string(w.end);
  if (!w.missing.empty()) nav["missing"] = w.missing;
  return nav;
}

Response gm_game(WebContext& ctx, const Request& req, const std::string& game) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  GameState open;  // read once, for every section below
  auto state = ctx.services().show_game(game, &open);
  if (!state.ok()) return status_page(state.status());
  const Json& st = *state;
  const int turn = st.value("turn", 1);
  auto sched = ctx.admin().schedule(game);
  if (!sched.ok()) return status_page(sched.status());
  auto subs = ctx.admin().submission_status(game, &open);
  if (!subs.ok()) return status_page(subs.status());

  const PlayerStretch stretch = player_stretch(req, st["players"]);
  std::set<std::string> shown;
  std::map<std::string, std::string> addresses;
  for (std::size_t i = stretch.begin; i < stretch.end; ++i) {
    const Json& p = st["players"][i];
    shown.insert(p.value("code", ""));
    addresses[p.value("code", "")] = p.value("email", "");
  }
  Json submissions = Json::array();
  int submitted = 0;
  for (const auto& s : *subs) {
    submitted += s.has_orders ? 1 : 0;
    if (!shown.count(s.player)) continue;
    const std::string address = addresses[s.player];
    submissions.push_back(
        {{"player", s.player},
         {"name", s.name},
         {"email", address.empty() ? "(none on file)" : address},
         {"has_orders", s.has_orders},
         {"received", s.received_at ? time_html(*s.received_at) : "-"},
         {"accepted", s.accepted},
         {"rejected", s.rejected},
         {"orders_url", "/gm/games/" + url_encode(game) + "/players/" + s.player + "/orders"}});
  }
  Json recent = Json::array();
  if (auto log = ctx.admin().audit_log(game); log.ok())
    for (auto it = log->rbegin(); it != log->rend() && recent.size() < 10; ++it)
      recent.push_back(audit_row(*it));
  Json links = Json::array();
  for (std::size_t i = stretch.begin; i < stretch.end; ++i) {
    const Json& p = st["players"][i];
    const std::string code = p.value("code", "");
    Json row = {{"code", code}, {"name", p.value("name", "")}};
    if (turn > 1) {
      row["report_url"] =
          game_path(game) + "/players/" + code + "/reports/" + std::to_string(turn - 1);
      row["last_turn"] = turn - 1;
    }
    links.push_back(std::move(row));
  }
  Json rollback_turns = Json::array();
  for (int t = turn - 1; t >= 1; --t) rollback_turns.push_back(t);
  const Schedule& s = *sched;
  std::string tod;
  if (s.time_of_day) {
    char b[48];
    std::snprintf(b, sizeof b, "%02d:%02d", *s.time_of_day / 3600, *s.time_of_day / 60 % 60);
    tod = b;
  }
  const CsrfToken csrf = csrf_token(req);
  const std::string flash = done_message(req);
  const std::string status = st.value("status", "");
  Json model = {{"id", game},
                {"name", st.value("name", game)},
                {"turn", turn},
                {"status", status},
                {"paused", status == "paused" || status == "held"},
                {"signup", status == "signup"},  // the sign-up list first; no turn forms
                {"deadline", s.deadline ? time_html(*s.deadline) : "none set"},
                {"needs_deadline", s.kind == "fixed" && !s.deadline && status == "open"},
                {"deadline_date", s.deadline ? format_utc(*s.deadline, "%Y-%m-%d") : ""},
                {"deadline_time", s.deadline ? format_utc(*s.deadline, "%H:%M") : ""},
                {"recent_audit", std::move(recent)},
                {"seen", latest_audit_id(ctx, game)},
                {"schedule_text", schedule_text(s)},
                {"schedule",
                 {{"is_none", s.kind != "fixed" && s.kind != "interval"},
                  {"is_fixed", s.kind == "fixed"},
                  {"is_interval", s.kind == "interval"},
                  {"interval_hours", s.interval_seconds > 0 ? s.interval_seconds / 3600 : 48},
                  {"time_of_day", tod},
                  {"early_when_all_in", s.early_when_all_in},
                  {"max_attempts", s.max_attempts}}},
                {"submissions", std::move(submissions)},
                {"submitted", submitted},
                {"players", subs->size()},
                {"can_rollback", turn > 1},
                {"last_turn", turn - 1},
                {"rollback_turns", std::move(rollback_turns)},
                {"links", std::move(links)},
                {"player_pages", stretch_nav(stretch, game)},
                {"csrf", csrf.value},
                {"flash", flash.empty() ? Json() : Json(flash)}};
  // The game's end (html_gm_end_routes.cc): a draft may be deleted, any game archived.
  auto started = ctx.admin().has_started(game);
  model["archived"] =
      st.contains("archived_at") ? Json(time_html(st["archived_at"].get<UnixTime>())) : Json();
  model["can_delete"] = started.ok() && !*started;
  model["attendance"] =
      attendance_gm_view(ctx, req, game, stretch.whole() ? nullptr : &shown, &open);
  model["membership_html"] =
      membership_gm_section(ctx, game, csrf.value, stretch.whole() ? nullptr : &shown, &open);
  model["gm_inbox"] = press_detail::gm_inbox_summary(ctx, game);
  if (st.contains("engine") && st["engine"].value("name", "") == kScriptEngineName) {
    Json versions = Json::array();
    if (auto v = ctx.services().engine_scripts(game); v.ok())
      for (auto it = v->rbegin(); it != v->rend(); ++it)
        versions.push_back({{"version", it->version},
                            {"sha256", it->sha256.substr(0, 16)},
                            {"at", time_html(it->created_at)},
                            {"by", it->created_by},
                            {"from_turn", it->from_turn}});
    model["script_engine"] = {{"versions", std::move(versions)},
                              {"max_bytes", host_script_limits().source_bytes}};
  }
  return form_page(ctx, csrf,
                   render_page("GM: " + st.value("name", game), "gm_game", model,
                               nav(game, st.value("name", game), req, ctx)));
}

// The GM's POST forms on one game: checks, then `act`; its Status becomes a redirect to the GM
// page with `done` or an error page.
Response gm_action(WebContext& ctx, const Request& req, const std::string& game,
                   const std::string& done,
                   const std::function<Status(const std::map<std::string, std::string>&)>& act) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  // (A rollback form from before `to` existed sends the turn to reopen as `turn`.)
  const bool legacy_rollback = done == "rolled-back" && field(form, "to").empty();
  if (!legacy_rollback)
    if (auto stale = stale_form(ctx, form, game, "/gm/games/" + url_encode(game))) return *stale;
  const Status s = act(form);
  if (is_script_check_busy(s)) {
    Response r = status_page(s);
    r.status = 429;
    r.headers.emplace_back("Retry-After", std::to_string(kScriptCheckRetrySeconds));
    return r;
  }
  if (!s.ok()) return status_page(s);
  return redirect("/gm/games/" + url_encode(game) + "?done=" + done);
}

// A turn's result page: the outcome of a preview, or (outcome null) a resolved turn's stored
// reports.
Response gm_turn_page(WebContext& ctx, const Request& req, const std::string& game, int turn,
                      const TurnRunOutcome* out, double seconds) {
  Status err;
  auto g = find_game(ctx, game, &err);
  if (!g) return status_page(err);
  Json reports = Json::array();
  if (out) {
    for (const auto& r : out->reports)
      reports.push_back({{"player", r.player}, {"text", out->full_text(r)}});
  } else {
    auto st = ctx.services().show_game(game);
    if (!st.ok()) return status_page(st.status());
    for (const auto& p : (*st)["players"]) {
      auto rep = ctx.services().report(game, p.value("code", ""), turn);
      if (rep.ok()) reports.push_back({{"player", rep->player}, {"text", rep->text}});
    }
    if (reports.empty())
      return error_page(404, "Turn " + std::to_string(turn) +
                                 " has not been resolved yet, so it has no reports.");
  }
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f", seconds * 1000);
  Json model = {{"id", game},
                {"name", g->name},
                {"preview", out != nullptr},
                {"turn", turn},
                {"reports", std::move(reports)}};
  if (out) {
    model["facts"] = {{"digest", out->digest},
                      {"actions", out->result.actions.size()},
                      {"battles", out->result.battles.size()},
                      {"no_orders", out->players_without_orders},
                      {"ms", ms}};
  }
  return page(render_page((out ? "Preview of turn " : "Turn ") + std::to_string(turn), "gm_turn",
                          model, nav(game, g->name, req, ctx)),
              200, true);
}

// GET /gm/games/{game}/preview?turn=N: the preview of the open turn N (nothing stored but the
// audit entry; a stale N answers 409). The preview form redirects here.
Response gm_preview(WebContext& ctx, const Request& req, const std::string& game) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  auto t = req.query.find("turn");
  auto sent = parse_turn_field(t == req.query.end() ? "" : t->second);
  if (!sent.ok()) return error_page(400, sent.status().message());
  const auto started = std::chrono::steady_clock::now();
  auto out = ctx.admin().run_turn(game, true, kGmActor, *sent);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!out.ok()) {
    if (out.status().code() == StatusCode::kFailedPrecondition && *sent)
      return page(render_page("Nothing was changed", "stale",
                              {{"message", out.status().message()},
                               {"back", "/gm/games/" + url_encode(game)}},
                              Json::object()),
                  409, true);
    return status_page(out.status());
  }
  return gm_turn_page(ctx, req, game, out->turn, &*out, seconds);
}

// POST run (and preview): PRG. The run redirects to the GM page with the result
// (?done=ran&turn=N) and is refused when the form was made for another turn; with players
// missing orders it first answers a confirmation page (confirm-run-form, confirm=1).
Response gm_turn(WebContext& ctx, const Request& req, const std::string& game, bool preview) {
  if (auto denied = gm_denied(req, ctx)) return *denied;
  const auto form = req.form();
  if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
  const std::string back = "/gm/games/" + url_encode(game);
  auto sent = parse_turn_field(trim(field(form, "turn")));
  if (!sent.ok()) return error_page(400, sent.status().message());
  if (preview) {
    Status err;
    auto g = find_game(ctx, game, &err);
    if (!g) return status_page(err);
    return redirect(back + "/preview?turn=" + std::to_string(sent->value_or(g->turn)));
  }
  if (auto stale = stale_form(ctx, form, game, back)) return *stale;
  if (field(form, "confirm") != "1") {
    auto subs = ctx.admin().submission_status(game);
    if (!subs.ok()) return status_page(subs.status());
    auto st = ctx.services().show_game(game);
    if (!st.ok()) return status_page(st.status());
    std::map<std::string, std::string> addresses;
    for (const auto& p : (*st)["players"]) addresses[p.value("code", "")] = p.value("email", "");
    Json missing = Json::array();
    for (const auto& s : *subs)
      if (!s.has_orders) {
        const std::string& email = addresses[s.player];
        missing.push_back({{"player", s.player},
                           {"name", s.name},
                           {"email", email.empty() ? "(none on file)" : email}});
      }
    if (!missing.empty()) {
      const CsrfToken csrf = csrf_token(req);
      const int turn = st->value("turn", 1);
      Json model = {{"id", game},
                    {"name", st->value("name", game)},
                    {"turn", turn},
                    {"players", subs->size()},
                    {"missing_count", missing.size()},
                    {"missing", std::move(missing)},
                    {"csrf", csrf.value}};
      return form_page(ctx, csrf,
                       render_page("Run turn " + std::to_string(turn) + "?", "gm_confirm_run",
                                   model, nav(game, st->value("name", game), req, ctx)));
    }
  }
  const auto started = std::chrono::steady_clock::now();
  auto out = ctx.admin().run_turn(game, false, kGmActor, *sent);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ctx.metrics().turn_run(seconds, out.ok());
  if (!out.ok()) {
    if (out.status().code() == StatusCode::kFailedPrecondition && *sent)
      if (auto stale = stale_form(ctx, form, game, back)) return *stale;
    return status_page(out.status());
  }
  ctx.turn_ran(game, out->turn);
  return redirect(back + "?done=ran&turn=" + std::to_string(out->turn));
}

}  // namespace game_local
}  // namespace

namespace {

// The game page and its turns: run, preview, a turn's page, roll back, the engine script.
void gm_game_turn_routes(http::Router& router, WebContext& ctx) {
  using namespace game_local;
  router.add("GET", "/gm/games/{game}", guarded([&ctx](const Request& req, const Params& p) {
               return gm_game(ctx, req, param(p, "game"));
             }),
             "html_gm_game");
  router.add("POST", "/gm/games/{game}/preview",
             guarded([&ctx](const Request& req, const Params& p) {
               return gm_turn(ctx, req, param(p, "game"), true);
             }),
             "html_gm_preview");
  router.add("GET", "/gm/games/{game}/preview",
             guarded([&ctx](const Request& req, const Params& p) {
               return gm_preview(ctx, req, param(p, "game"));
             }),
             "html_gm_preview_page");
  router.add("GET", "/gm/games/{game}/turns/{turn}",
             guarded([&ctx](const Request& req, const Params& p) {
               if (auto denied = gm_denied(req, ctx)) return *denied;
               const auto turn = positive_int(param(p, "turn"));
               if (!turn) return error_page(400, "The turn must be a positive whole number.");
               return gm_turn_page(ctx, req, param(p, "game"), *turn, nullptr, 0);
             }),
             "html_gm_turn_page");
  router.add("POST", "/gm/games/{game}/run", guarded([&ctx](const Request& req, const Params& p) {
               return gm_turn(ctx, req, param(p, "game"), false);
             }),
             "html_gm_run");
  router.add("POST", "/gm/games/{game}/rollback",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = param(p, "game");
               if (auto ask = confirm_rollback(ctx, req, game)) return *ask;
               return gm_action(ctx, req, game, "rolled-back", [&](const auto& form) {
                 // `to`: the turn to reopen (the form's `turn` is the open turn it was made
                 // for); older clients send only `turn`, the turn to reopen.
                 const std::string to = field(form, "to");
                 const auto turn = positive_int(to.empty() ? field(form, "turn") : to);
                 if (!turn)
                   return Status::InvalidArgument("the turn must be a positive whole number");
                 return ctx.admin().rollback(game, *turn, kGmActor, trim(field(form, "reason")));
               });
             }),
             "html_gm_rollback");
  router.add("POST", "/gm/games/{game}/engine-script",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = param(p, "game");
               return gm_action(ctx, req, game, "engine-script", [&](const auto& form) {
                 const std::string script = field(form, "script");
                 if (script.empty()) return Status::InvalidArgument("paste the Lua script first");
                 ADJ_RETURN_IF_ERROR(ctx.admin().script_version_room(game));
                 return ctx.admin().upload_engine_script(game, script, kGmActor).status();
               });
             }),
             "html_gm_engine_script");
}

// The game's controls: deadline, extension, a player's credentials, pause, resume.
void gm_game_control_routes(http::Router& router, WebContext& ctx) {
  using namespace game_local;
  router.add("POST", "/gm/games/{game}/deadline",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = param(p, "game");
               return gm_action(ctx, req, game, "deadline", [&](const auto& form) {
                 // The form's date (YYYY-MM-DD) and 24-hour time (HH:MM), both UTC; or one
                 // `deadline` field as before.
                 const std::string date = trim(field(form, "deadline_date"));
                 const std::string time = trim(field(form, "deadline_time"));
                 const auto t = date.empty() && time.empty()
                                    ? parse_time(field(form, "deadline"))
                                    : parse_time(date + " " + (time.empty() ? "00:00" : time));
                 if (!t)
                   return Status::InvalidArgument(
                       "The deadline must be a date like 2026-11-30 and a 24-hour UTC time like "
                       "18:00; nothing was changed.");
                 return ctx.admin().set_deadline(game, *t, kGmActor);
               });
             }),
             "html_gm_deadline");
  router.add("POST", "/gm/games/{game}/extend",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = param(p, "game");
               return gm_action(ctx, req, game, "extended", [&](const auto& form) {
                 const auto hours = positive_int(field(form, "hours"), 24 * 366);
                 if (!hours) return Status::InvalidArgument("give the extension in whole hours");
                 return ctx.admin().extend_deadline(game, std::int64_t{*hours} * 3600, kGmActor);
               });
             }),
             "html_gm_extend");
  router.add(
      "POST", "/gm/games/{game}/schedule", guarded([&ctx](const Request& req, const Params& p) {
        const std::string game = param(p, "game");
        return gm_action(ctx, req, game, "schedule", [&](const auto& form) {
          auto current = ctx.admin().schedule(game);
          if (!current.ok()) return current.status();
          Schedule s = *current;  // keeps the deadline and the guard settings
          s.kind = field(form, "kind");
          if (s.kind != "none" && s.kind != "fixed" && s.kind != "interval")
            return Status::InvalidArgument("the schedule kind must be none, fixed or interval");
          if (s.kind == "interval") {
            const auto hours = positive_int(field(form, "interval_hours"), 24 * 366);
            if (!hours) return Status::InvalidArgument("give the interval in whole hours");
            s.interval_seconds = std::int64_t{*hours} * 3600;
          }
          const std::string tod = trim(field(form, "time_of_day"));
          s.time_of_day.reset();
          if (!tod.empty()) {
            s.time_of_day = time_of_day(tod);
            if (!s.time_of_day) return Status::InvalidArgument("the time of day must be HH:MM");
          }
          s.early_when_all_in = !field(form, "early_when_all_in").empty();
          if (!field(form, "max_attempts").empty()) {
            const auto n = positive_int(field(form, "max_attempts"), 20);
            if (!n) return Status::InvalidArgument("attempts must be between 1 and 20");
            s.max_attempts = *n;
          }
          return ctx.admin().set_schedule(game, s, kGmActor);
        });
      }),
      "html_gm_schedule");
  router.add("POST", "/gm/games/{game}/players/{player}/reset",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = param(p, "game"), player = upper(param(p, "player"));
               if (auto denied = gm_denied(req, ctx)) return *denied;
               const auto form = req.form();
               if (!csrf_ok(req, form, ctx.config().base_url)) return csrf_failed();
               const std::string what = field(form, "what");
               if (auto stale = stale_form(ctx, form, game, "/gm/games/" + url_encode(game)))
                 return *stale;
               if (replayed_since(ctx, game, field(form, "seen"), "reset", player, what))
                 return error_page(
                     409, "A new " + std::string(what == "token" ? "sign-in link" : "secret") +
                              " was already issued for " + player +
                              " after this page was shown; nothing was changed. "
                              "Open the GM page again to issue another.");
               auto out = ctx.admin().reset_player(game, player, what, kGmActor);
               if (!out.ok()) return status_page(out.status());
               Json row = {{"code", player}};
               const std::size_t space = out->find(' ');
               if (what != "token") {
                 row["secret"] = out->substr(0, space);
                 ctx.secrets_issued(game, {{player, out->substr(0, space)}});
               }
               if (what != "secret")
                 row["url"] = ctx.config().base_url + game_path(game) + "/p/" +
                              (what == "token" ? *out : out->substr(space + 1));
               Status err;
               auto g = find_game(ctx, game, &err);
               return credentials_page(ctx, req, game, g ? g->name : game, Json::array({row}));
             }),
             "html_gm_player_reset");
  router.add("POST", "/gm/games/{game}/pause", guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = param(p, "game");
               return gm_action(ctx, req, game, "paused",
                                [&](const auto&) { return ctx.admin().pause(game, kGmActor); });
             }),
             "html_gm_pause");
  router.add("POST", "/gm/games/{game}/resume",
             guarded([&ctx](const Request& req, const Params& p) {
               const std::string game = param(p, "game");
               return gm_action(ctx, req, game, "resumed",
                                [&](const auto&) { return ctx.admin().resume(game, kGmActor); });
             }),
             "html_gm_resume");
}

}  // namespace

void add_gm_game_routes(http::Router& router, WebContext& ctx) {
  gm_game_turn_routes(router, ctx);
  gm_game_control_routes(router, ctx);
}

}  // namespace adj::web::html
