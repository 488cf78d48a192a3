// Pixels for the PNG map (map_png.h, turn_map.h): an SVG checked, loaded and drawn by librsvg
// into cairo's premultiplied ARGB32 pixels, layers stacked, and the PNG written with zlib.
// Internal to server/render; not for other folders (but for the benchmark that times the writer).
//
// Thread-safety: nothing of this file's is shared between calls (draw_texts uses cairo's and
// fontconfig's process-wide font and glyph caches, which lock themselves); a const Pixels may be
// read (stacked onto another, encoded) from several threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rules/core/status.h"
#include "server/render/map_palette.h"
#include "server/render/map_png.h"

namespace adj::render::raster {

// width x height pixels, cairo's CAIRO_FORMAT_ARGB32 (premultiplied, native-endian 0xAARRGGBB),
// rows of `stride` bytes.
struct Pixels {
  int width = 0, height = 0, stride = 0;
  std::vector<unsigned char> data;
  // `w` x `h` (both >= 1) of white (`opaque`) or transparent; Internal when cairo cannot make a
  // surface that big.
  static Result<Pixels> blank(int w, int h, bool opaque);
  const std::uint32_t* row(int y) const {
    return reinterpret_cast<const std::uint32_t*>(data.data() +
                                                  static_cast<std::size_t>(y) * stride);
  }
  // Whether every pixel of rows [y0, y1) is fully transparent / every pixel is opaque.
  bool clear(int y0, int y1) const;
  bool opaque() const;
};

// An SVG loaded by librsvg after the checks of svg_to_png (map_png.h: size, no DOCTYPE or
// ENTITY, a usable size); errors are svg_to_png's.
class Svg {
 public:
  static Result<Svg> load(std::string_view svg, const PngLimits& limits);
  // The pixel size svg_to_png draws it at under `limits`.
  std::pair<int, int> pixel_size(const PngLimits& limits) const;
  // Draws the document over `into`, scaled to its whole size.
  Status draw(Pixels& into) const;

 private:
  struct Unref {
    void operator()(void* p) const;
  };
  std::unique_ptr<void, Unref> handle_;  // RsvgHandle
  double width_ = 0, height_ = 0;
};

// A line of text drawn by cairo itself (draw_texts), apart from any SVG: the flat map's labels
// (turn_map.h). (x, y): where its baseline starts, or its middle when `middle`; in SVG units.
struct Text {
  double x = 0, y = 0, size = 10;
  bool bold = false, italic = false, middle = true;
  std::uint32_t rgb = 0x1a1a1a;  // 0xRRGGBB
  std::string text;              // UTF-8, not escaped
};
// Whether draw_texts draws `text` as librsvg would: cairo's own text has one font and neither
// shaping nor fallback fonts, so only text whose every code point is below U+0590 (Latin, Greek,
// Cyrillic, Armenian) or general punctuation (U+2000-U+206F: the ellipsis) is drawn apart;
// other text stays in the SVG.
bool drawable_text(std::string_view text);
// Draws `texts` over `into` in sans-serif (fontconfig's choice, the font librsvg draws the SVG's
// text in), their units scaled by `scale` pixels (a font's size to a quarter pixel), crisp: hinted
// to whole pixels and without anti-aliasing. cairo keeps each glyph drawn once (librsvg 2.48 fills
// every glyph as a path: about 15 times the time). Internal when cairo fails.
Status draw_texts(Pixels& into, const std::vector<Text>& texts, double scale);

// Paints `top` (the same size as `into`) over rows [y0, y1) of `into`.
void stack(Pixels& into, const Pixels& top, int y0, int y1);

// The PNG is written without filters (the maps' hatching and waves defeat them: measured bigger
// and slower, docs/performance.md) at this zlib level, in bands of kBandRows rows, each deflated
// on its own (no band refers to another's bytes), so that an image differing from another in a
// few bands reuses the other's deflated bands.
inline constexpr int kPngZlibLevel = 3;
inline constexpr int kBandRows = 64;

// One band deflated: raw deflate ending in a sync flush, its bytes' Adler-32 and length.
struct Band {
  std::string deflated;
  std::uint32_t adler = 1;
  std::size_t raw = 0;
};

// How an image's pixels are written: RGB, unpremultiplied RGBA (`alpha`), or an entry of
// `palette` each (an opaque image; the palette outlives the encoding).
struct Encoding {
  bool alpha = false;
  const Palette* palette = nullptr;
};

// Band `b` of rows [b * kBandRows, min(+kBandRows, rows)) of `p` as PNG scanlines written as
// `e` says, deflated at zlib `level`.
Result<Band> deflate_band(const Pixels& p, int b, int rows, Encoding e, int level = kPngZlibLevel);
// The PNG of an image `width` x `rows` from its bands in order, written as `e` says.
Result<std::string> assemble_png(int width, int rows, Encoding e,
                                 const std::vector<const Band*>& bands);
// The PNG of the first `rows` rows of `p`: RGBA when a pixel is not opaque; else with a palette
// (Palette::of, kMost colours) when `palette` and the image has at most Palette::kMostDistinct
// colours, RGB when not.
Result<std::string> encode_png(const Pixels& p, int rows, bool palette, int level = kPngZlibLevel);

}  // namespace adj::render::raster
