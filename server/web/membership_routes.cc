// Joining, leaving and replacing on the web and the JSON API (server/app/membership.h):
//   HTML  GET/POST /games/{g}/join                         (anyone; form join-form)
//         GET/POST /games/{g}/confirm?code=...             (anyone; confirm-form: the GET shows
//              one button, the POST confirms a sign-up or standby request)
//         POST /games/{g}/me/address                       (the signed-in player; address-form)
//         POST /gm/games/{g}/open-signups | start | invite (GM; signup-form, start-form,
//              invite-form), /gm/games/{g}/signups/{id}/approve,
//              /gm/games/{g}/players/{p}/replace (replace-form-{P}),
//              /gm/games/{g}/players/{p}/address (gm-address-form-{P}),
//              /gm/games/{g}/signups/{id}/remove (signup-remove-form-{id})
//   API   POST /api/games/{g}/signups {email, preferences}   (anyone; 202: a confirmation is
//              mailed; 429 past the request limits)
//         POST /api/games/{g}/confirm {code}                (anyone: confirms a sign-up or standby)
//         POST /api/games/{g}/signups/{id}/remove           (GM)
//         GET  /api/games/{g}/signups                       (GM)
//         POST /api/games/{g}/signups/{id}/approve | start | invite {email} | open-signups (GM)
//         PUT  /api/games/{g}/players/{p}/address {email}   (the player's token, or the GM)
//         POST /api/games/{g}/players/{p}/replace {email, name} (GM)
// The GM desk and the player page show the sections rendered here (membership_gm_section,
// membership_me_section). Every form carries the open turn it was made for; a stale one is
// answered 409 "Turn N already ran" and changes nothing. New secrets are never shown: they are
// mailed privately with a sign-in link (WebContext::secrets_issued with_link).
//
// Web and API sign-ups record nothing until the address confirms (server/app/confirmations.h):
// the code is mailed to the address, and the answer never says whether it is on the list.
// Requests are bounded per client (client_key of Request::remote) and per address.
//
// membership_page_routes.cc holds the HTML routes, membership_api_routes.cc the API routes
// (membership_internal.h: what they share); this file the sections and register_membership_routes.
#include <map>
#include <optional>
#include <set>
#include <string>

#include "server/app/membership.h"
#include "server/web/membership_internal.h"
#include "server/web/page_render.h"
#include "server/web/pages_view.h"
#include "server/web/routes.h"

namespace adj::web {

// ---- sections of pages rendered elsewhere ----

std::string membership_gm_section(WebContext& ctx, const std::string& game, const std::string& csrf,
                                  const std::set<std::string>* shown, const GameState* open) {
  using namespace membership_detail;
  auto g = ctx.services().game_summary(game);
  if (!g.ok()) return "";
  std::optional<GameState> read;  // the open state, when the caller did not pass it
  if (!open) {
    auto state = ctx.services().load_state(game);
    if (!state.ok()) return "";
    read = std::move(state).value();
    open = &*read;
  }
  auto list = membership(ctx).signups(game);
  auto contacts = membership(ctx).contacts(game);
  Json signups = Json::array();
  bool started = false;  // kingdoms were assigned from the sign-ups: they cannot open again
  if (list.ok())
    for (const auto& s : *list) {
      started = started || s.state == "assigned" || s.state == "unassigned";
      Json row = signup_json(s);
      row["pending"] = s.state == "pending";
      row["removable"] = s.state != "assigned";
      row["when"] = time_html(s.created_at);
      std::string prefs;
      for (const auto& c : s.preferences) prefs += (prefs.empty() ? "" : " ") + c;
      row["preferences_text"] = prefs.empty() ? "any" : prefs;
      signups.push_back(std::move(row));
    }
  auto subs = ctx.admin().submission_status(game, open);
  std::set<std::string> with_orders;
  if (subs.ok())
    for (const auto& x : *subs)
      if (x.has_orders) with_orders.insert(x.player);
  std::map<std::string, std::string> people;  // player code -> the person's name
  if (contacts.ok())
    for (const Contact& c : *contacts) people[c.player] = c.name;
  Json players = Json::array();
  for (const Player& p : open->players) {
    if (shown && !shown->count(p.code)) continue;
    const bool has_orders = with_orders.count(p.code) > 0;
    const auto person_it = people.find(p.code);
    const std::string person = person_it == people.end() ? "" : person_it->second;
    players.push_back({{"code", p.code},
                       {"kingdom", p.name},
                       {"email", p.email.empty() ? "(vacant)" : p.email},
                       {"has_orders", has_orders},
                       {"person", person}});
  }
  add_attendance_columns(ctx, game, players,
                         open);  // missed, disorder, absence (attendance_routes.cc)
  const bool signup = g->status == "signup";
  Json model = {{"game", game},
                {"turn", g->turn},
                {"csrf", csrf},
                {"signup", signup},
                {"can_open", !signup && !started && g->turn == 1 &&
                                 (g->status == "open" || g->status == "paused")},
                {"has_signups", !signups.empty()},
                {"signups", std::move(signups)},
                {"places", open->players.size()},
                {"players", std::move(players)}};
  return render_template("membership_gm", model);
}

std::string membership_me_section(WebContext& ctx, const std::string& game,
                                  const std::string& player, const std::string& csrf) {
  using namespace membership_detail;
  auto g = ctx.services().game_summary(game);
  if (!g.ok()) return "";
  std::string email;
  if (auto state = ctx.services().load_player(game, player); state.ok())
    for (const Player& p : state->players)
      if (p.code == player) email = p.email;
  Json model = {{"game", game}, {"turn", g->turn}, {"csrf", csrf}, {"email", email}};
  return render_template("membership_me", model);
}

Status open_signups_after_create(WebContext& ctx, const std::string& game) {
  using namespace membership_detail;
  return membership(ctx).open_signups(game, kGmActor);
}

void register_membership_routes(http::Router& router, WebContext& ctx) {
  membership_detail::register_membership_page_routes(router, ctx);
  membership_detail::register_membership_gm_form_routes(router, ctx);
  membership_detail::register_membership_api_routes(router, ctx);
}

}  // namespace adj::web
