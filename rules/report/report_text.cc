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

// An INVADE (Dark Age, seed_rules §1.8): no armies fight; each side loses one level of something.
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

// A battle of the report: a placeholder of render_report (a binary value holding the battle's
// index in `shared`) takes its text from there, anything else is rendered.
void put_battle(std::string& out, const Json& b, const std::vector<ReportBattle>* shared) {
  if (shared && b.is_binary())
    out += shared->at(b.get_binary().subtype()).text;
  else
    render_battle(out, b);
}

}  // namespace

std::string render_report_text(const Json& r, const Json* roundup) {
  return report_detail::render_text(r, roundup, nullptr);
}

std::string report_detail::render_battle_text(const Json& battle) {
  std::string out;
  render_battle(out, battle);
  return out;
}

std::string report_detail::render_text(const Json& r, const Json* roundup,
                                       const std::vector<ReportBattle>* shared) {
  std::string out;
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
    if (a.contains("battle")) put_battle(out, a["battle"], shared);
  }
  if (const auto nc = r.find("not_carried_out"); nc != r.end() && nc->is_array() && !nc->empty()) {
    out += "\nORDERS NOT CARRIED OUT (rejected when your file was checked)\n";
    for (const auto& l : *nc)
      out += "  line " + std::to_string(l.value("line", 0)) + ": " + l.value("text", "") +
             "\n      " + l.value("reason", "") + "\n";
  }
  out += "\nATTACKS ON YOUR AREAS\n";
  if (r["attacks_on_you"].empty()) out += "  (none)\n";
  for (const auto& b : r["attacks_on_you"]) put_battle(out, b, shared);

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
