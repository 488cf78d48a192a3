// The text helpers the map's layers share (map_render_internal.h): UTF-8 lengths, shortening
// with an ellipsis, and the glyph name of an area symbol.
#include "server/render/map_render_internal.h"

namespace adj::render::mapdraw {

std::size_t utf8_length(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string shorten(const std::string& s, std::size_t max) {
  if (utf8_length(s) <= max) return s;
  std::size_t n = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n++ == max - 1) break;
  }
  return s.substr(0, i) + "\u2026";
}

std::string symbol_name(const std::string& sym) { return sym.rfind("vp:", 0) == 0 ? "vp" : sym; }

}  // namespace adj::render::mapdraw
