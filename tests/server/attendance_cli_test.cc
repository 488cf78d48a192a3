// `adjutant attendance show|set|code` and the CLI turn run's civil disorder, on a real database
// through the real binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::run_cli;

class AttendanceCli : public ::testing::Test {
 protected:
  void SetUp() override {
    auto r = cli({"game", "create", "bundled:dark-age-britain", "--demo-secrets"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  ::adj::testing::CliResult cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db_});
    return run_cli(args);
  }
  ::adj::testing::TempDir dir_;
  std::string db_ = dir_.file("cli.db");
};

TEST_F(AttendanceCli, SetShowCodeAndDisorderAfterACliRun) {
  auto set = cli({"attendance", "set", "britain-1", R"({"civil_disorder_after": 1})"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_NE(set.out.find("\"civil_disorder_after\":1"), std::string::npos) << set.out;
  auto bad = cli({"attendance", "set", "britain-1", R"({"civil_disorder_after": 50})"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("from 0 to 20"), std::string::npos) << bad.err;
  auto unknown = cli({"attendance", "set", "britain-1", R"({"cd": 1})"});
  EXPECT_NE(unknown.err.find("the options are"), std::string::npos) << unknown.err;

  ASSERT_EQ(cli({"turn", "run", "britain-1"}).exit_code, 0);
  auto show = cli({"attendance", "show", "britain-1", "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const auto j = nlohmann::json::parse(show.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << show.out;
  for (const auto& p : j["players"]) {
    EXPECT_EQ(p.value("missed", -1), 1);
    EXPECT_TRUE(p.value("civil_disorder", false)) << p.dump();
  }
  auto text = cli({"attendance", "show", "britain-1"});
  EXPECT_NE(text.out.find("since turn 2"), std::string::npos) << text.out;

  auto code = cli({"attendance", "code", "britain-1", "WSX"});
  ASSERT_EQ(code.exit_code, 0) << code.err;
  EXPECT_NE(code.out.find("shown only now"), std::string::npos);
  auto nobody = cli({"attendance", "code", "britain-1", "XYZ"});
  EXPECT_NE(nobody.exit_code, 0);
  EXPECT_NE(nobody.err.find("no kingdom XYZ"), std::string::npos) << nobody.err;
}

}  // namespace
}  // namespace adj
