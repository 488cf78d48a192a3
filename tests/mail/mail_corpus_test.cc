// MailIngest over a real SQLite store, message by message: each message of the corpus under
// tests/data/mail and the outcome and answer it must lead to.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "server/mail/mail_ingest.h"
#include "tests/mail/mail_test_util.h"

namespace adj::mail {
namespace {

using mail_test::corpus;
using mail_test::ingest_contains;
using mail_test::kStart;
using mail_test::MailFixture;

// What one corpus message must lead to.
struct Expected {
  const char* file;
  const char* action;                  // ProcessResult::action
  const char* state;                   // inbox state afterwards
  const char* player;                  // the stored submission's player; nullptr: no submission
  bool accepted;                       // the submission was accepted (when there is one)
  const char* reply_kind;              // kind of the reply to the sender; nullptr: no reply
  const char* reply_to;                // its recipient
  const char* counts;                  // "N accepted, M rejected" in the reply; nullptr: not there
  std::vector<const char*> reply_has;  // in the reply's text
  std::vector<const char*> reply_has_not;  // never in the reply's raw message
  const char* warning_to;                  // the player's address on file warned; nullptr: none
};

// gtest names a failing case by its file rather than dumping the struct's bytes.
void PrintTo(const Expected& e, std::ostream* os) { *os << e.file; }

const std::vector<Expected>& corpus_expectations() {
  static const std::vector<Expected> kCases = {
      {"plain.eml",
       "orders",
       "processed",
       "WSX",
       true,
       "ack",
       "wessex@example.org",
       "7 accepted, 2 rejected",
       {"PLAYER WSX ********", "unknown action \"MOVVE\""},
       {"cerdic", "Cynric"},
       nullptr},
      {"alternative_qp.eml",
       "orders",
       "processed",
       "MRC",
       true,
       "ack",
       "mercia@example.org",
       "5 accepted, 0 rejected",
       {"PLAYER MRC ********"},
       {"penda"},
       nullptr},
      {"attachment_base64.eml",
       "orders",
       "processed",
       "NUM",
       true,
       "ack",
       "northumbria@example.org",
       "5 accepted, 0 rejected",
       {"read from the attachment orders.txt"},
       {"oswald"},
       nullptr},
      {"latin1_subject.eml",
       "orders",
       "processed",
       "EAN",
       true,
       "ack",
       "redwald.bureau@work.example.com",
       "5 accepted, 0 rejected",
       {"PLAYER EAN ********"},
       {"raedwald"},
       "eastanglia@example.org"},
      {"html_only.eml",
       "orders",
       "processed",
       "GWN",
       true,
       "ack",
       "gwynedd@example.org",
       "4 accepted, 0 rejected",
       {"read from its HTML", "no plain-text version"},
       {"cadwallon"},
       nullptr},
      {"html_no_orders.eml",
       "refusal",
       "processed",
       nullptr,
       false,
       "refusal",
       "gwynedd@example.org",
       nullptr,
       {"only an HTML version", "plain text"},
       {"see you at"},
       nullptr},
      {"reply_quoted.eml",
       "orders",
       "processed",
       "WSX",
       true,
       "ack",
       "wessex@example.org",
       "2 accepted, 0 rejected",
       {"LEVY HAM 2"},
       {"MOVVE EVERYTHING", "cerdic"},
       nullptr},
      {"reply_no_end.eml",
       "orders",
       "processed",
       "MRC",
       true,
       "ack",
       "mercia@example.org",
       "2 accepted, 0 rejected",
       {"LEVY LEI 2", "MOVE GLS OXF 1",
        "lines of quoted text (starting with >) or signature were not "
        "read as orders"},
       {"penda", "Offa", "fill in and send back"},
       nullptr},
      {"reply_inline.eml",
       "orders",
       "processed",
       "MRC",
       true,
       "ack",
       "mercia@example.org",
       "1 accepted, 0 rejected",
       {"LEVY LEI 1"},
       {"penda", "fill in and send back"},
       nullptr},
      {"malformed.eml",
       "refusal",
       "processed",
       nullptr,
       false,
       "refusal",
       "wessex@example.org",
       nullptr,
       {"no text this server could read"},
       {"cerdic"},
       nullptr},
      {"empty.eml", "error", "failed", nullptr, false, nullptr, nullptr, nullptr, {}, {}, nullptr},
      {"wrong_secret.eml",
       "orders",
       "processed",
       "WSX",
       false,
       "refusal",
       "mallory@evil.example",
       nullptr,
       {"the secret for player WSX is wrong"},
       {"guessing-42", "LEVY HAM", "cerdic"},
       nullptr},
      {"help.eml",
       "help",
       "processed",
       nullptr,
       false,
       "help",
       "newcomer@example.net",
       nullptr,
       {"GAME britain-1: Dark Age Britain, dark-age rules", "PLAYER <your code> <your secret>",
        "RESEND", "https://pbm.example.net/games/britain-1"},
       {"cerdic"},
       nullptr},
      {"bounce.eml",
       "ignored",
       "processed",
       nullptr,
       false,
       nullptr,
       nullptr,
       nullptr,
       {},
       {},
       nullptr},
  };
  return kCases;
}

class Corpus : public MailFixture, public ::testing::WithParamInterface<Expected> {};

TEST_P(Corpus, IngestAndAnswer) {
  const Expected& e = GetParam();
  const std::string raw = corpus(e.file);
  const ProcessResult r = ingest(raw);
  EXPECT_EQ(r.action, e.action) << r.outcome;
  EXPECT_EQ(r.state, e.state) << r.outcome;
  auto in = store_->inbox_message(last_inbox_);
  ASSERT_TRUE(in.ok());
  // Stored as received, except that the secrets it carried are masked once it is processed.
  std::string expected = raw;
  for (const char* secret : {"cerdic", "penda", "oswald", "raedwald", "cadwallon", "guessing-42"})
    for (std::size_t at = expected.find(secret); at != std::string::npos;
         at = expected.find(secret, at))
      expected.replace(at, std::strlen(secret), "********");
  if (std::string_view(e.file) == "attachment_base64.eml")  // a secret in base64: header only
    EXPECT_NE(in->raw.find("carried a secret in an encoded part"), std::string::npos) << in->raw;
  else
    EXPECT_EQ(in->raw, expected);
  EXPECT_EQ(in->state, e.state);
  EXPECT_EQ(in->outcome, r.outcome);

  const auto subs = submissions();
  if (e.player) {
    ASSERT_EQ(subs.size(), 1u) << r.outcome;
    EXPECT_EQ(subs[0].player, e.player);
    EXPECT_EQ(subs[0].accepted, e.accepted);
    auto parsed = parse_mail(raw);
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(subs[0].source, "email:" + parsed->message_id);
    ASSERT_TRUE(r.submission_id.has_value());
    EXPECT_EQ(*r.submission_id, subs[0].id);
  } else {
    EXPECT_TRUE(subs.empty()) << r.outcome;
  }

  const auto out = outbox();
  std::size_t expected_messages = (e.reply_kind ? 1 : 0) + (e.warning_to ? 1 : 0);
  ASSERT_EQ(out.size(), expected_messages) << r.outcome;
  EXPECT_EQ(r.queued, static_cast<int>(expected_messages));
  if (e.reply_kind) {
    const OutboxMessage& m = out[0];
    EXPECT_EQ(m.kind, e.reply_kind);
    EXPECT_EQ(m.to, e.reply_to);
    EXPECT_EQ(m.state, "pending");
    EXPECT_EQ(m.dedupe_key.rfind("inbox:" + std::to_string(last_inbox_) + ":", 0), 0u);
    const ParsedMail reply = parse(m);
    const ParsedMail original = parse_mail(raw).value();
    const bool anonymous =
        std::string(e.reply_kind) == "refusal" || std::string(e.reply_kind) == "help";
    if (anonymous) {
      // Nothing of the incoming header goes back to an unauthenticated sender.
      EXPECT_EQ(reply.in_reply_to, "");
      EXPECT_TRUE(reply.references.empty());
      EXPECT_NE(reply.subject, reply_subject(original.subject));
      EXPECT_EQ(m.raw.find("Subject: " + original.subject), std::string::npos) << m.raw;
      EXPECT_EQ(reply.from_name, "Adjutant");
      EXPECT_EQ(parse_address(m.raw.substr(m.raw.find("\nTo:") + 4, 200)), e.reply_to);
      EXPECT_EQ(m.raw.find("To: \""), std::string::npos) << "no display name";
    } else {
      EXPECT_EQ(reply.in_reply_to, original.message_id);
      ASSERT_FALSE(reply.references.empty());
      EXPECT_EQ(reply.references.back(), original.message_id);
      EXPECT_EQ(reply.subject, reply_subject(original.subject));
    }
    EXPECT_EQ(reply.auto_submitted, "auto-replied");
    EXPECT_EQ(reply.from_address, "orders@pbm.example.net");
    if (e.counts) {
      EXPECT_TRUE(ingest_contains(reply.text, e.counts)) << reply.text;
    } else {
      EXPECT_FALSE(ingest_contains(reply.text, " accepted, ")) << reply.text;
    }
    for (const char* s : e.reply_has)
      EXPECT_TRUE(ingest_contains(reply.text, s)) << s << "\n" << reply.text;
    for (const char* s : e.reply_has_not) {
      EXPECT_FALSE(ingest_contains(m.raw, s)) << s;
      EXPECT_FALSE(ingest_contains(reply.text, s)) << s << "\n" << reply.text;
    }
  }
  if (e.warning_to) {
    const OutboxMessage& w = out[1];
    EXPECT_EQ(w.kind, "warning");
    EXPECT_EQ(w.to, e.warning_to);
    const ParsedMail warn = parse(w);
    EXPECT_TRUE(ingest_contains(warn.text, "not from your address on file")) << warn.text;
    EXPECT_TRUE(ingest_contains(warn.text, parse_mail(raw)->from_address));
    for (const char* s : e.reply_has_not) EXPECT_FALSE(ingest_contains(w.raw, s)) << s;
  }
}

INSTANTIATE_TEST_SUITE_P(Mail, Corpus, ::testing::ValuesIn(corpus_expectations()),
                         [](const ::testing::TestParamInfo<Expected>& info) {
                           std::string n = info.param.file;
                           n = n.substr(0, n.find('.'));
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace adj::mail
