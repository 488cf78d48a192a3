// The arrows of a report or a turn (report_arrows.h).
#include "server/render/report_arrows.h"

#include <set>
#include <sstream>

#include "base/ascii.h"

namespace adj::render {

namespace {

using Json = nlohmann::json;
using ascii::upper;

std::string str(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// "Hampshire (HAM)" when the battle names the area, else the code.
std::string place(const Json& b, const char* code_key, const char* name_key) {
  const std::string code = str(b, code_key), name = str(b, name_key);
  return name.empty() || name == code ? code : name + " (" + code + ")";
}

void add_battle(const Json& b, std::vector<MapArrow>& out, std::set<std::string>& seen) {
  if (!b.is_object()) return;
  const std::string id = str(b, "id"), from = str(b, "from"), to = str(b, "to");
  const std::string attacker = str(b, "attacker"), defender = str(b, "defender");
  if (to.empty() || (!id.empty() && !seen.insert(id).second)) return;
  const bool captured =
      b.contains("captured") && b["captured"].is_boolean() && b["captured"].get<bool>();
  const std::string kind = str(b, "kind");
  std::string label =
      "Battle at " + place(b, "to", "to_name") + ": " + (kind.empty() ? "attack" : kind) + " by " +
      (attacker.empty() ? "?" : attacker) + " from " + place(b, "from", "from_name") + " against " +
      (defender.empty() ? "unowned" : defender) + "; " +
      (captured ? "the attacker took " + to : to + " held");
  std::set<std::string> origins;
  if (!from.empty()) {
    origins.insert(from);
    out.push_back({from, to, "attack", attacker, label});
  }
  if (b.contains("groups") && b["groups"].is_array())
    for (const auto& g : b["groups"]) {
      const std::string gf = str(g, "from");
      if (!gf.empty() && origins.insert(gf).second) {
        const std::string gp = str(g, "player");
        out.push_back({gf, to, "attack", gp.empty() ? attacker : gp, label});
      }
    }
  const Json& o = b.contains("outcome") ? b["outcome"] : Json();
  for (const std::string& r : {str(o, "defender_retreats_to"), str(b, "defender_withdrew_to")})
    if (!r.empty() && r != to)
      out.push_back({to, r, "retreat", defender,
                     (defender.empty() ? std::string("the defenders") : defender) +
                         " fell back from " + to + " to " + r});
  if (const std::string r = str(o, "attacker_retreats_to");
      !r.empty() && r != from && !from.empty())
    out.push_back({from, r, "retreat", attacker,
                   (attacker.empty() ? std::string("the attackers") : attacker) +
                       " fell back from " + from + " to " + r});
}

void add_move(const Json& a, std::vector<MapArrow>& out, const std::string& player) {
  const std::string verb = upper(str(a, "verb"));
  if (verb != "MOVE" && verb != "MIGRATE") return;
  if (!(a.contains("ok") && a["ok"].is_boolean() && a["ok"].get<bool>())) return;
  std::istringstream in(str(a, "text"));
  std::string word, from, to;
  in >> word >> from >> to;
  if (from.empty() || to.empty()) return;
  const std::string p = str(a, "player");
  out.push_back({upper(from), upper(to), "move", p.empty() ? player : p, str(a, "text")});
}

}  // namespace

std::vector<MapArrow> arrows_from_report(const Json& report) {
  std::vector<MapArrow> out;
  std::set<std::string> seen;
  if (!report.is_object()) return out;
  const std::string me = report.contains("player") ? str(report["player"], "code") : "";
  if (auto it = report.find("actions"); it != report.end() && it->is_array())
    for (const auto& a : *it) {
      if (!a.is_object()) continue;
      if (a.contains("battle") && a["battle"].is_object())
        add_battle(a["battle"], out, seen);
      else
        add_move(a, out, me);
    }
  if (auto it = report.find("attacks_on_you"); it != report.end() && it->is_array())
    for (const auto& b : *it) add_battle(b, out, seen);
  return out;
}

std::vector<MapArrow> arrows_from_turn(const std::vector<Json>& battles, const Json& actions,
                                       bool with_moves) {
  std::vector<MapArrow> out;
  std::set<std::string> seen;
  for (const Json& b : battles) add_battle(b, out, seen);
  if (!with_moves || !actions.is_array()) return out;
  for (const auto& a : actions)
    if (a.is_object() && !a.contains("battle")) add_move(a, out, "");
  return out;
}

}  // namespace adj::render
