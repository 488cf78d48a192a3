// Storage for attendance (migration 0011): the per-game policy, per-position bookkeeping (where the
// miss count starts, civil disorder), declared absences, the standby list and takeover codes.
// Consecutive misses themselves are derived from the turn records (GameStore::turn_record), so a
// rollback needs nothing here. Implemented once for both backends
// (storage/core/sql_store_attendance.cc). Thread-safety: as the other stores, one object per
// thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rules/core/status.h"
#include "storage/records.h"

namespace adj {

// A game's attendance policy (the GM sets it; server/app/attendance.h validates it).
struct AttendanceOptions {
  int civil_disorder_after = 2;  // consecutive missed turns before civil disorder; 0: never
  bool absence_extends = true;   // extend a deadline that passes during a declared absence
  int absence_max_days = 7;      // by at most this many days per absence
  int absence_max_per_game = 3;  // absences a player may declare per game; 0: no limit
  int takeover_code_days = 7;    // how long a takeover code stays valid
};

// Per position. A position without a row has misses_from_turn 1 and is not in disorder.
struct AttendanceRecord {
  std::string player;                // upper-case code
  int misses_from_turn = 1;          // missed turns before this one do not count (a takeover)
  std::optional<int> disorder_turn;  // in civil disorder from this open turn on
};

struct Absence {
  std::int64_t id = 0;  // assigned by the store
  std::string game;
  std::string player;
  std::string from, to;  // inclusive UTC dates, YYYY-MM-DD
  UnixTime declared_at = 0;
};

struct StandbyEntry {
  std::int64_t id = 0;
  std::string game;
  std::string address;
  UnixTime created_at = 0;
};

struct TakeoverCode {
  std::int64_t id = 0;
  std::string game;
  std::string player;
  std::string code_hash;  // hash_token of the code (server/app/secrets.h)
  std::string address;    // the standby address it was offered to; "" when the GM issued it
  std::string issued_by;  // "gm", "scheduler", ...
  UnixTime created_at = 0;
  UnixTime expires_at = 0;
  std::optional<UnixTime> used_at;
  std::string used_by;
};

// Who had no orders in one resolved turn (its record's summary.players_without_orders).
struct TurnAttendance {
  int turn = 0;
  std::vector<std::string> without_orders;
  UnixTime ran_at = 0;
};

class AttendanceStore {
 public:
  virtual ~AttendanceStore() = default;
  // The game's resolved turns from `from_turn` on, newest first, reading only who had no orders
  // (not the whole record). Corruption when a record's list is not an array of codes.
  virtual Result<std::vector<TurnAttendance>> turns_without_orders(const std::string& game,
                                                                   int from_turn) = 0;
  // The game's policy; the defaults when none was set. NotFound for an unknown game.
  virtual Result<AttendanceOptions> attendance_options(const std::string& game) = 0;
  virtual Status set_attendance_options(const std::string& game, const AttendanceOptions& o) = 0;
  // Every position that has a row, by code.
  virtual Result<std::vector<AttendanceRecord>> attendance_records(const std::string& game) = 0;
  virtual Status put_attendance_record(const std::string& game, const AttendanceRecord& r) = 0;

  virtual Result<std::int64_t> add_absence(const Absence& a) = 0;
  // Every absence of the game, oldest first.
  virtual Result<std::vector<Absence>> absences(const std::string& game) = 0;

  // Adds `address` to the game's standby list: true when added, false when it was there already.
  virtual Result<bool> add_standby(const std::string& game, const std::string& address,
                                   UnixTime now) = 0;
  // Oldest first.
  virtual Result<std::vector<StandbyEntry>> standby_list(const std::string& game) = 0;
  virtual Status remove_standby(const std::string& game, const std::string& address) = 0;

  virtual Result<std::int64_t> add_takeover_code(const TakeoverCode& c) = 0;
  // In one transaction: the code of `game`/`player` with this hash, unused and not expired at
  // `now`, is marked used by `used_by`, and every other unused code of the position is voided
  // (expires now). False (nothing changed) when there is no such code.
  virtual Result<bool> use_takeover_code(const std::string& game, const std::string& player,
                                         const std::string& code_hash, const std::string& used_by,
                                         UnixTime now) = 0;
  // Every code of the game, oldest first.
  virtual Result<std::vector<TakeoverCode>> takeover_codes(const std::string& game) = 0;
};

}  // namespace adj
