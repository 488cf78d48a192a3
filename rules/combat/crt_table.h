// Combat results tables and terrain shift charts as data (schemas/crt_table.schema.json).
//
// A table ("kind": "crt") has columns from left (worst for the attacker) to right and one row per
// die face. Differential columns give "min": the lowest attack − defence that reaches the column
// (the first may omit it). Ratio columns give "odds": [a, d]; the column applies when
// attack × d >= defence × a, so ratios are rounded in the defender's favour. A value below the
// first column uses the first column. Result codes: NR, DR, DR2, AR, AE, DE, EX built in; a
// table's "results" may define more (or redefine these).
// A shift chart ("kind": "shifts") maps terrain names to left shifts and gives the river shift.
//
// Bundled documents live in schemas/tables/<name>.json (compiled in); engine options name one of
// them or give an inline object.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "rules/game/state.h"

namespace adj {

// What a result code does.
struct CrtEffect {
  int defender_retreat = 0;          // areas the defender retreats (0 = none)
  bool defender_eliminated = false;  // every defending army is lost
  bool attacker_retreat = false;     // the attack fails; survivors go home
  bool attacker_eliminated = false;  // every attacking army is lost
  bool exchange =
      false;  // the defender is eliminated; the attacker loses at least as much strength
};

struct CrtTable {
  std::string name;
  std::string method;  // "differential" | "ratio"
  int die = 6;
  std::vector<std::string> labels;
  std::vector<int> min;                        // differential thresholds (labels.size())
  std::vector<std::pair<int, int>> odds;       // ratio thresholds (labels.size())
  std::vector<std::vector<std::string>> rows;  // rows[face - 1][column]
  std::map<std::string, CrtEffect> results;

  // The unshifted column for `attack` against `defence` (defence >= 1).
  int column_for(int attack, int defence) const;
  const std::string& result(int face, int column) const { return rows[face - 1][column]; }
  int columns() const { return static_cast<int>(labels.size()); }
};

struct ShiftChart {
  std::string name;
  std::map<std::string, int> terrain;  // left shifts by terrain name
  int river = 0;                       // left shift across a river edge
};

// Resolves a table or chart spec: a bundled name (string) or an inline object. `kind` is "crt"
// or "shifts". Errors name `path`. When `validate` is set, the document is checked against
// schemas/crt_table.schema.json first.
Result<Json> crt_document(const Json& spec, const std::string& kind, const std::string& path,
                          bool validate);
// Builds a table from a document; errors name `path` and what is wrong.
Result<CrtTable> crt_table_from_json(const Json& doc, const std::string& path);
Result<ShiftChart> shift_chart_from_json(const Json& doc, const std::string& path);

}  // namespace adj
