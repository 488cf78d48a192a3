// The shipped nginx configuration (docker/nginx/) in front of real daemons: Debian's nginx runs
// the site files and snippets as a host would install them (only the domain, the ports, the
// certificate's directory and the static files' directory are replaced), with a self-signed
// certificate. It terminates TLS, redirects plain HTTP, adds the security headers once, serves
// /static/ itself (still answering with the daemon stopped), keeps /metrics to the host, and the
// daemon (--trusted-proxy 127.0.0.1) sees the real client's address, not one the client forged.
// The two-daemon file spreads requests over both daemons and goes on when one dies.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/mail/mail_test_util.h"

namespace adj {
namespace {

using ::adj::testing::read_file;
using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;
using ::adj::testing::TempDir;
using mail_test::eventually;
using mail_test::free_port;
using mail_test::ServeProcess;

constexpr const char* kNginxGm = "nginx-config-gm-token";
constexpr const char* kDomain = "pbm.example.test";
const std::string kNginxSource = std::string(ADJ_SOURCE_DIR) + "/docker/nginx/";

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

int count_of(std::string haystack, std::string needle) {
  const auto lower = [](std::string& s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  };
  lower(haystack);
  lower(needle);
  int n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1))
    ++n;
  return n;
}

// Debian's nginx in the foreground on 127.0.0.1 with one of docker/nginx/'s site files; the
// snippets are the shipped files themselves (dir/snippets links to docker/nginx/).
class Nginx {
 public:
  // `upstreams`: what replaces each daemon address of the site file, in order.
  Nginx(const TempDir& dir, const std::string& site_file,
        const std::vector<std::pair<std::string, int>>& upstreams)
      : dir_(dir.path().string()), http_(free_port()), https_(free_port()) {
    // nginx's workers (user nobody when started by root) read and write below this directory.
    ::chmod(dir_.c_str(), 0755);
    run_shell(
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
        "-subj /CN=" +
        std::string(kDomain) + " -addext subjectAltName=DNS:" + kDomain + " -keyout " +
        shell_quote(dir_ + "/privkey.pem") + " -out " + shell_quote(dir_ + "/fullchain.pem") +
        " 2>/dev/null");
    std::filesystem::create_directory_symlink(kNginxSource, dir_ + "/snippets");
    // The static files as a copy here: the checkout may be where the workers cannot go (under
    // /root, mode 0700).
    std::filesystem::copy(std::string(ADJ_SOURCE_DIR) + "/server/web/static", dir_ + "/static",
                          std::filesystem::copy_options::recursive);
    run_shell("chmod -R a+rX " + shell_quote(dir_ + "/static"));
    std::string site = read_file(kNginxSource + site_file);
    replace_all(site, "${ADJUTANT_DOMAIN}", kDomain);
    replace_all(site, std::string("/etc/letsencrypt/live/") + kDomain + "/", dir_ + "/");
    replace_all(site, "/usr/local/share/adjutant/static/", dir_ + "/static/");
    replace_all(site, "listen [::]:80;\n", "");
    replace_all(site, "listen [::]:443 ssl http2;\n", "");
    replace_all(site, "listen 80;", "listen 127.0.0.1:" + std::to_string(http_) + ";");
    replace_all(site, "listen 443 ssl", "listen 127.0.0.1:" + std::to_string(https_) + " ssl");
    for (const auto& [address, port] : upstreams)
      replace_all(site, address, "127.0.0.1:" + std::to_string(port));
    std::ofstream(dir_ + "/site.conf") << site;

    std::ofstream(dir_ + "/nginx.conf")
        << "pid " << dir_ << "/nginx.pid;\nerror_log " << dir_ << "/error.log;\n"
        << "worker_processes 1;\nevents { worker_connections 128; }\nhttp {\n"
        << "  include /etc/nginx/mime.types;\n  access_log " << dir_ << "/access.log;\n"
        << "  client_body_temp_path " << dir_ << "/body;\n  proxy_temp_path " << dir_
        << "/proxy;\n  fastcgi_temp_path " << dir_ << "/fastcgi;\n  uwsgi_temp_path " << dir_
        << "/uwsgi;\n  scgi_temp_path " << dir_ << "/scgi;\n  include " << dir_
        << "/site.conf;\n}\n";
    check_ = run_shell("nginx -t -p " + shell_quote(dir_ + "/") + " -c " +
                       shell_quote(dir_ + "/nginx.conf") + " 2>&1");
    pid_ = ::fork();
    if (pid_ == 0) {
      const std::string prefix = dir_ + "/", conf = dir_ + "/nginx.conf";
      std::freopen((dir_ + "/stderr.log").c_str(), "a", stderr);
      ::execlp("nginx", "nginx", "-p", prefix.c_str(), "-c", conf.c_str(), "-g", "daemon off;",
               static_cast<char*>(nullptr));
      std::_Exit(127);
    }
  }
  ~Nginx() {
    if (pid_ > 0) {
      ::kill(pid_, SIGQUIT);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Nginx(const Nginx&) = delete;
  Nginx& operator=(const Nginx&) = delete;

  bool ready() const {
    return eventually([&] { return mail_test::port_open(https_); }, std::chrono::seconds(10));
  }
  // What `nginx -t` said of the configuration.
  const std::string& check() const { return check_; }
  std::string log() const {
    return read_file(dir_ + "/error.log") + read_file(dir_ + "/stderr.log");
  }
  // curl over TLS to https://DOMAIN:PORT/path, trusting only the test's certificate: the status
  // line and headers, then the body. `args` go before the URL.
  std::string https(const std::string& path, const std::string& args = "") const {
    const std::string host = std::string(kDomain) + ":" + std::to_string(https_);
    return run_shell("curl -s -i -m 20 --cacert " + shell_quote(dir_ + "/fullchain.pem") +
                     " --resolve " + host + ":127.0.0.1 " + args + " " +
                     shell_quote("https://" + host + path));
  }
  std::string http(const std::string& path) const {
    return run_shell("curl -s -i -m 20 -H 'Host: " + std::string(kDomain) + "' " +
                     shell_quote("http://127.0.0.1:" + std::to_string(http_) + path));
  }

 private:
  std::string dir_;
  int http_, https_;
  std::string check_;
  pid_t pid_ = -1;
};

int status_of(const std::string& answer) {
  // "HTTP/2 200" or "HTTP/1.1 301 Moved Permanently"
  const size_t space = answer.find(' ');
  return space == std::string::npos ? 0 : std::atoi(answer.c_str() + space + 1);
}

std::string headers_of(const std::string& answer) {
  return answer.substr(0, answer.find("\r\n\r\n"));
}

bool nginx_missing() { return run_shell("command -v nginx").empty(); }

// A daemon whose log has a line for every request (SPDLOG_LEVEL=debug), with the client address
// it took (remote="...").
std::unique_ptr<ServeProcess> logging_daemon(const std::string& db, const std::string& log) {
  ::setenv("SPDLOG_LEVEL", "debug", 1);
  auto serve = std::make_unique<ServeProcess>(
      db, free_port(), free_port(), log, kNginxGm,
      std::vector<std::string>{"--tick", "0", "--trusted-proxy", "127.0.0.1", "--base-url",
                               std::string("https://") + kDomain});
  ::unsetenv("SPDLOG_LEVEL");  // the child has it
  return serve;
}

TEST(NginxConfig, TheSingleDaemonFileTerminatesTlsAndPassesTheRealClient) {
  if (nginx_missing()) GTEST_SKIP() << "nginx is not installed (scripts/install-deps.sh)";
  TempDir dir;
  const std::string log = dir.file("serve.log");
  auto serve = logging_daemon(dir.file("games.db"), log);
  ASSERT_TRUE(serve->wait_ready()) << read_file(log);
  Nginx nginx(dir, "adjutant.conf", {{"127.0.0.1:8080", serve->http()}});
  ASSERT_NE(nginx.check().find("test is successful"), std::string::npos) << nginx.check();
  ASSERT_TRUE(nginx.ready()) << nginx.log();

  // TLS with HTTP/2, the daemon's answer, the TLS end's headers added once and the daemon's own
  // passed through once.
  const std::string home = nginx.https("/");
  EXPECT_EQ(home.rfind("HTTP/2 200", 0), 0u) << home;
  const std::string head = headers_of(home);
  EXPECT_EQ(count_of(head, "strict-transport-security: max-age=31536000"), 1) << head;
  EXPECT_EQ(count_of(head, "x-frame-options: DENY"), 1) << head;
  EXPECT_EQ(count_of(head, "x-content-type-options: nosniff"), 1) << head;
  EXPECT_EQ(count_of(head, "content-security-policy:"), 1) << head;
  EXPECT_NE(home.find("Adjutant"), std::string::npos);

  // Plain HTTP only redirects.
  const std::string plain = nginx.http("/games?x=1");
  EXPECT_EQ(status_of(plain), 301) << plain;
  EXPECT_NE(plain.find(std::string("Location: https://") + kDomain + "/games?x=1"),
            std::string::npos)
      << plain;

  // The daemon (its log's line for the request) sees the client nginx saw (curl from 127.0.0.2),
  // not the address the client put in its own X-Forwarded-For, nor nginx's.
  const std::string probe =
      nginx.https("/probe-client", "--interface 127.0.0.2 -H 'X-Forwarded-For: 203.0.113.9'");
  EXPECT_EQ(status_of(probe), 404) << probe;  // the daemon's "no such page"
  ASSERT_TRUE(eventually(
      [&] { return read_file(log).find("path=\"/probe-client\"") != std::string::npos; }));
  const std::string lines = read_file(log);
  const size_t line = lines.find("path=\"/probe-client\"");
  const std::string rest = lines.substr(line, lines.find('\n', line) - line);
  EXPECT_NE(rest.find("remote=\"127.0.0.2\""), std::string::npos) << rest;

  // /metrics only from this host (nginx's view: 127.0.0.2 is not 127.0.0.1).
  EXPECT_EQ(status_of(nginx.https("/metrics", "--interface 127.0.0.2")), 403);
  EXPECT_EQ(status_of(nginx.https("/metrics",
                                  std::string("-H 'Authorization: Bearer ") + kNginxGm + "'")),
            200);

  // /static/ is nginx's own: byte for byte the daemon's file, with the daemon's headers, and it
  // still answers when the daemon is gone (the pages then get 502).
  const std::string css = nginx.https("/static/adjutant.css");
  EXPECT_EQ(status_of(css), 200) << css;
  const std::string css_head = headers_of(css);
  EXPECT_EQ(css.substr(css_head.size() + 4),
            read_file(std::string(ADJ_SOURCE_DIR) + "/server/web/static/adjutant.css"));
  EXPECT_EQ(count_of(css_head, "cache-control: public, max-age=3600"), 1) << css_head;
  EXPECT_EQ(count_of(css_head, "x-content-type-options: nosniff"), 1) << css_head;
  EXPECT_EQ(count_of(css_head, "strict-transport-security:"), 1) << css_head;
  EXPECT_EQ(status_of(nginx.https("/static/../../etc/passwd", "--path-as-is")), 400);
  EXPECT_EQ(status_of(nginx.https("/static/nothing.css")), 404);
  serve->kill(SIGTERM);
  EXPECT_EQ(status_of(nginx.https("/static/adjutant.css")), 200);
  EXPECT_EQ(status_of(nginx.https("/")), 502);
  EXPECT_EQ(read_file(log).find("path=\"/static/"), std::string::npos)
      << "a static file reached the daemon";
}

TEST(NginxConfig, TheTwoDaemonFileSpreadsRequestsAndSkipsADeadDaemon) {
  if (nginx_missing()) GTEST_SKIP() << "nginx is not installed (scripts/install-deps.sh)";
  TempDir dir;
  const std::string db = dir.file("games.db");
  const std::string log_a = dir.file("a.log"), log_b = dir.file("b.log");
  auto a = logging_daemon(db, log_a);
  ASSERT_TRUE(a->wait_ready()) << read_file(log_a);
  auto b = logging_daemon(db, log_b);
  ASSERT_TRUE(b->wait_ready()) << read_file(log_b);
  Nginx nginx(dir, "adjutant-two-daemons.conf",
              {{"adjutant-a:8080", a->http()}, {"adjutant-b:8080", b->http()}});
  ASSERT_NE(nginx.check().find("test is successful"), std::string::npos) << nginx.check();
  ASSERT_TRUE(nginx.ready()) << nginx.log();

  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(status_of(nginx.https("/spread-" + std::to_string(i))), 404);
  EXPECT_TRUE(eventually([&] {
    return read_file(log_a).find("path=\"/spread-") != std::string::npos &&
           read_file(log_b).find("path=\"/spread-") != std::string::npos;
  })) << "both daemons answer";

  a->kill(SIGKILL);
  for (int i = 0; i < 6; ++i) {
    const std::string answer = nginx.https("/?after=" + std::to_string(i));
    EXPECT_EQ(status_of(answer), 200) << answer;
    EXPECT_EQ(count_of(headers_of(answer), "strict-transport-security:"), 1);
  }
}

}  // namespace
}  // namespace adj
