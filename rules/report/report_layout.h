// The plain text of a player's report, written once: every heading, column and sentence of
// render_report_text (report.h) and of render_report's text (report_shared.h) is here, so a new
// line of the report is added here alone. The text reads the report through a view, a small
// read-only adapter: report_text.cc has the views over the stored report JSON (previews, the web,
// the API, mail), report_direct.cc those over a big turn's data (TurnResult, ReportIndex,
// ReportParts), which splice each battle's section written once per turn.
//
// A view's string accessors may return std::string, const std::string& or const char*; an
// "optional" one returns std::optional<std::string> (or a reference to one), empty where the
// report shows "-" or "unowned"; a `const Json*` one is null when the member is absent or empty.
//
// Battle view (battle_text): kind() ("move", "raid", "invade", ...), id(), attacker(), defender()
// (optional), from(), to() (codes), from_name(), to_name() (the names a reader sees),
// attacker_armies(), defender_armies(), ambush(), captured(), converted_population(),
// withdrew_to() (optional), withdrawn_armies(), group_count(), each_group(f) (f(group) with
// from(), from_name(), armies(), losses(), advanced(), returned_to(): "" when none),
// each_round(f) (f(round) with phase(), attacker_before(), defender_before(),
// attacker_strength(), defender_strength(), attacker_losses(), defender_losses(), detail(),
// attacker_dice(), defender_dice(): null or a range of ints read by as_int), has_draws(),
// each_draw(f) (f(int face, int bound)), seed(), outcome_detail(), attacker_losses(),
// defender_losses(), retreats_to() (optional: where the defenders retreated).
//
// Report view (report_text): game_name(), game_id(), turn(), next_turn(), engine(),
// player_name(), player_code(), player_state(), position_this(), position_next(), players(),
// orders_on_file(), has_actions(), each_action(f) (f(action) with number(), text(), ok(),
// message(), bp_spent(), battle(out): appends its battle's section, if any), any_refused(),
// each_refused(f) (f(line, text, reason)), has_attacks(), attacks(out) (appends the section of
// every battle fought in the player's areas), economy() (an Economy), gifts_in(), gifts_out(),
// each_gift(f) (f(bps, from, action)), each_area(f) and each_neighbour(f) (f(area) with code(),
// name(), kind(), terrain(), population(), fort(), armies(), mode(), retreat_to(),
// ambush_against(), owner() (optionals), engine_state()), order_template().
#pragma once

#include <algorithm>
#include <charconv>
#include <concepts>
#include <cstdio>
#include <string>
#include <string_view>

#include "rules/report/state_text.h"
#include "rules/turn/turn_result.h"

namespace adj::report_layout {

// A JSON value as the report shows it: a string as itself, null as "-", anything else dumped.
inline std::string str(const Json& j) {
  if (j.is_null()) return "-";
  if (j.is_string()) return j.get<std::string>();
  return j.dump();
}

inline int as_int(int v) { return v; }
inline int as_int(const Json& j) { return j.get<int>(); }

// add(out, x...) appends each x: a text as itself, an integer in decimal (std::to_string's).
inline void put(std::string& out, std::string_view s) { out += s; }
template <std::integral I>
requires(!std::same_as<I, bool> && !std::same_as<I, char>) void put(std::string& out, I v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
template <class... T>
void add(std::string& out, const T&... x) {
  (put(out, x), ...);
}

// An optional text, or `none` when it is empty.
template <class Opt>
std::string_view opt(const Opt& s, std::string_view none) {
  return s ? std::string_view(*s) : none;
}

// Appends `s` left-aligned in `width` columns; a longer text still gets one space after it.
inline void pad(std::string& out, std::string_view s, std::size_t width) {
  out += s;
  out.append(s.size() < width ? width - s.size() : 1, ' ');
}

// "1 2 3": a range of dice.
template <class Ints>
void ints(std::string& out, const Ints& v) {
  bool first = true;
  for (const auto& d : v) {
    add(out, first ? "" : " ", as_int(d));
    first = false;
  }
}

// An INVADE (Dark Age, docs/rules/dark-age.md §1.8): no armies fight; each side loses one level of
// something.
template <class B>
void invasion_text(std::string& out, const B& b) {
  static const Json kNone;
  const Json* detail = b.outcome_detail();
  const Json& d = detail ? *detail : kNone;
  const std::string lost = str(d["target_lost"]);
  add(out, "     Invasion ", b.id(), ": ", b.from(), " -> ", b.to(), " (", b.attacker(),
      ") against ", opt(b.defender(), "unowned"), "\n");
  add(out, "       ", b.from(), " population ", d["origin_population"][0].get<int>(), " -> ",
      d["origin_population"][1].get<int>(), "; ", b.to());
  if (lost == "nothing")
    out += " had nothing to lose";
  else
    add(out, " lost 1 ", lost == "fort" ? "fort level" : lost);
  out += "; nothing moved\n";
}

// The "Battle at" headline, the combined attack, the withdrawal, the Gaelic rule and the ambush.
template <class B>
void battle_head(std::string& out, const B& b, bool combined) {
  // "Battle at Oxfordshire (Hampshire -> Oxfordshire): move by WSX, ..."
  std::string from;
  if (combined)
    b.each_group([&](const auto& g) { add(from, from.empty() ? "" : " + ", g.from_name()); });
  else
    from = b.from_name();
  const auto& to = b.to_name();
  add(out, "     Battle at ", to, " (", from, " -> ", to, "): ", b.kind(), " by ", b.attacker(),
      ", ", b.attacker_armies(), " attacking against ", b.defender_armies(), " defending (",
      opt(b.defender(), "unowned"), ") [", b.id(), "]\n");
  if (combined) {
    out += "       A combined attack: ";
    bool first = true;
    b.each_group([&](const auto& g) {
      add(out, first ? "" : ", ", g.armies(), " from ", g.from());
      first = false;
    });
    out += ".\n";
  }
  if (const auto& to_area = b.withdrew_to())
    add(out, "       The defenders withdrew first: ", b.withdrawn_armies(),
        " defending armies retreated to ", *to_area, ".\n");
  if (b.converted_population() > 0)
    add(out, "       Gaelic rule: ", b.converted_population(),
        " population turned into armies and retreated with them.\n");
  if (b.ambush()) out += "       An ambush was waiting.\n";
}

// One line per round (with the engine's notes and the dice).
template <class Round>
void round_text(std::string& out, const Round& r) {
  const Json* detail = r.detail();
  auto has = [&](const char* key) { return detail && detail->contains(key); };
  auto at = [&](const char* key) { return str((*detail)[key]); };
  // Engines that count in fractions (Virtuti Militari: half-points) give the strength in
  // points as text in detail.<side>_strength_points.
  const std::string a_strength = has("attacker_strength_points")
                                     ? at("attacker_strength_points")
                                     : std::to_string(r.attacker_strength());
  const std::string d_strength = has("defender_strength_points")
                                     ? at("defender_strength_points")
                                     : std::to_string(r.defender_strength());
  const auto& phase = r.phase();
  const std::string_view p = phase;
  char text[256];
  std::snprintf(text, sizeof text,
                "       %-9.*s attackers %d (strength %s) v defenders %d (strength %s): "
                "attacker lost %d, defender lost %d",
                static_cast<int>(p.size()), p.data(), r.attacker_before(), a_strength.c_str(),
                r.defender_before(), d_strength.c_str(), r.attacker_losses(), r.defender_losses());
  out += text;
  if (has("ambush_multiplier"))
    add(out, " (ambush: attacker losses x", at("ambush_multiplier"), ")");
  if (has("confusion_losses"))
    add(out, " (overrun in confusion: ", at("confusion_losses"), " of the attacker's losses)");
  if (has("tie_break"))
    add(out, " (a tie, broken by the ", at("tie_break"), ": the ", at("winner"), " wins)");
  if (has("overrun_spared")) add(out, " (overrun: ", at("overrun_spared"), " damage spared)");
  if (has("column") && has("result")) add(out, " (column ", at("column"), ": ", at("result"), ")");
  if (has("overrun")) add(out, " (overrun ", at("overrun"), ")");
  if (has("defender_spared"))
    out += (*detail)["defender_spared"] == "ambush" ? " (the ambush saved the defenders)"
                                                    : " (the terrain sheltered the defenders)";
  out += "\n";
  if (const auto* dice = r.attacker_dice()) {
    out += "         attacker dice: ";
    ints(out, *dice);
    out += "\n";
  }
  if (const auto* dice = r.defender_dice()) {
    out += "         defender dice: ";
    ints(out, *dice);
    out += "\n";
  }
}

// The dice drawn and the engine's notes on the outcome.
template <class B>
void battle_notes(std::string& out, const B& b) {
  if (b.has_draws()) {
    add(out, "       every die drawn (seed ", b.seed(), "): ");
    bool first = true;
    b.each_draw([&](int face, int bound) {
      add(out, first ? "" : " ", face, "/d", bound);
      first = false;
    });
    out += "\n";
  }
  const Json* od = b.outcome_detail();
  auto has = [&](const char* key) { return od && od->contains(key); };
  if (has("ended")) add(out, "       ", str((*od)["ended"]), "\n");
  if (has("overrun_failed"))
    add(out, "       The overrun failed: ", str((*od)["overrun_failed"]), ".\n");
  if (has("fleets_destroyed_in_port"))
    add(out, "       ", str((*od)["fleets_destroyed_in_port"]),
        " fleet(s) in the captured port were destroyed.\n");
  if (has("pillaged"))
    add(out, "       The raiders pillaged ", b.to(), ": ", (*od)["population_lost"].get<int>(),
        " population lost.\n");
}

// The result and where the attackers went.
template <class B>
void battle_result(std::string& out, const B& b, bool combined) {
  const int a_left = b.attacker_armies() - b.attacker_losses();
  const int d_left = b.defender_armies() - b.defender_losses();
  const bool raid = std::string_view(b.kind()) == "raid", captured = b.captured();
  out += "       Result: ";
  if (captured)
    add(out, "the attacker took ", b.to());
  else if (raid && a_left > 0)
    add(out, "the raiders went back to ", b.from());
  else if (raid)
    out += "the raiders were lost";
  else
    add(out, b.to(), " held");
  add(out, "; attacker ", b.attacker_armies(), " -> ", a_left, ", defender ", b.defender_armies(),
      " -> ", d_left, "\n");
  if (const auto& to_area = b.retreats_to())
    add(out, "       The defenders retreated to ", *to_area, ".\n");
  // Where the attackers went, when not all survivors entered or they came from several areas.
  b.each_group([&](const auto& x) {
    const auto& back = x.returned_to();
    const auto& from = x.from();
    const std::string_view returned = back;
    if (!combined && (returned.empty() || !captured)) return;
    add(out, "       From ", from, ": ", x.armies(), " sent, ", x.losses(), " lost");
    if (x.advanced() > 0) add(out, ", ", x.advanced(), " entered ", b.to());
    if (!returned.empty()) add(out, ", ", x.armies() - x.losses() - x.advanced());
    if (!returned.empty() && returned == std::string_view(from)) out += " went back";
    if (!returned.empty() && returned != std::string_view(from))
      add(out, " retreated to ", returned);
    out += ".\n";
  });
}

// A battle's section of a report: the same text whichever of its two reports (attacker's,
// defender's) shows it.
template <class B>
void battle_text(std::string& out, const B& b) {
  if (std::string_view(b.kind()) == "invade") return invasion_text(out, b);
  const bool combined = b.group_count() > 1;
  battle_head(out, b, combined);
  b.each_round([&](const auto& r) { round_text(out, r); });
  battle_notes(out, b);
  battle_result(out, b, combined);
}

// The report's BP gifts in one sentence ("received 7 BPs: 5 from MRC at action 3, 2 from NUM at
// action 9; gave 4 BPs (counted in spent)"); nothing when the player neither gave nor received.
template <class R>
void gifts_text(std::string& out, const R& r) {
  if (r.gifts_in() > 0) {
    add(out, "received ", r.gifts_in(), " BPs:");
    bool first = true;
    r.each_gift([&](int bps, const auto& from, int action) {
      add(out, first ? " " : ", ", bps, " from ", from, " at action ", action);
      first = false;
    });
  }
  if (r.gifts_out() > 0)
    add(out, r.gifts_in() > 0 ? "; " : "", "gave ", r.gifts_out(), " BPs (counted in spent)");
}

// The roundup of a turn (build_roundup, report.h), placed before the order form.
void roundup_text(std::string& out, const Json& roundup);

// The heading, YOUR ACTIONS, ORDERS NOT CARRIED OUT and ATTACKS ON YOUR AREAS.
template <class R>
void actions_text(std::string& out, const R& r) {
  add(out, "ADJUTANT REPORT: ", r.game_name(), " (", r.game_id(), "), turn ", r.turn(), "\n");
  add(out, "Kingdom: ", r.player_name(), " (", r.player_code(), ")   Rules: ", r.engine(), "\n\n");
  add(out, "Your place in the order of play: ", r.position_this(), " of ", r.players(),
      " this turn, ", r.position_next(), " next turn\n\n");
  out += "YOUR ACTIONS\n";
  if (!r.has_actions())
    out += r.orders_on_file() ? "  (none)\n" : "  No orders were received for this turn.\n";
  r.each_action([&](const auto& a) {
    out += "  ";
    pad(out, std::to_string(a.number()) + ".", 4);
    pad(out, a.text(), 28);
    add(out, a.ok() ? "ok: " : "FAILED: ", a.message());
    if (a.bp_spent() > 0) add(out, " (", a.bp_spent(), " BP)");
    out += "\n";
    a.battle(out);
  });
  if (r.any_refused()) {
    out += "\nORDERS NOT CARRIED OUT (rejected when your file was checked)\n";
    r.each_refused([&](int line, const auto& text, const auto& reason) {
      add(out, "  line ", line, ": ", text, "\n      ", reason, "\n");
    });
  }
  out += "\nATTACKS ON YOUR AREAS\n";
  if (!r.has_attacks()) out += "  (none)\n";
  r.attacks(out);
}

// ECONOMY.
template <class R>
void economy_text(std::string& out, const R& r) {
  const Economy& e = r.economy();
  add(out, "\nECONOMY\n  BPs at the start of the turn ", e.bp_start, ", spent ", e.bp_spent,
      ", left over ", e.leftover, "\n");
  if (r.gifts_in() > 0 || r.gifts_out() > 0) {
    out += "  Gifts: ";
    gifts_text(out, r);
    out += "\n";
  }
  add(out, "  Bid for the order of play ", e.bid, " (ORDER actions ", e.order_bid);
  if (e.bid != e.order_bid) add(out, ", leftover BPs ", e.leftover);
  add(out, ")\n  Income ", e.income, ", upkeep ", e.upkeep, ": BPs for turn ", r.next_turn(), ": ",
      e.bp_next, "\n");
  add(out, "  Trade this turn ", e.trade, ", treasury ", e.treasury, ", victory points ", e.vp,
      ", armies in reserve ", e.reserve, "\n");
}

// An area's row in both areas tables: `last` is the owner column of the neighbours' table (with
// its newline), null for the player's own areas (the defence follows).
template <class A>
void area_cells(std::string& out, const A& a, const char* last) {
  const auto& code = a.code();
  const auto& name = a.name();
  const auto& kind = a.kind();
  const auto& terrain = a.terrain();
  const std::string_view c = code, k = kind;
  const std::string_view n = std::string_view(name).substr(0, 16);
  const std::string_view t = std::string_view(terrain).substr(0, 10);
  const int cn = static_cast<int>(c.size()), nn = static_cast<int>(n.size());
  const int kn = static_cast<int>(k.size()), tn = static_cast<int>(t.size());
  char text[200];
  if (last)
    std::snprintf(text, sizeof text, "  %-4.*s %-16.*s %-4.*s %-10.*s %3d %4d %6d  %s\n", cn,
                  c.data(), nn, n.data(), kn, k.data(), tn, t.data(), a.population(), a.fort(),
                  a.armies(), last);
  else
    std::snprintf(text, sizeof text, "  %-4.*s %-16.*s %-4.*s %-10.*s %3d %4d %6d  ", cn, c.data(),
                  nn, n.data(), kn, k.data(), tn, t.data(), a.population(), a.fort(), a.armies());
  out += text;
}

// YOUR AREAS, the player's engine state, NEIGHBOURING AREAS.
template <class R>
void areas_text(std::string& out, const R& r) {
  out += "\nYOUR AREAS (end of turn)\n";
  out += "  code name             kind terrain    pop fort armies  defence\n";
  r.each_area([&](const auto& a) {
    area_cells(out, a, nullptr);
    const auto& mode = a.mode();
    const std::string_view m = mode;
    out += m;
    if (m == "retreat") add(out, " to ", opt(a.retreat_to(), "-"));
    if (m == "ambush") add(out, " against ", opt(a.ambush_against(), "-"));
    out += "\n";
  });
  r.each_area([&](const auto& a) {
    if (const Json* state = a.engine_state(); state && !state->empty())
      add(out, "  ", a.code(), " forces: ", state_inline(*state), "\n");
  });
  if (const Json* state = r.player_state(); state && !state->empty())
    add(out, "\nYOUR ", r.engine(), " STATE (cards, tokens, profile)\n", state_lines(*state, "  "));
  out += "\nNEIGHBOURING AREAS (end of turn)\n";
  out += "  code name             kind terrain    pop fort armies  owner\n";
  r.each_neighbour([&](const auto& a) {
    const auto& owner = a.owner();
    area_cells(out, a, owner ? owner->c_str() : "-");
  });
}

// A player's report; the roundup (when not null) before the order form.
template <class R>
void report_text(std::string& out, const R& r, const Json* roundup) {
  actions_text(out, r);
  economy_text(out, r);
  areas_text(out, r);
  if (roundup) roundup_text(out, *roundup);
  add(out, "\nORDERS FOR TURN ", r.next_turn(), " (fill in and send back)\n", r.order_template());
}

}  // namespace adj::report_layout
