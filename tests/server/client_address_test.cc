// The client's address behind reverse proxies (base/client_address.h): CIDR parsing,
// X-Forwarded-For walked from the right past trusted proxies, RFC 7239 Forwarded, malformed
// values falling back to the peer, and the headers never believed from an untrusted peer.
#include <gtest/gtest.h>

#include "base/client_address.h"

namespace adj {
namespace {

TrustedProxies proxies(std::initializer_list<const char*> cidrs) {
  TrustedProxies t;
  for (const char* c : cidrs) EXPECT_TRUE(t.add(c)) << c;
  return t;
}

TEST(ClientAddress, ParsesCidrsAndBareAddresses) {
  auto n = parse_ip_net("10.0.0.0/8");
  ASSERT_TRUE(n);
  EXPECT_TRUE(n->v4);
  EXPECT_EQ(n->prefix, 8);
  EXPECT_EQ(parse_ip_net("192.0.2.1")->prefix, 32);
  EXPECT_EQ(parse_ip_net("::1")->prefix, 128);
  EXPECT_EQ(parse_ip_net("2001:db8::/32")->prefix, 32);
  EXPECT_FALSE(parse_ip_net("2001:db8::/32")->v4);
  EXPECT_EQ(parse_ip_net("::ffff:10.0.0.0/104")->prefix, 8);  // IPv4-mapped: IPv4
  for (const char* bad : {"", "localhost", "10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0/8",
                          "10.0.0.0/-1", "10.0.0.0/8x", "1.2.3.4.5", "2001:db8::g"})
    EXPECT_FALSE(parse_ip_net(bad)) << bad;
}

TEST(ClientAddress, TrustedProxiesMatchByPrefixAndFamily) {
  const TrustedProxies t = proxies({"10.0.0.0/8", "192.0.2.1", "2001:db8:1::/48"});
  EXPECT_TRUE(t.contains("10.200.3.4"));
  EXPECT_TRUE(t.contains("192.0.2.1"));
  EXPECT_FALSE(t.contains("192.0.2.2"));
  EXPECT_TRUE(t.contains("2001:db8:1:ffff::9"));
  EXPECT_FALSE(t.contains("2001:db8:2::9"));
  EXPECT_TRUE(t.contains("::ffff:10.1.1.1"));  // a dual-stack socket's view of an IPv4 peer
  EXPECT_FALSE(t.contains("not-an-ip"));
  EXPECT_FALSE(TrustedProxies().contains("10.0.0.1"));
  TrustedProxies bad;
  EXPECT_FALSE(bad.add("10.0.0.0/40"));
  EXPECT_TRUE(bad.empty());
}

TEST(ClientAddress, AnUntrustedPeerIsTheClientWhateverItForwards) {
  const TrustedProxies t = proxies({"127.0.0.1"});
  EXPECT_EQ(client_address("198.51.100.9", "203.0.113.5", "for=203.0.113.6", t), "198.51.100.9");
  EXPECT_EQ(client_address("127.0.0.1", "203.0.113.5", "", TrustedProxies()), "127.0.0.1");
}

// One case: what the peer sent (X-Forwarded-For, Forwarded) and the client it makes.
struct Forwarding {
  const char* peer;
  const char* xff;
  const char* forwarded;
  const char* client;
};

void expect_clients(const TrustedProxies& t, std::initializer_list<Forwarding> cases) {
  for (const Forwarding& c : cases)
    EXPECT_EQ(client_address(c.peer, c.xff, c.forwarded, t), c.client)
        << "peer " << c.peer << " X-Forwarded-For \"" << c.xff << "\" Forwarded \"" << c.forwarded
        << "\"";
}

// X-Forwarded-For, and RFC 7239 Forwarded when there is no X-Forwarded-For.
TEST(ClientAddress, ForwardedHeadersAreWalkedFromTheRightPastTrustedProxies) {
  expect_clients(
      proxies({"127.0.0.1", "10.0.0.0/8", "192.0.2.0/24"}),
      {
          {"127.0.0.1", "203.0.113.5", "", "203.0.113.5"},
          // A client cannot choose its address by sending its own X-Forwarded-For:
          // the proxy appends the address it saw, the rightmost untrusted one.
          {"127.0.0.1", "1.1.1.1, 203.0.113.5, 10.1.2.3", "", "203.0.113.5"},
          {"127.0.0.1", " 203.0.113.5 ,10.1.2.3 ", "", "203.0.113.5"},
          // Every entry a trusted proxy: the leftmost.
          {"127.0.0.1", "10.0.0.1, 10.0.0.2", "", "10.0.0.1"},
          // Ports, brackets, IPv6, canonical text.
          {"127.0.0.1", "203.0.113.5:4711", "", "203.0.113.5"},
          {"127.0.0.1", "[2001:DB8:0::1]:4711", "", "2001:db8::1"},
          {"127.0.0.1", "2001:db8::1", "", "2001:db8::1"},
          {"127.0.0.1", "::ffff:203.0.113.5", "", "203.0.113.5"},
          {"::ffff:127.0.0.1", "203.0.113.5", "", "203.0.113.5"},
          // Forwarded (RFC 7239): the for= of each element, walked the same way.
          {"127.0.0.1", "", "for=203.0.113.5", "203.0.113.5"},
          {"127.0.0.1", "", "For=\"[2001:db8:cafe::17]:4711\";proto=https", "2001:db8:cafe::17"},
          {"127.0.0.1", "",
           "for=198.51.100.1;proto=http, for=203.0.113.5;by=192.0.2.9, for=192.0.2.43",
           "203.0.113.5"},
          {"127.0.0.1", "", "for=\"203.0.113.5:80\"", "203.0.113.5"},
          // X-Forwarded-For wins when both are sent.
          {"127.0.0.1", "198.51.100.1", "for=203.0.113.5", "198.51.100.1"},
          // Obfuscated or unknown nodes, or an element without for=: the peer.
          {"127.0.0.1", "", "for=unknown", "127.0.0.1"},
          {"127.0.0.1", "", "for=_hidden", "127.0.0.1"},
          {"127.0.0.1", "", "proto=https", "127.0.0.1"},
      });
}

TEST(ClientAddress, MalformedForwardedValuesFallBackToThePeer) {
  const TrustedProxies t = proxies({"127.0.0.1"});
  for (const char* bad : {"unknown", "203.0.113.5, garbage", "[2001:db8::1", "203.0.113.5:port",
                          "1.2.3.4:5:6", ",", "[203.0.113.5]", "\"203.0.113.5\""})
    EXPECT_EQ(client_address("127.0.0.1", bad, "", t), "127.0.0.1") << bad;
  // A malformed entry to the LEFT of the client is never reached.
  EXPECT_EQ(client_address("127.0.0.1", "garbage, 203.0.113.5", "", t), "203.0.113.5");
}

TEST(ClientAddress, LoopbackAndPrivatePeersAreRecognised) {
  for (const char* ip : {"127.0.0.1", "10.1.2.3", "172.17.0.1", "192.168.1.1", "::1", "fd00::1",
                         "::ffff:172.18.0.2"})
    EXPECT_TRUE(is_private_or_loopback(ip)) << ip;
  for (const char* ip : {"203.0.113.5", "172.32.0.1", "2001:db8::1", "", "x"})
    EXPECT_FALSE(is_private_or_loopback(ip)) << ip;
  EXPECT_EQ(canonical_ip(" 2001:DB8::0:1 "), "2001:db8::1");
  EXPECT_EQ(canonical_ip("nope"), "");
}

}  // namespace
TEST(ClientAddress, ClientKeyIsTheIPv4AddressOrTheIPv6Slash64) {
  EXPECT_EQ(client_key("192.0.2.7"), "192.0.2.7");
  EXPECT_EQ(client_key("::ffff:192.0.2.7"), "192.0.2.7");
  EXPECT_EQ(client_key("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  EXPECT_EQ(client_key("2001:DB8:1:2:bbbb:cccc:dddd:eeee"), "2001:db8:1:2::/64");
  EXPECT_EQ(client_key("2001:db8::5"), "2001:db8::/64");
  EXPECT_NE(client_key("2001:db8:1:3::1"), client_key("2001:db8:1:2::1"));
  EXPECT_EQ(client_key("not an address"), "not an address");
  EXPECT_EQ(client_key(std::string(200, 'x')).size(), 64u);
}

}  // namespace adj
