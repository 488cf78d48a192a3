#include "server/app/auth_throttle.h"

#include <algorithm>
#include <cctype>

#include "base/ascii.h"
#include "base/client_address.h"

namespace adj {

std::int64_t throttle_wait(const ThrottleState& s, std::int64_t now) {
  return s.locked_until > now ? s.locked_until - now : 0;
}

bool throttle_fail(ThrottleState& s, const ThrottleConfig& c, std::int64_t now) {
  if (s.last_failure != 0 && now - s.last_failure >= c.quiet_seconds) {
    s.failures = 0;
    s.lockouts = 0;
    s.total_failures = 0;
    s.recent.clear();
  }
  ++s.total_failures;
  if (s.failures == 0 || now - s.window_start >= c.window_seconds) {
    s.failures = 0;
    s.window_start = now;
  }
  s.last_failure = now;
  if (++s.failures < c.max_failures) return false;
  throttle_lock(s, c, now);
  return true;
}

void throttle_lock(ThrottleState& s, const ThrottleConfig& c, std::int64_t now) {
  // A lockout: first_lock_seconds doubled once per earlier lockout, capped.
  std::int64_t lock = std::max<std::int64_t>(c.first_lock_seconds, 1);
  for (int i = 0; i < s.lockouts && lock < c.max_lock_seconds; ++i) lock *= 2;
  lock = std::min(lock, std::max<std::int64_t>(c.max_lock_seconds, 1));
  ++s.lockouts;
  s.locked_until = now + lock;
  s.failures = 0;
}

void throttle_remember(std::vector<std::string>& list, const std::string& client, std::size_t cap) {
  if (client.empty()) return;
  list.erase(std::remove(list.begin(), list.end(), client), list.end());
  list.insert(list.begin(), client);
  if (list.size() > cap) list.resize(cap);
}

bool throttle_trusts(const ThrottleState& s, const std::string& client) {
  return !client.empty() &&
         std::find(s.trusted.begin(), s.trusted.end(), client) != s.trusted.end();
}

bool throttle_idle(const ThrottleState& s, const ThrottleConfig& c, std::int64_t now) {
  return throttle_wait(s, now) == 0 && s.trusted.empty() &&
         (s.last_failure == 0 || now - s.last_failure >= c.quiet_seconds);
}

using ascii::lower;

std::string throttle_key_addr(const std::string& ip) { return "addr:" + lower(client_key(ip)); }

std::string throttle_key_sender(const std::string& address) {
  // An address is at most 254 octets (RFC 5321); a longer "sender" is cut, so that no key
  // grows with what an attacker writes.
  return "sender:" + lower(address.substr(0, 320));
}

std::string throttle_key_player(const std::string& game, const std::string& code) {
  return "player:" + lower(game) + "/" + lower(code);
}

SecretVerdict secret_check_of(const OrderAck& ack) {
  if (!ack.refused) return SecretVerdict::kRight;
  // The validator's refusals (rules/orders/validator.cc), in the order it checks.
  const std::string& r = ack.refusal;
  if (r.rfind("there is no player ", 0) == 0) return SecretVerdict::kUnknownPlayer;
  if (r.rfind("the secret for player ", 0) == 0) return SecretVerdict::kWrong;
  if (r.rfind("orders are for turn ", 0) == 0) return SecretVerdict::kRight;
  return SecretVerdict::kNotChecked;
}

AuthThrottle::Table& AuthThrottle::table_of(const std::string& key) {
  return key.rfind("player:", 0) == 0 || key == kThrottleKeyGm ? accounts_ : clients_;
}

ThrottleState* AuthThrottle::find(const std::string& key) {
  if (key.empty()) return nullptr;
  Table& t = table_of(key);
  auto it = t.map.find(key);
  return it == t.map.end() ? nullptr : &it->second.state;
}

ThrottleState& AuthThrottle::touch(const std::string& key, std::int64_t now) {
  Table& t = table_of(key);
  auto it = t.map.find(key);
  if (it != t.map.end()) {
    t.order.splice(t.order.begin(), t.order, it->second.order);
    return it->second.state;
  }
  if (t.map.size() >= std::max<std::size_t>(config_.max_keys, 1)) {
    // Drop the least recently failed key that is not locked (looking at a bounded number from
    // the old end), else the oldest.
    auto victim = std::prev(t.order.end());
    auto probe = victim;
    for (int i = 0; i < 64; ++i) {
      if (throttle_wait(t.map.at(*probe).state, now) == 0) {
        victim = probe;
        break;
      }
      if (probe == t.order.begin()) break;
      --probe;
    }
    t.map.erase(*victim);
    t.order.erase(victim);
  }
  t.order.push_front(key);
  return t.map.emplace(key, Table::Entry{ThrottleState{}, t.order.begin()}).first->second.state;
}

bool throttle_lock_refuses_others(const std::string& account_key) {
  return !account_key.empty() && account_key.rfind("player:", 0) != 0 &&
         account_key != kThrottleKeyGm;
}

ThrottleVerdict throttle_verdict(const ThrottleState* client, const ThrottleState* account,
                                 const ThrottleKeys& keys, std::int64_t now) {
  ThrottleVerdict v;
  std::int64_t wait = client ? throttle_wait(*client, now) : 0;
  if (account && throttle_lock_refuses_others(keys.account) &&
      !throttle_trusts(*account, keys.client))
    wait = std::max(wait, throttle_wait(*account, now));
  if (wait > 0) {
    v.allowed = false;
    v.retry_after = wait;
  }
  return v;
}

ThrottleEvent throttle_apply(ThrottleState* client, ThrottleState* account,
                             const std::string& client_key, bool ok, const ThrottleConfig& c,
                             std::int64_t now) {
  ThrottleEvent e;
  if (ok) {
    if (account) throttle_remember(account->trusted, client_key, kTrustedClients);
    return e;
  }
  // One strike: a wrong guess at an account that is locked locks the guessing client at once
  // (unless it is a client the account trusts, which is counted as usual).
  const bool strike = account && client && throttle_wait(*account, now) > 0 &&
                      !throttle_trusts(*account, client_key);
  if (client) {
    e.client_locked = throttle_fail(*client, c, now);
    if (strike && !e.client_locked && throttle_wait(*client, now) == 0) {
      throttle_lock(*client, c, now);
      e.client_locked = true;
    }
  }
  if (account) {
    e.account_locked = throttle_fail(*account, c, now);
    throttle_remember(account->recent, client_key, kRecentClients);
    e.account = *account;
  }
  return e;
}

ThrottleVerdict AuthThrottle::check(const ThrottleKeys& keys, std::int64_t now) {
  if (!config_.enabled) return {};
  std::lock_guard<std::mutex> lock(mu_);
  return throttle_verdict(find(keys.client), find(keys.account), keys, now);
}

ThrottleEvent AuthThrottle::record(const ThrottleKeys& keys, bool ok, std::int64_t now) {
  if (!config_.enabled) return {};
  std::lock_guard<std::mutex> lock(mu_);
  // A success touches only the account (to trust the client); the client's counters stay.
  ThrottleState* client = ok || keys.client.empty() ? nullptr : &touch(keys.client, now);
  ThrottleState* account = keys.account.empty() ? nullptr : &touch(keys.account, now);
  return throttle_apply(client, account, keys.client, ok, config_, now);
}

std::size_t AuthThrottle::locked(std::int64_t now) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::size_t n = 0;
  for (const Table* t : {&clients_, &accounts_})
    for (const auto& [key, entry] : t->map)
      if (throttle_wait(entry.state, now) > 0) ++n;
  return n;
}

std::size_t AuthThrottle::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return clients_.map.size() + accounts_.map.size();
}

ThrottleVerdict StoredThrottle::check(const ThrottleKeys& keys, std::int64_t now) {
  if (!config_.enabled) return {};
  // The account's state is read only when its lock refuses other clients (throttle_verdict).
  const bool with_account = throttle_lock_refuses_others(keys.account);
  std::vector<std::string> names;
  if (!keys.client.empty()) names.push_back(keys.client);
  if (with_account) names.push_back(keys.account);
  if (names.empty()) return {};
  auto states = store_.throttle_states(names);
  if (!states.ok()) {
    last_error_ = states.status();
    return {};
  }
  const ThrottleState* client = keys.client.empty() ? nullptr : &(*states)[0];
  const ThrottleState* account = with_account ? &states->back() : nullptr;
  return throttle_verdict(client, account, keys, now);
}

ThrottleEvent StoredThrottle::record(const ThrottleKeys& keys, bool ok, std::int64_t now) {
  ThrottleEvent e;
  if (!config_.enabled) return e;
  const bool with_client = !ok && !keys.client.empty();
  std::vector<std::string> names;
  if (with_client) names.push_back(keys.client);
  if (!keys.account.empty()) names.push_back(keys.account);
  if (names.empty()) return e;
  const Status s = store_.update_throttle(
      names,
      [&](std::vector<ThrottleState>& st) {
        ThrottleState* client = with_client ? &st[0] : nullptr;
        ThrottleState* account = keys.account.empty() ? nullptr : &st.back();
        e = throttle_apply(client, account, keys.client, ok, config_, now);
      },
      now, now - config_.quiet_seconds, config_.max_keys);
  if (!s.ok()) {
    last_error_ = s;
    return {};
  }
  return e;
}

}  // namespace adj
