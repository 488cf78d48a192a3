// server/mail/mime and compose: parsing the corpus of real-world shaped messages, composing
// messages and reading them back, HTML to text, and garbage in without a crash.
#include "server/mail/mime.h"

#include <gtest/gtest.h>

#include <random>

#include "server/mail/compose.h"
#include "tests/mail/mail_test_util.h"

namespace adj::mail {
namespace {

using mail_test::corpus;

// Well-formed UTF-8 (no overlong forms or surrogates checked: GMime and GLib produce neither).
bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80         ? 1
                          : (c >> 5) == 6  ? 2
                          : (c >> 4) == 14 ? 3
                          : (c >> 3) == 30 ? 4
                                           : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    i += n;
  }
  return true;
}

ParsedMail parse_ok(const std::string& raw) {
  auto p = parse_mail(raw);
  EXPECT_TRUE(p.ok()) << p.status().to_string();
  return p.ok() ? *p : ParsedMail{};
}

TEST(Mime, PlainWithoutContentTypeIsText) {
  const ParsedMail m = parse_ok(corpus("plain.eml"));
  EXPECT_EQ(m.message_id, "plain.7f3a@mail.example.org");
  EXPECT_EQ(m.from_address, "wessex@example.org");
  EXPECT_EQ(m.from_name, "Wessex");
  EXPECT_EQ(m.subject, "britain-1 turn 1 orders");
  ASSERT_TRUE(m.date.has_value());
  EXPECT_EQ(*m.date, 1795252438);  // Sat, 21 Nov 2026 10:13:58 +0100
  EXPECT_EQ(m.text_source, TextSource::kPlain);
  EXPECT_EQ(m.text.find("GAME britain-1\nPLAYER WSX cerdic\n"), 0u);
  EXPECT_NE(m.text.find("Cynric, for the king"), std::string::npos);
  ASSERT_EQ(m.to.size(), 1u);
  EXPECT_EQ(m.to[0], "orders@pbm.example.net");
}

TEST(Mime, AlternativeQuotedPrintableAndEncodedWords) {
  const ParsedMail m = parse_ok(corpus("alternative_qp.eml"));
  EXPECT_EQ(m.from_name, "Penda of M\u00e6rcia");
  EXPECT_EQ(m.subject, "Mercia \u2014 turn 1 orders");
  EXPECT_EQ(m.text_source, TextSource::kPlain);
  EXPECT_TRUE(m.has_html);
  // The soft line break of the long comment is joined, and the UTF-8 decoded.
  EXPECT_NE(m.text.find("# Penda of Mercia \u2014 \u00c6thelbald's levy goes first, then we strike "
                        "at Lindsey before the Northumbrians do anything about it\n"),
            std::string::npos);
  EXPECT_EQ(m.text.find('\r'), std::string::npos);
  ASSERT_EQ(m.texts.size(), 2u);
  EXPECT_EQ(m.texts[1].source, TextSource::kHtml);
  EXPECT_NE(m.texts[1].text.find("ASSAULT LES LIN 4\n"), std::string::npos);
}

TEST(Mime, Base64TextAttachment) {
  const ParsedMail m = parse_ok(corpus("attachment_base64.eml"));
  EXPECT_EQ(m.text_source, TextSource::kPlain);  // the short body comes first...
  EXPECT_NE(m.text.find("Orders attached"), std::string::npos);
  ASSERT_EQ(m.texts.size(), 2u);  // ...and the attachment is the second candidate
  EXPECT_EQ(m.texts[1].source, TextSource::kAttachment);
  EXPECT_EQ(m.texts[1].filename, "orders.txt");
  EXPECT_EQ(m.texts[1].text.find("game britain-1\nplayer num oswald\n"), 0u);
}

TEST(Mime, Latin1BodyAndSplitEncodedWordSubject) {
  const ParsedMail m = parse_ok(corpus("latin1_subject.eml"));
  EXPECT_EQ(m.subject, "Ordres de l'\u00c9t\u00e9 pour britain-1 (\u00e9t\u00e9)");
  EXPECT_EQ(m.from_name, "R\u00e9dwald");
  EXPECT_NE(m.text.find("# R\u00e6dwald, roi des Est-Angles : \u00e9t\u00e9 606"),
            std::string::npos);
}

TEST(Mime, HtmlOnlyIsConvertedWithAFlag) {
  const ParsedMail m = parse_ok(corpus("html_only.eml"));
  EXPECT_TRUE(m.from_html);
  EXPECT_EQ(m.text_source, TextSource::kHtml);
  EXPECT_EQ(m.text.find("GAME britain-1\nPLAYER GWN cadwallon\nLEVY GWY 2\n"), 0u) << m.text;
  EXPECT_NE(m.text.find("Cadwallon ap Cadfan & the men of Gwynedd"), std::string::npos);
  EXPECT_EQ(m.text.find("font-family"), std::string::npos);  // <style> dropped
  EXPECT_EQ(m.text.find("signature"), std::string::npos);    // comment dropped
}

TEST(Mime, ThreadingHeaders) {
  const ParsedMail m = parse_ok(corpus("reply_quoted.eml"));
  EXPECT_EQ(m.in_reply_to, "adj.0123456789abcdef0123456789abcdef@pbm.example.net");
  ASSERT_EQ(m.references.size(), 2u);
  EXPECT_EQ(m.references[0], "first@mail.example.org");
}

TEST(Mime, AutomaticMailIsRecognisable) {
  const ParsedMail m = parse_ok(corpus("bounce.eml"));
  EXPECT_EQ(m.auto_submitted, "auto-replied");
  EXPECT_EQ(m.from_address, "MAILER-DAEMON@mail.example.org");
}

TEST(Mime, MalformedMultipartHasNoText) {
  const ParsedMail m = parse_ok(corpus("malformed.eml"));
  EXPECT_EQ(m.from_address, "wessex@example.org");
  EXPECT_EQ(m.text_source, TextSource::kNone);
  EXPECT_TRUE(m.text.empty());
}

TEST(Mime, MboxFromLineIsSkipped) {
  const ParsedMail m =
      parse_ok("From wessex@example.org  Sat Nov 21 09:14:03 2026\n" + corpus("plain.eml"));
  EXPECT_EQ(m.message_id, "plain.7f3a@mail.example.org");
  EXPECT_EQ(m.from_address, "wessex@example.org");
  EXPECT_EQ(m.text.find("GAME britain-1\n"), 0u);
}

TEST(Mime, HeaderMessageIdAgreesWithGMimeOnTheCorpus) {
  // The listener's plain scan must name every corpus message as GMime does (dedupe key).
  for (const char* f : {"plain.eml", "alternative_qp.eml", "attachment_base64.eml", "help.eml",
                        "resend.eml", "status.eml", "latin1_subject.eml", "html_only.eml",
                        "reply_quoted.eml", "bounce.eml", "malformed.eml"}) {
    const std::string raw = corpus(f);
    EXPECT_EQ(header_message_id(header_block(raw)), parse_ok(raw).message_id) << f;
  }
}

TEST(Mime, HeaderMessageIdScan) {
  EXPECT_EQ(header_message_id("Subject: x\r\nmessage-id: <a@b>\r\n"), "a@b");
  EXPECT_EQ(header_message_id("Message-ID:\r\n  <folded@x.org>\r\nTo: y\r\n"), "folded@x.org");
  EXPECT_EQ(header_message_id("MESSAGE-ID: <c@d> (comment)\n"), "c@d");
  EXPECT_EQ(header_message_id("Message-ID: no-brackets@x \r\n"), "no-brackets@x");
  EXPECT_EQ(header_message_id("Message-ID: <first@x>\r\nMessage-ID: <second@x>\r\n"), "first@x");
  EXPECT_EQ(header_message_id("X-Message-ID: <not@this>\r\nSubject: s\r\n"), "");
  EXPECT_EQ(header_message_id("Subject: Message-ID: <in@subject>\r\n"), "");
  EXPECT_EQ(header_message_id(""), "");
  EXPECT_EQ(header_message_id("Message-ID:"), "");
}

TEST(Mime, RepliesLoseTheirQuotesAndSignature) {
  int n = -1;
  EXPECT_EQ(without_quotes_and_signature("GAME g\nLEVY A 1\n\n-- \nOffa\n> old\n", &n),
            "GAME g\nLEVY A 1\n\n");
  EXPECT_EQ(n, 3);
  EXPECT_EQ(without_quotes_and_signature(
                "On Sat, X wrote:\n\n> GAME g\n  > PLAYER P s\nGAME g\n>\nLEVY A 1", &n),
            "\nGAME g\nLEVY A 1\n");
  EXPECT_EQ(n, 4);
  // An attribution-like line that quotes nothing is kept (it is the player's own text).
  EXPECT_EQ(without_quotes_and_signature("He wrote:\nLEVY A 1\n", &n), "He wrote:\nLEVY A 1\n");
  EXPECT_EQ(n, 0);
  EXPECT_EQ(without_quotes_and_signature("LEVY A 1\r\n-----Original Message-----\r\nx\r\n"),
            "LEVY A 1\n");
  EXPECT_EQ(without_quotes_and_signature("LEVY A 1\n--\n"), "LEVY A 1\n");
  EXPECT_EQ(without_quotes_and_signature("", &n), "");
  EXPECT_EQ(n, 0);
}

TEST(Mime, EmptyAndHeaderlessInputAreErrors) {
  auto empty = parse_mail("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "the message is empty");
  EXPECT_FALSE(parse_mail(" \r\n\r\n\t").ok());
  auto noheader = parse_mail("\r\njust a body, no header lines\r\n");
  EXPECT_FALSE(noheader.ok());
}

TEST(Mime, CrlfAndLfGiveTheSameResult) {
  std::string crlf = corpus("alternative_qp.eml");
  std::string lf;
  for (char c : crlf)
    if (c != '\r') lf.push_back(c);
  const ParsedMail a = parse_ok(crlf), b = parse_ok(lf);
  EXPECT_EQ(a.subject, b.subject);
  EXPECT_EQ(a.text, b.text);
  EXPECT_EQ(a.texts.size(), b.texts.size());
}

TEST(Mime, GarbageNeverCrashes) {
  // Every prefix of every corpus message, and random bytes: an error value or a message.
  std::vector<std::string> inputs;
  for (const char* f :
       {"plain.eml", "alternative_qp.eml", "attachment_base64.eml", "help.eml", "resend.eml",
        "status.eml", "latin1_subject.eml", "html_only.eml", "malformed.eml"}) {
    const std::string raw = corpus(f);
    for (std::size_t n = 0; n <= raw.size(); n += 7) inputs.push_back(raw.substr(0, n));
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) {
    std::string s(static_cast<std::size_t>(rng() % 600), '\0');
    for (char& c : s) c = static_cast<char>(rng());
    inputs.push_back(s);
  }
  for (const std::string& in : inputs) {
    auto p = parse_mail(in);
    if (p.ok()) {
      EXPECT_TRUE(valid_utf8(p->text));
    }
  }
}

TEST(Mime, HtmlToText) {
  EXPECT_EQ(html_to_text("<p>GAME x</p><p>PLAYER A b</p>"), "GAME x\n\nPLAYER A b\n");
  EXPECT_EQ(html_to_text("a<br>b<BR/>c"), "a\nb\nc\n");
  EXPECT_EQ(html_to_text("&lt;x&gt; &amp; &#65;&#x42; &eacute;&nbsp;z &bogus; & k"),
            "<x> & AB \u00e9 z &bogus; & k\n");
  EXPECT_EQ(html_to_text("<script>alert('<p>')</script>ok<style>p{}</style>"), "ok\n");
  EXPECT_EQ(html_to_text("<pre>LEVY  A 2\nEND</pre>"), "LEVY  A 2\nEND\n");
  EXPECT_EQ(html_to_text("a\n  b"), "a b\n");  // source line breaks are spaces
  EXPECT_EQ(html_to_text("<a href=\"x>y\">link</a> 1 < 2"), "link 1 < 2\n");
  EXPECT_EQ(html_to_text(""), "");
}

TEST(Compose, PlainMessageRoundTrips) {
  OutgoingMail m;
  m.from = {"orders@pbm.example.net", "Adjutant"};
  m.to = {"wessex@example.org", "\u00c6thelstan of Wessex"};
  m.subject = "Re: Turn 3 report \u2014 Wessex";
  m.date = 1795252438;
  m.message_id = make_message_id("inbox:1:ack", "pbm.example.net");
  m.in_reply_to = "orig@mail.example.org";
  m.references = {"a@x", "b@x"};
  m.text = "Orders for game britain-1\n\n" + std::string(1200, 'x') + "\n. a line with a dot\n";
  m.headers.emplace_back("Auto-Submitted", "auto-replied");
  auto raw = compose(m);
  ASSERT_TRUE(raw.ok()) << raw.status().to_string();
  // 7-bit, CRLF, no line longer than 998 octets.
  for (unsigned char c : *raw) EXPECT_LT(c, 128);
  std::size_t start = 0;
  while (start < raw->size()) {
    const std::size_t nl = raw->find('\n', start);
    ASSERT_NE(nl, std::string::npos);
    ASSERT_GT(nl, 0u);
    EXPECT_EQ((*raw)[nl - 1], '\r') << "bare LF at " << nl;
    EXPECT_LE(nl - start, 1000u);
    start = nl + 1;
  }
  std::string lower_raw = *raw;
  for (char& c : lower_raw) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_NE(lower_raw.find("subject: re: turn 3 report =?utf-8?"), std::string::npos)
      << *raw;  // RFC 2047 encoded
  EXPECT_NE(raw->find("Message-Id: <adj."), std::string::npos);

  const ParsedMail back = parse_ok(*raw);
  EXPECT_EQ(back.subject, m.subject);
  EXPECT_EQ(back.from_address, "orders@pbm.example.net");
  EXPECT_EQ(back.message_id, m.message_id);
  EXPECT_EQ(back.in_reply_to, "orig@mail.example.org");
  EXPECT_EQ(back.references, (std::vector<std::string>{"a@x", "b@x", "orig@mail.example.org"}));
  EXPECT_EQ(back.auto_submitted, "auto-replied");
  EXPECT_EQ(back.date, m.date);
  EXPECT_EQ(back.text, m.text);
  ASSERT_EQ(back.to.size(), 1u);
  EXPECT_EQ(back.to[0], "wessex@example.org");
}

TEST(Compose, AlternativeWithHtmlIsDeterministic) {
  OutgoingMail m;
  m.from = {"orders@pbm.example.net", ""};
  m.to = {"mercia@example.org", ""};
  m.subject = "Turn 1 report";
  m.message_id = make_message_id("report:britain-1:1:MRC", "pbm.example.net");
  m.text = "plain \u00e9t\u00e9\n";
  m.html = "<p>html \u00e9t\u00e9</p>\n";
  auto a = compose(m), b = compose(m);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, *b);
  const ParsedMail back = parse_ok(*a);
  EXPECT_EQ(back.text, m.text);
  EXPECT_TRUE(back.has_html);
  ASSERT_EQ(back.texts.size(), 2u);
  EXPECT_EQ(back.texts[1].text, "html \u00e9t\u00e9\n");
}

TEST(Compose, MessageIdsAreStableAndDistinct) {
  EXPECT_EQ(make_message_id("k", "d.example"), make_message_id("k", "d.example"));
  EXPECT_NE(make_message_id("k", "d.example"), make_message_id("k2", "d.example"));
  EXPECT_TRUE(make_message_id("k", "").ends_with("@adjutant.invalid"));
  EXPECT_EQ(reply_subject("Re: x"), "Re: x");
  EXPECT_EQ(reply_subject("RE: x"), "RE: x");
  EXPECT_EQ(reply_subject("x"), "Re: x");
  EXPECT_EQ(domain_of("a@b.c"), "b.c");
}

TEST(Compose, RefusesMissingAddresses) {
  OutgoingMail m;
  m.message_id = "x@y";
  EXPECT_FALSE(compose(m).ok());
  m.from.address = "a@b";
  m.to.address = "c@d";
  m.headers.emplace_back("Bad Header", "v");
  EXPECT_FALSE(compose(m).ok());
}

}  // namespace
}  // namespace adj::mail
