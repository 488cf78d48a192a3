// A big turn's reports made without building each battle twice: every battle is in two reports
// (its attacker's and its defender's), so its JSON text and its text are made once per turn and
// spliced into both; each report is written straight from the turn's data (report_direct.cc),
// without the report's tree. The output is byte for byte that of build_report +
// add_rejected_lines, Json::dump and render_report_text (report.h), which stay the path of
// previews, the web and the API: the JSON of both comes from one description
// (rules/report/report_fields.h), the text of both from one layout (rules/report/report_layout.h)
// read through a view of the stored JSON or of the turn's data. Pure functions: every function
// here reads its arguments only, so several threads may call them at once (a big turn's reports
// are made on two).
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
// `start`, written without building its tree, with `index` built from `result` and `battles[i]` =
// report_battle(result.battles[i], result.next_state) for every battle. `rejected` (may be null)
// are the lines of the player's file that were refused when it was checked. Reads its arguments
// only: several threads may call it at once with the same arguments for different players. Throws
// Json::type_error where Json::dump would (invalid UTF-8 in the player's data).
RenderedReport render_report(const GameState& start, const TurnResult& result,
                             const std::string& player, const ReportIndex& index,
                             const std::vector<ReportBattle>& battles,
                             const std::vector<LineResult>* rejected);

namespace report_detail {
// What a player's report shows, chosen once for both its forms (the tree of build_report and the
// text written by render_report). Pointers into the result and index it was made from.
struct ReportParts {
  const Player* me = nullptr;                 // in result.next_state
  const ReportIndex::Entry* entry = nullptr;  // the player's actions, battles, areas, gifts
  std::vector<std::size_t> defended;          // battles the player defended, in index order
  std::vector<const Area*> visible;           // areas next to theirs or fought over, by code
  const Economy* economy = nullptr;
  bool orders_on_file = false;
  int position_this = 0, position_next = 0;  // 1-based places in the order of play; 0: absent
};
ReportParts report_parts(const TurnResult& result, const std::string& player,
                         const ReportIndex& index);
// The blank order file for the next turn at the end of a report.
std::string order_template(const GameState& next, const std::string& player);
// The section render_report_text writes for one battle of battle_for_report
// (report_layout::battle_text over the battle's JSON).
std::string render_battle_text(const Json& battle);
// The same section for battle_for_report(battle, world), read from the log without a tree.
std::string render_battle_text(const BattleLog& battle, const GameState& world);
}  // namespace report_detail

}  // namespace adj
