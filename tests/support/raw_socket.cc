#include "tests/support/raw_socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace adj::testing {

long long raise_nofile() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
  rl.rlim_cur = rl.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &rl);
  ::getrlimit(RLIMIT_NOFILE, &rl);
  return rl.rlim_cur == RLIM_INFINITY ? (1LL << 30) : static_cast<long long>(rl.rlim_cur);
}

RawConn::RawConn(int port, const std::string& source) {
  if (source.find(':') != std::string::npos) {  // IPv6: to [::1]:port
    fd_ = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return;
    // The source may be an address of a /64 made local by a route (Ipv6LocalPrefix), which
    // bind() accepts only with IP_FREEBIND.
    const int on = 1;
    ::setsockopt(fd_, SOL_IP, IP_FREEBIND, &on, sizeof on);
    sockaddr_in6 src{};
    src.sin6_family = AF_INET6;
    ::inet_pton(AF_INET6, source.c_str(), &src.sin6_addr);
    sockaddr_in6 dst{};
    dst.sin6_family = AF_INET6;
    dst.sin6_port = htons(static_cast<std::uint16_t>(port));
    dst.sin6_addr = in6addr_loopback;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&src), sizeof src) != 0 ||
        ::connect(fd_, reinterpret_cast<sockaddr*>(&dst), sizeof dst) != 0)
      close();
    return;
  }
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return;
  sockaddr_in src{};
  src.sin_family = AF_INET;
  ::inet_pton(AF_INET, source.c_str(), &src.sin_addr);
  sockaddr_in dst{};
  dst.sin_family = AF_INET;
  dst.sin_port = htons(static_cast<std::uint16_t>(port));
  dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&src), sizeof src) != 0 ||
      ::connect(fd_, reinterpret_cast<sockaddr*>(&dst), sizeof dst) != 0)
    close();
}

RawConn::~RawConn() { close(); }

void RawConn::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool RawConn::send(const std::string& data) {
  std::size_t off = 0;
  while (fd_ >= 0 && off < data.size()) {
    const ssize_t n = ::send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<std::size_t>(n);
  }
  return fd_ >= 0;
}

std::string RawConn::read_until(const std::string& stop, std::chrono::milliseconds timeout) {
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (fd_ >= 0) {
    if (!stop.empty() && out.find(stop) != std::string::npos) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buf[8192];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

std::string RawConn::read_all(std::chrono::milliseconds timeout) { return read_until("", timeout); }

bool RawConn::idle_open() {
  if (fd_ < 0) return false;
  char c;
  const ssize_t n = ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

int http_get(int port, const std::string& path, std::string* response, const std::string& source,
             std::chrono::milliseconds timeout) {
  RawConn c(port, source);
  if (!c.connected()) return 0;
  c.send("GET " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  const std::string r = c.read_all(timeout);
  if (response) *response = r;
  if (r.rfind("HTTP/1.1 ", 0) != 0 || r.size() < 12) return 0;
  return std::atoi(r.substr(9, 3).c_str());
}

Ipv6LocalPrefix::Ipv6LocalPrefix(std::string prefix) : prefix_(std::move(prefix)) {
  const std::string cmd = "ip -6 route replace local " + prefix_ + " dev lo >/dev/null 2>&1";
  ok_ = std::system(cmd.c_str()) == 0;
}

Ipv6LocalPrefix::~Ipv6LocalPrefix() {
  if (!ok_) return;
  const std::string cmd = "ip -6 route del local " + prefix_ + " dev lo >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0)
    std::fprintf(stderr, "could not remove route %s\n", prefix_.c_str());
}

}  // namespace adj::testing
