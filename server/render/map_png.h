// SVG to PNG with librsvg and cairo, the PNG written with zlib (map_raster.h: no filter, zlib
// level 3; with a palette of at most 256 colours unless PngLimits::palette is false): the map as
// an image for mail readers that cannot show SVG.
//
// Bounded: the input is at most PngLimits::max_svg_bytes and has no DOCTYPE or ENTITY
// declaration (so no entity expansion); the image is the SVG's intrinsic size (width/height,
// else its viewBox) scaled down, aspect ratio kept, to fit max_width x max_height pixels (scaled
// up only to PngLimits::min_width); librsvg loads no external resource (the document has no
// base URL) and keeps its own element and nesting limits (no RSVG_HANDLE_FLAG_UNLIMITED).
// Malformed input is an error Status naming what is wrong, never a crash. Time grows with the
// element count and the pixel count and a render cannot be interrupted: pass SVG this program
// made (the map, whose outside text is escaped), not arbitrary uploads.
//
// Thread-safety: may be called from several threads at once: each call has its own RsvgHandle,
// cairo surface and context (librsvg >= 2.46 and cairo image surfaces are safe used per call;
// text goes through pango's per-thread default font map). Deterministic: the same SVG and limits
// give the same bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "rules/core/status.h"

namespace adj::render {

struct PngLimits {
  int max_width = 1600;                  // pixels
  int max_height = 1600;                 // pixels
  std::size_t max_svg_bytes = 8u << 20;  // input size
  bool opaque = true;  // white under the SVG (mail readers in dark mode); false: transparent
  // The least width: a smaller SVG is scaled up to it (within max_width and max_height); 0 never
  // scales up.
  int min_width = 0;
  // An opaque image with at most 256 colours (PNG colour type 3: the most used colours, each
  // other drawn as the nearest of them; map_palette.h): a third to a quarter of the bytes of
  // true colour for a map. false: true colour, every pixel exact.
  bool palette = true;
  // For the maps (state_map_png, prepare_turn_map; svg_to_png ignores it): drawn in the flat
  // style (MapStyle::flat, svg_map.h), as report mails attach them.
  bool flat = false;
};

// The PNG bytes of `svg` rendered as described above. InvalidArgument when the input is empty,
// larger than max_svg_bytes, has a DOCTYPE or ENTITY declaration, is not SVG librsvg can read,
// or has no usable size (no width/height and no viewBox, or a zero, negative or non-finite
// one); Internal when librsvg cannot draw it or cairo fails (out of memory).
Result<std::string> svg_to_png(std::string_view svg, const PngLimits& limits = {});

// The width and height of a PNG from its IHDR chunk; InvalidArgument when `png` is not a PNG.
Result<std::pair<int, int>> png_size(std::string_view png);

}  // namespace adj::render
