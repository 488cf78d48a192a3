#include "base/client_address.h"
#include "base/ascii.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace adj {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() <= 5 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// One address, without prefix or port (an IPv6 zone id "%eth0" is ignored).
std::optional<IpNet> parse_address(std::string_view text) {
  if (text.empty() || text.size() > 63) return std::nullopt;
  std::string s(text);
  IpNet n;
  if (s.find(':') != std::string::npos) {
    if (const auto pct = s.find('%'); pct != std::string::npos) s.erase(pct);
    if (inet_pton(AF_INET6, s.c_str(), n.bytes.data()) != 1) return std::nullopt;
    n.prefix = 128;
    const bool mapped =
        std::all_of(n.bytes.begin(), n.bytes.begin() + 10, [](std::uint8_t b) { return b == 0; }) &&
        n.bytes[10] == 0xff && n.bytes[11] == 0xff;
    if (mapped) {
      std::copy(n.bytes.begin() + 12, n.bytes.end(), n.bytes.begin());
      std::fill(n.bytes.begin() + 4, n.bytes.end(), std::uint8_t{0});
      n.v4 = true;
      n.prefix = 32;
    }
    return n;
  }
  if (inet_pton(AF_INET, s.c_str(), n.bytes.data()) != 1) return std::nullopt;
  n.v4 = true;
  n.prefix = 32;
  return n;
}

std::string text_of(const IpNet& n) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (!inet_ntop(n.v4 ? AF_INET : AF_INET6, n.bytes.data(), buf, sizeof buf)) return "";
  return buf;
}

bool in_net(const IpNet& net, const IpNet& a) {
  if (net.v4 != a.v4) return false;
  int bits = net.prefix;
  for (std::size_t i = 0; bits > 0; ++i, bits -= 8) {
    const std::uint8_t mask =
        bits >= 8 ? std::uint8_t{0xff} : static_cast<std::uint8_t>(0xff << (8 - bits));
    if ((net.bytes[i] & mask) != (a.bytes[i] & mask)) return false;
  }
  return true;
}

// One forwarded node: "192.0.2.1", "192.0.2.1:4711", "2001:db8::1", "[2001:db8::1]:4711".
std::optional<IpNet> parse_node(std::string_view s) {
  s = ascii::trim_view(s);
  if (!s.empty() && s.front() == '[') {
    const auto close = s.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view rest = s.substr(close + 1);
    if (!rest.empty() && (rest.front() != ':' || !all_digits(rest.substr(1)))) return std::nullopt;
    auto a = parse_address(s.substr(1, close - 1));
    return a && !a->v4 ? a : std::nullopt;
  }
  if (std::count(s.begin(), s.end(), ':') == 1) {  // IPv4 with a port
    const auto colon = s.find(':');
    if (!all_digits(s.substr(colon + 1))) return std::nullopt;
    auto a = parse_address(s.substr(0, colon));
    return a && a->v4 ? a : std::nullopt;
  }
  return parse_address(s);
}

// Splits on `sep` outside double quotes.
std::vector<std::string_view> split_unquoted(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  bool quoted = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && quoted) {
      ++i;
    } else if (s[i] == '"') {
      quoted = !quoted;
    } else if (s[i] == sep && !quoted) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

// The for= values of a Forwarded header, in order (unquoted; "" for an element without one).
std::vector<std::string> forwarded_for(std::string_view header) {
  std::vector<std::string> out;
  for (std::string_view element : split_unquoted(header, ',')) {
    std::string value;
    for (std::string_view pair : split_unquoted(element, ';')) {
      pair = ascii::trim_view(pair);
      const auto eq = pair.find('=');
      if (eq != 3) continue;
      std::string name(pair.substr(0, 3));
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (name != "for") continue;
      std::string_view v = pair.substr(4);
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
        v = v.substr(1, v.size() - 2);
        for (std::size_t i = 0; i < v.size(); ++i) {
          if (v[i] == '\\' && i + 1 < v.size()) ++i;
          value += v[i];
        }
      } else {
        value = std::string(v);
      }
    }
    if (!ascii::trim_view(element).empty()) out.push_back(value);
  }
  return out;
}

// The walk from the right over `nodes` (see the header); `peer` when one is malformed.
template <typename Nodes>
std::string walk(const std::string& peer, const Nodes& nodes, const TrustedProxies& trusted) {
  std::string leftmost = peer;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const auto a = parse_node(*it);
    if (!a) return peer;
    const std::string text = text_of(*a);
    if (!trusted.contains(text)) return text;
    leftmost = text;
  }
  return leftmost;
}

}  // namespace

std::optional<IpNet> parse_ip_net(std::string_view text) {
  text = ascii::trim_view(text);
  const auto slash = text.find('/');
  auto n = parse_address(text.substr(0, slash));
  if (!n) return std::nullopt;
  if (slash == std::string_view::npos) return n;
  const std::string_view len = text.substr(slash + 1);
  if (len.empty() || len.size() > 3 ||
      !std::all_of(len.begin(), len.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  int prefix = std::stoi(std::string(len));
  // An IPv4-mapped network "::ffff:10.0.0.0/104" is the IPv4 network 10.0.0.0/8.
  if (n->v4 && text.find(':') != std::string_view::npos) prefix -= 96;
  if (prefix < 0 || prefix > (n->v4 ? 32 : 128)) return std::nullopt;
  n->prefix = prefix;
  return n;
}

std::string canonical_ip(std::string_view text) {
  const auto a = parse_address(ascii::trim_view(text));
  return a ? text_of(*a) : std::string();
}

std::string client_key(std::string_view ip) {
  auto a = parse_address(ascii::trim_view(ip));
  if (!a) return std::string(ip.substr(0, 64));
  if (a->v4) return text_of(*a);
  std::fill(a->bytes.begin() + 8, a->bytes.end(), std::uint8_t{0});
  return text_of(*a) + "/64";
}

bool is_private_or_loopback(std::string_view ip) {
  const auto a = parse_address(ip);
  if (!a) return false;
  static const char* const kNets[] = {"127.0.0.0/8",    "10.0.0.0/8",     "172.16.0.0/12",
                                      "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10",
                                      "::1/128",        "fc00::/7",       "fe80::/10"};
  for (const char* net : kNets)
    if (in_net(*parse_ip_net(net), *a)) return true;
  return false;
}

bool TrustedProxies::add(std::string_view cidr) {
  const auto n = parse_ip_net(cidr);
  if (!n) return false;
  nets_.push_back(*n);
  return true;
}

bool TrustedProxies::contains(std::string_view ip) const {
  if (nets_.empty()) return false;
  const auto a = parse_address(ip);
  if (!a) return false;
  return std::any_of(nets_.begin(), nets_.end(), [&](const IpNet& n) { return in_net(n, *a); });
}

std::string client_address(const std::string& peer, std::string_view x_forwarded_for,
                           std::string_view forwarded, const TrustedProxies& trusted) {
  if (!trusted.contains(peer)) return peer;
  if (!ascii::trim_view(x_forwarded_for).empty())
    return walk(peer, split_unquoted(x_forwarded_for, ','), trusted);
  if (!ascii::trim_view(forwarded).empty()) return walk(peer, forwarded_for(forwarded), trusted);
  return peer;
}

}  // namespace adj
