#include "server/render/map_png.h"

#include <algorithm>
#include <cstdint>

#include "server/render/map_raster.h"

namespace adj::render {

Result<std::string> svg_to_png(std::string_view svg, const PngLimits& limits) {
  if (limits.max_width < 1 || limits.max_height < 1)
    return Status::InvalidArgument("svg_to_png: the pixel limits must be positive");
  auto doc = raster::Svg::load(svg, limits);
  if (!doc.ok()) return doc.status();
  const auto [w, h] = doc->pixel_size(limits);
  auto pixels = raster::Pixels::blank(w, h, limits.opaque);
  if (!pixels.ok()) return Status::Internal("svg_to_png: " + pixels.status().message());
  ADJ_RETURN_IF_ERROR(doc->draw(*pixels));
  return raster::encode_png(*pixels, h, limits.palette);
}

Result<std::pair<int, int>> png_size(std::string_view png) {
  static constexpr unsigned char kSig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (png.size() < 24 ||
      !std::equal(kSig, kSig + 8, png.begin(),
                  [](unsigned char a, char b) { return a == static_cast<unsigned char>(b); }) ||
      png.substr(12, 4) != "IHDR")
    return Status::InvalidArgument("png_size: not a PNG (no signature and IHDR chunk)");
  const auto be32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(png[at + i]);
    return v;
  };
  const std::uint32_t w = be32(16), h = be32(20);
  if (w == 0 || h == 0 || w > 0x7fffffffu || h > 0x7fffffffu)
    return Status::InvalidArgument("png_size: the IHDR size is out of range");
  return std::make_pair(static_cast<int>(w), static_cast<int>(h));
}

}  // namespace adj::render
