// TurnWriter: one resolved turn committed in parts, so that a big turn's battle logs and reports
// are written (and freed by the caller) one by one instead of being held until one call.
#pragma once

#include "rules/core/status.h"
#include "storage/records.h"

namespace adj {

class GameStore;

// Made by GameStore::begin_commit(game, turn, submissions). Everything added and finished is one
// atomic commit, with the checks and effects GameStore::begin_commit states: a writer destroyed
// before finish() succeeded writes nothing. Records are taken by value: the writer owns them, and
// each is freed before add_* returns (on PostgreSQL its row goes out with the COPY's next chunk).
// After an error nothing is written: every later call fails with that error.
// Not thread-safe; while a writer is open its store must not be used for anything else (the
// writer holds the store's connection inside its transaction).
class TurnWriter {
 public:
  virtual ~TurnWriter() = default;
  // REQUIRES: the texts given obey records.h (the dump() of a JSON value).
  virtual Status add_battle(BattleRecord b) = 0;
  // InvalidArgument unless r.turn is the writer's turn.
  virtual Status add_report(ReportRecord r) = 0;
  // The rest of the turn (next state, summary, seed, ran_at; rest.battles and rest.reports are
  // written after those added), then the commit. rest.turn must be the writer's turn; the
  // submissions given to begin_commit count, rest.submissions is ignored. rest.battles and
  // rest.reports are unspecified afterwards; the other fields are left as they are. Once only.
  virtual Status finish(TurnCommit& rest) = 0;
};

}  // namespace adj
