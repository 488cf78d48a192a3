// STARTTLS on the SMTP listener (server/http/smtp_server.h, RFC 3207) with real clients on
// loopback: swaks --tls, Python's smtplib starttls(), clients that offer no TLS, the
// command-injection case (plaintext pipelined behind STARTTLS, CVE-2011-0411), reload_tls(), and
// `adjutant serve` with --smtp-tls-cert/--smtp-tls-key: a start-up error for a bad file, and a
// renewed certificate taken on SIGHUP. Certificates are made at run time with the openssl
// command (throw-away, self-signed).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/http/smtp_server.h"
#include "tests/mail/mail_test_util.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj::http {
namespace {

using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;
using namespace std::chrono_literals;

bool tls_tools_present() {
  return ::access("/usr/bin/openssl", X_OK) == 0 && ::access("/usr/bin/python3", X_OK) == 0;
}

// A self-signed certificate for CN=`cn` and its key (P-256: quick to make), in dir/NAME.crt and
// dir/NAME.key. False when openssl failed.
bool tls_make_cert(const ::adj::testing::TempDir& dir, const std::string& name,
                   const std::string& cn) {
  const std::string cmd =
      "/usr/bin/openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
      "-days 2 -subj /CN=" +
      cn + " -keyout " + shell_quote(dir.file(name + ".key")) + " -out " +
      shell_quote(dir.file(name + ".crt")) + " >/dev/null 2>&1 && echo ok";
  return run_shell(cmd) == "ok\n";
}

// SHA-256 of a PEM certificate's DER form, lower-case hex.
std::string tls_cert_sha256(const std::string& pem) {
  std::string out = run_shell("/usr/bin/openssl x509 -in " + shell_quote(pem) +
                              " -outform DER | sha256sum | cut -c1-64");
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// The Python client. Modes:
//   send PORT     smtplib: EHLO, starttls(), EHLO, sendmail; prints what it saw
//   cert PORT     STARTTLS, then the served certificate's SHA-256 (lower-case hex)
//   inject PORT   "STARTTLS\r\n" and commands in one write, the handshake, then NOOP: prints
//                 every reply read after the handshake
//   plain PORT    smtplib without TLS: EHLO, sendmail; prints the outcome
constexpr const char* kTlsPyClient = R"PY(
import hashlib, smtplib, socket, ssl, sys
mode, port = sys.argv[1], int(sys.argv[2])
ctx = ssl.create_default_context()
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE

def reply(sock):
    buf = b''
    while True:
        d = sock.recv(4096)
        if not d:
            return buf
        buf += d
        lines = buf.split(b'\r\n')
        if buf.endswith(b'\r\n') and len(lines[-2]) >= 4 and lines[-2][3:4] == b' ':
            return buf

if mode == 'send':
    s = smtplib.SMTP('127.0.0.1', port, timeout=10)
    s.ehlo('py.example.org')
    print('before', s.has_extn('starttls'))
    print('starttls', s.starttls(context=ctx)[0])
    s.ehlo('py.example.org')
    print('after', s.has_extn('starttls'))
    s.sendmail('py@example.org', ['orders@example.net'],
               'Subject: py tls\r\n\r\nhello over tls\r\n')
    print('sent')
    s.quit()
elif mode == 'cert':
    s = smtplib.SMTP('127.0.0.1', port, timeout=10)
    s.ehlo('py.example.org')
    s.starttls(context=ctx)
    print(hashlib.sha256(s.sock.getpeercert(binary_form=True)).hexdigest())
    s.quit()
elif mode == 'inject':
    s = socket.create_connection(('127.0.0.1', port), timeout=10)
    reply(s)
    s.sendall(b'EHLO inject.example.org\r\n')
    reply(s)
    s.sendall(b'STARTTLS\r\nRSET\r\nMAIL FROM:<evil@example.org>\r\nNOOP\r\n')
    print('starttls', repr(reply(s)))
    t = ctx.wrap_socket(s)
    t.sendall(b'NOOP\r\n')
    got = reply(t)
    t.settimeout(0.5)
    try:
        got += t.recv(4096)
    except (socket.timeout, ssl.SSLError):
        pass
    print('after', repr(got))
    t.sendall(b'EHLO inject.example.org\r\n')
    print('ehlo', repr(reply(t)))
    t.sendall(b'MAIL FROM:<good@example.org>\r\n')
    print('mail', repr(reply(t)))
    t.sendall(b'QUIT\r\n')
elif mode == 'plain':
    s = smtplib.SMTP('127.0.0.1', port, timeout=10)
    s.ehlo('plain.example.org')
    print('offered', s.has_extn('starttls'))
    try:
        s.sendmail('plain@example.org', ['orders@example.net'],
                   'Subject: plain\r\n\r\nno tls\r\n')
        print('sent')
    except smtplib.SMTPResponseException as e:
        print('refused', e.smtp_code, e.smtp_error.decode())
    s.quit()
)PY";

// Messages the listener handed over, all answered 250.
class TlsRecorder {
 public:
  std::vector<std::string> operator()(std::vector<http::SmtpMessage>& batch) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> replies;
    for (auto& m : batch) {
      messages_.push_back(m);
      replies.push_back(http::SmtpProtocol::reply_stored());
    }
    return replies;
  }
  std::vector<http::SmtpMessage> messages() {
    std::lock_guard<std::mutex> lock(mu_);
    return messages_;
  }

 private:
  std::mutex mu_;
  std::vector<http::SmtpMessage> messages_;
};

class SmtpStartTls : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!tls_tools_present()) GTEST_SKIP() << "openssl or python3 is not installed";
    ASSERT_TRUE(tls_make_cert(dir_, "one", "mx-one.example.org"));
    std::ofstream(dir_.file("client.py")) << kTlsPyClient;
  }
  SmtpServerOptions tls_options(bool require = false) {
    SmtpServerOptions o;
    o.tls_cert_file = dir_.file("one.crt");
    o.tls_key_file = dir_.file("one.key");
    o.require_tls = require;
    o.idle_timeout = 5s;
    return o;
  }
  void start(SmtpServerOptions o) {
    server_ = std::make_unique<SmtpServer>(
        [this](std::vector<http::SmtpMessage>& b) { return rec_(b); }, nullptr, std::move(o));
    ASSERT_TRUE(server_->start("127.0.0.1", 0).ok());
  }
  std::string py(const std::string& mode) {
    return run_shell("/usr/bin/python3 " + shell_quote(dir_.file("client.py")) + " " + mode + " " +
                     std::to_string(server_->port()) + " 2>&1");
  }

  ::adj::testing::TempDir dir_;
  TlsRecorder rec_;
  std::unique_ptr<SmtpServer> server_;
};

TEST_F(SmtpStartTls, SwaksDeliversThroughStartTls) {
  if (::access("/usr/bin/swaks", X_OK) != 0) GTEST_SKIP() << "swaks is not installed";
  if (run_shell("perl -MNet::SSLeay -e 'print 1' 2>/dev/null") != "1")
    GTEST_SKIP() << "swaks has no TLS (libnet-ssleay-perl is not installed)";
  start(tls_options(/*require=*/true));
  const std::string out =
      run_shell("swaks --server 127.0.0.1:" + std::to_string(server_->port()) +
                " --tls --ehlo swaks.example.org --from swaks@example.org --to orders@example.net "
                "--header 'Subject: swaks over tls' --body 'line one\nline two' 2>&1");
  EXPECT_NE(out.find("<-  220 2.0.0 Ready to start TLS"), std::string::npos) << out;
  EXPECT_NE(out.find("TLS started"), std::string::npos) << out;
  EXPECT_NE(out.find("~> MAIL FROM:<swaks@example.org>"), std::string::npos) << out;
  EXPECT_NE(out.find("<~  250 2.0.0 OK"), std::string::npos) << out;
  const auto got = rec_.messages();
  ASSERT_EQ(got.size(), 1u) << out;
  EXPECT_EQ(got[0].mail_from, "swaks@example.org");
  EXPECT_EQ(got[0].rcpt_to, std::vector<std::string>{"orders@example.net"});
  EXPECT_NE(got[0].data.find("Subject: swaks over tls\r\n"), std::string::npos) << got[0].data;
  EXPECT_NE(got[0].data.find("\r\n\r\nline one\r\nline two\r\n"), std::string::npos) << got[0].data;
}

TEST_F(SmtpStartTls, SmtplibStartTlsThenEhloAgainAndSend) {
  start(tls_options());
  const std::string out = py("send");
  // EHLO lists STARTTLS before the handshake and not after it.
  EXPECT_EQ(out, "before True\nstarttls 220\nafter False\nsent\n");
  const auto got = rec_.messages();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].mail_from, "py@example.org");
  EXPECT_EQ(got[0].data, "Subject: py tls\r\n\r\nhello over tls\r\n");
}

TEST_F(SmtpStartTls, ClientWithoutTlsDeliversInPlainTextUnlessTlsIsRequired) {
  start(tls_options(/*require=*/false));
  EXPECT_EQ(py("plain"), "offered True\nsent\n");
  EXPECT_EQ(rec_.messages().size(), 1u);

  server_.reset();
  start(tls_options(/*require=*/true));
  EXPECT_EQ(py("plain"), "offered True\nrefused 530 5.7.0 Must issue a STARTTLS command first\n");
  EXPECT_EQ(rec_.messages().size(), 1u);  // nothing more
}

TEST_F(SmtpStartTls, CommandsPipelinedBehindStartTlsAreDiscarded) {
  start(tls_options());
  const std::string out = py("inject");
  // Only the 220 in plain text; after the handshake only NOOP's answer (not those of the
  // injected RSET, MAIL and NOOP), and MAIL opens a fresh transaction.
  EXPECT_NE(out.find("starttls b'220 2.0.0 Ready to start TLS\\r\\n'\n"), std::string::npos) << out;
  EXPECT_NE(out.find("after b'250 2.0.0 OK\\r\\n'\n"), std::string::npos) << out;
  EXPECT_NE(out.find("mail b'250 2.1.0 OK\\r\\n'\n"), std::string::npos) << out;
  EXPECT_TRUE(rec_.messages().empty());
}

TEST_F(SmtpStartTls, HandshakeBoundByTheIdleTimeout) {
  auto o = tls_options();
  o.idle_timeout = 1s;
  start(std::move(o));
  // STARTTLS, then silence: the listener gives up the handshake and closes.
  const auto t0 = std::chrono::steady_clock::now();
  const std::string out =
      run_shell("/usr/bin/python3 -c " +
                shell_quote("import socket,time\n"
                            "s=socket.create_connection(('127.0.0.1'," +
                            std::to_string(server_->port()) +
                            "),timeout=20)\n"
                            "s.recv(4096)\n"
                            "s.sendall(b'EHLO x\\r\\n'); time.sleep(0.2); s.recv(4096)\n"
                            "s.sendall(b'STARTTLS\\r\\n'); time.sleep(0.2); s.recv(4096)\n"
                            "print('closed' if s.recv(4096) == b'' else 'data')\n"));
  EXPECT_EQ(out, "closed\n");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
}

TEST_F(SmtpStartTls, ReloadServesTheNewCertificateAndKeepsTheOldOnABadFile) {
  auto o = tls_options();
  const std::string crt = dir_.file("mx.crt"), key = dir_.file("mx.key");
  std::filesystem::copy_file(o.tls_cert_file, crt);
  std::filesystem::copy_file(o.tls_key_file, key);
  o.tls_cert_file = crt;
  o.tls_key_file = key;
  start(std::move(o));
  const std::string first = tls_cert_sha256(crt);
  ASSERT_EQ(first.size(), 64u);
  EXPECT_EQ(py("cert"), first + "\n");

  // A renewed certificate in place of the old files.
  ASSERT_TRUE(tls_make_cert(dir_, "two", "mx-two.example.org"));
  std::filesystem::copy_file(dir_.file("two.crt"), crt,
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(dir_.file("two.key"), key,
                             std::filesystem::copy_options::overwrite_existing);
  const std::string second = tls_cert_sha256(crt);
  ASSERT_NE(second, first);
  ASSERT_TRUE(server_->reload_tls().ok());
  EXPECT_EQ(py("cert"), second + "\n");

  // A broken key (half written): refused, naming the file; the second certificate stays.
  std::ofstream(key, std::ios::trunc) << "-----BEGIN PRIVATE KEY-----\nAAAA\n";
  const Status bad = server_->reload_tls();
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find(key), std::string::npos) << bad.message();
  EXPECT_EQ(py("cert"), second + "\n");
  // A key that is not the certificate's: refused too.
  std::filesystem::copy_file(dir_.file("one.key"), key,
                             std::filesystem::copy_options::overwrite_existing);
  ASSERT_TRUE(tls_make_cert(dir_, "three", "mx-three.example.org"));
  std::filesystem::copy_file(dir_.file("three.crt"), crt,
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_NE(server_->reload_tls().message().find("does not match"), std::string::npos);
  EXPECT_EQ(py("cert"), second + "\n");
}

TEST_F(SmtpStartTls, StartFailsOnAMissingOrBrokenFile) {
  auto o = tls_options();
  o.tls_key_file = dir_.file("absent.key");
  SmtpServer missing(
      [](std::vector<http::SmtpMessage>& b) {
        return std::vector<std::string>(b.size(), http::SmtpProtocol::reply_stored());
      },
      nullptr, o);
  const Status st = missing.start("127.0.0.1", 0);
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find(dir_.file("absent.key")), std::string::npos) << st.message();

  SmtpServerOptions require_without_cert;
  require_without_cert.require_tls = true;
  SmtpServer no_cert(
      [](std::vector<http::SmtpMessage>& b) {
        return std::vector<std::string>(b.size(), http::SmtpProtocol::reply_stored());
      },
      nullptr, require_without_cert);
  EXPECT_FALSE(no_cert.start("127.0.0.1", 0).ok());
}

// `adjutant serve` as the MX: a file that cannot be loaded stops the start (exit 1, the file
// named, no key bytes printed); SIGHUP takes a renewed certificate, and keeps it over a broken
// one.
TEST(SmtpStartTlsServe, BadFileIsAStartErrorAndSighupReloads) {
  if (!tls_tools_present()) GTEST_SKIP() << "openssl or python3 is not installed";
  ::adj::testing::TempDir dir;
  ASSERT_TRUE(tls_make_cert(dir, "one", "mx-one.example.org"));
  ASSERT_TRUE(tls_make_cert(dir, "two", "mx-two.example.org"));
  std::ofstream(dir.file("client.py")) << kTlsPyClient;
  const std::string crt = dir.file("mx.crt"), key = dir.file("mx.key");
  std::filesystem::copy_file(dir.file("one.crt"), crt);
  std::filesystem::copy_file(dir.file("one.key"), key);

  {  // The key file holds a certificate: exit 1, naming the file.
    const std::string out = run_shell(
        "ADJUTANT_GM_TOKEN=gm-tls timeout 60 " + std::string(ADJ_BINARY) + " --db " +
        shell_quote(dir.file("bad.db")) +
        " serve --tick 0 --http 127.0.0.1:" + std::to_string(::adj::testing::free_port()) +
        " --smtp 127.0.0.1:" + std::to_string(::adj::testing::free_port()) + " --smtp-tls-cert " +
        shell_quote(crt) + " --smtp-tls-key " + shell_quote(crt) + " 2>&1; echo exit=$?");
    EXPECT_NE(out.find("\nexit=1\n"), std::string::npos) << out;
    EXPECT_NE(out.find("TLS private key file " + crt), std::string::npos) << out;
    EXPECT_EQ(out.find("BEGIN"), std::string::npos) << out;  // no PEM bytes printed
  }
  {  // A certificate without a key: exit 1.
    const std::string out =
        run_shell("ADJUTANT_GM_TOKEN=gm-tls timeout 60 " + std::string(ADJ_BINARY) + " --db " +
                  shell_quote(dir.file("bad.db")) + " serve --tick 0 --http 127.0.0.1:" +
                  std::to_string(::adj::testing::free_port()) + " --smtp-tls-cert " +
                  shell_quote(crt) + " 2>&1; echo exit=$?");
    EXPECT_NE(out.find("--smtp-tls-cert and --smtp-tls-key go together"), std::string::npos) << out;
    EXPECT_NE(out.find("\nexit=1\n"), std::string::npos) << out;
  }

  const std::string log = dir.file("serve.log");
  const int smtp = ::adj::testing::free_port();
  mail_test::ServeProcess d(
      dir.file("mx.db"), ::adj::testing::free_port(), smtp, log, "gm-tls",
      {"--tick", "0", "--smtp-tls-cert", crt, "--smtp-tls-key", key, "--smtp-require-tls"});
  ASSERT_TRUE(d.wait_ready()) << ::adj::testing::read_file(log);
  const auto served = [&] {
    std::string out = run_shell("/usr/bin/python3 " + shell_quote(dir.file("client.py")) +
                                " cert " + std::to_string(smtp) + " 2>&1");
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  };
  const std::string first = tls_cert_sha256(dir.file("one.crt"));
  const std::string second = tls_cert_sha256(dir.file("two.crt"));
  EXPECT_EQ(served(), first);
  // Without TLS the daemon refuses the mail.
  EXPECT_EQ(run_shell("/usr/bin/python3 " + shell_quote(dir.file("client.py")) + " plain " +
                      std::to_string(smtp) + " 2>&1"),
            "offered True\nrefused 530 5.7.0 Must issue a STARTTLS command first\n");

  std::filesystem::copy_file(dir.file("two.crt"), crt,
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(dir.file("two.key"), key,
                             std::filesystem::copy_options::overwrite_existing);
  d.signal(SIGHUP);
  EXPECT_TRUE(mail_test::eventually([&] { return served() == second; }, 10s))
      << ::adj::testing::read_file(log);

  std::ofstream(crt, std::ios::trunc) << "not a certificate\n";
  d.signal(SIGHUP);
  EXPECT_TRUE(mail_test::eventually(
      [&] {
        return ::adj::testing::read_file(log).find("event=smtp_tls_reload_failed") !=
               std::string::npos;
      },
      10s))
      << ::adj::testing::read_file(log);
  EXPECT_EQ(served(), second);  // the daemon still runs, with the renewed certificate
}

}  // namespace
}  // namespace adj::http
