// Test support: runs the real `adjutant` binary (built by this tree) as a subprocess with a given
// database, optional stdin, and captures stdout, stderr and the exit code.
#pragma once

#include <string>
#include <vector>

namespace adj::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs ADJ_BINARY with `args` (no shell). `input` is written to its stdin. ADJUTANT_DB is unset
// unless `adjutant_db` is given.
CliResult run_cli(const std::vector<std::string>& args, const std::string& input = "",
                  const std::string& adjutant_db = "");

// Reads a whole file; "" when missing.
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);

}  // namespace adj::testing
