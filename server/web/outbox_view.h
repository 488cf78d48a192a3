// The GM's view of one outgoing message: its main headers and its plain-text body, decoded from
// the stored RFC 5322 message (quoted-printable or base64; the text/plain part of a multipart
// message). Pure and bounded; never throws. Bodies of messages that may carry a secret are
// withheld (outbox_body_withheld), and any PLAYER line's secret in a shown body is masked.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace adj::web {

struct MessageView {
  std::vector<std::pair<std::string, std::string>> headers;  // From, To, Subject, Date, ...
  std::string body;                                          // the text, or why it is not shown
  bool withheld = false;
};

// True for outbox kinds whose body may hold a secret, a sign-in link or a takeover code
// ("secret", and the sign-up, invitation and takeover messages): the GM sees only the headers.
bool outbox_body_withheld(const std::string& kind);

MessageView message_view(const std::string& raw, const std::string& kind);

}  // namespace adj::web
