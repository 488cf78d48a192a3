// The CRT engine's numbers (the rules: crt_engine.h): the strengths, the table column of an attack
// with every shift, and what a result code's effect means for the battle. Pure functions;
// thread-safe.
#pragma once

#include <string>
#include <vector>

#include "rules/combat/crt_data.h"

namespace adj {

// The column an attack is resolved on, with the numbers that chose it.
struct CrtColumn {
  int attack = 0, defence = 0;   // strengths (defence at least 1)
  int base = 0;                  // unshifted column
  int column = 0;                // after the shifts, clamped to the table
  Json shifts = Json::object();  // each shift applied, by its reason (left positive)
};

// The defence strength of the armies, population and fort of `t`.
int crt_defence_strength(const Area& t, const CrtOptions& o);
// The column for groups[i] fighting with armies[i] armies (0: out of the fight) against the
// target of `in`: the area's highest terrain/feature/"fortified" shift, the river shift by
// o.river_shift, the ambush shift; `overrun` adds the overrun's right shift.
CrtColumn crt_column_of(const BattleInput& in, const CrtOptions& o,
                        const std::vector<AttackGroup>& groups, const std::vector<int>& armies,
                        bool overrun);
// The attack against the defence as the table's method reads them: "9:4" (ratio) or "5".
std::string crt_value_label(const CrtColumn& c, const CrtTable& t);
// Whether a result does nothing (an NR).
bool crt_no_result(const CrtEffect& fx);
// Whether a result pushes the defender out or destroys it (retreat, elimination or exchange).
bool crt_pushes_defender(const CrtEffect& fx);

}  // namespace adj
