// Plain-text rendering of the report model (report.h).
#include <cstdio>
#include <string>

#include "rules/report/report.h"
#include "rules/report/report_shared.h"
#include "rules/report/state_text.h"

namespace adj {

namespace {

std::string str(const Json& j) {
  if (j.is_null()) return "-";
  if (j.is_string()) return j.get<std::string>();
  return j.dump();
}

// Left-aligns `s` in `width` columns; a longer text still gets one space after it.
std::string pad(std::string s, std::size_t width) {
  s.append(s.size() < width ? width - s.size() : 1, ' ');
  return s;
}

std::string join(const Json& list, const char* sep = ", ") {
  std::string out;
  for (const auto& x : list) out += (out.empty() ? "" : sep) + str(x);
  return out.empty() ? "-" : out;
}

std::string dice(const Json& v) {
  std::string out;
  for (const auto& d : v) out += (out.empty() ? "" : " ") + std::to_string(d.get<int>());
  return out;
}

// An INVADE (Dark Age, docs/rules/dark-age.md §1.8): no armies fight; each side loses one level of
// something.
void render_invasion(std::string& out, const Json& b) {
  const Json& d = b["outcome"]["detail"];
  const std::string lost = str(d["target_lost"]);
  out += "     Invasion " + str(b["id"]) + ": " + str(b["from"]) + " -> " + str(b["to"]) + " (" +
         str(b["attacker"]) + ") against " +
         (b["defender"].is_null() ? std::string("unowned") : str(b["defender"])) + "\n";
  out += "       " + str(b["from"]) + " population " +
         std::to_string(d["origin_population"][0].get<int>()) + " -> " +
         std::to_string(d["origin_population"][1].get<int>()) + "; " + str(b["to"]) +
         (lost == "nothing" ? std::string(" had nothing to lose")
                            : " lost 1 " + (lost == "fort" ? std::string("fort level") : lost)) +
         "; nothing moved\n";
}

// The same text whichever of its two reports (attacker's, defender's) shows the battle.
void render_battle(std::string& out, const Json& b) {
  if (b["kind"] == "invade") return render_invasion(out, b);
  // "Battle at Oxfordshire (Hampshire -> Oxfordshire): move by WSX, ..." with the areas' names
  // when the report carries them (battle_for_report with the world), else their codes.
  auto name_of = [](const Json& j, const char* name_key, const char* code_key) {
    return j.contains(name_key) ? str(j[name_key]) : str(j[code_key]);
  };
  std::string from = name_of(b, "from_name", "from");
  if (b.contains("groups") && b["groups"].size() > 1) {
    from.clear();
    for (const auto& x : b["groups"])
      from += (from.empty() ? "" : " + ") + name_of(x, "from_name", "from");
  }
  const std::string to = name_of(b, "to_name", "to");
  std::string head = "     Battle at " + to + " (" + from + " -> " + to + "): " + str(b["kind"]) +
                     " by " + str(b["attacker"]) + ", " +
                     std::to_string(b["attacker_armies"].get<int>()) + " attacking against " +
                     std::to_string(b["defender_armies"].get<int>()) + " defending (" +
                     (b["defender"].is_null() ? std::string("unowned") : str(b["defender"])) +
                     ") [" + str(b["id"]) + "]";
  out += head + "\n";
  const bool combined = b.contains("groups") && b["groups"].size() > 1;
  if (combined) {
    std::string g;
    for (const auto& x : b["groups"])
      g += (g.empty() ? "" : ", ") + std::to_string(x["armies"].get<int>()) + " from " +
           str(x["from"]);
    out += "       A combined attack: " + g + ".\n";
  }
  if (b.contains("defender_withdrew_to"))
    out +=
        "       The defenders withdrew first: " + std::to_string(b["withdrawn_armies"].get<int>()) +
        " defending armies retreated to " + str(b["defender_withdrew_to"]) + ".\n";
  if (b.contains("converted_population"))
    out += "       Gaelic rule: " + std::to_string(b["converted_population"].get<int>()) +
           " population turned into armies and retreated with them.\n";
  if (b["ambush"].get<bool>()) out += "       An ambush was waiting.\n";
  const Json& o = b["outcome"];
  for (const auto& r : o["rounds"]) {
    // Engines that count in fractions (Virtuti Militari: half-points) give the strength in
    // points as text in detail.<side>_strength_points.
    auto strength = [&](const std::string& side) {
      const std::string key = side + "_strength_points";
      if (r.contains("detail") && r["detail"].contains(key)) return str(r["detail"][key]);
      return std::to_string(r[side + "_strength"].get<int>());
    };
    char line[256];
    std::snprintf(line, sizeof line,
                  "       %-9s attackers %d (strength %s) v defenders %d (strength %s): "
                  "attacker lost %d, defender lost %d",
                  str(r["phase"]).c_str(), r["attacker_before"].get<int>(),
                  strength("attacker").c_str(), r["defender_before"].get<int>(),
                  strength("defender").c_str(), r["attacker_losses"].get<int>(),
                  r["defender_losses"].get<int>());
    out += line;
    if (r.contains("detail") && r["detail"].contains("ambush_multiplier"))
      out += " (ambush: attacker losses x" + str(r["detail"]["ambush_multiplier"]) + ")";
    if (r.contains("detail") && r["detail"].contains("confusion_losses"))
      out += " (overrun in confusion: " + str(r["detail"]["confusion_losses"]) +
             " of the attacker's losses)";
    if (r.contains("detail") && r["detail"].contains("tie_break"))
      out += " (a tie, broken by the " + str(r["detail"]["tie_break"]) + ": the " +
             str(r["detail"]["winner"]) + " wins)";
    if (r.contains("detail") && r["detail"].contains("overrun_spared"))
      out += " (overrun: " + str(r["detail"]["overrun_spared"]) + " damage spared)";
    if (r.contains("detail") && r["detail"].contains("column") && r["detail"].contains("result"))
      out += " (column " + str(r["detail"]["column"]) + ": " + str(r["detail"]["result"]) + ")";
    if (r.contains("detail") && r["detail"].contains("overrun"))
      out += " (overrun " + str(r["detail"]["overrun"]) + ")";
    if (r.contains("detail") && r["detail"].contains("defender_spared"))
      out += r["detail"]["defender_spared"] == "ambush" ? " (the ambush saved the defenders)"
                                                        : " (the terrain sheltered the defenders)";
    out += "\n";
    if (r.contains("attacker_dice"))
      out += "         attacker dice: " + dice(r["attacker_dice"]) + "\n";
    if (r.contains("defender_dice"))
      out += "         defender dice: " + dice(r["defender_dice"]) + "\n";
  }
  if (!b["draws"].empty()) {
    std::string d;
    for (const auto& x : b["draws"])
      d += (d.empty() ? "" : " ") + std::to_string(x[1].get<int>()) + "/d" +
           std::to_string(x[0].get<int>());
    out += "       every die drawn (seed " + str(b["seed"]) + "): " + d + "\n";
  }
  if (o.contains("detail") && o["detail"].contains("ended"))
    out += "       " + str(o["detail"]["ended"]) + "\n";
  if (o.contains("detail") && o["detail"].contains("overrun_failed"))
    out += "       The overrun failed: " + str(o["detail"]["overrun_failed"]) + ".\n";
  if (o.contains("detail") && o["detail"].contains("fleets_destroyed_in_port"))
    out += "       " + str(o["detail"]["fleets_destroyed_in_port"]) +
           " fleet(s) in the captured port were destroyed.\n";
  const int al = o["attacker_losses"], dl = o["defender_losses"];
  const int a_left = b["attacker_armies"].get<int>() - al;
  const int d_left = b["defender_armies"].get<int>() - dl;
  if (o.contains("detail") && o["detail"].contains("pillaged"))
    out += "       The raiders pillaged " + str(b["to"]) + ": " +
           std::to_string(o["detail"]["population_lost"].get<int>()) + " population lost.\n";
  const bool raid = b["kind"] == "raid";
  out += "       Result: " +
         std::string(b["captured"].get<bool>() ? "the attacker took " + str(b["to"])
                     : raid && a_left > 0      ? "the raiders went back to " + str(b["from"])
                     : raid                    ? std::string("the raiders were lost")
                                               : str(b["to"]) + " held") +
         "; attacker " + std::to_string(b["attacker_armies"].get<int>()) + " -> " +
         std::to_string(a_left) + ", defender " + std::to_string(b["defender_armies"].get<int>()) +
         " -> " + std::to_string(d_left) + "\n";
  if (o.contains("defender_retreats_to"))
    out += "       The defenders retreated to " + str(o["defender_retreats_to"]) + ".\n";
  // Where the attackers went, when not all survivors entered or they came from several areas.
  if (b.contains("groups")) {
    for (const auto& x : b["groups"]) {
      const int armies = x["armies"], lost = x["losses"], advanced = x["advanced"];
      const std::string back = str(x["returned_to"]);
      if (!combined && (x["returned_to"] == "" || !b["captured"].get<bool>())) continue;
      std::string line = "       From " + str(x["from"]) + ": " + std::to_string(armies) +
                         " sent, " + std::to_string(lost) + " lost";
      if (advanced > 0) line += ", " + std::to_string(advanced) + " entered " + str(b["to"]);
      if (x["returned_to"] != "")
        line += ", " + std::to_string(armies - lost - advanced) +
                (back == str(x["from"]) ? " went back" : " retreated to " + back);
      out += line + ".\n";
    }
  }
}

// render_battle of battle_for_report(b, world), read from the log itself (no tree): the same text
// byte for byte (tests/rules/report/report_shared_test.cc and the case files compare both).
// The engines' "detail" objects are read as the tree path reads them.
const std::string& area_name(const GameState& world, const std::string& code) {
  const Area* a = world.find_area(code);
  return a && !a->name.empty() ? a->name : code;
}

std::string ints_text(const std::vector<int>& v) {
  std::string out;
  for (int d : v) {
    if (!out.empty()) out += ' ';
    out += std::to_string(d);
  }
  return out;
}

void render_invasion(std::string& out, const BattleLog& b) {
  const Json& d = b.outcome.detail;
  const std::string lost = str(d["target_lost"]);
  out += "     Invasion " + b.id + ": " + b.from + " -> " + b.to + " (" + b.attacker +
         ") against " + (b.defender ? *b.defender : std::string("unowned")) + "\n";
  out += "       " + b.from + " population " +
         std::to_string(d["origin_population"][0].get<int>()) + " -> " +
         std::to_string(d["origin_population"][1].get<int>()) + "; " + b.to +
         (lost == "nothing" ? std::string(" had nothing to lose")
                            : " lost 1 " + (lost == "fort" ? std::string("fort level") : lost)) +
         "; nothing moved\n";
}

void render_battle(std::string& out, const BattleLog& b, const GameState& world) {
  const std::string kind = b.dark_age_action == DarkAgeAction::kRaid     ? "raid"
                           : b.dark_age_action == DarkAgeAction::kInvade ? "invade"
                                                                         : to_string(b.kind);
  if (kind == "invade") return render_invasion(out, b);
  const bool combined = b.groups.size() > 1;
  std::string from = area_name(world, b.from);
  if (combined) {
    from.clear();
    for (const auto& x : b.groups) {
      if (!from.empty()) from += " + ";
      from += area_name(world, x.from);
    }
  }
  const std::string& to = area_name(world, b.to);
  out += "     Battle at ";
  out += to;
  out += " (" + from + " -> ";
  out += to;
  out += "): " + kind + " by " + b.attacker + ", " + std::to_string(b.attacker_armies) +
         " attacking against " + std::to_string(b.defender_armies) + " defending (" +
         (b.defender ? *b.defender : std::string("unowned")) + ") [" + b.id + "]\n";
  if (combined) {
    std::string g;
    for (const auto& x : b.groups)
      g += (g.empty() ? "" : ", ") + std::to_string(x.armies) + " from " + x.from;
    out += "       A combined attack: " + g + ".\n";
  }
  if (b.defender_withdrew_to)
    out += "       The defenders withdrew first: " + std::to_string(b.withdrawn_armies) +
           " defending armies retreated to " + *b.defender_withdrew_to + ".\n";
  if (b.converted_population > 0)
    out += "       Gaelic rule: " + std::to_string(b.converted_population) +
           " population turned into armies and retreated with them.\n";
  if (b.ambush) out += "       An ambush was waiting.\n";
  const BattleOutcome& o = b.outcome;
  for (const BattleRound& r : o.rounds) {
    const Json& detail = r.detail;  // the tree holds it when it is not empty
    auto has = [&](const char* key) { return !detail.empty() && detail.contains(key); };
    auto strength = [&](const char* side, int value) {
      const std::string key = std::string(side) + "_strength_points";
      if (!detail.empty() && detail.contains(key)) return str(detail[key]);
      return std::to_string(value);
    };
    char line[256];
    std::snprintf(line, sizeof line,
                  "       %-9s attackers %d (strength %s) v defenders %d (strength %s): "
                  "attacker lost %d, defender lost %d",
                  r.phase.c_str(), r.attacker_before,
                  strength("attacker", r.attacker_strength).c_str(), r.defender_before,
                  strength("defender", r.defender_strength).c_str(), r.attacker_losses,
                  r.defender_losses);
    out += line;
    if (has("ambush_multiplier"))
      out += " (ambush: attacker losses x" + str(detail["ambush_multiplier"]) + ")";
    if (has("confusion_losses"))
      out += " (overrun in confusion: " + str(detail["confusion_losses"]) +
             " of the attacker's losses)";
    if (has("tie_break"))
      out += " (a tie, broken by the " + str(detail["tie_break"]) + ": the " +
             str(detail["winner"]) + " wins)";
    if (has("overrun_spared"))
      out += " (overrun: " + str(detail["overrun_spared"]) + " damage spared)";
    if (has("column") && detail.contains("result"))
      out += " (column " + str(detail["column"]) + ": " + str(detail["result"]) + ")";
    if (has("overrun")) out += " (overrun " + str(detail["overrun"]) + ")";
    if (has("defender_spared"))
      out += detail["defender_spared"] == "ambush" ? " (the ambush saved the defenders)"
                                                   : " (the terrain sheltered the defenders)";
    out += "\n";
    if (!r.attacker_dice.empty())
      out += "         attacker dice: " + ints_text(r.attacker_dice) + "\n";
    if (!r.defender_dice.empty())
      out += "         defender dice: " + ints_text(r.defender_dice) + "\n";
  }
  if (!b.draws.empty()) {
    std::string d;
    for (const Draw& x : b.draws) {
      if (!d.empty()) d += ' ';
      d += std::to_string(static_cast<int>(x.value + 1));
      d += "/d";
      d += std::to_string(static_cast<int>(x.bound));
    }
    out += "       every die drawn (seed " + std::to_string(b.seed) + "): " + d + "\n";
  }
  const Json& od = o.detail;
  auto has = [&](const char* key) { return !od.empty() && od.contains(key); };
  if (has("ended")) out += "       " + str(od["ended"]) + "\n";
  if (has("overrun_failed"))
    out += "       The overrun failed: " + str(od["overrun_failed"]) + ".\n";
  if (has("fleets_destroyed_in_port"))
    out += "       " + str(od["fleets_destroyed_in_port"]) +
           " fleet(s) in the captured port were destroyed.\n";
  const int al = o.attacker_losses, dl = o.defender_losses;
  const int a_left = b.attacker_armies - al;
  const int d_left = b.defender_armies - dl;
  if (has("pillaged"))
    out += "       The raiders pillaged " + b.to + ": " +
           std::to_string(od["population_lost"].get<int>()) + " population lost.\n";
  const bool raid = kind == "raid";
  out += "       Result: " +
         std::string(b.captured           ? "the attacker took " + b.to
                     : raid && a_left > 0 ? "the raiders went back to " + b.from
                     : raid               ? std::string("the raiders were lost")
                                          : b.to + " held") +
         "; attacker " + std::to_string(b.attacker_armies) + " -> " + std::to_string(a_left) +
         ", defender " + std::to_string(b.defender_armies) + " -> " + std::to_string(d_left) + "\n";
  if (o.defender_retreats_to)
    out += "       The defenders retreated to " + *o.defender_retreats_to + ".\n";
  for (const BattleGroupLog& x : b.groups) {
    if (!combined && (x.returned_to.empty() || !b.captured)) continue;
    std::string line = "       From " + x.from + ": " + std::to_string(x.armies) + " sent, " +
                       std::to_string(x.losses) + " lost";
    if (x.advanced > 0) line += ", " + std::to_string(x.advanced) + " entered " + b.to;
    if (!x.returned_to.empty())
      line += ", " + std::to_string(x.armies - x.losses - x.advanced) +
              (x.returned_to == x.from ? " went back" : " retreated to " + x.returned_to);
    out += line + ".\n";
  }
}

// render_report_text.
void render_text(std::string& out, const Json& r, const Json* roundup) {
  const std::string me = str(r["player"]["code"]);
  out += "ADJUTANT REPORT: " + str(r["game_name"]) + " (" + str(r["game"]) + "), turn " +
         std::to_string(r["turn"].get<int>()) + "\n";
  out += "Kingdom: " + str(r["player"]["name"]) + " (" + me + ")   Rules: " + str(r["engine"]) +
         "\n\n";
  const Json& pos = r["order_position"];
  out += "Your place in the order of play: " + std::to_string(pos["this_turn"].get<int>()) +
         " of " + std::to_string(pos["players"].get<int>()) + " this turn, " +
         std::to_string(pos["next_turn"].get<int>()) + " next turn\n\n";

  out += "YOUR ACTIONS\n";
  if (r["actions"].empty())
    out += r["orders_on_file"].get<bool>() ? "  (none)\n"
                                           : "  No orders were received for this turn.\n";
  for (const auto& a : r["actions"]) {
    out += "  " + pad(std::to_string(a["action"].get<int>()) + ".", 4) + pad(str(a["text"]), 28) +
           (a["ok"].get<bool>() ? "ok: " : "FAILED: ") + str(a["message"]);
    if (a["bp_spent"].get<int>() > 0)
      out += " (" + std::to_string(a["bp_spent"].get<int>()) + " BP)";
    out += "\n";
    if (a.contains("battle")) render_battle(out, a["battle"]);
  }
  if (const auto nc = r.find("not_carried_out"); nc != r.end() && nc->is_array() && !nc->empty()) {
    out += "\nORDERS NOT CARRIED OUT (rejected when your file was checked)\n";
    for (const auto& l : *nc)
      out += "  line " + std::to_string(l.value("line", 0)) + ": " + l.value("text", "") +
             "\n      " + l.value("reason", "") + "\n";
  }
  out += "\nATTACKS ON YOUR AREAS\n";
  if (r["attacks_on_you"].empty()) out += "  (none)\n";
  for (const auto& b : r["attacks_on_you"]) render_battle(out, b);

  const Json& e = r["economy"];
  auto n = [&](const char* k) { return std::to_string(e[k].get<int>()); };
  out += "\nECONOMY\n";
  out += "  BPs at the start of the turn " + n("bp_start") + ", spent " + n("bp_spent") +
         ", left over " + n("leftover") + "\n";
  if (const std::string g = gifts_text(r); !g.empty()) out += "  Gifts: " + g + "\n";
  out += "  Bid for the order of play " + n("bid") + " (ORDER actions " + n("order_bid") +
         (e["bid"] != e["order_bid"] ? ", leftover BPs " + n("leftover") : std::string()) + ")\n";
  out += "  Income " + n("income") + ", upkeep " + n("upkeep") + ": BPs for turn " +
         std::to_string(r["next_turn"].get<int>()) + ": " + n("bp_next") + "\n";
  out += "  Trade this turn " + n("trade") + ", treasury " + n("treasury") + ", victory points " +
         n("vp") + ", armies in reserve " + n("reserve") + "\n";

  out += "\nYOUR AREAS (end of turn)\n";
  out += "  code name             kind terrain    pop fort armies  defence\n";
  for (const auto& a : r["areas"]) {
    char line[200];
    std::snprintf(line, sizeof line, "  %-4s %-16s %-4s %-10s %3d %4d %6d  ",
                  str(a["code"]).c_str(), str(a["name"]).substr(0, 16).c_str(),
                  str(a["kind"]).c_str(), str(a["terrain"]).substr(0, 10).c_str(),
                  a["population"].get<int>(), a["fort"].get<int>(), a["armies"].get<int>());
    out += line + str(a["mode"]);
    if (a["mode"] == "retreat") out += " to " + str(a["retreat_to"]);
    if (a["mode"] == "ambush") out += " against " + str(a["ambush_against"]);
    out += "\n";
  }
  for (const auto& a : r["areas"])
    if (a.contains("engine_state") && !a["engine_state"].empty())
      out += "  " + str(a["code"]) + " forces: " + state_inline(a["engine_state"]) + "\n";
  if (r["player"].contains("engine_state") && !r["player"]["engine_state"].empty())
    out += "\nYOUR " + str(r["engine"]) + " STATE (cards, tokens, profile)\n" +
           state_lines(r["player"]["engine_state"], "  ");
  out += "\nNEIGHBOURING AREAS (end of turn)\n";
  out += "  code name             kind terrain    pop fort armies  owner\n";
  for (const auto& a : r["neighbours"]) {
    char line[200];
    std::snprintf(line, sizeof line, "  %-4s %-16s %-4s %-10s %3d %4d %6d  %s\n",
                  str(a["code"]).c_str(), str(a["name"]).substr(0, 16).c_str(),
                  str(a["kind"]).c_str(), str(a["terrain"]).substr(0, 10).c_str(),
                  a["population"].get<int>(), a["fort"].get<int>(), a["armies"].get<int>(),
                  str(a["owner"]).c_str());
    out += line;
  }
  if (roundup) {
    out += "\nROUNDUP\n";
    out += "  Order of play this turn: " + join((*roundup)["order_of_play"]) + "\n";
    out += "  Order of play next turn: " + join((*roundup)["next_order_of_play"]) + "\n";
    out += "  kingdom               areas armies population  VP\n";
    for (const auto& k : (*roundup)["kingdoms"]) {
      char line[200];
      std::snprintf(line, sizeof line, "  %-4s %-16s %6d %6d %10d %3d\n", str(k["code"]).c_str(),
                    str(k["name"]).substr(0, 16).c_str(), k["areas"].get<int>(),
                    k["armies"].get<int>(), k["population"].get<int>(), k["vp"].get<int>());
      out += line;
    }
  }
  out += "\nORDERS FOR TURN " + std::to_string(r["next_turn"].get<int>()) +
         " (fill in and send back)\n" + str(r["template"]);
}

}  // namespace

std::string render_report_text(const Json& r, const Json* roundup) {
  std::string out;
  render_text(out, r, roundup);
  return out;
}

std::string report_detail::render_battle_text(const Json& battle) {
  std::string out;
  render_battle(out, battle);
  return out;
}

std::string report_detail::render_battle_text(const BattleLog& battle, const GameState& world) {
  std::string out;
  render_battle(out, battle, world);
  return out;
}

std::string gifts_text(const Json& report) {
  if (!report.contains("economy")) return "";
  const Json& e = report["economy"];
  const int in = e.value("gifts_in", 0), out_bps = e.value("gifts_out", 0);
  std::string out;
  if (in > 0) {
    out = "received " + std::to_string(in) + " BPs:";
    bool first = true;
    for (const auto& g : e.value("gifts_received", Json::array())) {
      out += std::string(first ? " " : ", ") + std::to_string(g.value("bps", 0)) + " from " +
             g.value("from", std::string("?")) + " at action " +
             std::to_string(g.value("action", 0));
      first = false;
    }
  }
  if (out_bps > 0)
    out += (out.empty() ? "" : "; ") + std::string("gave ") + std::to_string(out_bps) +
           " BPs (counted in spent)";
  return out;
}

}  // namespace adj
