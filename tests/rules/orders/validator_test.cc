#include "rules/orders/validator.h"

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rules/combat/combat_engine.h"

namespace adj {
namespace {

constexpr char kSecret[] = "Wyvern-42q";
constexpr char kOtherSecret[] = "m3rc1a";

// A small map: HRS-BDS-YRK in a row, LON a city with hinterland LNS (next to HRS), and the sea
// area NTH off HRS and BDS.
GameState small_state() {
  GameState s;
  s.game_id = "dark-7";
  s.name = "Dark Age test";
  s.turn = 3;
  auto area = [](std::string code, AreaKind kind, std::string hinterland = "") {
    Area a;
    a.code = std::move(code);
    a.name = a.code;
    a.kind = kind;
    a.hinterland = std::move(hinterland);
    return a;
  };
  s.areas = {area("YRK", AreaKind::kLand),        area("HRS", AreaKind::kLand),
             area("BDS", AreaKind::kLand),        area("LNS", AreaKind::kLand),
             area("LON", AreaKind::kCity, "LNS"), area("NTH", AreaKind::kSea)};
  s.edges = {{"HRS", "BDS"}, {"BDS", "YRK"}, {"LNS", "HRS"},
             {"LON", "LNS"}, {"NTH", "HRS"}, {"BDS", "NTH"}};
  Player wsx;
  wsx.code = "WSX";
  wsx.name = "Wessex";
  wsx.secret = kSecret;
  Player mrc;
  mrc.code = "MRC";
  mrc.name = "Mercia";
  mrc.secret = kOtherSecret;
  s.players = {wsx, mrc};
  s.normalise();
  return s;
}

// An engine with the default check_order (which refuses every keyword argument).
class PlainEngine : public CombatEngine {
 public:
  const EngineTraits& traits() const override {
    static constexpr EngineTraits kTraits{
        .name = "plain", .summary = "test engine", .deterministic = true};
    return kTraits;
  }
  Result<BattleOutcome> resolve(const BattleInput&, Rng&) const override {
    return Status::Internal("not used");
  }
};

// An engine that understands CARD <n> on ASSAULT only.
class CardEngine : public PlainEngine {
 public:
  Status check_order(const Order& order, const GameState&) const override {
    for (const auto& [key, value] : order.extras) {
      if (key != "CARD") return Status::InvalidArgument(key + " is not an option of this game");
      if (order.verb != Verb::kAssault) return Status::InvalidArgument("CARD is only for ASSAULT");
      if (value > 5) return Status::InvalidArgument("CARD must be 5 or less");
    }
    return Status::Ok();
  }
};

class ThrowingEngine : public PlainEngine {
 public:
  Status check_order(const Order&, const GameState&) const override {
    throw std::runtime_error("boom");
  }
};

std::string header(const std::string& secret = kSecret) {
  return "GAME dark-7\nPLAYER WSX " + secret + "\n";
}

std::string read_source_file(const std::string& relative) {
  std::ifstream in(std::string(ADJ_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The map check of the one order on `line`.
std::string map_check(const std::string& line) {
  ParsedOrderFile p = parse_order_file(header() + line + "\n");
  EXPECT_EQ(p.orders.size(), 1u) << line;
  if (p.orders.empty()) return "<parse error>";
  return check_order_against_map(p.orders[0], small_state());
}

TEST(OrderValidator, MapChecks) {
  struct Case {
    std::string line, reason;
  };
  const std::vector<Case> cases = {
      {"MOVE HRS BDS 3", ""},
      {"move hrs bds", ""},
      {"MOVE LNS LON", ""},
      {"ASSAULT LNS LON 4", ""},
      {"ASSAULT LON LNS", ""},
      {"PROBE HRS BDS", ""},
      {"OVERRUN BDS HRS AB-1", ""},
      {"MOVE HRS XYZ", "unknown area \"XYZ\""},
      {"MOVE QQQ BDS", "unknown area \"QQQ\""},
      {"MOVE HRS YRK", "HRS and YRK are not adjacent"},
      {"ASSAULT HRS LON", "HRS and LON are not adjacent"},
      {"MOVE HRS HRS", "MOVE needs two different areas (HRS twice)"},
      {"MOVE HRS NTH", "armies cannot enter the sea area NTH (this game has no ships)"},
      {"ASSAULT YRK NTH", "armies cannot enter the sea area NTH (this game has no ships)"},
      {"MOVE NTH HRS", "armies cannot leave the sea area NTH (this game has no ships)"},
      {"PROBE LNS LON", "PROBE is not allowed against a city (LON)"},
      {"OVERRUN LNS LON 3", "OVERRUN is not allowed against a city (LON)"},
      {"AMBUSH HRS BDS", ""},
      {"AMBUSH LNS LON", ""},
      {"AMBUSH HRS NTH", ""},
      {"AMBUSH LON LNS", "you cannot set an ambush in a city (LON)"},
      {"AMBUSH NTH HRS", "you cannot set an ambush at sea (NTH)"},
      {"AMBUSH HRS YRK", "HRS and YRK are not adjacent"},
      {"AMBUSH HRS XYZ", "unknown area \"XYZ\""},
      {"RETREAT HRS", ""},
      {"RETREAT HRS BDS", ""},
      {"RETREAT LON", "you cannot set a retreat in a city (LON)"},
      {"RETREAT NTH", "you cannot set a retreat at sea (NTH)"},
      {"RETREAT HRS YRK", "HRS and YRK are not adjacent"},
      {"RETREAT HRS HRS", "an area cannot retreat into itself (HRS)"},
      {"RETREAT LNS LON", "the retreat location must be a land area (LON is a city)"},
      {"RETREAT HRS NTH", "the retreat location must be a land area (NTH is at sea)"},
      {"RETREAT XYZ", "unknown area \"XYZ\""},
      {"DEFEND HRS", ""},
      {"DEFEND LON", ""},
      {"DEFEND NTH", "you cannot defend a sea area (NTH)"},
      {"DEFEND XYZ", "unknown area \"XYZ\""},
      {"LEVY LON 2", ""},
      {"LEVY HRS", ""},
      {"LEVY NTH", "you cannot levy armies at sea (NTH)"},
      {"LEVY XYZ 1", "unknown area \"XYZ\""},
      {"ORDER", ""},
      {"ORDER 3", ""},
      {"GIFT MRC 5", ""},
      {"GIFT WSX 5", ""},  // the sender is checked with the file (see GiftToYourself)
      {"GIFT NUM 5", "there is no kingdom \"NUM\" in this game"},
      {"GIFT MRC 0", "GIFT needs a number of BPs above 0"},
      {"SUPPORT HRS BDS", ""},
      {"SUPPORT HRS YRK", "HRS and YRK are not adjacent"},
      {"SUPPORT HRS NTH", "there is no support to or from the sea (NTH)"},
      {"SUPPORT HRS HRS", "an area cannot support itself (HRS)"},
      {"MIGRATE HRS BDS 2", ""},
      {"MIGRATE LNS LON 1", ""},
      {"MIGRATE HRS YRK 1", "HRS and YRK are not adjacent"},
      {"MIGRATE HRS HRS 1", "MIGRATE needs two different areas (HRS twice)"},
      {"MIGRATE HRS NTH 1", "population cannot migrate to or from the sea (NTH)"},
      {"MIGRATE NTH HRS 1", "population cannot migrate to or from the sea (NTH)"},
      {"MIGRATE HRS BDS 0", "MIGRATE needs a number of people above 0"},
      {"MIGRATE XYZ BDS 1", "unknown area \"XYZ\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    EXPECT_EQ(map_check(c.line), c.reason);
  }
}

TEST(OrderValidator, MapChecksOfHandBuiltOrders) {
  const GameState s = small_state();
  Order o;
  o.verb = Verb::kOrder;
  o.qty = {Quantity::Kind::kExact, -1};
  EXPECT_EQ(check_order_against_map(o, s), "ORDER needs [<bps>]");
  o.qty = {Quantity::Kind::kAllBut, 1};
  EXPECT_EQ(check_order_against_map(o, s), "ORDER needs [<bps>]");
  o = {};
  o.verb = Verb::kLevy;
  o.from = "LON";
  o.qty = {Quantity::Kind::kAllBut, 1};
  EXPECT_EQ(check_order_against_map(o, s), "LEVY needs <where> [<n>]");
  o = {};
  o.verb = Verb::kMove;
  o.from = "HRS";
  EXPECT_EQ(check_order_against_map(o, s), "MOVE needs <from> <to> [<n> | AB-<n>]");
  o.to = "bds";  // codes are matched exactly (the parser upper-cases them); the code is suggested
  EXPECT_EQ(check_order_against_map(o, s), "unknown area \"bds\"; did you mean BDS?");
}

// The two worked examples of schemas/orders/grammar.md.
const char kValidFile[] =
    "GAME dark-7\n"
    "PLAYER WSX Wyvern-42q\n"
    "TURN 3\n"
    "# Wessex, turn 3\n"
    "1. LEVY LON 2\n"
    "2. MOVE LNS HRS AB-1      # keep one army at home\n"
    "3. ASSAULT HRS BDS 4\n"
    "AMBUSH BDS YRK\n"
    "RETREAT BDS HRS\n"
    "6. PROBE BDS YRK\n"
    "16. ORDER 2\n"
    "END\n"
    "--\n"
    "Alfred\n";

const char kMixedFile[] =
    "GAME dark-7\n"
    "PLAYER WSX Wyvern-42q\n"
    "TURN 3\n"
    "# Wessex, turn 3\n"
    "1. LEVY LON 2\n"
    "2. MOVE LNS HRS AB-1\n"
    "3. PROBE LNS LON\n"
    "MOVVE HRS BDS\n"
    "5) AMBUSH HRS BDS\n"
    "RETREAT HRS YRK\n"
    "DEFEND LON\n"
    "ORDER 3\n"
    "END\n";

const char kMixedAck[] =
    "Orders for game dark-7, turn 3, player WSX\n"
    "\n"
    "GAME dark-7\n"
    "PLAYER WSX ********\n"
    "\n"
    "line  action  result    order\n"
    "   5       1  ok        1. LEVY LON 2\n"
    "   6       2  ok        2. MOVE LNS HRS AB-1\n"
    "   7       3  rejected  3. PROBE LNS LON\n"
    "   8       4  rejected  MOVVE HRS BDS\n"
    "   9       5  ok        5) AMBUSH HRS BDS\n"
    "  10       6  rejected  RETREAT HRS YRK\n"
    "  11       7  ok        DEFEND LON\n"
    "  12       8  ok        ORDER 3\n"
    "\n"
    "line 7: PROBE is not allowed against a city (LON)\n"
    "line 8: unknown action \"MOVVE\"\n"
    "line 10: HRS and YRK are not adjacent\n"
    "\n"
    "5 accepted, 3 rejected\n";

TEST(OrderValidator, AcceptsACompleteValidFile) {
  const GameState s = small_state();
  PlainEngine engine;
  OrderAck ack = check_order_file(kValidFile, s, &engine);
  EXPECT_FALSE(ack.refused) << ack.refusal;
  EXPECT_EQ(ack.game, "dark-7");
  EXPECT_EQ(ack.player, "WSX");
  EXPECT_EQ(ack.turn, 3);
  EXPECT_EQ(ack.accepted_count(), 7);
  EXPECT_EQ(ack.rejected_count(), 0);
  ASSERT_EQ(ack.orders.size(), 7u);
  std::vector<int> slots;
  for (const Order& o : ack.orders) slots.push_back(o.action);
  EXPECT_EQ(slots, (std::vector<int>{1, 2, 3, 4, 5, 6, 16}));
  EXPECT_EQ(ack.orders[1].qty, (Quantity{Quantity::Kind::kAllBut, 1}));
  EXPECT_EQ(ack.orders[1].text, "MOVE LNS HRS AB-1");  // without its action number
  EXPECT_EQ(render_ack_text(ack).find(kSecret), std::string::npos);
}

TEST(OrderValidator, RejectedLinesAndTheirAcknowledgement) {
  const GameState s = small_state();
  OrderAck ack = check_order_file(kMixedFile, s, nullptr);
  EXPECT_FALSE(ack.refused);
  EXPECT_EQ(ack.accepted_count(), 5);
  EXPECT_EQ(ack.rejected_count(), 3);
  EXPECT_EQ(render_ack_text(ack), kMixedAck);
}

TEST(OrderValidator, GrammarDocumentShowsTheRealExamples) {
  const std::string doc = read_source_file("schemas/orders/grammar.md");
  ASSERT_FALSE(doc.empty());
  EXPECT_NE(doc.find(kValidFile), std::string::npos);
  EXPECT_NE(doc.find(kMixedFile), std::string::npos);
  EXPECT_NE(doc.find(kMixedAck), std::string::npos);
}

TEST(OrderValidator, GiftToYourselfIsRejected) {
  OrderAck ack = check_order_file(header() + "GIFT WSX 3\nGIFT MRC 3\n", small_state(), nullptr);
  ASSERT_EQ(ack.lines.size(), 2u);  // the order lines (headers get no line result)
  EXPECT_FALSE(ack.lines[0].accepted);
  EXPECT_EQ(ack.lines[0].reason, "you cannot give BPs to yourself");
  EXPECT_TRUE(ack.lines[1].accepted);
  ASSERT_EQ(ack.orders.size(), 1u);
  EXPECT_EQ(ack.orders[0].to, "MRC");
}

TEST(OrderValidator, AcceptedOrdersComeInActionOrder) {
  OrderAck ack = check_order_file(header() + "DEFEND HRS\n9. LEVY LON\nbad\nORDER 1\n",
                                  small_state(), nullptr);
  ASSERT_EQ(ack.orders.size(), 3u);
  EXPECT_EQ(ack.orders[0].action, 1);
  EXPECT_EQ(ack.orders[1].action, 9);
  EXPECT_EQ(ack.orders[2].action, 11);
}

struct RefusalCase {
  std::string text;
  std::string refusal;
};

TEST(OrderValidator, RefusesTheWholeFile) {
  const GameState s = small_state();
  const std::vector<RefusalCase> cases = {
      {"GAME dark-8\nPLAYER WSX Wyvern-42q\nDEFEND HRS\n",
       "this file is for game dark-8, not dark-7"},
      {"PLAYER WSX Wyvern-42q\nDEFEND HRS\n", "the file has no GAME line (GAME <game-id>)"},
      {"GAME dark-7\nDEFEND HRS\n", "the file has no PLAYER line (PLAYER <player-code> <secret>)"},
      {"GAME dark-7\nPLAYER NOR Wyvern-42q\nDEFEND HRS\n", "there is no player NOR in game dark-7"},
      {"GAME dark-7\nPLAYER WSX wyvern-42q\nDEFEND HRS\n", "the secret for player WSX is wrong"},
      {"GAME dark-7\nPLAYER WSX m3rc1a\nDEFEND HRS\n", "the secret for player WSX is wrong"},
      {"GAME dark-7\nPLAYER WSX Wyvern-42\nDEFEND HRS\n", "the secret for player WSX is wrong"},
      {"GAME dark-7\nPLAYER WSX Wyvern-42qq\nDEFEND HRS\n", "the secret for player WSX is wrong"},
      {"GAME dark-7\nPLAYER WSX Wyvern-42q\nTURN 2\nDEFEND HRS\n",
       "orders are for turn 2; turn 3 is open"},
      {"GAME dark-7\nPLAYER WSX Wyvern-42q\nTURN 4\nDEFEND HRS\n",
       "orders are for turn 4; turn 3 is open"},
      {"GAME dark-7\nPLAYER WSX Wyvern-42q\nGAME dark-9\nDEFEND HRS\n",
       "line 3: GAME \"dark-9\" differs from GAME \"dark-7\" on line 1"},
      {"GAME dark-7\nPLAYER WSX Wyvern-42q\nTURN x\n", "line 3: \"x\" is not a turn number"},
      {"",
       "the file has no GAME line (GAME <game-id>); the file has no PLAYER line "
       "(PLAYER <player-code> <secret>)"},
  };
  for (const RefusalCase& c : cases) {
    SCOPED_TRACE(c.text);
    OrderAck ack = check_order_file(c.text, s, nullptr);
    EXPECT_TRUE(ack.refused);
    EXPECT_EQ(ack.refusal, c.refusal);
    EXPECT_TRUE(ack.orders.empty());
    EXPECT_EQ(ack.accepted_count(), 0);
    for (const LineResult& l : ack.lines) EXPECT_FALSE(l.accepted);
    const std::string text = render_ack_text(ack);
    EXPECT_NE(text.find("Refused: " + c.refusal + "\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("accepted"), std::string::npos) << text;
    for (const char* secret : {kSecret, kOtherSecret, "wyvern-42q", "Wyvern-42qq"}) {
      EXPECT_EQ(ack.refusal.find(secret), std::string::npos);
      EXPECT_EQ(text.find(secret), std::string::npos) << text;
      EXPECT_EQ(to_json(ack).dump().find(secret), std::string::npos);
    }
  }
}

TEST(OrderValidator, GameIdIsComparedCaseInsensitively) {
  OrderAck ack = check_order_file("game DARK-7\nPLAYER wsx Wyvern-42q\nturn 3\nDEFEND HRS\n",
                                  small_state(), nullptr);
  EXPECT_FALSE(ack.refused) << ack.refusal;
  EXPECT_EQ(ack.game, "DARK-7");
  EXPECT_EQ(ack.player, "WSX");
  EXPECT_EQ(ack.accepted_count(), 1);
}

TEST(OrderValidator, WrongSecretRefusalEchoesTheLinesButNeverASecret) {
  const std::string given = "Tr0ub4dor";
  OrderAck ack = check_order_file("GAME dark-7\nPLAYER WSX " + given + "\nMOVE HRS BDS # " + given +
                                      "\nDEFEND HRS " + given + "\n",
                                  small_state(), nullptr);
  ASSERT_TRUE(ack.refused);
  EXPECT_EQ(ack.refusal, "the secret for player WSX is wrong");
  const std::string text = render_ack_text(ack);
  // The PLAYER line's secret field is masked; the order lines are echoed as the sender wrote them.
  EXPECT_EQ(text,
            "Orders for game dark-7, player WSX\n"
            "\n"
            "GAME dark-7\n"
            "PLAYER WSX ********\n"
            "\n"
            "line  action  order\n"
            "   3       1  MOVE HRS BDS\n"
            "   4       2  DEFEND HRS Tr0ub4dor\n"
            "\n"
            "Refused: the secret for player WSX is wrong\n");
  const std::string json = to_json(ack).dump();
  EXPECT_EQ(text.find(kSecret), std::string::npos);
  EXPECT_EQ(json.find(kSecret), std::string::npos);
}

// Regression (issue 10): a refused file whose lines are candidate words used to come back with
// the *real* secret masked, so one request told which candidate was the secret.
TEST(OrderValidator, RefusalNeverDependsOnTheRealSecret) {
  const std::vector<std::string> candidates = {"Dragon-1",  kOtherSecret, kSecret,
                                               "Wyvern-42", "wyvern-42q", "Wyvern-42qq"};
  std::string file = header("a-wrong-guess");
  for (const std::string& c : candidates) file += "DEFEND HRS " + c + "\n";
  const OrderAck ack = check_order_file(file, small_state(), nullptr);
  ASSERT_TRUE(ack.refused);
  ASSERT_EQ(ack.lines.size(), candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i)
    EXPECT_EQ(ack.lines[i].text, "DEFEND HRS " + candidates[i]) << i;
  const std::string text = render_ack_text(ack);
  EXPECT_EQ(text.find("HRS ********"), std::string::npos) << text;

  // The same file with the real secret's line replaced gives the same answer, word for word.
  std::string other = file;
  other.replace(other.find(std::string("HRS ") + kSecret + "\n"), 4 + sizeof(kSecret) - 1,
                "HRS Zzzzzzzzzz");
  std::string expected = render_ack_text(check_order_file(other, small_state(), nullptr));
  expected.replace(expected.find("Zzzzzzzzzz"), 10, kSecret);
  EXPECT_EQ(text, expected);
}

// Issue 11: only the PLAYER line's secret field is masked, never the same text elsewhere.
TEST(OrderValidator, OnlyThePlayerLinesSecretIsMasked) {
  GameState s = small_state();
  s.find_player("WSX")->secret = "wrong";
  OrderAck ack =
      check_order_file("GAME dark-7\nPLAYER WSX wrong\nDEFEND wrong\nLEVY LON\n", s, nullptr);
  ASSERT_FALSE(ack.refused) << ack.refusal;
  ASSERT_EQ(ack.lines.size(), 2u);
  EXPECT_EQ(ack.lines[0].text, "DEFEND wrong");
  EXPECT_EQ(ack.lines[0].reason, "unknown area \"WRONG\"");
  const std::string text = render_ack_text(ack);
  EXPECT_NE(text.find("PLAYER WSX ********\n"), std::string::npos) << text;
  EXPECT_NE(text.find("DEFEND wrong"), std::string::npos) << text;

  ack = check_order_file("GAME dark-7\nPLAYER WSX nope\n", s, nullptr);
  ASSERT_TRUE(ack.refused);
  EXPECT_EQ(ack.refusal, "the secret for player WSX is wrong");
}

TEST(OrderValidator, EngineChecksKeywordArguments) {
  const GameState s = small_state();
  const std::string text = header() +
                           "ASSAULT HRS BDS 5 CARD 3\n"
                           "MOVE HRS BDS CARD 1\n"
                           "ASSAULT HRS BDS AIR 2\n"
                           "ASSAULT HRS BDS CARD 9\n"
                           "ASSAULT HRS YRK CARD 1\n"
                           "DEFEND HRS\n"
                           "DEFEND HRS CARD 1\n";
  PlainEngine plain;
  OrderAck ack = check_order_file(text, s, &plain);
  ASSERT_EQ(ack.lines.size(), 7u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_FALSE(ack.lines[i].accepted) << i;
    EXPECT_NE(ack.lines[i].reason.find("is not part of the orders of this game's rules (plain)"),
              std::string::npos)
        << ack.lines[i].reason;
  }
  // Map checks come before the engine's.
  EXPECT_EQ(ack.lines[4].reason, "HRS and YRK are not adjacent");
  EXPECT_TRUE(ack.lines[5].accepted);
  EXPECT_EQ(ack.lines[6].reason, "CARD is not part of the orders of this game's rules (plain)");

  CardEngine cards;
  ack = check_order_file(text, s, &cards);
  ASSERT_EQ(ack.lines.size(), 7u);
  EXPECT_TRUE(ack.lines[0].accepted) << ack.lines[0].reason;
  EXPECT_EQ(ack.lines[1].reason, "CARD is only for ASSAULT");
  EXPECT_EQ(ack.lines[2].reason, "AIR is not an option of this game");
  EXPECT_EQ(ack.lines[3].reason, "CARD must be 5 or less");
  EXPECT_EQ(ack.lines[4].reason, "HRS and YRK are not adjacent");
  EXPECT_TRUE(ack.lines[5].accepted);
  EXPECT_EQ(ack.lines[6].reason, "CARD is only for ASSAULT");
  ASSERT_EQ(ack.orders.size(), 2u);
  EXPECT_EQ(ack.orders[0].extras, (std::map<std::string, int>{{"CARD", 3}}));

  // Without an engine only the engine-independent checks run.
  ack = check_order_file(text, s, nullptr);
  EXPECT_EQ(ack.accepted_count(), 6);
}

TEST(OrderValidator, AnEngineThatThrowsOnlyRejectsTheLine) {
  ThrowingEngine engine;
  OrderAck ack = check_order_file(header() + "DEFEND HRS\n", small_state(), &engine);
  ASSERT_EQ(ack.lines.size(), 1u);
  EXPECT_FALSE(ack.lines[0].accepted);
  EXPECT_EQ(ack.lines[0].reason, "internal error checking this order: boom");
}

TEST(OrderValidator, JsonRoundTrip) {
  const GameState s = small_state();
  CardEngine engine;
  for (const std::string& text :
       {std::string(kValidFile), std::string(kMixedFile),
        header() + "ASSAULT HRS BDS AB-2 CARD 3\nbad \xFF line\n",
        std::string("GAME dark-7\nPLAYER WSX nope\nDEFEND HRS\n"), std::string()}) {
    SCOPED_TRACE(text);
    OrderAck ack = check_order_file(text, s, &engine);
    const nlohmann::json j = to_json(ack);
    Result<OrderAck> back = ack_from_json(nlohmann::json::parse(j.dump()));
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back->refused, ack.refused);
    EXPECT_EQ(back->refusal, ack.refusal);
    EXPECT_EQ(back->game, ack.game);
    EXPECT_EQ(back->player, ack.player);
    EXPECT_EQ(back->turn, ack.turn);
    EXPECT_EQ(back->lines, ack.lines);
    EXPECT_EQ(back->orders, ack.orders);
    EXPECT_EQ(to_json(*back), j);
    EXPECT_EQ(render_ack_text(*back), render_ack_text(ack));
  }
}

TEST(OrderValidator, JsonShape) {
  OrderAck ack = check_order_file(header() + "MOVE HRS BDS AB-2\nbad\n", small_state(), nullptr);
  const nlohmann::json j = to_json(ack);
  EXPECT_EQ(j["accepted"], 1);
  EXPECT_EQ(j["rejected"], 1);
  EXPECT_EQ(j["lines"][1]["reason"], "unknown action \"bad\"");
  EXPECT_EQ(j["orders"][0]["verb"], "MOVE");
  EXPECT_EQ(j["orders"][0]["qty"], (nlohmann::json{{"kind", "all_but"}, {"n", 2}}));
  EXPECT_FALSE(j.contains("refusal"));
}

TEST(OrderValidator, AckFromJsonRejectsBadInput) {
  EXPECT_FALSE(ack_from_json(nlohmann::json::array()).ok());
  EXPECT_FALSE(ack_from_json(nlohmann::json{{"refused", false}}).ok());
  nlohmann::json j = to_json(check_order_file(header() + "DEFEND HRS\n", small_state(), nullptr));
  j["orders"][0]["verb"] = "FLY";
  Result<OrderAck> r = ack_from_json(j);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  j["orders"][0]["verb"] = "DEFEND";
  j["orders"][0]["qty"]["kind"] = "some";
  EXPECT_FALSE(ack_from_json(j).ok());
  j["orders"][0]["qty"]["kind"] = "all";
  j["lines"][0]["line"] = "three";
  EXPECT_FALSE(ack_from_json(j).ok());
}

TEST(OrderValidator, BinaryNoiseIsRefused) {
  const GameState s = small_state();
  std::mt19937_64 rng(99);
  for (int round = 0; round < 20; ++round) {
    std::string noise(1 + rng() % 50000, '\0');
    for (char& c : noise) c = static_cast<char>(rng() & 0xFF);
    // Noise after a valid header: every noise line is rejected.
    for (const std::string& text : {noise, header() + noise}) {
      OrderAck ack = check_order_file(text, s, nullptr);
      EXPECT_TRUE(ack.refused || ack.accepted_count() == 0);
      EXPECT_TRUE(ack.orders.empty());
      EXPECT_NO_THROW((void)to_json(ack).dump());
      EXPECT_NO_THROW((void)render_ack_text(ack));
    }
  }
}

TEST(OrderValidator, TwoMegabyteFileIsRefusedWhole) {
  std::string big = header();
  while (big.size() < 2 * 1024 * 1024) big += "MOVE HRS BDS 3\n";
  OrderAck ack = check_order_file(big, small_state(), nullptr);
  ASSERT_TRUE(ack.refused);
  EXPECT_EQ(ack.refusal, "the file is " + std::to_string(big.size()) +
                             " bytes; order files are limited to 262144 bytes");
  EXPECT_TRUE(ack.lines.empty());
  EXPECT_EQ(render_ack_text(ack), "Orders\n\nRefused: " + ack.refusal + "\n");
}

TEST(OrderValidator, ThousandRepeatedLines) {
  std::string text = header();
  for (int i = 0; i < 1000; ++i) text += "MOVE HRS BDS 1\n";
  OrderAck ack = check_order_file(text, small_state(), nullptr);
  EXPECT_FALSE(ack.refused);
  EXPECT_EQ(ack.accepted_count(), 16);
  EXPECT_EQ(ack.rejected_count(), 984);
  EXPECT_EQ(ack.lines.back().reason, "too many actions: this game allows 16 per turn");
  EXPECT_NE(render_ack_text(ack).find("line 1002: too many actions: this game allows 16 per turn"),
            std::string::npos);
}

TEST(OrderValidator, ActionsPerTurnComesFromTheGameRules) {
  GameState s = small_state();
  s.rules.actions_per_turn = 2;
  OrderAck ack = check_order_file(header() + "DEFEND HRS\nDEFEND BDS\nDEFEND YRK\n", s, nullptr);
  EXPECT_EQ(ack.accepted_count(), 2);
  EXPECT_EQ(ack.lines[2].reason, "too many actions: this game allows 2 per turn");
}

TEST(OrderValidator, EmptyOrderListIsAccepted) {
  OrderAck ack = check_order_file(header(), small_state(), nullptr);
  EXPECT_FALSE(ack.refused);
  EXPECT_EQ(render_ack_text(ack),
            "Orders for game dark-7, turn 3, player WSX\n\nGAME dark-7\nPLAYER WSX ********\n\n"
            "0 accepted, 0 rejected\n");
}

}  // namespace
}  // namespace adj
