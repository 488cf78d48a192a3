#include "server/http/response_cache.h"

#include <algorithm>
#include <cctype>

#include "base/ascii.h"
#include "server/http/compress.h"

namespace adj::http {

namespace {

// Splits a comma-separated header value into trimmed items.
std::vector<std::string> items(const std::string& value) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= value.size()) {
    std::size_t comma = value.find(',', pos);
    if (comma == std::string::npos) comma = value.size();
    std::string item = ascii::trim(value.substr(pos, comma - pos));
    if (!item.empty()) out.push_back(std::move(item));
    pos = comma + 1;
  }
  return out;
}

// The q value of an Accept-Encoding item ("gzip;q=0.5" -> 0.5; no q -> 1).
double quality(const std::string& params) {
  const std::size_t q = ascii::lower(params).find("q=");
  if (q == std::string::npos) return 1.0;
  try {
    return std::stod(params.substr(q + 2));
  } catch (...) {
    return 0.0;
  }
}

}  // namespace

std::size_t CachedAnswer::bytes() const {
  std::size_t n = identity.size() + gzip.size() + brotli.size() + content_type.size() +
                  scope.size() + route.size() + head[0].size() + head[1].size() + head[2].size() +
                  256;
  for (const auto& [k, v] : headers) n += k.size() + v.size();
  return n;
}

const std::string& CachedAnswer::body(Encoding e) const {
  switch (e) {
    case Encoding::kGzip:
      return gzip;
    case Encoding::kBrotli:
      return brotli;
    case Encoding::kIdentity:
      break;
  }
  return identity;
}

std::string CachedAnswer::etag(Encoding e) const {
  const char* suffix = e == Encoding::kGzip ? "-gz" : e == Encoding::kBrotli ? "-br" : "";
  return "\"" + tag + suffix + "\"";
}

Encoding choose_encoding(const std::string& accept_encoding, const CachedAnswer& answer) {
  double br = -1, gz = -1, any = 0;  // -1: not named
  for (const std::string& item : items(accept_encoding)) {
    const std::size_t semi = item.find(';');
    const std::string coding = ascii::lower(ascii::trim(item.substr(0, semi)));
    const double q = semi == std::string::npos ? 1.0 : quality(item.substr(semi + 1));
    if (coding == "br") br = q;
    if (coding == "gzip" || coding == "x-gzip") gz = q;
    if (coding == "*") any = q;  // every coding not named
  }
  if (br < 0) br = any;
  if (gz < 0) gz = any;
  if (br > 0 && !answer.brotli.empty() && br >= gz) return Encoding::kBrotli;
  if (gz > 0 && !answer.gzip.empty()) return Encoding::kGzip;
  if (br > 0 && !answer.brotli.empty()) return Encoding::kBrotli;
  return Encoding::kIdentity;
}

bool etag_matches(const std::string& if_none_match, const std::string& etag) {
  const auto opaque = [](std::string t) {
    if (t.rfind("W/", 0) == 0) t.erase(0, 2);
    return t;
  };
  for (const std::string& item : items(if_none_match))
    if (item == "*" || opaque(item) == opaque(etag)) return true;
  return false;
}

std::string content_tag(const std::string& bytes) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  h ^= bytes.size();
  static const char* hex = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = hex[h & 15];
  return out;
}

ResponseCache::ResponseCache(RevisionSource source, CacheOptions options)
    : source_(std::move(source)), options_(options) {}

std::string ResponseCache::credential_cookies(std::string_view header, std::string_view remote,
                                              std::vector<std::string>* dropped,
                                              bool* uncached) const {
  if (options_.credential_cookies.empty()) return std::string(header);
  const auto listed = [](const std::vector<std::string>& names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  std::string out, companions;  // "a=1; b=2" -> the keyed pairs, each ended by ';'
  std::vector<std::string> companion_values;
  std::size_t pos = 0;
  while (pos < header.size()) {
    std::size_t end = header.find(';', pos);
    if (end == std::string_view::npos) end = header.size();
    std::string_view pair = header.substr(pos, end - pos);
    while (!pair.empty() && (pair.front() == ' ' || pair.front() == '\t')) pair.remove_prefix(1);
    const std::size_t eq = pair.find('=');
    const std::string_view name = pair.substr(0, eq);
    const std::string_view value =
        eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    pos = end + 1;
    if (!options_.check) {
      if (listed(options_.credential_cookies, name) || listed(options_.companion_cookies, name))
        out.append(pair).append(1, ';');
    } else if (listed(options_.credential_cookies, name)) {
      switch (options_.check(name, value, remote)) {
        case CredentialKind::kIssued:
          out.append(pair).append(1, ';');
          break;
        case CredentialKind::kMadeUp:
          if (dropped) dropped->emplace_back(value);
          break;
        case CredentialKind::kUncached:
          if (uncached) *uncached = true;
          break;
      }
    } else if (listed(options_.companion_cookies, name)) {
      companions.append(pair).append(1, ';');
      companion_values.emplace_back(value);
    }
  }
  if (!out.empty())
    out += companions;  // beside an issued credential: keyed
  else if (dropped)
    dropped->insert(dropped->end(), companion_values.begin(), companion_values.end());
  return out;
}

std::string ResponseCache::key(std::string_view target, std::string_view host,
                               std::string_view cookie_header, std::string_view authorization,
                               std::string_view remote) const {
  return key(target, host, cookie_header, authorization, remote, nullptr, nullptr);
}

std::string ResponseCache::key(std::string_view target, std::string_view host,
                               std::string_view cookie_header, std::string_view authorization,
                               std::string_view remote, std::vector<std::string>* dropped,
                               bool* with_credentials) const {
  bool uncached = false;
  const std::string cookie = credential_cookies(cookie_header, remote, dropped, &uncached);
  if (uncached) return "";
  if (with_credentials) *with_credentials = !cookie.empty() || !authorization.empty();
  std::string k;
  k.reserve(target.size() + host.size() + cookie.size() + authorization.size() + remote.size() + 4);
  k.append(target).append(1, '\0').append(host).append(1, '\0').append(cookie);
  k.append(1, '\0').append(authorization);
  if (!cookie.empty() || !authorization.empty()) k.append(1, '\0').append(remote);
  return k;
}

std::string ResponseCache::key(const Request& req) const {
  const auto header = [&req](const char* name) -> std::string_view {
    auto it = req.headers.find(name);
    return it == req.headers.end() ? std::string_view() : std::string_view(it->second);
  };
  return key(req.target, header("host"), header("cookie"), header("authorization"), req.remote);
}

ResponseCache::Lookup ResponseCache::find(const Request& req) {
  if (req.method != "GET" && req.method != "HEAD") return {};
  return find(key(req));
}

ResponseCache::Lookup ResponseCache::find(const std::string& k) {
  if (k.empty()) return {};  // a request the cache stays out of (kUncached)
  Lookup out;
  out.revisions = source_ ? source_() : nullptr;
  if (!out.revisions) return out;
  std::lock_guard lock(mu_);
  auto it = index_.find(k);
  if (it != index_.end()) {
    const auto& answer = it->second->answer;
    auto rev = out.revisions->find(answer->scope);
    const std::int64_t now = rev == out.revisions->end() ? 0 : rev->second;
    if (now == answer->revision) {
      lru_.splice(lru_.begin(), lru_, it->second);
      out.answer = answer;
      ++stats_.hits;
      return out;
    }
    const auto t = std::chrono::steady_clock::now();
    auto [claim, fresh] = making_.try_emplace(k, t);
    if (!fresh && t - claim->second < kMakeClaim) {  // another request is making it: the old one
      out.answer = answer;
      ++stats_.stale;
      return out;
    }
    claim->second = t;
    out.making = k;
    out.stale = answer;
    return out;  // counted once the caller knows: waited_for_make() or served_stale()
  }
  ++stats_.misses;
  return out;
}

void ResponseCache::made(const std::string& key, const std::shared_ptr<const CachedAnswer>& stale,
                         int status) {
  std::lock_guard lock(mu_);
  making_.erase(key);
  if (!stale || status >= 500) return;
  auto it = index_.find(key);
  if (it == index_.end() || it->second->answer != stale) return;  // kept anew, or gone already
  stats_.bytes -= it->second->answer->bytes();
  lru_.erase(it->second);
  index_.erase(it);
  stats_.answers = lru_.size();
}

void ResponseCache::served_stale() {
  std::lock_guard lock(mu_);
  ++stats_.stale;
}

void ResponseCache::waited_for_make() {
  std::lock_guard lock(mu_);
  ++stats_.misses;
}

std::shared_ptr<const CachedAnswer> ResponseCache::keep(
    const Request& req, const Response& resp, const std::string& route,
    const std::shared_ptr<const Revisions>& revisions) {
  if (req.method != "GET" || resp.status != 200 || resp.cache_scope.empty() || !revisions)
    return nullptr;
  if (resp.body.size() > options_.max_answer_bytes) return nullptr;
  for (const auto& [name, value] : resp.headers)
    if (ascii::lower(name) == "set-cookie") return nullptr;
  const auto header = [&req](const char* name) -> std::string_view {
    auto it = req.headers.find(name);
    return it == req.headers.end() ? std::string_view() : std::string_view(it->second);
  };
  std::vector<std::string> dropped;
  bool with_credentials = false;
  const std::string k = key(req.target, header("host"), header("cookie"), header("authorization"),
                            req.remote, &dropped, &with_credentials);
  if (k.empty()) return nullptr;
  // An answer that shows a value its key leaves out (a made-up CSRF token in a form) was made for
  // that request alone.
  for (const std::string& v : dropped)
    if (!v.empty() && resp.body.find(v) != std::string::npos) return nullptr;

  auto answer = std::make_shared<CachedAnswer>();
  answer->route = route;
  answer->content_type = resp.content_type;
  answer->headers = resp.headers;
  answer->scope = resp.cache_scope;
  auto rev = revisions->find(resp.cache_scope);
  answer->revision = rev == revisions->end() ? 0 : rev->second;
  answer->tag = content_tag(resp.body);
  answer->credentials = with_credentials;
  answer->identity = resp.body;
  // Compressed forms only when they save at least 10% (tiny answers and images do not).
  const auto worth = [&](const std::optional<std::string>& c) {
    return c && c->size() * 10 < answer->identity.size() * 9;
  };
  if (answer->identity.size() >= 256) {
    if (auto gz = gzip_compress(answer->identity); worth(gz)) answer->gzip = std::move(*gz);
    if (options_.brotli) {
      auto br = brotli_compress(answer->identity, options_.brotli_quality);
      if (worth(br) && (answer->gzip.empty() || br->size() < answer->gzip.size()))
        answer->brotli = std::move(*br);
    }
  }
  if (head_writer_)
    for (Encoding e : {Encoding::kIdentity, Encoding::kGzip, Encoding::kBrotli})
      if (e == Encoding::kIdentity || !answer->body(e).empty())
        answer->head[static_cast<int>(e)] = head_writer_(*answer, e);
  const std::size_t size = answer->bytes();
  if (size > options_.max_bytes) return answer;  // served this once, not kept

  std::lock_guard lock(mu_);
  if (auto it = index_.find(k); it != index_.end()) {
    stats_.bytes -= it->second->answer->bytes();
    lru_.erase(it->second);
    index_.erase(it);
  }
  lru_.push_front(Slot{k, answer});
  index_[k] = lru_.begin();
  stats_.bytes += size;
  ++stats_.kept;
  while (stats_.bytes > options_.max_bytes && lru_.size() > 1) {
    stats_.bytes -= lru_.back().answer->bytes();
    index_.erase(lru_.back().key);
    lru_.pop_back();
    ++stats_.evicted;
  }
  stats_.answers = lru_.size();
  return answer;
}

ResponseCache::Stats ResponseCache::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

}  // namespace adj::http
