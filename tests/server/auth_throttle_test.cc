// The guessing limiter's logic (server/app/auth_throttle.h) with the clock in the test's hand:
// lockouts after N failures, doubling up to the cap, quiet reset, an account lock that refuses
// nobody but locks a wrong guesser at once (one strike), trusted clients, bounded memory,
// thread-safety, and the validator wording secret_check_of relies on.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "rules/combat/engine_registry.h"
#include "rules/game/scenario.h"
#include "server/app/auth_throttle.h"

namespace adj {
namespace {

constexpr std::int64_t kT0 = 1'800'000'000;

ThrottleConfig small() {
  ThrottleConfig c;
  c.max_failures = 3;
  c.window_seconds = 60;
  c.first_lock_seconds = 1;
  c.max_lock_seconds = 8;
  c.quiet_seconds = 1000;
  c.max_keys = 100;
  return c;
}

const ThrottleKeys kAttacker{throttle_key_addr("192.0.2.66"), throttle_key_player("g", "WSX")};

TEST(AuthThrottle, LocksAfterMaxFailuresAndDoublesUpToTheCap) {
  AuthThrottle t(small());
  std::int64_t now = kT0;
  std::vector<std::int64_t> waits;
  for (int lockout = 0; lockout < 6; ++lockout) {
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(t.check(kAttacker, now).allowed) << "lockout " << lockout << " failure " << i;
      t.record(kAttacker, false, now);
    }
    const ThrottleVerdict v = t.check(kAttacker, now);
    ASSERT_FALSE(v.allowed);
    waits.push_back(v.retry_after);
    now += v.retry_after;  // the lock runs out exactly then
  }
  EXPECT_EQ(waits, (std::vector<std::int64_t>{1, 2, 4, 8, 8, 8}));
}

TEST(AuthThrottle, FailuresOutsideTheWindowDoNotAddUp) {
  AuthThrottle t(small());
  t.record(kAttacker, false, kT0);
  t.record(kAttacker, false, kT0 + 1);
  t.record(kAttacker, false, kT0 + 61);  // the window of the first two has passed
  EXPECT_TRUE(t.check(kAttacker, kT0 + 61).allowed);
  t.record(kAttacker, false, kT0 + 62);
  t.record(kAttacker, false, kT0 + 63);
  EXPECT_FALSE(t.check(kAttacker, kT0 + 63).allowed);
}

TEST(AuthThrottle, AQuietKeyStartsAfreshAtTheFirstLock) {
  AuthThrottle t(small());
  std::int64_t now = kT0;
  for (int i = 0; i < 9; ++i) t.record(kAttacker, false, now++);  // three lockouts
  now += 1000;                                                    // quiet
  for (int i = 0; i < 3; ++i) t.record(kAttacker, false, now);
  EXPECT_EQ(t.check(kAttacker, now).retry_after, 1);
}

TEST(AuthThrottle, ALockedAccountRefusesNobodyButAWrongGuessLocksItsClientAtOnce) {
  AuthThrottle t(small());
  const std::string account = throttle_key_player("g", "WSX");
  const ThrottleKeys home{throttle_key_addr("198.51.100.1"), account};
  const ThrottleKeys stranger{throttle_key_addr("198.51.100.2"), account};
  t.record(home, true, kT0);  // the player signed in from home once
  // Attackers from many addresses lock the player's key ...
  for (int i = 0; i < 3; ++i)
    t.record({throttle_key_addr("203.0.113." + std::to_string(i)), account}, false, kT0);
  // ... which refuses nobody: the right secret from any address is checked and gets in.
  EXPECT_TRUE(t.check(home, kT0).allowed);
  EXPECT_TRUE(t.check(stranger, kT0).allowed);
  EXPECT_FALSE(t.record(stranger, true, kT0).client_locked);
  // One strike: a wrong guess while the account is locked locks its client at once.
  const ThrottleKeys guesser{throttle_key_addr("203.0.113.9"), account};
  ASSERT_TRUE(t.check(guesser, kT0).allowed);
  EXPECT_TRUE(t.record(guesser, false, kT0).client_locked);
  EXPECT_FALSE(t.check(guesser, kT0).allowed);
  // A client the account trusts (it succeeded before) is counted as usual ...
  EXPECT_FALSE(t.record(home, false, kT0).client_locked);
  EXPECT_TRUE(t.check(home, kT0).allowed);
  // ... and is held back by its own failures.
  for (int i = 0; i < 2; ++i) t.record(home, false, kT0);
  EXPECT_FALSE(t.check(home, kT0).allowed);
  // Once the account's lock has run out, a wrong guess is one failure like any other.
  const ThrottleKeys later{throttle_key_addr("203.0.113.10"), account};
  EXPECT_FALSE(t.record(later, false, kT0 + 60).client_locked);
  EXPECT_TRUE(t.check(later, kT0 + 60).allowed);
}

TEST(AuthThrottle, AStruckClientsLocksDoubleAsUsual) {
  AuthThrottle t(small());
  const std::string account = throttle_key_player("g", "WSX");
  // Four lockouts of the account at once, the last of 8 s: locked until kT0 + 8.
  for (int i = 0; i < 12; ++i)
    t.record({throttle_key_addr("203.0.113." + std::to_string(i)), account}, false, kT0);
  const ThrottleKeys guesser{throttle_key_addr("192.0.2.77"), account};
  std::vector<std::int64_t> waits;
  std::int64_t now = kT0;
  for (int i = 0; i < 3; ++i) {
    t.record(guesser, false, now);
    const ThrottleVerdict v = t.check(guesser, now);
    ASSERT_FALSE(v.allowed);
    waits.push_back(v.retry_after);
    now += v.retry_after;
  }
  EXPECT_EQ(waits, (std::vector<std::int64_t>{1, 2, 4}));
}

TEST(AuthThrottle, ALockedTakeoverKeyStillRefusesClientsItDoesNotTrust) {
  AuthThrottle t(small());
  const std::string account = "takeover:g/wsx";  // not a player's or the GM's own credential
  const ThrottleKeys volunteer{throttle_key_addr("198.51.100.1"), account};
  t.record(volunteer, true, kT0);
  for (int i = 0; i < 3; ++i)
    t.record({throttle_key_addr("203.0.113." + std::to_string(i)), account}, false, kT0);
  EXPECT_FALSE(t.check({throttle_key_addr("198.51.100.2"), account}, kT0).allowed);
  EXPECT_TRUE(t.check(volunteer, kT0).allowed);
  EXPECT_TRUE(throttle_lock_refuses_others(account));
  EXPECT_FALSE(throttle_lock_refuses_others(throttle_key_player("g", "WSX")));
  EXPECT_FALSE(throttle_lock_refuses_others(kThrottleKeyGm));
}

TEST(AuthThrottle, AnAddressLockCoversEveryAccountAndAnAccountLockEveryAddress) {
  AuthThrottle t(small());
  const std::string addr = throttle_key_addr("192.0.2.1");
  for (int i = 0; i < 3; ++i)
    t.record({addr, throttle_key_player("g", "P" + std::to_string(i))}, false, kT0);
  EXPECT_FALSE(t.check({addr, throttle_key_player("g", "OTHER")}, kT0).allowed);
  EXPECT_FALSE(t.check({addr, ""}, kT0).allowed);
  EXPECT_TRUE(t.check({throttle_key_addr("192.0.2.2"), throttle_key_player("g", "P0")}, kT0)
                  .allowed);  // each account failed once only
}

TEST(AuthThrottle, DisabledNeverRefuses) {
  ThrottleConfig c = small();
  c.enabled = false;
  AuthThrottle t(c);
  for (int i = 0; i < 50; ++i) t.record(kAttacker, false, kT0);
  EXPECT_TRUE(t.check(kAttacker, kT0).allowed);
  EXPECT_EQ(t.size(), 0u);
}

TEST(AuthThrottle, MemoryIsBoundedAndSprayingAddressesDoesNotFreeALockedKey) {
  AuthThrottle t(small());
  const ThrottleKeys victim{throttle_key_addr("192.0.2.200"), ""};
  for (int i = 0; i < 3; ++i) t.record(victim, false, kT0);
  ASSERT_FALSE(t.check(victim, kT0).allowed);
  for (int i = 0; i < 20000; ++i) {
    const std::string ip = "10." + std::to_string(i / 65536) + "." +
                           std::to_string((i / 256) % 256) + "." + std::to_string(i % 256);
    t.record({throttle_key_addr(ip), ""}, false, kT0);
  }
  EXPECT_LE(t.size(), 100u);
  EXPECT_FALSE(t.check(victim, kT0).allowed);
}

TEST(AuthThrottle, CountsEveryFailureFromManyThreads) {
  ThrottleConfig c = small();
  c.max_failures = 1'000'000;
  AuthThrottle t(c);
  std::vector<std::thread> threads;
  for (int k = 0; k < 8; ++k)
    threads.emplace_back([&t] {
      for (int i = 0; i < 1000; ++i) t.record(kAttacker, false, kT0);
    });
  for (auto& th : threads) th.join();
  const ThrottleEvent e = t.record(kAttacker, false, kT0);
  EXPECT_EQ(e.account.total_failures, 8001);
}

TEST(AuthThrottle, ALockoutReportsTheAccountsRecentClients) {
  AuthThrottle t(small());
  const std::string account = throttle_key_player("g", "WSX");
  t.record({throttle_key_addr("203.0.113.1"), account}, false, kT0);
  t.record({throttle_key_addr("203.0.113.2"), account}, false, kT0);
  const ThrottleEvent e = t.record({throttle_key_addr("203.0.113.1"), account}, false, kT0);
  EXPECT_TRUE(e.account_locked);
  EXPECT_EQ(e.account.total_failures, 3);
  EXPECT_EQ(e.account.recent, (std::vector<std::string>{"addr:203.0.113.1", "addr:203.0.113.2"}));
  EXPECT_EQ(e.account.locked_until, kT0 + 1);
}

TEST(ThrottleKeys, Ipv6ByItsSlash64AndMappedIpv4AsIpv4) {
  EXPECT_EQ(throttle_key_addr("2001:db8:1:2:aaaa::1"), "addr:2001:db8:1:2::/64");
  EXPECT_EQ(throttle_key_addr("2001:DB8:1:2:ffff:ffff:ffff:ffff"), "addr:2001:db8:1:2::/64");
  EXPECT_EQ(throttle_key_addr("2001:db8::1"), "addr:2001:db8::/64");
  EXPECT_EQ(throttle_key_addr("::1"), "addr:::/64");
  EXPECT_EQ(throttle_key_addr("::ffff:192.0.2.7"), "addr:192.0.2.7");
  EXPECT_EQ(throttle_key_addr("192.0.2.7"), "addr:192.0.2.7");
  EXPECT_EQ(throttle_key_player("Britain-1", "wsx"), "player:britain-1/wsx");
  EXPECT_EQ(throttle_key_sender("Eve@Example.ORG"), "sender:eve@example.org");
}

// secret_check_of reads the validator's refusals: these pin the wording it relies on.
TEST(SecretCheck, ReadsTheValidatorsRefusals) {
  auto scenario = bundled_scenario_published("dark-age-britain");
  ASSERT_TRUE(scenario.ok());
  auto state = state_from_scenario(*scenario, 1);
  ASSERT_TRUE(state.ok());
  const GameState& st = *state;
  const CombatEngine* engine = find_engine(st.engine.name);
  auto check = [&](const std::string& text) {
    return secret_check_of(check_order_file(text, st, engine));
  };
  const std::string game = "GAME " + st.game_id + "\n";
  EXPECT_EQ(check(game + "PLAYER WSX cerdic\nEND\n"), SecretVerdict::kRight);
  EXPECT_EQ(check(game + "PLAYER WSX wrong\nEND\n"), SecretVerdict::kWrong);
  EXPECT_EQ(check(game + "PLAYER XXX cerdic\nEND\n"), SecretVerdict::kUnknownPlayer);
  EXPECT_EQ(check(game + "PLAYER WSX cerdic\nTURN 99\nEND\n"), SecretVerdict::kRight);
  EXPECT_EQ(check("GAME other-game\nPLAYER WSX wrong\nEND\n"), SecretVerdict::kNotChecked);
  EXPECT_EQ(check(game + "END\n"), SecretVerdict::kNotChecked);
}

}  // namespace
}  // namespace adj
