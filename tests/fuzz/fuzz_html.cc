// libFuzzer harness: HTML-to-text (server/mail/mime.h html_to_text), which runs on every
// HTML-only mail. Invariants: nothing crashes; the text is at most about twice the input (a
// character reference never yields more UTF-8 bytes than it takes, a tag at most one line break)
// and has no run of blank lines (they are collapsed to one).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/mail/mime.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view html(reinterpret_cast<const char*>(data), size);
  const std::string text = adj::mail::html_to_text(html);
  FUZZ_CHECK(text.size() <= 2 * size + 16);
  FUZZ_CHECK(text.find("\n\n\n") == std::string::npos);
  return 0;
}
