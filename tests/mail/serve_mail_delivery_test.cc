// `adjutant serve` says how its outgoing mail leaves (server/app/mail_delivery.h): without
// --relay, the start-up banner, the GM's pages, /healthz and /metrics say that mail stays in the
// local Maildir; with a relay that cannot be reached, /healthz counts the failing mail and the
// GM's pages show the last error, while the mail is kept.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "tests/mail/mail_test_util.h"
#include "tests/support/cli_runner.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::read_file;
using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;
using ::adj::testing::TempDir;
using mail_test::eventually;
using mail_test::free_port;
using mail_test::ServeProcess;

constexpr const char* kDeliveryGm = "delivery-gm-token";

std::string get(const ServeProcess& s, const std::string& path, const std::string& header = "") {
  return run_shell("curl -s -m 10 " + (header.empty() ? "" : "-H " + shell_quote(header) + " ") +
                   shell_quote(s.url(path)));
}

std::string gm_get(const ServeProcess& s, const std::string& path) {
  return get(s, path, std::string("Cookie: adj_gm=") + kDeliveryGm);
}

TEST(ServeMailDelivery, WithoutARelayEveryPlaceSaysMailIsNotSent) {
  TempDir dir;
  const std::string log = dir.file("serve.log");
  ServeProcess serve(dir.file("games.db"), free_port(), free_port(), log, kDeliveryGm, {"--demo"});
  ASSERT_TRUE(serve.wait_ready()) << read_file(log);

  const std::string banner = read_file(log + ".out");
  EXPECT_NE(banner.find("MAIL IS NOT SENT"), std::string::npos) << banner;
  EXPECT_NE(banner.find("--relay smtp://HOST:PORT"), std::string::npos) << banner;
  EXPECT_NE(banner.find(dir.file("outbox")), std::string::npos) << banner;
  EXPECT_NE(read_file(log).find("event=mail_not_sent"), std::string::npos);

  const std::string health = get(serve, "/healthz");
  EXPECT_NE(health.find(R"("mail": {"delivery": "maildir", "queued": )"), std::string::npos)
      << health;
  const std::string metrics =
      get(serve, "/metrics", std::string("Authorization: Bearer ") + kDeliveryGm);
  EXPECT_NE(metrics.find("adjutant_mail_delivery{mode=\"maildir\"} 1"), std::string::npos);
  EXPECT_NE(metrics.find("adjutant_mail_delivery{mode=\"relay\"} 0"), std::string::npos);
  EXPECT_NE(metrics.find("adjutant_mail_failing 0"), std::string::npos) << metrics;

  // The GM sees it on every page, the desk and a public one; anyone else never.
  for (const char* path : {"/gm", "/"}) {
    const std::string page = gm_get(serve, path);
    EXPECT_NE(page.find("id=\"mail-notice\""), std::string::npos) << path;
    EXPECT_NE(page.find("stays on this machine"), std::string::npos) << path;
  }
  EXPECT_EQ(get(serve, "/").find("mail-notice"), std::string::npos);
}

TEST(ServeMailDelivery, ARelayThatCannotBeReachedIsShownAndTheMailIsKept) {
  TempDir dir;
  const std::string log = dir.file("serve.log");
  const int dead = free_port();  // nobody listens
  ::setenv("ADJUTANT_RELAY", ("smtp://127.0.0.1:" + std::to_string(dead)).c_str(), 1);
  ServeProcess serve(dir.file("games.db"), free_port(), free_port(), log, kDeliveryGm, {});
  ::unsetenv("ADJUTANT_RELAY");  // the child has it
  ASSERT_TRUE(serve.wait_ready()) << read_file(log);
  const std::string banner = read_file(log + ".out");
  EXPECT_EQ(banner.find("MAIL IS NOT SENT"), std::string::npos) << banner;
  EXPECT_NE(banner.find("through smtp://127.0.0.1:" + std::to_string(dead)), std::string::npos)
      << banner;

  // A HELP mail is answered: the answer is queued and its delivery fails.
  ASSERT_EQ(
      mail_test::send_file(serve.smtp(), mail_test::kCorpus + "help.eml", "someone@example.org"),
      "250");
  std::string health;
  EXPECT_TRUE(eventually([&] {
    health = get(serve, "/healthz");
    return health.find(R"("delivery": "relay", "queued": 1, "failing": 1)") != std::string::npos;
  })) << health;
  const std::string desk = gm_get(serve, "/gm");
  EXPECT_NE(desk.find("id=\"mail-notice\""), std::string::npos) << desk;
  EXPECT_NE(desk.find("Outgoing mail is failing"), std::string::npos);
  EXPECT_NE(desk.find("onnect"), std::string::npos) << "the last error is shown";
  EXPECT_EQ(desk.find("MAIL IS NOT SENT"), std::string::npos);
}

// The relay's whole configuration from the environment alone (docker/env.example,
// /etc/adjutant.env): address, user and password reach an AUTH relay; ADJUTANT_RELAY_STARTTLS=1
// makes STARTTLS required, so a relay that does not offer it gets nothing.
TEST(ServeMailDelivery, TheRelayIsConfiguredFromTheEnvironment) {
  if (!mail_test::Aiosmtpd::available()) GTEST_SKIP() << "python3-aiosmtpd is not installed";
  for (const bool starttls : {false, true}) {
    TempDir dir;
    const std::string log = dir.file("serve.log");
    const auto maildir = dir.path() / "relay";
    const int relay_port = free_port();
    auto relay = mail_test::Aiosmtpd::script(
        relay_port, std::string(ADJ_SOURCE_DIR) + "/tests/mail/auth_relay.py",
        {maildir.string(), "adjutant", "env pass"});
    ASSERT_TRUE(relay.start());
    ::setenv("ADJUTANT_RELAY", ("smtp://127.0.0.1:" + std::to_string(relay_port)).c_str(), 1);
    ::setenv("ADJUTANT_RELAY_USER", "adjutant", 1);
    ::setenv("ADJUTANT_RELAY_PASSWORD", "env pass", 1);
    if (starttls) ::setenv("ADJUTANT_RELAY_STARTTLS", "1", 1);
    ServeProcess serve(dir.file("games.db"), free_port(), free_port(), log, kDeliveryGm, {});
    for (const char* name : {"ADJUTANT_RELAY", "ADJUTANT_RELAY_USER", "ADJUTANT_RELAY_PASSWORD",
                             "ADJUTANT_RELAY_STARTTLS"})
      ::unsetenv(name);  // the child has them
    ASSERT_TRUE(serve.wait_ready()) << read_file(log);
    ASSERT_EQ(
        mail_test::send_file(serve.smtp(), mail_test::kCorpus + "help.eml", "someone@example.org"),
        "250");
    std::string health;
    if (!starttls) {
      EXPECT_TRUE(eventually([&] { return mail_test::maildir_new(maildir).size() == 1; }))
          << read_file(log);
      EXPECT_TRUE(eventually([&] {
        health = get(serve, "/healthz");
        return health.find(R"("delivery": "relay", "queued": 0, "failing": 0)") !=
               std::string::npos;
      })) << health;
    } else {
      EXPECT_TRUE(eventually([&] {
        health = get(serve, "/healthz");
        return health.find(R"("failing": 1)") != std::string::npos;
      })) << health;
      EXPECT_NE(gm_get(serve, "/gm").find("STARTTLS"), std::string::npos);
      EXPECT_TRUE(mail_test::maildir_new(maildir).empty());
    }
  }
}

}  // namespace
}  // namespace adj
