// Plain-text rendering of the stored report model (report.h): the views of report_layout.h over
// the report's JSON, reading the members build_report and battle_for_report write.
#include <cstdio>
#include <optional>
#include <string>

#include "rules/report/report.h"
#include "rules/report/report_layout.h"
#include "rules/report/report_shared.h"

namespace adj {

namespace {

using report_layout::str;

// A member shown as text, or empty (shown as "-" or "unowned") when it is null.
std::optional<std::string> opt_text(const Json& j) {
  if (j.is_null()) return std::nullopt;
  return str(j);
}
// The member `key` of `o` as text, or empty when `o` has no such member.
std::optional<std::string> member_text(const Json& o, const char* key) {
  if (!o.contains(key)) return std::nullopt;
  return str(o[key]);
}
const Json* member(const Json& o, const char* key) { return o.contains(key) ? &o[key] : nullptr; }
// The area's name when the report carries it (battle_for_report with the world), else its code.
std::string shown_name(const Json& j, const char* name_key, const char* code_key) {
  return j.contains(name_key) ? str(j[name_key]) : str(j[code_key]);
}

struct JsonGroup {
  const Json& j;
  std::string from() const { return str(j["from"]); }
  std::string from_name() const { return shown_name(j, "from_name", "from"); }
  int armies() const { return j["armies"]; }
  int losses() const { return j["losses"]; }
  int advanced() const { return j["advanced"]; }
  std::string returned_to() const { return str(j["returned_to"]); }  // null: "-", not ""
};

struct JsonRound {
  const Json& j;
  std::string phase() const { return str(j["phase"]); }
  int attacker_before() const { return j["attacker_before"].get<int>(); }
  int defender_before() const { return j["defender_before"].get<int>(); }
  int attacker_strength() const { return j["attacker_strength"].get<int>(); }
  int defender_strength() const { return j["defender_strength"].get<int>(); }
  int attacker_losses() const { return j["attacker_losses"].get<int>(); }
  int defender_losses() const { return j["defender_losses"].get<int>(); }
  const Json* detail() const { return member(j, "detail"); }
  const Json* attacker_dice() const { return member(j, "attacker_dice"); }
  const Json* defender_dice() const { return member(j, "defender_dice"); }
};

// A battle of battle_for_report.
struct JsonBattle {
  const Json& b;
  std::string kind() const { return str(b["kind"]); }
  std::string id() const { return str(b["id"]); }
  std::string attacker() const { return str(b["attacker"]); }
  std::optional<std::string> defender() const { return opt_text(b["defender"]); }
  std::string from() const { return str(b["from"]); }
  std::string to() const { return str(b["to"]); }
  std::string from_name() const { return shown_name(b, "from_name", "from"); }
  std::string to_name() const { return shown_name(b, "to_name", "to"); }
  int attacker_armies() const { return b["attacker_armies"].get<int>(); }
  int defender_armies() const { return b["defender_armies"].get<int>(); }
  bool ambush() const { return b["ambush"].get<bool>(); }
  bool captured() const { return b["captured"].get<bool>(); }
  int converted_population() const { return b.value("converted_population", 0); }
  std::optional<std::string> withdrew_to() const { return member_text(b, "defender_withdrew_to"); }
  int withdrawn_armies() const { return b["withdrawn_armies"].get<int>(); }
  std::size_t group_count() const { return b.contains("groups") ? b["groups"].size() : 0; }
  template <class F>
  void each_group(F f) const {
    if (b.contains("groups"))
      for (const Json& g : b["groups"]) f(JsonGroup{g});
  }
  template <class F>
  void each_round(F f) const {
    for (const Json& r : b["outcome"]["rounds"]) f(JsonRound{r});
  }
  bool has_draws() const { return !b["draws"].empty(); }
  template <class F>
  void each_draw(F f) const {
    for (const Json& x : b["draws"]) f(x[1].get<int>(), x[0].get<int>());
  }
  std::string seed() const { return str(b["seed"]); }
  const Json* outcome_detail() const { return member(b["outcome"], "detail"); }
  int attacker_losses() const { return b["outcome"]["attacker_losses"]; }
  int defender_losses() const { return b["outcome"]["defender_losses"]; }
  std::optional<std::string> retreats_to() const {
    return member_text(b["outcome"], "defender_retreats_to");
  }
};

struct JsonArea {
  const Json& a;
  std::string code() const { return str(a["code"]); }
  std::string name() const { return str(a["name"]); }
  std::string kind() const { return str(a["kind"]); }
  std::string terrain() const { return str(a["terrain"]); }
  int population() const { return a["population"].get<int>(); }
  int fort() const { return a["fort"].get<int>(); }
  int armies() const { return a["armies"].get<int>(); }
  std::string mode() const { return str(a["mode"]); }
  std::optional<std::string> retreat_to() const { return opt_text(a["retreat_to"]); }
  std::optional<std::string> ambush_against() const { return opt_text(a["ambush_against"]); }
  std::optional<std::string> owner() const { return opt_text(a["owner"]); }
  const Json* engine_state() const { return member(a, "engine_state"); }
};

struct JsonAction {
  const Json& a;
  int number() const { return a["action"].get<int>(); }
  std::string text() const { return str(a["text"]); }
  bool ok() const { return a["ok"].get<bool>(); }
  std::string message() const { return str(a["message"]); }
  int bp_spent() const { return a["bp_spent"].get<int>(); }
  void battle(std::string& out) const {
    if (a.contains("battle")) report_layout::battle_text(out, JsonBattle{a["battle"]});
  }
};

// A report of build_report (+ add_rejected_lines). The gifts are read leniently: gifts_text
// takes any report, with or without an economy.
struct JsonReport {
  const Json& r;
  const Json& economy_json() const {
    static const Json kNone = Json::object();
    return r.contains("economy") ? r["economy"] : kNone;
  }
  const Json* refused() const {
    const auto nc = r.find("not_carried_out");
    return nc != r.end() && nc->is_array() && !nc->empty() ? &*nc : nullptr;
  }

  std::string game_name() const { return str(r["game_name"]); }
  std::string game_id() const { return str(r["game"]); }
  int turn() const { return r["turn"].get<int>(); }
  int next_turn() const { return r["next_turn"].get<int>(); }
  std::string engine() const { return str(r["engine"]); }
  std::string player_name() const { return str(r["player"]["name"]); }
  std::string player_code() const { return str(r["player"]["code"]); }
  const Json* player_state() const { return member(r["player"], "engine_state"); }
  int position_this() const { return r["order_position"]["this_turn"].get<int>(); }
  int position_next() const { return r["order_position"]["next_turn"].get<int>(); }
  int players() const { return r["order_position"]["players"].get<int>(); }
  bool orders_on_file() const { return r["orders_on_file"].get<bool>(); }
  bool has_actions() const { return !r["actions"].empty(); }
  template <class F>
  void each_action(F f) const {
    for (const Json& a : r["actions"]) f(JsonAction{a});
  }
  bool any_refused() const { return refused() != nullptr; }
  template <class F>
  void each_refused(F f) const {
    for (const Json& l : *refused())
      f(l.value("line", 0), l.value("text", ""), l.value("reason", ""));
  }
  bool has_attacks() const { return !r["attacks_on_you"].empty(); }
  void attacks(std::string& out) const {
    for (const Json& b : r["attacks_on_you"]) report_layout::battle_text(out, JsonBattle{b});
  }
  Economy economy() const {
    const Json& e = r["economy"];
    auto n = [&](const char* k) { return e[k].get<int>(); };
    return {.bp_start = n("bp_start"),
            .bp_spent = n("bp_spent"),
            .bid = n("bid"),
            .order_bid = n("order_bid"),
            .leftover = n("leftover"),
            .income = n("income"),
            .upkeep = n("upkeep"),
            .trade = n("trade"),
            .bp_next = n("bp_next"),
            .treasury = n("treasury"),
            .vp = n("vp"),
            .reserve = n("reserve")};
  }
  int gifts_in() const { return economy_json().value("gifts_in", 0); }
  int gifts_out() const { return economy_json().value("gifts_out", 0); }
  template <class F>
  void each_gift(F f) const {
    for (const Json& g : economy_json().value("gifts_received", Json::array()))
      f(g.value("bps", 0), g.value("from", std::string("?")), g.value("action", 0));
  }
  template <class F>
  void each_area(F f) const {
    for (const Json& a : r["areas"]) f(JsonArea{a});
  }
  template <class F>
  void each_neighbour(F f) const {
    for (const Json& a : r["neighbours"]) f(JsonArea{a});
  }
  std::string order_template() const { return str(r["template"]); }
};

std::string join(const Json& list, const char* sep = ", ") {
  std::string out;
  for (const auto& x : list) out += (out.empty() ? "" : sep) + str(x);
  return out.empty() ? "-" : out;
}

}  // namespace

void report_layout::roundup_text(std::string& out, const Json& roundup) {
  out += "\nROUNDUP\n";
  out += "  Order of play this turn: " + join(roundup["order_of_play"]) + "\n";
  out += "  Order of play next turn: " + join(roundup["next_order_of_play"]) + "\n";
  out += "  kingdom               areas armies population  VP\n";
  for (const auto& k : roundup["kingdoms"]) {
    char line[200];
    std::snprintf(line, sizeof line, "  %-4s %-16s %6d %6d %10d %3d\n", str(k["code"]).c_str(),
                  str(k["name"]).substr(0, 16).c_str(), k["areas"].get<int>(),
                  k["armies"].get<int>(), k["population"].get<int>(), k["vp"].get<int>());
    out += line;
  }
}

std::string render_report_text(const Json& r, const Json* roundup) {
  std::string out;
  report_layout::report_text(out, JsonReport{r}, roundup);
  return out;
}

std::string report_detail::render_battle_text(const Json& battle) {
  std::string out;
  report_layout::battle_text(out, JsonBattle{battle});
  return out;
}

std::string gifts_text(const Json& report) {
  std::string out;
  report_layout::gifts_text(out, JsonReport{report});
  return out;
}

}  // namespace adj
