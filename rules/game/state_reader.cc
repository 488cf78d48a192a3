#include "rules/game/state_reader.h"

#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace adj {

namespace {

// One pass over the text. Every reader returns false when the text leaves the subset this reader
// handles (state_reader.h); the caller then falls back to the tree.
class Reader {
 public:
  explicit Reader(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool state(GameState& s);

 private:
  void ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool eat(char c) {
    ws();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool at_null() {
    ws();
    if (end_ - p_ >= 4 && std::string_view(p_, 4) == "null") {
      p_ += 4;
      return true;
    }
    return false;
  }

  // A key without escapes or bytes outside printable ASCII (others: false).
  bool key(std::string_view& out);
  bool string(std::string& out);
  bool escape(std::string& out);
  bool integer(int& out);
  bool number(double& out);
  bool optional_string(std::optional<std::string>& out);
  // Any value, parsed by nlohmann from its own span ({} directly).
  bool json(Json& out);
  // Moves past one value without checking it (json() checks it).
  bool skip_extent();

  // {"k": v, ...}: member(key) reads each value (and catches duplicate keys with first()).
  template <typename Member>
  bool object(Member&& member);
  template <typename Element>
  bool array(Element&& element);
  // [v, ...] appended to `out`, each element read by read(out.back()).
  template <typename T, typename Read>
  bool list(std::vector<T>& out, Read&& read);

  bool player(Player& p);
  bool area(Area& a);
  bool edge(Edge& e);

  const char* p_;
  const char* end_;
};

// Bytes of the UTF-8 sequence at p that nlohmann's lexer accepts, 0 when it would refuse it.
int utf8_length(const char* p, const char* end) {
  const auto b = [&](int i) { return static_cast<unsigned char>(p[i]); };
  const auto in = [&](int i, unsigned lo, unsigned hi) {
    return p + i < end && b(i) >= lo && b(i) <= hi;
  };
  const unsigned c = b(0);
  if (c >= 0xC2 && c <= 0xDF) return in(1, 0x80, 0xBF) ? 2 : 0;
  if (c == 0xE0) return in(1, 0xA0, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
    return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
  if (c == 0xED) return in(1, 0x80, 0x9F) && in(2, 0x80, 0xBF) ? 3 : 0;
  if (c == 0xF0) return in(1, 0x90, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3)
    return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  if (c == 0xF4) return in(1, 0x80, 0x8F) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  return 0;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool hex4(const char* p, const char* end, std::uint32_t& out) {
  if (end - p < 4) return false;
  out = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = p[i];
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (d < 0) return false;
    out = out * 16 + static_cast<std::uint32_t>(d);
  }
  return true;
}

bool Reader::key(std::string_view& out) {
  if (!eat('"')) return false;
  const char* start = p_;
  while (p_ < end_) {
    const auto c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      out = std::string_view(start, static_cast<std::size_t>(p_ - start));
      ++p_;
      return true;
    }
    if (c == '\\' || c < 0x20 || c >= 0x80) return false;
    ++p_;
  }
  return false;
}

bool Reader::string(std::string& out) {
  if (!eat('"')) return false;
  out.clear();
  const char* run = p_;
  while (p_ < end_) {
    const auto c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      out.append(run, p_);
      ++p_;
      return true;
    }
    if (c < 0x20) return false;
    if (c == '\\') {
      out.append(run, p_);
      if (!escape(out)) return false;
      run = p_;
    } else if (c < 0x80) {
      ++p_;
    } else {
      const int n = utf8_length(p_, end_);
      if (n == 0) return false;
      p_ += n;
    }
  }
  return false;
}

bool Reader::escape(std::string& out) {
  if (end_ - p_ < 2) return false;
  const char c = p_[1];
  p_ += 2;
  switch (c) {
    case '"':
    case '\\':
    case '/':
      out += c;
      return true;
    case 'b':
      out += '\b';
      return true;
    case 'f':
      out += '\f';
      return true;
    case 'n':
      out += '\n';
      return true;
    case 'r':
      out += '\r';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'u':
      break;
    default:
      return false;
  }
  std::uint32_t cp = 0;
  if (!hex4(p_, end_, cp)) return false;
  p_ += 4;
  if (cp >= 0xDC00 && cp <= 0xDFFF) return false;
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    std::uint32_t low = 0;
    if (end_ - p_ < 6 || p_[0] != '\\' || p_[1] != 'u' || !hex4(p_ + 2, end_, low) ||
        low < 0xDC00 || low > 0xDFFF)
      return false;
    p_ += 6;
    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
  }
  append_utf8(out, cp);
  return true;
}

// An integer token in int range; false for fractions, exponents and anything else.
bool Reader::integer(int& out) {
  ws();
  bool negative = false;
  if (p_ < end_ && *p_ == '-') {
    negative = true;
    ++p_;
  }
  const char* digits = p_;
  std::int64_t v = 0;
  while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
    if (p_ - digits >= 11) return false;
    v = v * 10 + (*p_ - '0');
    ++p_;
  }
  if (p_ == digits || (*digits == '0' && p_ - digits > 1)) return false;
  if (p_ < end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
  if (negative) v = -v;
  if (v < INT_MIN || v > INT_MAX) return false;
  out = static_cast<int>(v);
  return true;
}

// A number as nlohmann reads it into a double: an integer token converted, otherwise strtod.
bool Reader::number(double& out) {
  ws();
  const char* start = p_;
  if (p_ < end_ && *p_ == '-') ++p_;
  const char* digits = p_;
  while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
  if (p_ == digits || (*digits == '0' && p_ - digits > 1)) return false;
  bool fraction = false;
  if (p_ < end_ && *p_ == '.') {
    fraction = true;
    const char* f = ++p_;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    if (p_ == f) return false;
  }
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    fraction = true;
    ++p_;
    if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
    const char* e = p_;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    if (p_ == e) return false;
  }
  const std::string token(start, p_);
  if (!fraction) {
    if (token.size() > 16) return false;  // nlohmann may read it as unsigned or as a double
    out = static_cast<double>(std::strtoll(token.c_str(), nullptr, 10));
    return true;
  }
  out = std::strtod(token.c_str(), nullptr);
  return std::isfinite(out);
}

bool Reader::optional_string(std::optional<std::string>& out) {
  if (at_null()) {
    out.reset();
    return true;
  }
  std::string s;
  if (!string(s)) return false;
  out = std::move(s);
  return true;
}

bool Reader::skip_extent() {
  ws();
  if (p_ >= end_) return false;
  const auto skip_string = [&] {
    for (++p_; p_ < end_; ++p_) {
      if (*p_ == '\\') {
        if (++p_ == end_) return false;
      } else if (*p_ == '"') {
        ++p_;
        return true;
      }
    }
    return false;
  };
  if (*p_ == '"') return skip_string();
  if (*p_ == '{' || *p_ == '[') {
    long depth = 0;
    while (p_ < end_) {
      const char c = *p_;
      if (c == '"') {
        if (!skip_string()) return false;
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') --depth;
      ++p_;
      if (depth == 0) return true;
    }
    return false;
  }
  while (p_ < end_ && *p_ != ',' && *p_ != '}' && *p_ != ']' && *p_ != ' ' && *p_ != '\n' &&
         *p_ != '\r' && *p_ != '\t')
    ++p_;
  return true;
}

bool Reader::json(Json& out) {
  ws();
  if (end_ - p_ >= 2 && p_[0] == '{' && p_[1] == '}') {
    p_ += 2;
    out = Json::object();
    return true;
  }
  const char* start = p_;
  if (!skip_extent()) return false;
  out = Json::parse(start, p_, nullptr, /*allow_exceptions=*/false);
  return !out.is_discarded();
}

template <typename Member>
bool Reader::object(Member&& member) {
  if (!eat('{')) return false;
  if (eat('}')) return true;
  for (;;) {
    std::string_view k;
    if (!key(k) || !eat(':') || !member(k)) return false;
    if (eat(',')) continue;
    return eat('}');
  }
}

template <typename Element>
bool Reader::array(Element&& element) {
  if (!eat('[')) return false;
  if (eat(']')) return true;
  for (;;) {
    if (!element()) return false;
    if (eat(',')) continue;
    return eat(']');
  }
}

template <typename T, typename Read>
bool Reader::list(std::vector<T>& out, Read&& read) {
  return array([&] {
    out.emplace_back();
    return read(out.back());
  });
}

// Marks `bit` in `seen`; false when it was already there (a duplicate key).
bool first(std::uint32_t& seen, std::uint32_t bit) {
  if (seen & bit) return false;
  seen |= bit;
  return true;
}

bool Reader::player(Player& p) {
  std::uint32_t seen = 0;
  bool has_nation = false;
  Json ignored;
  const bool ok = object([&](std::string_view k) {
    if (k == "code") return first(seen, 1u << 0) && string(p.code);
    if (k == "name") return first(seen, 1u << 1) && string(p.name);
    if (k == "email") return first(seen, 1u << 2) && string(p.email);
    if (k == "secret") return first(seen, 1u << 3) && string(p.secret);
    if (k == "nation") return (has_nation = true, first(seen, 1u << 4)) && string(p.nation);
    if (k == "bp") return first(seen, 1u << 5) && integer(p.bp);
    if (k == "treasury") return first(seen, 1u << 6) && integer(p.treasury);
    if (k == "vp") return first(seen, 1u << 7) && integer(p.vp);
    if (k == "reserve") return first(seen, 1u << 8) && integer(p.reserve);
    if (k == "engine_state") return first(seen, 1u << 9) && json(p.engine_state);
    return json(ignored);
  });
  if (!ok || !(seen & 1u)) return false;
  if (!has_nation) p.nation = p.code;
  return true;
}

bool Reader::area(Area& a) {
  std::uint32_t seen = 0;
  bool has_name = false;
  std::string word;
  Json ignored;
  const bool ok = object([&](std::string_view k) {
    if (k == "code") return first(seen, 1u << 0) && string(a.code);
    if (k == "name") return (has_name = true, first(seen, 1u << 1)) && string(a.name);
    if (k == "kind") {
      if (!first(seen, 1u << 2) || !string(word)) return false;
      a.kind = word == "city" ? AreaKind::kCity : word == "sea" ? AreaKind::kSea : AreaKind::kLand;
      return true;
    }
    if (k == "terrain") return first(seen, 1u << 3) && string(a.terrain);
    if (k == "hinterland") return first(seen, 1u << 4) && string(a.hinterland);
    if (k == "owner") return first(seen, 1u << 5) && optional_string(a.owner);
    if (k == "population") return first(seen, 1u << 6) && integer(a.population);
    if (k == "fort") return first(seen, 1u << 7) && integer(a.fort);
    if (k == "trade") return first(seen, 1u << 8) && integer(a.trade);
    if (k == "armies") return first(seen, 1u << 9) && integer(a.armies);
    if (k == "mode") {
      if (!first(seen, 1u << 10) || !string(word)) return false;
      a.mode = word == "defend"   ? DefenceMode::kDefend
               : word == "ambush" ? DefenceMode::kAmbush
                                  : DefenceMode::kRetreat;
      return true;
    }
    if (k == "retreat_to") return first(seen, 1u << 11) && optional_string(a.retreat_to);
    if (k == "ambush_against") return first(seen, 1u << 12) && optional_string(a.ambush_against);
    if (k == "x" || k == "y") {
      std::optional<double>& target = k == "x" ? a.x : a.y;
      if (!first(seen, k == "x" ? 1u << 13 : 1u << 14)) return false;
      if (at_null()) return true;
      double v = 0;
      if (!number(v)) return false;
      target = v;
      return true;
    }
    if (k == "features") return first(seen, 1u << 15) && json(a.features);
    if (k == "engine_state") return first(seen, 1u << 16) && json(a.engine_state);
    if (k == "outline") return first(seen, 1u << 17) && json(a.outline);
    return json(ignored);
  });
  if (!ok || !(seen & 1u)) return false;
  if (!has_name) a.name = a.code;
  return true;
}

bool Reader::edge(Edge& e) {
  int n = 0;
  Json ignored;
  const bool ok = array([&] {
    ++n;
    if (n == 1) return string(e.a);
    if (n == 2) return string(e.b);
    if (n == 3) return json(e.features);
    return json(ignored);
  });
  return ok && n >= 2;
}

bool Reader::state(GameState& s) {
  std::uint32_t seen = 0;
  Json ignored;
  const bool ok = object([&](std::string_view k) {
    if (k == "game") return first(seen, 1u << 0) && string(s.game_id);
    if (k == "name") return first(seen, 1u << 1) && string(s.name);
    if (k == "turn") return first(seen, 1u << 2) && integer(s.turn);
    if (k == "seed") {
      std::string text;
      if (!first(seen, 1u << 3) || !string(text) || text.empty()) return false;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), s.seed);
      return ec == std::errc() && end == text.data() + text.size();
    }
    if (k == "engine") {
      Json e;
      if (!first(seen, 1u << 4) || !json(e)) return false;
      Result<EngineSpec> spec = engine_spec_from_json(e);
      if (!spec.ok()) return false;
      s.engine = std::move(spec).value();
      return true;
    }
    if (k == "rules") {
      Json r;
      if (!first(seen, 1u << 5) || !json(r)) return false;
      Result<RulesConfig> rules = rules_from_json(r);
      if (!rules.ok()) return false;
      s.rules = std::move(rules).value();
      return true;
    }
    if (k == "players")
      return first(seen, 1u << 6) && list(s.players, [&](Player& p) { return player(p); });
    if (k == "areas")
      return first(seen, 1u << 7) && list(s.areas, [&](Area& a) { return area(a); });
    if (k == "adjacency")
      return first(seen, 1u << 8) && list(s.edges, [&](Edge& e) { return edge(e); });
    if (k == "order_of_play")
      return first(seen, 1u << 9) &&
             list(s.order_of_play, [&](std::string& code) { return string(code); });
    if (k == "scenario_extra") return first(seen, 1u << 10) && json(s.scenario_extra);
    return json(ignored);
  });
  ws();
  constexpr std::uint32_t kRequired = (1u << 9) - 1;  // game .. adjacency
  return ok && p_ == end_ && (seen & kRequired) == kRequired;
}

}  // namespace

std::optional<GameState> read_state_direct(std::string_view text) {
  GameState s;
  Reader r(text);
  if (!r.state(s)) return std::nullopt;
  s.normalise();
  return s;
}

}  // namespace adj
