// libFuzzer harness: MIME parsing (server/mail/mime.h, GMime underneath). The input is a raw
// message as the SMTP listener or `adjutant mail ingest` would receive it. Invariants: nothing
// crashes or throws; a parsed message's chosen text is one of its candidates; the pure helpers
// the listener runs on every message (header_block, header_message_id) stay within the input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/mail/mime.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  const std::string_view head = adj::mail::header_block(raw);
  FUZZ_CHECK(head.size() <= raw.size());
  FUZZ_CHECK(adj::mail::header_message_id(head).size() <= head.size());

  auto parsed = adj::mail::parse_mail(raw);
  if (!parsed.ok()) return 0;
  FUZZ_CHECK(parsed->from_html == (parsed->text_source == adj::mail::TextSource::kHtml));
  if (parsed->text_source != adj::mail::TextSource::kNone) {
    FUZZ_CHECK(!parsed->texts.empty());
    FUZZ_CHECK(parsed->texts.front().text == parsed->text);
  }
  for (const adj::mail::MailText& t : parsed->texts) {
    int removed = 0;
    const std::string body = adj::mail::without_quotes_and_signature(t.text, &removed);
    FUZZ_CHECK(removed >= 0 && body.size() <= t.text.size() + 1);  // + the last LF
  }
  adj::mail::parse_address(parsed->from_address);
  return 0;
}
