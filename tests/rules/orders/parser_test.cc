#include "rules/orders/parser.h"

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <cctype>
#include <nlohmann/json.hpp>

namespace adj {
namespace {

constexpr char kHeader[] = "GAME dark-7\nPLAYER WSX s3cret\n";

// Parses kHeader plus `line`; the order line is line 3 of the file.
ParsedOrderFile parse_one(const std::string& line, int actions = 16) {
  return parse_order_file(std::string(kHeader) + line + "\n", actions);
}

Quantity all() { return {}; }
Quantity exact(int n) { return {Quantity::Kind::kExact, n}; }
Quantity all_but(int n) { return {Quantity::Kind::kAllBut, n}; }

struct AcceptCase {
  AcceptCase(std::string line, Verb verb, std::string from, std::string to, Quantity qty,
             std::map<std::string, int> extras, int action = 1, std::string text = "")
      : line(std::move(line)),
        verb(verb),
        from(std::move(from)),
        to(std::move(to)),
        qty(qty),
        extras(std::move(extras)),
        action(action),
        text(std::move(text)) {}
  std::string line;
  Verb verb;
  std::string from, to;
  Quantity qty;
  std::map<std::string, int> extras;
  int action = 1;
  std::string text;  // expected Order::text; empty means the line itself
};

TEST(OrderParser, AcceptsEveryVerbAndQuantityForm) {
  const std::vector<AcceptCase> cases = {
      {"MOVE HRS BDS", Verb::kMove, "HRS", "BDS", all(), {}},
      {"MOVE HRS BDS 3", Verb::kMove, "HRS", "BDS", exact(3), {}},
      {"MOVE HRS BDS 0", Verb::kMove, "HRS", "BDS", exact(0), {}},
      {"MOVE HRS BDS AB-2", Verb::kMove, "HRS", "BDS", all_but(2), {}},
      {"MOVE HRS BDS AB-0", Verb::kMove, "HRS", "BDS", all_but(0), {}},
      {"ASSAULT HRS BDS", Verb::kAssault, "HRS", "BDS", all(), {}},
      {"ASSAULT HRS BDS 5", Verb::kAssault, "HRS", "BDS", exact(5), {}},
      {"ASSAULT HRS BDS AB-1", Verb::kAssault, "HRS", "BDS", all_but(1), {}},
      {"ASSAULT HRS BDS 5 CARD 3 AIR 2",
       Verb::kAssault,
       "HRS",
       "BDS",
       exact(5),
       {{"CARD", 3}, {"AIR", 2}}},
      {"ASSAULT HRS BDS CARD 3", Verb::kAssault, "HRS", "BDS", all(), {{"CARD", 3}}},
      {"ASSAULT HRS BDS AB-1 card 0", Verb::kAssault, "HRS", "BDS", all_but(1), {{"CARD", 0}}},
      {"PROBE HRS BDS", Verb::kProbe, "HRS", "BDS", all(), {}},
      {"PROBE HRS BDS 2", Verb::kProbe, "HRS", "BDS", exact(2), {}},
      {"PROBE HRS BDS AB-3", Verb::kProbe, "HRS", "BDS", all_but(3), {}},
      {"OVERRUN HRS BDS", Verb::kOverrun, "HRS", "BDS", all(), {}},
      {"OVERRUN HRS BDS 15", Verb::kOverrun, "HRS", "BDS", exact(15), {}},
      {"OVERRUN HRS BDS AB-4", Verb::kOverrun, "HRS", "BDS", all_but(4), {}},
      {"AMBUSH HRS BDS", Verb::kAmbush, "HRS", "BDS", all(), {}},
      {"RETREAT HRS", Verb::kRetreat, "HRS", "", all(), {}},
      {"RETREAT HRS BDS", Verb::kRetreat, "HRS", "BDS", all(), {}},
      {"DEFEND HRS", Verb::kDefend, "HRS", "", all(), {}},
      // Options after the areas of the standing orders (no quantity there).
      {"DEFEND HRS TOKEN 2", Verb::kDefend, "HRS", "", all(), {{"TOKEN", 2}}},
      {"AMBUSH HRS BDS depth 1 card 2",
       Verb::kAmbush,
       "HRS",
       "BDS",
       all(),
       {{"DEPTH", 1}, {"CARD", 2}}},
      {"RETREAT HRS BDS CARD 1", Verb::kRetreat, "HRS", "BDS", all(), {{"CARD", 1}}},
      {"RETREAT HRS CARD 1", Verb::kRetreat, "HRS", "", all(), {{"CARD", 1}}},
      {"LEVY LON 2 CARD 1", Verb::kLevy, "LON", "", exact(2), {{"CARD", 1}}},
      {"ORDER CARD 1", Verb::kOrder, "", "", all(), {{"CARD", 1}}},
      {"LEVY LON", Verb::kLevy, "LON", "", all(), {}},
      {"LEVY LON 3", Verb::kLevy, "LON", "", exact(3), {}},
      {"ORDER", Verb::kOrder, "", "", all(), {}},
      {"ORDER 5", Verb::kOrder, "", "", exact(5), {}},
      {"ORDER 0", Verb::kOrder, "", "", exact(0), {}},
      // Case-insensitive keywords and codes; codes are upper-cased.
      {"move hrs bds ab-2", Verb::kMove, "HRS", "BDS", all_but(2), {}},
      {"Assault Hrs Bds 4 Card 1", Verb::kAssault, "HRS", "BDS", exact(4), {{"CARD", 1}}},
      {"levy lon", Verb::kLevy, "LON", "", all(), {}},
      {"oRdEr 2", Verb::kOrder, "", "", exact(2), {}},
      {"SUPPORT HRS BDS", Verb::kSupport, "HRS", "BDS", all(), {}},
      {"support hrs bds", Verb::kSupport, "HRS", "BDS", all(), {}},
      {"GIFT MRC 5", Verb::kGift, "", "MRC", exact(5), {}},
      {"gift mrc 0", Verb::kGift, "", "MRC", exact(0), {}},
      {"MIGRATE HRS BDS 2", Verb::kMigrate, "HRS", "BDS", exact(2), {}},
      {"Migrate hrs bds 1", Verb::kMigrate, "HRS", "BDS", exact(1), {}},
      // Codes may have digits and underscores after a letter.
      {"DEFEND A1_B", Verb::kDefend, "A1_B", "", all(), {}},
      // Action numbers.
      {"3. MOVE HRS BDS", Verb::kMove, "HRS", "BDS", all(), {}, 3},
      {"3) MOVE HRS BDS", Verb::kMove, "HRS", "BDS", all(), {}, 3},
      {"3.MOVE HRS BDS", Verb::kMove, "HRS", "BDS", all(), {}, 3},
      {"3)move HRS BDS", Verb::kMove, "HRS", "BDS", all(), {}, 3},
      {"16. ORDER", Verb::kOrder, "", "", all(), {}, 16},
      {"007. DEFEND HRS", Verb::kDefend, "HRS", "", all(), {}, 7},
      // Whitespace noise and comments.
      {"  MOVE   HRS  BDS  3  ", Verb::kMove, "HRS", "BDS", exact(3), {}, 1, "MOVE   HRS  BDS  3"},
      {"MOVE\tHRS\tBDS\t3", Verb::kMove, "HRS", "BDS", exact(3), {}},
      {"MOVE\xC2\xA0HRS\xC2\xA0\xC2\xA0"
       "BDS 3\xC2\xA0",
       Verb::kMove,
       "HRS",
       "BDS",
       exact(3),
       {},
       1,
       "MOVE\xC2\xA0HRS\xC2\xA0\xC2\xA0"
       "BDS 3"},
      {"\xE2\x80\x83MOVE HRS\xE3\x80\x80"
       "BDS",
       Verb::kMove,
       "HRS",
       "BDS",
       all(),
       {},
       1,
       "MOVE HRS\xE3\x80\x80"
       "BDS"},
      {"MOVE HRS BDS 3 # to Bedford", Verb::kMove, "HRS", "BDS", exact(3), {}, 1, "MOVE HRS BDS 3"},
      {"MOVE HRS BDS 3# no space", Verb::kMove, "HRS", "BDS", exact(3), {}, 1, "MOVE HRS BDS 3"},
      {"MOVE HRS BDS # café", Verb::kMove, "HRS", "BDS", all(), {}, 1, "MOVE HRS BDS"},
  };
  for (const AcceptCase& c : cases) {
    SCOPED_TRACE(c.line);
    ParsedOrderFile p = parse_one(c.line);
    EXPECT_TRUE(p.fatal.empty());
    ASSERT_EQ(p.lines.size(), 1u);
    EXPECT_TRUE(p.lines[0].accepted) << p.lines[0].reason;
    EXPECT_EQ(p.lines[0].line, 3);
    EXPECT_EQ(p.lines[0].action, c.action);
    ASSERT_EQ(p.orders.size(), 1u);
    const Order& o = p.orders[0];
    EXPECT_EQ(o.line, 3);
    EXPECT_EQ(o.action, c.action);
    EXPECT_EQ(o.verb, c.verb);
    EXPECT_EQ(o.from, c.from);
    EXPECT_EQ(o.to, c.to);
    EXPECT_EQ(o.qty, c.qty);
    EXPECT_EQ(o.extras, c.extras);
    // The acknowledgement echoes the line as written; the order's text drops the action number.
    const std::string text = c.text.empty() ? c.line : c.text;
    EXPECT_EQ(p.lines[0].text, text);
    std::size_t i = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    std::string bare = text;
    if (i > 0 && i < text.size() && (text[i] == '.' || text[i] == ')')) {
      bare = text.substr(i + 1);
      bare.erase(0, bare.find_first_not_of(" \t"));
    }
    EXPECT_EQ(o.text, bare);
  }
}

struct RejectCase {
  RejectCase(std::string line, std::string reason, std::optional<int> action = 1)
      : line(std::move(line)), reason(std::move(reason)), action(action) {}
  std::string line;
  std::string reason;
  std::optional<int> action = 1;
};

TEST(OrderParser, RejectsEachMistakeWithItsMessage) {
  const std::vector<RejectCase> cases = {
      {"MOVVE HRS BDS", "unknown action \"MOVVE\""},
      {"march hrs bds", "unknown action \"march\""},
      {"3x MOVE HRS BDS", "unknown action \"3x\""},
      {"3 MOVE HRS BDS", "write the action number as \"3.\" or \"3)\""},
      {"MOVE", "MOVE needs <from> <to> [<n> | AB-<n>]"},
      {"MOVE HRS", "MOVE needs <from> <to> [<n> | AB-<n>]"},
      {"MOVE HRS 3", "MOVE needs <from> <to> [<n> | AB-<n>]"},
      {"MOVE HRS AB-2", "MOVE needs <from> <to> [<n> | AB-<n>]"},
      {"ASSAULT HRS", "ASSAULT needs <from> <to> [<n> | AB-<n>]"},
      {"PROBE", "PROBE needs <from> <to> [<n> | AB-<n>]"},
      {"OVERRUN HRS", "OVERRUN needs <from> <to> [<n> | AB-<n>]"},
      {"MOVE 3 BDS", "MOVE needs <from> <to> [<n> | AB-<n>]"},
      {"MOVE H!S BDS", "\"H!S\" is not an area code"},
      {"MOVE HRS 9BD", "\"9BD\" is not an area code"},
      {"MOVE HRS BDS AB-x", "\"AB-x\" is not a number of armies"},
      {"MOVE HRS BDS AB-", "\"AB-\" is not a number of armies"},
      {"MOVE HRS BDS AB", "\"AB\" is not a number of armies"},
      {"MOVE HRS BDS ab-2x", "\"ab-2x\" is not a number of armies"},
      {"MOVE HRS BDS AB-1234567890", "\"AB-1234567890\" is too large a number"},
      {"MOVE HRS BDS xyz", "\"xyz\" is not a valid quantity"},
      {"MOVE HRS BDS all", "\"all\" is not a valid quantity"},
      {"MOVE HRS BDS xyz abc", "\"xyz\" is not a valid quantity"},
      {"MOVE HRS BDS 3x", "\"3x\" is not a valid quantity"},
      {"MOVE HRS BDS -3", "\"-3\" is not a valid quantity"},
      {"MOVE HRS BDS 2.5", "\"2.5\" is not a valid quantity"},
      {"MOVE HRS BDS 1234567890", "\"1234567890\" is too large a number"},
      {"ASSAULT HRS BDS 5 CARD", "\"CARD\" needs a number after it"},
      {"ASSAULT HRS BDS 5 CARD x", "\"CARD\" needs a number after it"},
      {"ASSAULT HRS BDS 5 CARD -1", "\"CARD\" needs a number after it"},
      {"ASSAULT HRS BDS 5 CARD 1234567890", "\"1234567890\" is too large a number"},
      {"ASSAULT HRS BDS 5 CARD 3 card 4", "\"CARD\" is given twice"},
      {"ASSAULT HRS BDS 5 6",
       "unexpected \"6\" (extra options are written as a word and a number, e.g. CARD 3)"},
      {"ASSAULT HRS BDS 5 CARD 3 AB-1",
       "unexpected \"AB-1\" (extra options are written as a word and a number, e.g. CARD 3)"},
      {"LEVY LON AB-1", "\"AB-1\": \"all but\" is only for MOVE, ASSAULT, PROBE, OVERRUN and RAID"},
      {"ORDER AB-2", "\"AB-2\": \"all but\" is only for MOVE, ASSAULT, PROBE, OVERRUN and RAID"},
      {"ORDER x", "\"x\" is not a valid quantity"},
      {"ORDER 5 6",
       "unexpected \"6\" (extra options are written as a word and a number, e.g. CARD 3)"},
      {"SUPPORT HRS", "SUPPORT needs <where> <to>"},
      {"SUPPORT HRS BDS 3", "SUPPORT needs <where> <to>; \"3\" is extra"},
      {"GIFT", "GIFT needs <kingdom> <bps>"},
      {"GIFT MRC", "GIFT needs <kingdom> <bps>"},
      {"GIFT 5 MRC", "\"5\" is not a kingdom code"},
      {"GIFT MRC AB-2", "\"AB-2\": \"all but\" is only for MOVE, ASSAULT, PROBE, OVERRUN and RAID"},
      {"GIFT MRC lots", "\"lots\" is not a number"},
      {"GIFT MRC 5 6", "GIFT needs <kingdom> <bps>; \"6\" is extra"},
      {"GIFT MRC 12345678901", "\"12345678901\" is too large a number"},
      {"MIGRATE HRS BDS", "MIGRATE needs <from> <to> <n>"},
      {"MIGRATE HRS BDS AB-1",
       "\"AB-1\": \"all but\" is only for MOVE, ASSAULT, PROBE, OVERRUN and RAID"},
      {"MIGRATE HRS 3 BDS", "MIGRATE needs <from> <to> <n>"},
      {"MIGRATE HRS BDS some", "\"some\" is not a number"},
      {"LEVY", "LEVY needs <where> [<n>]"},
      {"LEVY 3", "LEVY needs <where> [<n>]"},
      {"LEVY LON many", "\"many\" is not a valid quantity"},
      {"AMBUSH", "AMBUSH needs <where> <against>"},
      {"AMBUSH HRS", "AMBUSH needs <where> <against>"},
      {"AMBUSH HRS BDS 3", "AMBUSH needs <where> <against>; \"3\" is extra"},
      {"RETREAT", "RETREAT needs <from> [<to>]"},
      {"RETREAT HRS 3", "RETREAT needs <from> [<to>]"},
      {"RETREAT HRS BDS YRK", "RETREAT needs <from> [<to>]; \"YRK\" is extra"},
      {"DEFEND", "DEFEND needs <where>"},
      {"DEFEND HRS BDS", "DEFEND needs <where>; \"BDS\" is extra"},
      {"DEFEND HRS now", "DEFEND needs <where>; \"now\" is extra"},
      {"DEFEND HRS 3", "DEFEND needs <where>; \"3\" is extra"},
      {"DEFEND HRS CARD", "DEFEND needs <where>; \"CARD\" is extra"},
      {"DEFEND HRS CARD 3 AIR", "\"AIR\" needs a number after it"},
      {"DEFEND HRS CARD 3 card 1", "\"CARD\" is given twice"},
      {"AMBUSH HRS BDS CARD 3 4",
       "unexpected \"4\" (extra options are written as a word and a number, e.g. CARD 3)"},
      {"RETREAT HRS BDS CARD", "RETREAT needs <from> [<to>]; \"CARD\" is extra"},
      {"RETREAT HRS CARD 1 BDS", "\"BDS\" needs a number after it"},
      {"3. GAME dark-7", "\"GAME\" is not an action and cannot have an action number", 3},
      {"2) player WSX s3cret", "\"PLAYER\" is not an action and cannot have an action number", 2},
      {"0. MOVE HRS BDS", "action number 0 is not between 1 and 16", std::nullopt},
      {"17. MOVE HRS BDS", "action number 17 is not between 1 and 16", std::nullopt},
      {"99999999999. MOVE HRS BDS", "action number 99999999999 is not between 1 and 16",
       std::nullopt},
      {"MOVE \x01HRS BDS",
       "this line is not readable text (it has control characters or bytes that are not UTF-8)"},
      {std::string("MOVE HRS\0 BDS", 13),
       "this line is not readable text (it has control characters or bytes that are not UTF-8)"},
      {"MOVE HRS BDS \xFF",
       "this line is not readable text (it has control characters or bytes that are not UTF-8)"},
      {"MOVE HRS BDS 3 CARD 1\x7F",
       "this line is not readable text (it has control characters or bytes that are not UTF-8)"},
      {"MOVE HR\x7FS BDS 3 CARD 1",
       "this line is not readable text (it has control characters or bytes that are not UTF-8)"},
      {"MOVE \xC3\x28 BDS",
       "this line is not readable text (it has control characters or bytes that are not UTF-8)"},
      {"MOVE \xED\xA0\x80 BDS",  // an encoded surrogate
       "this line is not readable text (it has control characters or bytes that are not UTF-8)"},
      {"MOVE \xC0\xAF BDS",  // an overlong '/'
       "this line is not readable text (it has control characters or bytes that are not UTF-8)"},
      {"MOVE HRS\xC3\xA9 BDS", "\"HRS\xC3\xA9\" is not an area code"},
  };
  for (const RejectCase& c : cases) {
    SCOPED_TRACE(c.line);
    ParsedOrderFile p = parse_one(c.line);
    EXPECT_TRUE(p.fatal.empty());
    ASSERT_EQ(p.lines.size(), 1u);
    EXPECT_FALSE(p.lines[0].accepted);
    EXPECT_EQ(p.lines[0].reason, c.reason);
    EXPECT_EQ(p.lines[0].line, 3);
    EXPECT_EQ(p.lines[0].action, c.action);
    EXPECT_TRUE(p.orders.empty());
    // Texts of unreadable lines are made valid UTF-8, so they always serialise.
    EXPECT_NO_THROW((void)nlohmann::json(p.lines[0].text).dump());
  }
}

TEST(OrderParser, UnreadableBytesAreReplacedInTheEchoedText) {
  ParsedOrderFile p = parse_one("MOVE \xFFHRS\x01");
  ASSERT_EQ(p.lines.size(), 1u);
  EXPECT_EQ(p.lines[0].text, "MOVE \xEF\xBF\xBDHRS\xEF\xBF\xBD");
}

TEST(OrderParser, ReadsTheHeader) {
  ParsedOrderFile p = parse_order_file("game Dark-7\nplayer wsx S3cret\nturn 4\nMOVE A B\n");
  EXPECT_TRUE(p.fatal.empty());
  EXPECT_EQ(p.game, "Dark-7");    // as written
  EXPECT_EQ(p.player, "WSX");     // upper-cased
  EXPECT_EQ(p.secret, "S3cret");  // as written
  EXPECT_EQ(p.turn, 4);
  ASSERT_EQ(p.lines.size(), 1u);
  EXPECT_EQ(p.lines[0].line, 4);
}

TEST(OrderParser, HeaderLinesMayComeInAnyOrderAndAfterOrders) {
  ParsedOrderFile p = parse_order_file(
      "TURN 2\nPLAYER WSX s\nMOVE A B\nGAME g\nDEFEND A\nGAME G\nplayer wsx s\nTURN 2\n");
  EXPECT_TRUE(p.fatal.empty()) << p.fatal[0];
  EXPECT_EQ(p.game, "g");
  EXPECT_EQ(p.turn, 2);
  ASSERT_EQ(p.lines.size(), 2u);
  EXPECT_EQ(p.lines[1].action, 2);
}

TEST(OrderParser, HeaderProblemsAreFatal) {
  struct Case {
    std::string text;
    std::vector<std::string> fatal;
  };
  const std::vector<Case> cases = {
      {"PLAYER WSX s\n", {"the file has no GAME line (GAME <game-id>)"}},
      {"GAME g\n", {"the file has no PLAYER line (PLAYER <player-code> <secret>)"}},
      {"",
       {"the file has no GAME line (GAME <game-id>)",
        "the file has no PLAYER line (PLAYER <player-code> <secret>)"}},
      {"GAME g\nPLAYER WSX s\nGAME h\n", {"line 3: GAME \"h\" differs from GAME \"g\" on line 1"}},
      {"GAME g\nPLAYER WSX s\nPLAYER WSX t\n",
       {"line 3: this PLAYER line differs from the one on line 2"}},
      {"GAME g\nPLAYER WSX s\nPLAYER MRC s\n",
       {"line 3: this PLAYER line differs from the one on line 2"}},
      {"GAME g\nPLAYER WSX s\nTURN 3\nTURN 4\n", {"line 4: TURN 4 differs from TURN 3 on line 3"}},
      {"GAME\nGAME g\nPLAYER WSX s\n", {"line 1: GAME needs <game-id>"}},
      {"GAME g h\nGAME g\nPLAYER WSX s\n", {"line 1: GAME needs just <game-id>; \"h\" is extra"}},
      {"GAME g\nPLAYER WSX\nPLAYER WSX s\n", {"line 2: PLAYER needs <player-code> <secret>"}},
      {"GAME g\nPLAYER 123 s\nPLAYER WSX s\n", {"line 2: PLAYER needs <player-code> <secret>"}},
      {"GAME g\nPLAYER WSX my secret\nPLAYER WSX s\n",
       {"line 2: PLAYER needs <player-code> <secret> (the secret is one word)"}},
      {"GAME g\nPLAYER WSX s\nTURN\n", {"line 3: TURN needs <n>"}},
      {"GAME g\nPLAYER WSX s\nTURN three\n", {"line 3: \"three\" is not a turn number"}},
      {"GAME g\nPLAYER WSX s\nTURN 3 4\n", {"line 3: TURN needs just <n>; \"4\" is extra"}},
      {"\xFF\xFEG\0A\0",
       {"the file is UTF-16 text; send orders as plain text (ASCII or UTF-8) "
        "instead"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    ParsedOrderFile p = parse_order_file(c.text);
    EXPECT_EQ(p.fatal, c.fatal);
  }
}

TEST(OrderParser, FatalHeaderMessagesNeverNameTheSecret) {
  for (const char* text : {"GAME g\nPLAYER hunter2\n", "GAME g\nPLAYER WSX hunter2 extra\n",
                           "GAME g\nPLAYER WSX s\nPLAYER WSX hunter2\n"}) {
    ParsedOrderFile p = parse_order_file(text);
    ASSERT_FALSE(p.fatal.empty());
    for (const std::string& f : p.fatal) EXPECT_EQ(f.find("hunter2"), std::string::npos) << f;
  }
}

TEST(OrderParser, CommentsAndBlankLinesAreIgnored) {
  ParsedOrderFile p = parse_order_file(
      "# my orders\n\nGAME g # the game\n   \n\t\nPLAYER WSX s#secret\n# MOVE A B\n"
      "\xC2\xA0\n\x1A\nDEFEND A # hold\n");
  EXPECT_TRUE(p.fatal.empty());
  EXPECT_EQ(p.game, "g");
  EXPECT_EQ(p.secret, "s");
  ASSERT_EQ(p.lines.size(), 1u);
  EXPECT_EQ(p.lines[0].line, 10);
  EXPECT_EQ(p.lines[0].text, "DEFEND A");
  EXPECT_EQ(p.lines[0].action, 1);
}

struct SlotRow {
  int line;
  std::optional<int> action;
  bool accepted;
  std::string reason;
};

void expect_rows(const ParsedOrderFile& p, const std::vector<SlotRow>& rows) {
  ASSERT_EQ(p.lines.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(p.lines[i].text);
    EXPECT_EQ(p.lines[i].line, rows[i].line);
    EXPECT_EQ(p.lines[i].action, rows[i].action);
    EXPECT_EQ(p.lines[i].accepted, rows[i].accepted);
    EXPECT_EQ(p.lines[i].reason, rows[i].reason);
  }
}

TEST(OrderParser, ActionNumbersAssignSlots) {
  ParsedOrderFile p = parse_order_file(
      "GAME g\nPLAYER WSX s\n"
      "MOVE A B\n"       // 3: slot 1
      "4. MOVE B C\n"    // 4: slot 4
      "MOVE C D\n"       // 5: slot 5
      "3. MOVE D E\n"    // 6: not after 5, no slot
      "MOVVE E F\n"      // 7: slot 6, rejected but occupies it
      "6. DEFEND A\n"    // 8: not after 6
      "8.\n"             // 9: slot 8 left empty on purpose, not listed
      "LEVY A\n"         // 10: slot 9
      "17. ORDER\n"      // 11: not between 1 and 16
      "16) ORDER 2\n"    // 12: slot 16
      "DEFEND A\n"       // 13: too many
      "16. DEFEND B\n",  // 14: not after 16
      16);
  EXPECT_TRUE(p.fatal.empty());
  expect_rows(p, {{3, 1, true, ""},
                  {4, 4, true, ""},
                  {5, 5, true, ""},
                  {6, std::nullopt, false, "action number 3 is not after action 5"},
                  {7, 6, false, "unknown action \"MOVVE\""},
                  {8, std::nullopt, false, "action number 6 is not after action 6"},
                  {10, 9, true, ""},
                  {11, std::nullopt, false, "action number 17 is not between 1 and 16"},
                  {12, 16, true, ""},
                  {13, std::nullopt, false, "too many actions: this game allows 16 per turn"},
                  {14, std::nullopt, false, "action number 16 is not after action 16"}});
  std::vector<int> slots;
  for (const Order& o : p.orders) slots.push_back(o.action);
  EXPECT_EQ(slots, (std::vector<int>{1, 4, 5, 9, 16}));
}

TEST(OrderParser, ActionsPerTurnBoundsTheLines) {
  ParsedOrderFile p =
      parse_order_file("GAME g\nPLAYER WSX s\nDEFEND A\nDEFEND B\nDEFEND C\n4. DEFEND D\n", 2);
  expect_rows(p, {{3, 1, true, ""},
                  {4, 2, true, ""},
                  {5, std::nullopt, false, "too many actions: this game allows 2 per turn"},
                  {6, std::nullopt, false, "action number 4 is not between 1 and 2"}});
  p = parse_order_file("GAME g\nPLAYER WSX s\n99999999999. DEFEND A\n999999999. DEFEND B\n",
                       std::numeric_limits<int>::max());
  expect_rows(
      p, {{3, std::nullopt, false, "action number 99999999999 is not between 1 and 2147483647"},
          {4, 999999999, true, ""}});
  p = parse_order_file("GAME g\nPLAYER WSX s\nDEFEND A\n", 0);
  expect_rows(p, {{3, std::nullopt, false, "too many actions: this game allows 0 per turn"}});
}

TEST(OrderParser, OrdersMatchTheAcceptedLines) {
  ParsedOrderFile p =
      parse_order_file("GAME g\nPLAYER WSX s\nMOVE A B\nbad\nDEFEND A\nLEVY\nLEVY A 2\n");
  std::vector<int> accepted_lines;
  for (const LineResult& l : p.lines)
    if (l.accepted) accepted_lines.push_back(l.line);
  std::vector<int> order_lines;
  for (const Order& o : p.orders) order_lines.push_back(o.line);
  EXPECT_EQ(order_lines, accepted_lines);
  EXPECT_EQ(order_lines, (std::vector<int>{3, 5, 7}));
}

TEST(OrderParser, EndStopsParsing) {
  const char* const files[] = {
      "GAME g\nPLAYER WSX s\nMOVE A B\nEND\n-- \nJohn Smith\n> MOVE X Y\n> GAME other\n",
      "GAME g\nPLAYER WSX s\nMOVE A B\nend of orders\nMOVE C D\nPLAYER MRC t\n",
      "GAME g\nPLAYER WSX s\nMOVE A B\n  End  # done\n\"quoted text\" \xFF\xFE\0 garbage\n",
      "GAME g\nPLAYER WSX s\nMOVE A B\n16. END\nMOVE C D\n",
  };
  for (const char* f : files) {
    SCOPED_TRACE(f);
    ParsedOrderFile p = parse_order_file(f);
    EXPECT_TRUE(p.fatal.empty());
    EXPECT_EQ(p.player, "WSX");
    ASSERT_EQ(p.lines.size(), 1u);
    EXPECT_TRUE(p.lines[0].accepted);
  }
  // Headers after END are not read.
  EXPECT_FALSE(parse_order_file("END\nGAME g\nPLAYER WSX s\n").fatal.empty());
}

TEST(OrderParser, LineEndingsAndByteOrderMark) {
  const std::vector<std::string> files = {
      "GAME g\nPLAYER WSX s\nMOVE A B\n\nDEFEND A\n",
      "GAME g\r\nPLAYER WSX s\r\nMOVE A B\r\n\r\nDEFEND A\r\n",
      "GAME g\rPLAYER WSX s\rMOVE A B\r\rDEFEND A\r",
      "\xEF\xBB\xBFGAME g\r\nPLAYER WSX s\nMOVE A B\r\rDEFEND A",
      "\xEF\xBB\xBF"
      "GAME g\nPLAYER WSX s\r\nMOVE A B\n\r\nDEFEND A\n",
  };
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    ParsedOrderFile p = parse_order_file(f);
    EXPECT_TRUE(p.fatal.empty());
    EXPECT_EQ(p.game, "g");
    EXPECT_EQ(p.secret, "s");
    expect_rows(p, {{3, 1, true, ""}, {5, 2, true, ""}});
    ASSERT_EQ(p.orders.size(), 2u);
    EXPECT_EQ(p.orders[1].text, "DEFEND A");
  }
}

TEST(OrderParser, FilesOverTheLimitAreRefusedWhole) {
  std::string big = std::string(kHeader);
  while (big.size() <= 2 * 1024 * 1024) big += "MOVE HRS BDS 3\n";
  ParsedOrderFile p = parse_order_file(big);
  ASSERT_EQ(p.fatal.size(), 1u);
  EXPECT_NE(p.fatal[0].find(std::to_string(big.size())), std::string::npos) << p.fatal[0];
  EXPECT_NE(p.fatal[0].find(std::to_string(kMaxOrderFileBytes)), std::string::npos);
  EXPECT_TRUE(p.lines.empty());
  EXPECT_TRUE(p.orders.empty());
  EXPECT_FALSE(p.game.has_value());

  // Exactly at the limit is parsed.
  std::string at_limit = std::string(kHeader) + "MOVE HRS BDS 3\n";
  at_limit.resize(kMaxOrderFileBytes, ' ');
  p = parse_order_file(at_limit);
  EXPECT_TRUE(p.fatal.empty());
  EXPECT_EQ(p.lines.size(), 1u);
}

TEST(OrderParser, ThousandRepeatedLinesOverflowTheActions) {
  std::string text = kHeader;
  for (int i = 0; i < 1000; ++i) text += "MOVE HRS BDS 1\n";
  ParsedOrderFile p = parse_order_file(text, 16);
  EXPECT_TRUE(p.fatal.empty());
  ASSERT_EQ(p.lines.size(), 1000u);
  EXPECT_EQ(p.orders.size(), 16u);
  for (std::size_t i = 16; i < p.lines.size(); ++i) {
    EXPECT_FALSE(p.lines[i].accepted);
    EXPECT_EQ(p.lines[i].reason, "too many actions: this game allows 16 per turn");
    EXPECT_FALSE(p.lines[i].action.has_value());
  }
}

TEST(OrderParser, BinaryNoiseNeverCrashesAndIsNeverAccepted) {
  std::mt19937_64 rng(20240517);
  for (int round = 0; round < 50; ++round) {
    std::string noise(1 + rng() % 20000, '\0');
    for (char& c : noise) c = static_cast<char>(rng() & 0xFF);
    for (int actions : {0, 16, std::numeric_limits<int>::max()}) {
      ParsedOrderFile p = parse_order_file(noise, actions);
      EXPECT_TRUE(p.orders.empty());
      EXPECT_FALSE(p.fatal.empty());  // no GAME/PLAYER line in noise
      for (const LineResult& l : p.lines) {
        EXPECT_FALSE(l.accepted);
        EXPECT_FALSE(l.reason.empty());
        EXPECT_NO_THROW((void)nlohmann::json(l.text).dump());
        EXPECT_NO_THROW((void)nlohmann::json(l.reason).dump());
      }
    }
  }
}

TEST(OrderParser, NoisyLinesAmongGoodOnesOnlyRejectThemselves) {
  std::mt19937 rng(7);
  std::string text = kHeader;
  for (int i = 0; i < 8; ++i) {
    text += "DEFEND A\n";
    std::string junk(40, '\0');
    for (char& c : junk) {
      c = static_cast<char>(rng() & 0xFF);
      if (c == '\n' || c == '\r' || c == '#') c = '\x01';
    }
    text += junk + "\n";
  }
  ParsedOrderFile p = parse_order_file(text);
  EXPECT_TRUE(p.fatal.empty());
  ASSERT_EQ(p.lines.size(), 16u);
  for (std::size_t i = 0; i < p.lines.size(); ++i) {
    EXPECT_EQ(p.lines[i].accepted, i % 2 == 0) << i;
    EXPECT_EQ(p.lines[i].action, static_cast<int>(i) + 1);
  }
}

}  // namespace
}  // namespace adj

namespace adj {
namespace {

TEST(MaskPlayerSecret, OnlyThePlayerLinesSecretField) {
  EXPECT_EQ(mask_player_secret("GAME g\nPLAYER WSX cerdic\nDEFEND cerdic\n"),
            "GAME g\nPLAYER WSX ********\nDEFEND cerdic\n");
  EXPECT_EQ(mask_player_secret("  player wsx\tcerdic  # note cerdic\r\nX\r\n"),
            "  player wsx\t********  # note cerdic\r\nX\r\n");
  EXPECT_EQ(mask_player_secret("PLAYER WSX my secret words\n"), "PLAYER WSX ********\n");
  EXPECT_EQ(mask_player_secret("PLAYER WSX\nPLAYERS WSX x\nPLAYER\n"),
            "PLAYER WSX\nPLAYERS WSX x\nPLAYER\n");
  EXPECT_EQ(mask_player_secret("PLAYER A s1\nEND\nPLAYER B s2"),
            "PLAYER A ********\nEND\nPLAYER B ********");
  EXPECT_EQ(mask_player_secret(""), "");
  // What is stored still parses to the same player.
  const ParsedOrderFile p = parse_order_file(mask_player_secret("GAME g\nPLAYER WSX cerdic\n"));
  EXPECT_EQ(p.player, "WSX");
  EXPECT_EQ(p.secret, "********");
}

}  // namespace
}  // namespace adj
