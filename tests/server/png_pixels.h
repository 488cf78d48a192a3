// A PNG decoded by cairo (not by the code under test), for the map tests. Header-only (the test
// glob compiles *_test.cc only).
#pragma once

#include <gtest/gtest.h>

#include <cairo.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace adj::render::test_png {

struct Decoded {
  int width = 0, height = 0;
  std::vector<std::uint32_t> px;  // cairo's ARGB32 (premultiplied 0xAARRGGBB), row after row
  std::uint32_t at(int x, int y) const {
    return px[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
              static_cast<std::size_t>(x)];
  }
};

struct Reader {
  const std::string* data;
  std::size_t at = 0;
};

inline cairo_status_t read_png(void* closure, unsigned char* out, unsigned int length) {
  auto* r = static_cast<Reader*>(closure);
  if (r->data->size() - r->at < length) return CAIRO_STATUS_READ_ERROR;
  std::memcpy(out, r->data->data() + r->at, length);
  r->at += length;
  return CAIRO_STATUS_SUCCESS;
}

// Empty (and a failed expectation) when cairo cannot read `png`.
inline Decoded decode(const std::string& png) {
  Reader r{&png};
  std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> s(
      cairo_image_surface_create_from_png_stream(read_png, &r), cairo_surface_destroy);
  EXPECT_EQ(cairo_surface_status(s.get()), CAIRO_STATUS_SUCCESS);
  Decoded d;
  if (cairo_surface_status(s.get()) != CAIRO_STATUS_SUCCESS) return d;
  d.width = cairo_image_surface_get_width(s.get());
  d.height = cairo_image_surface_get_height(s.get());
  const int stride = cairo_image_surface_get_stride(s.get());
  d.px.resize(static_cast<std::size_t>(d.width) * static_cast<std::size_t>(d.height));
  for (int y = 0; y < d.height; ++y)
    std::memcpy(&d.px[static_cast<std::size_t>(y) * static_cast<std::size_t>(d.width)],
                cairo_image_surface_get_data(s.get()) + static_cast<std::ptrdiff_t>(y) * stride,
                static_cast<std::size_t>(d.width) * 4);
  return d;
}

}  // namespace adj::render::test_png
