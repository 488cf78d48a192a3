// Plain records that cross the storage boundary. No SQLite or transport types here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rules/game/state.h"

namespace adj {

// Unix time in seconds. Storage never reads a clock: callers pass the time in.
using UnixTime = std::int64_t;

struct GameSummary {
  std::string id;
  std::string name;
  std::string engine;
  int turn = 1;        // the open turn
  std::string status;  // "open", later "paused", "held", "finished"
  UnixTime created_at = 0;
  // When the GM archived the game (AdminStore::set_archived); nullopt while it is not archived.
  std::optional<UnixTime> archived_at;
};

// One order file as received, with the acknowledgement computed for it.
struct SubmissionRecord {
  std::int64_t id = 0;  // assigned by the store
  std::string game;
  std::string player;  // upper-case code; "" if the file named no known player
  int turn = 0;        // the open turn when it arrived
  std::string source;  // "cli", "web", "email:<message-id>", ...
  UnixTime received_at = 0;
  std::string raw_text;       // exactly as received
  Json ack = Json::object();  // the parsed form with per-line results (OrderAck as JSON)
  bool accepted = false;      // false: refused whole; kept for audit, never used as orders
  bool current = false;       // the player's latest accepted file for that turn
};

struct BattleRecord {
  std::string id;  // e.g. "3.5.WSX"
  std::uint64_t seed = 0;
  std::string engine;
  Json input = Json::object();    // what the engine was given (for --replay)
  Json outcome = Json::object();  // what it returned, with every die
  // Write path only: when not empty, `input` already as JSON text (a turn's battle logs are kept
  // as text, rules/turn/turn_result.h); the commit stores it verbatim and ignores `input`. Reads
  // leave it empty and fill `input`. REQUIRES: the dump() of a JSON value (the SQLite store
  // writes it without its json_valid CHECK; not checked again).
  std::string input_text;
  // Write path only, likewise for `outcome`: when not empty, the commit stores it verbatim.
  // REQUIRES: likewise the dump() of a JSON value.
  std::string outcome_text;
};

struct ReportRecord {
  std::string player;
  int turn = 0;
  std::string text;
  Json json = Json::object();
  // Write path only: when not empty, `json` already as JSON text (a big turn's reports are kept
  // as text until the commit, to bound memory); the commit stores it verbatim and ignores `json`.
  // Reads leave it empty and fill `json`. REQUIRES: the dump() of a JSON value (as input_text).
  std::string json_text;
};

// Everything one turn run produces, committed in one transaction.
struct TurnCommit {
  int turn = 0;            // the turn that was resolved
  std::uint64_t seed = 0;  // that turn's seed
  GameState next_state;    // the starting state of turn + 1
  // When not empty, to_json(next_state).dump() made by the caller (TurnResult::next_state_text),
  // stored as it is instead of serialising next_state again. Empty: the store serialises it.
  // REQUIRES: exactly that dump (the store also cuts the open-state index's rows out of it).
  std::string next_state_text;
  Json summary = Json::object();  // order of play, events, digest
  // When not empty, the summary as the caller wrote it (a big turn's is ~30 MB of text), stored
  // as it is instead of summary.dump(); `summary` is then read only for "ending".
  // REQUIRES: the dump() of a JSON object, with "ending" exactly when `summary` has it.
  std::string summary_text;
  std::vector<BattleRecord> battles;
  std::vector<ReportRecord> reports;
  // Who had no orders this turn (the summary's "players_without_orders"), kept beside the turn
  // record for the attendance check (storage/core/codec.h). When not set, the store takes
  // the list from `summary`, or, when only summary_text has the summary, keeps none (the attendance
  // check then reads the stored summary). REQUIRES: when set, the summary's list.
  std::optional<std::vector<std::string>> without_orders;
  UnixTime ran_at = 0;
  // The ids of the submissions whose orders were resolved (the turn's current accepted files
  // when the run read them). The commit is refused when they are no longer exactly the
  // turn's current accepted files, so no file accepted for the turn is left unread.
  std::vector<std::int64_t> submissions;
};

}  // namespace adj
