// The JSON text of a turn's results written directly: the same bytes as
// to_json(x).dump(-1, ' ', false, on_bad_utf8) (rules/turn/turn_result.h), without building the
// tree (a big turn logs ~65,000 battles and 160,000 actions). Both forms come from the descriptions
// of rules/turn/turn_fields.h. Append to `out`; with
// ErrorHandler::strict, invalid UTF-8 throws Json::type_error as dump() does. Pure; thread-safe on
// distinct outputs.
#pragma once

#include <string>

#include "rules/game/json_text.h"
#include "rules/turn/turn_result.h"

namespace adj::json_text {

void battle_outcome(std::string& out, const BattleOutcome& o,
                    ErrorHandler on_bad_utf8 = ErrorHandler::strict);
void battle_log(std::string& out, const BattleLog& b,
                ErrorHandler on_bad_utf8 = ErrorHandler::strict);
// battle_for_report(b, world).dump(...) (rules/report/report.h): battle_log's keys with each
// area's name in `world` beside its code ("from_name", "to_name", each group's "from_name").
void report_battle(std::string& out, const BattleLog& b, const GameState& world,
                   ErrorHandler on_bad_utf8 = ErrorHandler::strict);
void action(std::string& out, const ActionResult& a,
            ErrorHandler on_bad_utf8 = ErrorHandler::strict);

}  // namespace adj::json_text
