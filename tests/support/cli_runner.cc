#include "tests/support/cli_runner.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace adj::testing {

CliResult run_cli(const std::vector<std::string>& args, const std::string& input,
                  const std::string& adjutant_db) {
  // One scratch directory per call, removed with its three files before returning.
  char dir_template[] = "/tmp/adj-cli-XXXXXX";
  const char* made = ::mkdtemp(dir_template);
  if (made == nullptr) return CliResult{-1, "", "run_cli: mkdtemp failed"};
  const std::string dir = made;
  const std::string in_path = dir + "/in", out_path = dir + "/out", err_path = dir + "/err";
  write_file(in_path, input);
  pid_t pid = ::fork();
  if (pid == 0) {
    int in = ::open(in_path.c_str(), O_RDONLY);
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(ADJ_BINARY));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (adjutant_db.empty())
      ::unsetenv("ADJUTANT_DB");
    else
      ::setenv("ADJUTANT_DB", adjutant_db.c_str(), 1);
    ::execv(ADJ_BINARY, argv.data());
    std::_Exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  std::remove(in_path.c_str());
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  ::rmdir(dir.c_str());
  return r;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

}  // namespace adj::testing
