// report_battle (report_shared.h): a battle's JSON text and text written once from its log, the
// text through the view of report_layout.h below.
#include "rules/report/report_shared.h"

#include "rules/report/report_layout.h"
#include "rules/turn/turn_fields.h"
#include "rules/turn/turn_text.h"

namespace adj {

namespace {

struct LogGroup {
  const BattleGroupLog& g;
  const GameState& world;
  const std::string& from() const { return g.from; }
  const std::string& from_name() const { return report_area_name(world, g.from); }
  int armies() const { return g.armies; }
  int losses() const { return g.losses; }
  int advanced() const { return g.advanced; }
  const std::string& returned_to() const { return g.returned_to; }
};

struct LogRound {
  const BattleRound& r;
  const std::string& phase() const { return r.phase; }
  int attacker_before() const { return r.attacker_before; }
  int defender_before() const { return r.defender_before; }
  int attacker_strength() const { return r.attacker_strength; }
  int defender_strength() const { return r.defender_strength; }
  int attacker_losses() const { return r.attacker_losses; }
  int defender_losses() const { return r.defender_losses; }
  const Json* detail() const { return r.detail.empty() ? nullptr : &r.detail; }
  const std::vector<int>* attacker_dice() const {
    return r.attacker_dice.empty() ? nullptr : &r.attacker_dice;
  }
  const std::vector<int>* defender_dice() const {
    return r.defender_dice.empty() ? nullptr : &r.defender_dice;
  }
};

// battle_for_report(b, world) as report_layout::battle_text reads it, from the log itself.
struct LogBattle {
  const BattleLog& b;
  const GameState& world;
  const char* kind() const {
    return b.dark_age_action == DarkAgeAction::kRaid     ? "raid"
           : b.dark_age_action == DarkAgeAction::kInvade ? "invade"
                                                         : to_string(b.kind);
  }
  const std::string& id() const { return b.id; }
  const std::string& attacker() const { return b.attacker; }
  const std::optional<std::string>& defender() const { return b.defender; }
  const std::string& from() const { return b.from; }
  const std::string& to() const { return b.to; }
  const std::string& from_name() const { return report_area_name(world, b.from); }
  const std::string& to_name() const { return report_area_name(world, b.to); }
  int attacker_armies() const { return b.attacker_armies; }
  int defender_armies() const { return b.defender_armies; }
  bool ambush() const { return b.ambush; }
  bool captured() const { return b.captured; }
  int converted_population() const { return b.converted_population; }
  const std::optional<std::string>& withdrew_to() const { return b.defender_withdrew_to; }
  int withdrawn_armies() const { return b.withdrawn_armies; }
  std::size_t group_count() const { return b.groups.size(); }
  template <class F>
  void each_group(F f) const {
    for (const BattleGroupLog& g : b.groups) f(LogGroup{g, world});
  }
  template <class F>
  void each_round(F f) const {
    for (const BattleRound& r : b.outcome.rounds) f(LogRound{r});
  }
  bool has_draws() const { return !b.draws.empty(); }
  template <class F>
  void each_draw(F f) const {
    for (const Draw& x : b.draws) f(static_cast<int>(x.value + 1), static_cast<int>(x.bound));
  }
  std::string seed() const { return std::to_string(b.seed); }
  const Json* outcome_detail() const {
    return b.outcome.detail.empty() ? nullptr : &b.outcome.detail;
  }
  int attacker_losses() const { return b.outcome.attacker_losses; }
  int defender_losses() const { return b.outcome.defender_losses; }
  const std::optional<std::string>& retreats_to() const { return b.outcome.defender_retreats_to; }
};

}  // namespace

std::string report_detail::render_battle_text(const BattleLog& battle, const GameState& world) {
  std::string out;
  report_layout::battle_text(out, LogBattle{battle, world});
  return out;
}

ReportBattle report_battle(const BattleLog& battle, const GameState& world) {
  ReportBattle out;
  json_text::report_battle(out.json_text, battle, world);  // battle_for_report's dump()
  out.text = report_detail::render_battle_text(battle, world);
  return out;
}

}  // namespace adj
