#include "rules/report/report_shared.h"

#include "rules/turn/turn_text.h"

namespace adj {

ReportBattle report_battle(const BattleLog& battle, const GameState& world) {
  ReportBattle out;
  json_text::report_battle(out.json_text, battle, world);  // battle_for_report's dump()
  out.text = report_detail::render_battle_text(battle, world);
  return out;
}

}  // namespace adj
