#include "server/render/state_map.h"

#include "server/render/turn_map.h"

namespace adj::render {
namespace {

// Drawn text is laid out by pango, whose time grows with its length (a 20 KB player name in
// the legend took seconds): every "name" in the state is cut to this many bytes, every other
// text the map draws ("code", "terrain", "kind", "owner", "hinterland") to kMaxCodeBytes, at a
// UTF-8 character boundary. Codes and the references to them are cut alike, so they still match.
constexpr std::size_t kMaxNameBytes = 200, kMaxCodeBytes = 64;

void cut(nlohmann::json& v, std::size_t max) {
  if (!v.is_string()) return;
  std::string& s = v.get_ref<std::string&>();
  if (s.size() <= max) return;
  std::size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  s.resize(n);
  s += "\xE2\x80\xA6";  // …
}

void cut_texts(nlohmann::json& v) {
  if (v.is_array()) {
    for (auto& e : v) cut_texts(e);
  } else if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (it.key() == "name") cut(it.value(), kMaxNameBytes);
      for (const char* k : {"code", "terrain", "kind", "owner", "hinterland"})
        if (it.key() == k) cut(it.value(), kMaxCodeBytes);
      cut_texts(it.value());
    }
  }
}

// The state without what only the server may know: the same fields as route::public_state
// (server/web/route_util.cc) drops. That one is not called here because route_util.cc also
// holds the HTTP helpers, which would tie this library to server/http.
nlohmann::json without_secrets(nlohmann::json st) {
  st.erase("seed");
  if (st.contains("players") && st["players"].is_array())
    for (auto& p : st["players"])
      if (p.is_object()) {
        p.erase("secret");
        p.erase("email");
        p.erase("engine_state");
      }
  return st;
}

}  // namespace

nlohmann::json drawable_state(const nlohmann::json& state) {
  nlohmann::json st = without_secrets(state);
  cut_texts(st);
  return st;
}

Result<std::string> state_map_png(const nlohmann::json& state, const PngLimits& limits,
                                  std::size_t max_png_bytes) {
  auto map = prepare_turn_map(state, limits, max_png_bytes);
  if (!map.ok()) return map.status();
  const auto r = state.find("report");
  return (*map)->png(r != state.end() ? &*r : nullptr);
}

TurnPainter map_painter(PngLimits limits, std::size_t max_png_bytes) {
  return [limits, max_png_bytes](const nlohmann::json& state) -> Result<PlayerPainter> {
    auto map = prepare_turn_map(state, limits, max_png_bytes);
    if (!map.ok()) return map.status();
    return PlayerPainter(
        [map = std::move(map).value()](const nlohmann::json* report) { return map->png(report); });
  };
}

TurnPainter mail_map_painter(const std::string& maps, const std::string& style) {
  if (maps == "off") return {};
  return map_painter(style == "full" ? kFullMailMapLimits : kMailMapLimits);
}

}  // namespace adj::render
