#include "server/app/secrets.h"

#include <algorithm>

#include <system_error>
#include <thread>

#include <optional>

#include <cmath>

#include <chrono>

#include <atomic>

#include <sodium.h>

#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <mutex>

namespace adj {

namespace {

// libsodium is initialised once; sodium_init is itself thread-safe and idempotent.
void ensure_sodium() {
  static const int rc = sodium_init();
  (void)rc;  // < 0 only when no randomness source exists; randombytes then aborts by design
}

unsigned long long env_number(const char* name, unsigned long long fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  return (end && *end == '\0') ? n : fallback;
}

Status check_cost(const SecretHashCost& c) {
  if (c.opslimit < crypto_pwhash_OPSLIMIT_MIN || c.opslimit > crypto_pwhash_OPSLIMIT_MAX)
    return Status::InvalidArgument("Argon2id opslimit must be " +
                                   std::to_string(crypto_pwhash_OPSLIMIT_MIN) + " or more");
  if (c.memlimit < crypto_pwhash_MEMLIMIT_MIN || c.memlimit > (std::size_t{4} << 30))
    return Status::InvalidArgument("Argon2id memlimit must be between 8 KiB and 4 GiB");
  if (c.max_concurrent < 1 || c.max_concurrent > 64)
    return Status::InvalidArgument("Argon2id concurrency must be between 1 and 64");
  if (c.reserved_for_checks < 0 || c.reserved_for_checks > 64)
    return Status::InvalidArgument("Argon2id slots kept for checks must be between 0 and 64");
  return Status::Ok();
}

// The process-wide cost and the gate that bounds concurrent Argon2id runs.
class Gate {
 public:
  Gate() {
    SecretHashCost c;
    c.opslimit = env_number("ADJUTANT_ARGON2_OPSLIMIT", c.opslimit);
    c.memlimit = static_cast<std::size_t>(
        env_number("ADJUTANT_ARGON2_MEMLIMIT_KIB", c.memlimit >> 10) << 10);
    c.max_concurrent = static_cast<int>(
        env_number("ADJUTANT_ARGON2_THREADS", static_cast<unsigned long long>(c.max_concurrent)));
    if (check_cost(c).ok()) cost_ = c;  // a bad environment keeps the defaults
  }

  SecretHashCost cost() {
    std::lock_guard lock(mu_);
    return cost_;
  }
  Status set(const SecretHashCost& c) {
    ADJ_RETURN_IF_ERROR(check_cost(c));
    std::lock_guard lock(mu_);
    cost_ = c;
    cv_.notify_all();
    return Status::Ok();
  }

  // Runs f() while holding one of the max_concurrent slots.
  template <class F>
  auto run(F&& f) {
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return running_ < cost_.max_concurrent; });
      ++running_;
    }
    struct Release {
      Gate& g;
      ~Release() {
        std::lock_guard lock(g.mu_);
        --g.running_;
        g.cv_.notify_one();
      }
    } release{*this};
    return f();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  SecretHashCost cost_;
  int running_ = 0;
};

Gate& gate() {
  static Gate g;
  return g;
}

std::string to_hex(const unsigned char* p, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (std::size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[p[i] >> 4];
    out[2 * i + 1] = kDigits[p[i] & 0xF];
  }
  return out;
}

}  // namespace

Status set_secret_hash_cost(const SecretHashCost& cost) { return gate().set(cost); }

SecretHashCost secret_hash_cost() { return gate().cost(); }

Result<std::string> hash_secret(std::string_view secret) {
  ensure_sodium();
  const SecretHashCost c = gate().cost();
  char out[crypto_pwhash_STRBYTES];
  const int rc = gate().run(
      [&] { return crypto_pwhash_str(out, secret.data(), secret.size(), c.opslimit, c.memlimit); });
  if (rc != 0) return Status::Internal("hashing a secret failed (out of memory?)");
  return std::string(out);
}

Result<std::vector<std::string>> hash_secrets(const std::vector<std::string>& secrets) {
  std::vector<std::string> out(secrets.size());
  const SecretHashCost cost = secret_hash_cost();
  const std::size_t threads = std::min<std::size_t>(
      secrets.size(),
      static_cast<std::size_t>(std::max(1, cost.max_concurrent - cost.reserved_for_checks)));
  std::atomic<std::size_t> next{0};
  std::mutex failed_mu;
  std::optional<Status> failed;
  const auto fail = [&](Status st) {
    std::lock_guard<std::mutex> lock(failed_mu);
    if (!failed) failed = std::move(st);
    next = secrets.size();
  };
  const auto work = [&] {
    try {
      for (std::size_t i = next++; i < secrets.size(); i = next++) {
        Result<std::string> h = hash_secret(secrets[i]);
        if (!h.ok()) return fail(h.status());
        out[i] = std::move(h).value();
      }
    } catch (const std::exception& e) {  // out of memory: a failure, never a terminate
      fail(Status::Internal(std::string("hashing secrets: ") + e.what()));
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads: the ones started (and this one) do the rest
    }
  }
  work();
  for (std::thread& t : pool) t.join();
  if (failed) return *failed;
  return out;
}

double hash_secrets_estimate(std::size_t count) {
  static const double one = [] {
    (void)hash_secret("warm up");  // the first one also pays for mapping its memory
    const auto t0 = std::chrono::steady_clock::now();
    (void)hash_secret("estimate");
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }();
  const SecretHashCost cost = secret_hash_cost();
  const auto threads =
      static_cast<double>(std::max(1, cost.max_concurrent - cost.reserved_for_checks));
  return one * std::ceil(static_cast<double>(count) / threads);
}

bool verify_secret(std::string_view secret, const std::string& hash) {
  ensure_sodium();
  if (hash.empty() || hash.size() >= crypto_pwhash_STRBYTES) return false;
  return gate().run(
      [&] { return crypto_pwhash_str_verify(hash.c_str(), secret.data(), secret.size()) == 0; });
}

std::string new_secret() {
  ensure_sodium();
  static constexpr char kAlphabet[] = "abcdefghjkmnpqrstuvwxyz23456789";  // no i l o 0 1
  constexpr std::uint32_t kSize = sizeof(kAlphabet) - 1;
  std::string out;
  for (int group = 0; group < 3; ++group) {
    if (group) out += '-';
    for (int i = 0; i < 4; ++i) out += kAlphabet[randombytes_uniform(kSize)];
  }
  return out;
}

std::string new_token() {
  ensure_sodium();
  unsigned char bytes[16];
  randombytes_buf(bytes, sizeof bytes);
  return to_hex(bytes, sizeof bytes);
}

std::uint64_t new_game_seed() {
  ensure_sodium();
  std::uint64_t seed = 0;
  randombytes_buf(&seed, sizeof seed);
  return seed;
}

std::string hash_token(std::string_view token) {
  ensure_sodium();
  unsigned char out[32];
  crypto_generichash(out, sizeof out, reinterpret_cast<const unsigned char*>(token.data()),
                     token.size(), nullptr, 0);
  return to_hex(out, sizeof out);
}

bool acceptable_secret(std::string_view secret, std::string* why) {
  auto fail = [&](const char* m) {
    if (why) *why = m;
    return false;
  };
  if (secret.size() < 8) return fail("a secret needs at least 8 characters");
  if (secret.size() > 64) return fail("a secret has at most 64 characters");
  for (char c : secret)
    if (c <= ' ' || c > '~' || c == '#')
      return fail("a secret is one word of printable ASCII characters, without '#'");
  return true;
}

}  // namespace adj
