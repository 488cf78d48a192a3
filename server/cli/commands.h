// The command implementations behind the command line: plain functions over plain options, so
// that CLI11 stays in one translation unit (cli.cc). Each prints to stdout/stderr and returns the
// process exit code (see cli.h).
#pragma once

#include <optional>
#include <string>

namespace adj::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitRefused = 2;

struct Common {
  std::string db = "adjutant.db";  // --db or ADJUTANT_DB
};

int game_create(const Common& c, const std::string& scenario,
                std::optional<unsigned long long> seed);
int game_list(const Common& c);
int game_show(const Common& c, const std::string& game, bool json);
int orders_submit(const Common& c, const std::string& game, const std::string& file, bool json,
                  bool check_only);
int turn_run(const Common& c, const std::string& game, bool preview);
int turn_rollback(const Common& c, const std::string& game, int turn);
int report(const Common& c, const std::string& game, const std::string& player,
           std::optional<int> turn, const std::string& format);
int battle(const std::string& engine, const std::string& file, int trials);
int battle_replay(const Common& c, const std::string& game, int turn, const std::string& id);
int engines();
int demo(const Common& c, int turns);

}  // namespace adj::cli
