#include "rules/world/world_names.h"

#include <array>
#include <cctype>
#include <string_view>
#include <vector>

namespace adj::world {

namespace {

constexpr std::array<std::string_view, 56> kStarts = {
    "Ash", "Bel",  "Bran", "Cal", "Dun",  "El",   "Fen", "Gal",  "Hal",  "Ir",   "Kel", "Lor",
    "Mar", "Nor",  "Ost",  "Pen", "Quen", "Ros",  "Sal", "Tor",  "Ul",   "Val",  "Wen", "Yar",
    "Zel", "Ard",  "Bryn", "Cor", "Drum", "Eld",  "Fal", "Glen", "Hart", "Isen", "Kil", "Lan",
    "Mor", "Nant", "Oak",  "Pol", "Rath", "Stan", "Tre", "Whit", "Wy",   "Ald",  "Bar", "Car",
    "Dal", "Esk",  "Gwyn", "Hol", "Lyn",  "Mal",  "Sil", "Thorn"};
constexpr std::array<std::string_view, 10> kMiddles = {"",  "",  "",  "",   "a",
                                                       "e", "i", "o", "an", "er"};
constexpr std::array<std::string_view, 32> kLandEnds = {
    "ford",  "mere",  "wick",  "ton",  "by",     "dale",  "holm",  "mont",
    "stead", "moor",  "wood",  "burn", "gate",   "crest", "fell",  "haven",
    "marsh", "reach", "field", "ley",  "thorpe", "stow",  "combe", "den",
    "garth", "march", "hurst", "well", "rigg",   "shaw",  "vale",  "heath"};
constexpr std::array<std::string_view, 8> kCityEnds = {"bury",    "chester", "caster", "borough",
                                                       "minster", "port",    "hall",   "keep"};
constexpr std::array<std::string_view, 7> kKingdomEnds = {"land", "mark", "ia",  "mere",
                                                          "dor",  "gard", "wald"};
constexpr std::array<std::string_view, 6> kSeaForms = {"Sea of ", "Gulf of ", "Bay of ",
                                                       " Sound",  " Deep",    " Water"};
constexpr std::array<std::string_view, 6> kQualifiers = {"North ", "South ", "East ",
                                                         "West ",  "Upper ", "Lower "};

template <std::size_t N>
std::string_view pick(Rng& rng, const std::array<std::string_view, N>& a) {
  return a[rng.uniform(static_cast<std::uint32_t>(N))];
}

}  // namespace

std::string NameBook::root() {
  std::string s(pick(rng_, kStarts));
  s += pick(rng_, kMiddles);
  return s;
}

std::string NameBook::name(NameKind kind) {
  for (int attempt = 0;; ++attempt) {
    std::string n;
    switch (kind) {
      case NameKind::kLand:
        n = root() + std::string(pick(rng_, kLandEnds));
        break;
      case NameKind::kCity:
        n = root() + std::string(pick(rng_, kCityEnds));
        break;
      case NameKind::kKingdom:
        n = root() + std::string(pick(rng_, kKingdomEnds));
        break;
      case NameKind::kSea: {
        const std::string_view form = pick(rng_, kSeaForms);
        const std::string r = std::string(pick(rng_, kStarts));
        n = form.front() == ' ' ? r + std::string(form) : std::string(form) + r;
        break;
      }
    }
    // Past a few collisions the plain forms are running out: qualify, then number.
    if (attempt >= 8) n = std::string(pick(rng_, kQualifiers)) + n;
    if (attempt >= 32) n += " " + std::to_string(attempt);
    // A doubled letter where the parts meet reads badly ("Tornnford"): collapse three in a row.
    std::string out;
    for (char c : n)
      if (out.size() < 2 || !(out[out.size() - 1] == c && out[out.size() - 2] == c)) out += c;
    if (names_.insert(out).second) return out;
  }
}

std::string NameBook::code(const std::string& name) {
  std::string letters;
  for (char c : name)
    if (std::isalpha(static_cast<unsigned char>(c)))
      letters += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // Qualified names ("North Ashford") take their letters from the root name first.
  if (const auto sp = name.rfind(' '); sp != std::string::npos && sp + 1 < name.size()) {
    std::string root;
    for (char c : name.substr(sp + 1))
      if (std::isalpha(static_cast<unsigned char>(c)))
        root += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (root.size() >= 3) letters = root + letters;
  }
  if (letters.empty()) letters = "X";
  const std::size_t n = std::min<std::size_t>(letters.size(), 12);
  for (std::size_t i = 1; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const std::string c = {letters[0], letters[i], letters[j]};
      if (take_code(c)) return c;
    }
  for (std::size_t i = 1; i < n; ++i)
    for (char d = '2'; d <= '9'; ++d) {
      const std::string c = {letters[0], letters[i], d};
      if (take_code(c)) return c;
    }
  for (;;) {
    std::string c(1, letters[0]);
    for (int k = 0; k < 3; ++k) c += static_cast<char>('A' + rng_.uniform(26));
    if (take_code(c)) return c;
  }
}

}  // namespace adj::world
