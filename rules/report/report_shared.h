// A big turn's reports made without building each battle twice: every battle is in two reports
// (its attacker's and its defender's), so its JSON text and its text are made once per turn and
// spliced into both. The output is byte for byte that of build_report + add_rejected_lines,
// Json::dump and render_report_text (report.h). Pure functions.
#pragma once

#include <string>
#include <vector>

#include "rules/report/report.h"

namespace adj {

// One battle as every report shows it: the compact JSON text of battle_for_report(battle,
// world) and its section of render_report_text (the same for the attacker and the defender).
struct ReportBattle {
  std::string json_text;
  std::string text;
};

// The ReportBattle of `battle`, with the area names of `world` (a turn's next state, as
// build_report uses), written from the log without building its tree. Throws Json::type_error
// where Json::dump would (invalid UTF-8). Reads its arguments only: several threads may call it
// at once.
ReportBattle report_battle(const BattleLog& battle, const GameState& world);

// A player's report as a committed turn stores and mails it.
struct RenderedReport {
  std::string json_text;  // build_report(...) with add_rejected_lines(*rejected), dumped compact
  std::string text;       // render_report_text of that report, without a roundup
};

// The report of `player` (REQUIRES: a player of the game) for the turn `result` resolved from
// `start`, with `index` built from `result` and `battles[i]` = report_battle(result.battles[i],
// result.next_state) for every battle. `rejected` (may be null) are the lines of the player's
// file that were refused when it was checked. Reads its arguments only: several threads may
// call it at once with the same arguments for different players. Throws Json::type_error
// where Json::dump would (invalid UTF-8 in the player's data).
RenderedReport render_report(const GameState& start, const TurnResult& result,
                             const std::string& player, const ReportIndex& index,
                             const std::vector<ReportBattle>& battles,
                             const std::vector<LineResult>* rejected);

namespace report_detail {
// build_report where every battle is a placeholder instead of its tree: a binary value whose
// subtype is the battle's index in result.battles.
Json build_report(const TurnResult& result, const std::string& player, const ReportIndex& index,
                  bool battle_placeholders);
// render_report_text; with `shared`, placeholders take their text from shared[index].text.
std::string render_text(const Json& report, const Json* roundup,
                        const std::vector<ReportBattle>* shared);
// The section render_report_text writes for one battle of battle_for_report.
std::string render_battle_text(const Json& battle);
// The same section for battle_for_report(battle, world), read from the log without a tree.
std::string render_battle_text(const BattleLog& battle, const GameState& world);
}  // namespace report_detail

}  // namespace adj
