#include "rules/turn/turn_text.h"

#include "rules/turn/turn_fields.h"

namespace adj::json_text {

// The text of the descriptions in rules/turn/turn_fields.h.
void battle_outcome(std::string& out, const BattleOutcome& o, ErrorHandler h) {
  json_form::write_text(out, o, h);
}

void battle_log(std::string& out, const BattleLog& b, ErrorHandler h) {
  json_form::write_text(out, b, h);
}

void report_battle(std::string& out, const BattleLog& b, const GameState& world, ErrorHandler h) {
  json_form::TextWriter w(out, h);
  w.open_object();
  battle_members(w, b, &world);
  w.close_object();
}

void action(std::string& out, const ActionResult& a, ErrorHandler h) {
  json_form::write_text(out, a, h);
}

}  // namespace adj::json_text
