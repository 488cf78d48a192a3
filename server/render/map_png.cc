#include "server/render/map_png.h"

#include <cairo.h>
#include <librsvg/rsvg.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>

namespace adj::render {
namespace {

struct GObjectUnref {
  void operator()(void* p) const {
    if (p) g_object_unref(p);
  }
};
struct SurfaceDestroy {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct CairoDestroy {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
};

// The message of a GError (freed), or `fallback` when there is none.
std::string take_error(GError* e, const char* fallback) {
  if (!e) return fallback;
  std::string m = e->message ? e->message : fallback;
  g_error_free(e);
  if (m.size() > 200) m.resize(200);
  return m;
}

// The SVG's size in pixels: width/height when absolute, else the viewBox's; nullopt when
// neither is usable.
std::optional<std::pair<double, double>> intrinsic_size(RsvgHandle* h) {
  double w = 0, h_px = 0;
  if (rsvg_handle_get_intrinsic_size_in_pixels(h, &w, &h_px) && std::isfinite(w) &&
      std::isfinite(h_px) && w > 0 && h_px > 0)
    return std::make_pair(w, h_px);
  gboolean has_w = FALSE, has_h = FALSE, has_vb = FALSE;
  RsvgLength lw{}, lh{};
  RsvgRectangle vb{};
  rsvg_handle_get_intrinsic_dimensions(h, &has_w, &lw, &has_h, &lh, &has_vb, &vb);
  if (has_vb && std::isfinite(vb.width) && std::isfinite(vb.height) && vb.width > 0 &&
      vb.height > 0)
    return std::make_pair(vb.width, vb.height);
  return std::nullopt;
}

cairo_status_t append_png(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

}  // namespace

Result<std::string> svg_to_png(std::string_view svg, const PngLimits& limits) {
  if (limits.max_width < 1 || limits.max_height < 1)
    return Status::InvalidArgument("svg_to_png: the pixel limits must be positive");
  if (svg.empty()) return Status::InvalidArgument("svg_to_png: the SVG is empty");
  if (svg.size() > limits.max_svg_bytes)
    return Status::InvalidArgument("svg_to_png: the SVG is " + std::to_string(svg.size()) +
                                   " bytes, over the limit of " +
                                   std::to_string(limits.max_svg_bytes));
  // No DTD: the map never has one, and entities are where XML parsers go wrong (expansion bombs,
  // external entities; librsvg 2.54 also leaks entity declarations).
  if (svg.find("<!DOCTYPE") != std::string_view::npos ||
      svg.find("<!ENTITY") != std::string_view::npos)
    return Status::InvalidArgument("svg_to_png: a DOCTYPE or ENTITY declaration is not accepted");
  GError* error = nullptr;
  std::unique_ptr<RsvgHandle, GObjectUnref> handle(
      rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg.data()), svg.size(), &error));
  if (!handle)
    return Status::InvalidArgument("svg_to_png: not a readable SVG: " +
                                   take_error(error, "librsvg could not load it"));
  if (error) g_error_free(error);
  rsvg_handle_set_dpi(handle.get(), 96);
  const auto size = intrinsic_size(handle.get());
  if (!size)
    return Status::InvalidArgument(
        "svg_to_png: the SVG has no usable size (absolute width and height, or a viewBox)");
  const auto [w, h] = *size;
  const double up = limits.min_width > 0 ? std::max(1.0, limits.min_width / w) : 1.0;
  const double scale = std::min({up, limits.max_width / w, limits.max_height / h});
  const int out_w = std::clamp(static_cast<int>(std::lround(w * scale)), 1, limits.max_width);
  const int out_h = std::clamp(static_cast<int>(std::lround(h * scale)), 1, limits.max_height);

  std::unique_ptr<cairo_surface_t, SurfaceDestroy> surface(
      cairo_image_surface_create(CAIRO_FORMAT_ARGB32, out_w, out_h));
  if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
    return Status::Internal("svg_to_png: cairo could not make a " + std::to_string(out_w) + "x" +
                            std::to_string(out_h) + " image");
  std::unique_ptr<cairo_t, CairoDestroy> cr(cairo_create(surface.get()));
  if (limits.opaque) {
    cairo_set_source_rgb(cr.get(), 1, 1, 1);
    cairo_paint(cr.get());
  }
  const RsvgRectangle viewport{0, 0, static_cast<double>(out_w), static_cast<double>(out_h)};
  if (!rsvg_handle_render_document(handle.get(), cr.get(), &viewport, &error))
    return Status::Internal("svg_to_png: librsvg could not draw the SVG: " +
                            take_error(error, "no reason given"));
  if (cairo_status(cr.get()) != CAIRO_STATUS_SUCCESS)
    return Status::Internal(std::string("svg_to_png: cairo: ") +
                            cairo_status_to_string(cairo_status(cr.get())));
  cairo_surface_flush(surface.get());
  std::string png;
  if (cairo_surface_write_to_png_stream(surface.get(), append_png, &png) != CAIRO_STATUS_SUCCESS)
    return Status::Internal("svg_to_png: cairo could not write the PNG");
  return png;
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
