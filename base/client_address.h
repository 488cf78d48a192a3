// The real client's address of an HTTP request behind reverse proxies (`serve --trusted-proxy`).
//
// The TCP peer is the client unless it lies in a trusted network (TrustedProxies). Only then
// are the forwarding headers read, and they are never believed from any other peer:
//   X-Forwarded-For: walked from the right (the entry the nearest proxy added), skipping entries
//     that are themselves trusted proxies; the first untrusted one is the client (all trusted:
//     the leftmost). Entries are addresses, optionally with a port ("192.0.2.1:4711",
//     "[2001:db8::1]:4711").
//   Forwarded (RFC 7239), only when there is no X-Forwarded-For: the for= parameters of its
//     elements, walked the same way.
// A malformed entry met on the walk (not an IP address, "unknown", an obfuscated identifier)
// gives the peer address: a proxy that cannot name the client is the client as far as the
// limits are concerned. Addresses come back in canonical text (inet_ntop; an IPv4-mapped IPv6
// address as IPv4), so every key made from them (server/app/auth_throttle.h) is one per host.
// Pure functions over text; thread-safety: a TrustedProxies is read-only once filled.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace adj {

// An IPv4 or IPv6 network: the address bytes (IPv4 in the first 4) and the prefix length.
struct IpNet {
  std::array<std::uint8_t, 16> bytes{};
  bool v4 = false;
  int prefix = 0;  // 0..32 for IPv4, 0..128 for IPv6
};

// "10.0.0.0/8", "2001:db8::/32", or a bare address ("192.0.2.1" is /32, "::1" is /128). An
// IPv4-mapped IPv6 address is taken as IPv4 (its prefix less 96). Null when not one.
std::optional<IpNet> parse_ip_net(std::string_view text);

// The canonical text of a textual IP address ("" when `text` is not one).
std::string canonical_ip(std::string_view text);

// The key under which one client is counted by every per-address cap, budget and limit (the
// guessing limiter, the HTTP and SMTP connection caps, the SMTP data share, the mail budget per
// peer, the sign-up and standby rates): an IPv4 address (or IPv4-mapped IPv6) in canonical text;
// an IPv6 address as its /64 ("2001:db8:1:2::/64"), since one subscriber is given a whole /64.
// Text that is no address comes back as is, cut to 64 characters.
std::string client_key(std::string_view ip);

// 127/8, 10/8, 172.16/12, 192.168/16, 169.254/16, 100.64/10, ::1, fc00::/7, fe80::/10.
bool is_private_or_loopback(std::string_view ip);

class TrustedProxies {
 public:
  // Adds one network (parse_ip_net); false, and nothing added, when `cidr` is not one.
  bool add(std::string_view cidr);
  bool empty() const { return nets_.empty(); }
  // Whether the textual address `ip` lies in one of the networks.
  bool contains(std::string_view ip) const;

 private:
  std::vector<IpNet> nets_;
};

// The client's address for a request from `peer` carrying these header values ("" when the
// header is absent; repeated fields joined with ", "). See the top of this file.
std::string client_address(const std::string& peer, std::string_view x_forwarded_for,
                           std::string_view forwarded, const TrustedProxies& trusted);

}  // namespace adj
