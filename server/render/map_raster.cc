#include "server/render/map_raster.h"

#include <cairo.h>
#include <librsvg/rsvg.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

namespace adj::render::raster {
namespace {

struct SurfaceDestroy {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct CairoDestroy {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
};
using Surface = std::unique_ptr<cairo_surface_t, SurfaceDestroy>;
using Context = std::unique_ptr<cairo_t, CairoDestroy>;

// A cairo surface over rows [y0, y1) of `p` (cairo only reads it when it is a source).
Surface surface_of(const Pixels& p, int y0, int y1) {
  auto* data = const_cast<unsigned char*>(p.data.data()) + static_cast<std::size_t>(y0) * p.stride;
  return Surface(
      cairo_image_surface_create_for_data(data, CAIRO_FORMAT_ARGB32, p.width, y1 - y0, p.stride));
}

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

void put_be32(std::string& s, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s += static_cast<char>((v >> shift) & 0xff);
}

void put_chunk(std::string& png, const char* type, std::string_view data) {
  put_be32(png, static_cast<std::uint32_t>(data.size()));
  const std::size_t at = png.size();
  png += type;
  png += data;
  const auto* p = reinterpret_cast<const Bytef*>(png.data() + at);
  put_be32(png, static_cast<std::uint32_t>(crc32(0, p, static_cast<uInt>(png.size() - at))));
}

// One row of `p` as a PNG scanline without filter: 0, then RGB, unpremultiplied RGBA, or palette
// entries (`index`).
void scanline(const Pixels& p, int y, bool alpha, Indexer* index, unsigned char* out) {
  *out++ = 0;
  const std::uint32_t* px = p.row(y);
  if (index) {
    for (int x = 0; x < p.width; ++x) *out++ = (*index)(px[x]);
    return;
  }
  for (int x = 0; x < p.width; ++x) {
    const std::uint32_t v = px[x];
    const unsigned a = v >> 24;
    unsigned r = (v >> 16) & 0xff, g = (v >> 8) & 0xff, b = v & 0xff;
    if (alpha && a != 0 && a != 255) {
      r = (r * 255 + a / 2) / a;
      g = (g * 255 + a / 2) / a;
      b = (b * 255 + a / 2) / a;
    }
    *out++ = static_cast<unsigned char>(r);
    *out++ = static_cast<unsigned char>(g);
    *out++ = static_cast<unsigned char>(b);
    if (alpha) *out++ = static_cast<unsigned char>(a);
  }
}

}  // namespace

Result<Pixels> Pixels::blank(int w, int h, bool opaque) {
  Pixels p;
  p.width = w;
  p.height = h;
  p.stride = cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, w);
  if (w < 1 || h < 1 || p.stride <= 0)
    return Status::Internal("cairo could not make a " + std::to_string(w) + "x" +
                            std::to_string(h) + " image");
  try {
    p.data.assign(static_cast<std::size_t>(p.stride) * static_cast<std::size_t>(h),
                  opaque ? 0xff : 0);
  } catch (const std::bad_alloc&) {
    return Status::Internal("no memory for a " + std::to_string(w) + "x" + std::to_string(h) +
                            " image");
  }
  return p;
}

bool Pixels::clear(int y0, int y1) const {
  for (int y = y0; y < y1; ++y) {
    const std::uint32_t* px = row(y);
    if (std::any_of(px, px + width, [](std::uint32_t v) { return v != 0; })) return false;
  }
  return true;
}

bool Pixels::opaque() const {
  for (int y = 0; y < height; ++y) {
    const std::uint32_t* px = row(y);
    if (std::any_of(px, px + width, [](std::uint32_t v) { return (v >> 24) != 0xff; }))
      return false;
  }
  return true;
}

void Svg::Unref::operator()(void* p) const {
  if (p) g_object_unref(p);
}

Result<Svg> Svg::load(std::string_view svg, const PngLimits& limits) {
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
  Svg out;
  out.handle_.reset(
      rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg.data()), svg.size(), &error));
  if (!out.handle_)
    return Status::InvalidArgument("svg_to_png: not a readable SVG: " +
                                   take_error(error, "librsvg could not load it"));
  if (error) g_error_free(error);
  auto* h = static_cast<RsvgHandle*>(out.handle_.get());
  rsvg_handle_set_dpi(h, 96);
  const auto size = intrinsic_size(h);
  if (!size)
    return Status::InvalidArgument(
        "svg_to_png: the SVG has no usable size (absolute width and height, or a viewBox)");
  std::tie(out.width_, out.height_) = *size;
  return out;
}

std::pair<int, int> Svg::pixel_size(const PngLimits& limits) const {
  const double w = width_, h = height_;
  const double up = limits.min_width > 0 ? std::max(1.0, limits.min_width / w) : 1.0;
  const double scale = std::min({up, limits.max_width / w, limits.max_height / h});
  return {std::clamp(static_cast<int>(std::lround(w * scale)), 1, limits.max_width),
          std::clamp(static_cast<int>(std::lround(h * scale)), 1, limits.max_height)};
}

Status Svg::draw(Pixels& into) const {
  Surface surface = surface_of(into, 0, into.height);
  if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
    return Status::Internal("svg_to_png: cairo could not make a " + std::to_string(into.width) +
                            "x" + std::to_string(into.height) + " image");
  Context cr(cairo_create(surface.get()));
  const RsvgRectangle viewport{0, 0, static_cast<double>(into.width),
                               static_cast<double>(into.height)};
  GError* error = nullptr;
  if (!rsvg_handle_render_document(static_cast<RsvgHandle*>(handle_.get()), cr.get(), &viewport,
                                   &error))
    return Status::Internal("svg_to_png: librsvg could not draw the SVG: " +
                            take_error(error, "no reason given"));
  if (cairo_status(cr.get()) != CAIRO_STATUS_SUCCESS)
    return Status::Internal(std::string("svg_to_png: cairo: ") +
                            cairo_status_to_string(cairo_status(cr.get())));
  cairo_surface_flush(surface.get());
  return Status::Ok();
}

bool drawable_text(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const auto follows = [&](std::size_t i) { return i < text.size() && (byte(i) & 0xc0) == 0x80; };
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = byte(i);
    std::uint32_t cp = c;
    if (c >= 0x80) {  // two or three bytes, well formed and shortest (four: beyond U+FFFF)
      if (c >= 0xc2 && c < 0xe0 && follows(i + 1)) {
        cp = ((c & 0x1fu) << 6) | (byte(i + 1) & 0x3fu);
        i += 2;
      } else if (c >= 0xe0 && c < 0xf0 && follows(i + 1) && follows(i + 2)) {
        cp = ((c & 0x0fu) << 12) | ((byte(i + 1) & 0x3fu) << 6) | (byte(i + 2) & 0x3fu);
        if (cp < 0x800) return false;  // overlong
        i += 3;
      } else {
        return false;
      }
    } else {
      ++i;
    }
    // Controls (C0, DEL, C1), and from U+0590 on (right-to-left and shaped scripts) but for
    // general punctuation without its bidirectional controls (U+200E-U+200F, U+202A-U+202E,
    // U+2066-U+2069): cairo's toy text would draw those unlike librsvg.
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return false;
    if (cp >= 0x590 && (cp < 0x2000 || cp > 0x206f)) return false;
    if (cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
        (cp >= 0x2066 && cp <= 0x2069))
      return false;
  }
  return true;
}

Status draw_texts(Pixels& into, const std::vector<Text>& texts, double scale) {
  if (texts.empty()) return Status::Ok();
  Surface surface = surface_of(into, 0, into.height);
  Context cr(cairo_create(surface.get()));
  // Crisp: glyphs hinted to whole pixels, without anti-aliasing (a fifth fewer PNG bytes for the
  // flat map, docs/performance.md).
  std::unique_ptr<cairo_font_options_t, decltype(&cairo_font_options_destroy)> options(
      cairo_font_options_create(), cairo_font_options_destroy);
  cairo_font_options_set_antialias(options.get(), CAIRO_ANTIALIAS_NONE);
  cairo_font_options_set_hint_style(options.get(), CAIRO_HINT_STYLE_FULL);
  cairo_set_font_options(cr.get(), options.get());
  for (const Text& t : texts) {
    cairo_select_font_face(cr.get(), "sans-serif",
                           t.italic ? CAIRO_FONT_SLANT_ITALIC : CAIRO_FONT_SLANT_NORMAL,
                           t.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    // In device pixels, the size to a quarter pixel: cairo keeps a font's hinted glyphs per size
    // and transformation, and games' maps differ in scale, so each game's map drew every glyph
    // again (FreeType's hinting was a twelfth of the report threads' CPU in the busiest minute).
    cairo_set_font_size(cr.get(), std::max(0.25, std::round(t.size * scale * 4) / 4));
    cairo_set_source_rgb(cr.get(), ((t.rgb >> 16) & 0xff) / 255.0, ((t.rgb >> 8) & 0xff) / 255.0,
                         (t.rgb & 0xff) / 255.0);
    double x = t.x * scale;
    if (t.middle) {
      cairo_text_extents_t e;
      cairo_text_extents(cr.get(), t.text.c_str(), &e);
      x -= e.x_advance / 2;
    }
    cairo_move_to(cr.get(), x, t.y * scale);
    cairo_show_text(cr.get(), t.text.c_str());
  }
  if (cairo_status(cr.get()) != CAIRO_STATUS_SUCCESS)
    return Status::Internal(std::string("map text: cairo: ") +
                            cairo_status_to_string(cairo_status(cr.get())));
  cairo_surface_flush(surface.get());
  return Status::Ok();
}

void stack(Pixels& into, const Pixels& top, int y0, int y1) {
  Surface dst = surface_of(into, y0, y1), src = surface_of(top, y0, y1);
  Context cr(cairo_create(dst.get()));
  cairo_set_source_surface(cr.get(), src.get(), 0, 0);
  cairo_paint(cr.get());
  cairo_surface_flush(dst.get());
}

Result<Band> deflate_band(const Pixels& p, int b, int rows, Encoding e, int level) {
  const int y0 = b * kBandRows, y1 = std::min(rows, y0 + kBandRows);
  const std::size_t line = 1 + static_cast<std::size_t>(p.width) * (e.palette ? 1
                                                                    : e.alpha ? 4
                                                                              : 3);
  std::vector<unsigned char> raw(line * static_cast<std::size_t>(std::max(0, y1 - y0)));
  std::optional<Indexer> index;
  if (e.palette) index.emplace(*e.palette);
  for (int y = y0; y < y1; ++y)
    scanline(p, y, e.alpha, index ? &*index : nullptr,
             raw.data() + line * static_cast<std::size_t>(y - y0));
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return Status::Internal("zlib could not start");
  Band out;
  out.raw = raw.size();
  out.adler = static_cast<std::uint32_t>(adler32(1, raw.data(), static_cast<uInt>(raw.size())));
  out.deflated.resize(deflateBound(&z, static_cast<uLong>(raw.size())) + 16);
  z.next_in = raw.data();
  z.avail_in = static_cast<uInt>(raw.size());
  z.next_out = reinterpret_cast<Bytef*>(out.deflated.data());
  z.avail_out = static_cast<uInt>(out.deflated.size());
  const int r = deflate(&z, Z_SYNC_FLUSH);  // byte-aligned, not final: bands are concatenated
  const bool done = (r == Z_OK || r == Z_BUF_ERROR) && z.avail_in == 0 && z.avail_out > 0;
  out.deflated.resize(z.total_out);
  deflateEnd(&z);
  if (!done) return Status::Internal("zlib could not deflate a band");
  return out;
}

Result<std::string> assemble_png(int width, int rows, Encoding e,
                                 const std::vector<const Band*>& bands) {
  std::string png("\x89PNG\r\n\x1a\n", 8), ihdr;
  put_be32(ihdr, static_cast<std::uint32_t>(width));
  put_be32(ihdr, static_cast<std::uint32_t>(rows));
  const char type = e.palette ? '\x03' : e.alpha ? '\x06' : '\x02';
  ihdr += std::string{'\x08', type, '\0', '\0', '\0'};
  put_chunk(png, "IHDR", ihdr);
  if (e.palette) put_chunk(png, "PLTE", e.palette->plte());
  // One zlib stream over the bands: its header, the bands' raw deflate, an empty final block
  // (03 00) and the Adler-32 of every band's bytes.
  std::string idat = "\x78\x01";
  std::uint32_t adler = 1;
  for (const Band* b : bands) {
    idat += b->deflated;
    adler =
        static_cast<std::uint32_t>(adler32_combine(adler, b->adler, static_cast<z_off_t>(b->raw)));
  }
  idat += std::string("\x03\x00", 2);
  put_be32(idat, adler);
  put_chunk(png, "IDAT", idat);
  put_chunk(png, "IEND", "");
  return png;
}

Result<std::string> encode_png(const Pixels& p, int rows, bool palette, int level) {
  Encoding e;
  e.alpha = !p.opaque();
  std::optional<Palette> colours;
  if (palette && !e.alpha && rows > 0) {
    colours = Palette::of(p, 0, rows, Palette::kMost);
    if (colours) e.palette = &*colours;
  }
  std::vector<Band> bands;
  std::vector<const Band*> order;
  bands.reserve(static_cast<std::size_t>((rows + kBandRows - 1) / kBandRows));
  for (int b = 0; b * kBandRows < rows; ++b) {
    auto band = deflate_band(p, b, rows, e, level);
    if (!band.ok()) return band.status();
    bands.push_back(std::move(band).value());
    order.push_back(&bands.back());
  }
  return assemble_png(p.width, rows, e, order);
}

}  // namespace adj::render::raster
