// libFuzzer harness: the SMTP server state machine (server/http/smtp_protocol.h). The input is
// what a peer sends on one connection, cut into reads: each chunk is preceded by one byte giving
// its length (1..64), so pipelining and lines split across reads are explored. Small limits make
// the size, line-length, recipient and error bounds reachable. Invariants: every reply is one or
// more CRLF-terminated lines starting with a 3-digit code; nothing follows kClose; a message is
// at most max_message_bytes unless marked oversized, and an oversized one keeps at most
// kOversizedHead bytes; recipients never exceed max_recipients. STARTTLS is offered (and
// required when the first byte is odd); nothing follows kStartTls in its chunk, and the
// "handshake" completes before the next chunk.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/http/smtp_protocol.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

bool well_formed_reply(const std::string& r) {
  if (r.size() < 5 || r.compare(r.size() - 2, 2, "\r\n") != 0) return false;
  std::size_t pos = 0;
  while (pos < r.size()) {
    const std::size_t end = r.find("\r\n", pos);
    if (end == std::string::npos || end - pos < 3) return false;
    for (std::size_t i = 0; i < 3; ++i)
      if (r[pos + i] < '0' || r[pos + i] > '9') return false;
    pos = end + 2;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  adj::http::SmtpLimits limits;
  limits.hostname = "fuzz.test";
  limits.max_message_bytes = 2048;
  limits.max_command_line = 128;
  limits.max_recipients = 3;
  limits.starttls = true;
  limits.require_tls = size > 0 && (data[0] & 1) != 0;
  limits.max_errors = 5;
  adj::http::SmtpProtocol smtp(
      limits, [](const std::string& rcpt) { return rcpt.find("game") != std::string::npos; });
  FUZZ_CHECK(well_formed_reply(smtp.greeting()));

  std::vector<adj::http::SmtpEvent> events;
  std::size_t pos = 0;
  bool closed = false;
  while (pos < size) {
    const std::size_t len = std::min<std::size_t>(data[pos] % 64 + 1, size - pos - 1);
    ++pos;
    events.clear();
    smtp.receive(std::string_view(reinterpret_cast<const char*>(data) + pos, len), events);
    pos += len;
    for (const adj::http::SmtpEvent& e : events) {
      FUZZ_CHECK(!closed);
      switch (e.kind) {
        case adj::http::SmtpEvent::kReply:
          FUZZ_CHECK(well_formed_reply(e.reply));
          break;
        case adj::http::SmtpEvent::kMessage:
          FUZZ_CHECK(!e.message.rcpt_to.empty());
          FUZZ_CHECK(e.message.rcpt_to.size() <= limits.max_recipients);
          if (e.message.oversized) {
            FUZZ_CHECK(e.message.total_bytes > limits.max_message_bytes);
            FUZZ_CHECK(e.message.data.size() <= adj::http::SmtpProtocol::kOversizedHead);
          } else {
            FUZZ_CHECK(e.message.data.size() <= limits.max_message_bytes);
            FUZZ_CHECK(e.message.total_bytes == e.message.data.size());
          }
          break;
        case adj::http::SmtpEvent::kClose:
          closed = true;
          break;
        case adj::http::SmtpEvent::kStartTls:
          FUZZ_CHECK(&e == &events.back());
          FUZZ_CHECK(!smtp.tls());
          break;
      }
    }
    if (!events.empty() && events.back().kind == adj::http::SmtpEvent::kStartTls)
      smtp.tls_started();
    if (closed) FUZZ_CHECK(smtp.closed());
  }
  return 0;
}
