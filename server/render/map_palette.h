// At most 256 colours for an opaque map, so that its PNG has one byte a pixel (colour type 3)
// instead of three: a mail map is a third to a quarter of the bytes, and a map that fits the
// byte budget is not drawn again with fewer pixels (docs/performance.md). Internal to
// server/render (map_raster.h writes the PNG).
//
// The map is a few hundred flat colours (terrain, owners, ink) and tens of thousands of
// anti-aliasing blends between them. The palette takes colours by how many pixels have them,
// skipping a colour within kNear of one already taken and with under a quarter of its pixels (a
// blend next to its flat colour), so that a rare but distinct colour (a unit's marker, an arrow)
// gets an entry of its own; every other colour is drawn as its nearest entry (weighted RGB
// distance). Deterministic: the same pixels give the same palette and indices.
//
// Thread-safety: a Palette is immutable once made and may be read from several threads at
// once; an Indexer is one thread's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace adj::render::raster {

struct Pixels;

// 0xRRGGBB (24 bits) -> a 32-bit value, open addressing. Internal to the palette.
class ColourTable {
 public:
  // The value of `rgb`, added as 0 when absent.
  std::uint32_t& at(std::uint32_t rgb);
  // The value of `rgb`, or nullptr when absent.
  const std::uint32_t* find(std::uint32_t rgb) const;
  std::size_t size() const { return used_; }
  // Every (colour, value) in an unspecified but deterministic order.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> entries() const;

 private:
  std::size_t probe(std::uint32_t rgb) const;  // its slot, or the empty one it would take
  std::vector<std::uint32_t> keys_;            // rgb + 1; 0 is empty
  std::vector<std::uint32_t> values_;
  std::size_t used_ = 0;
};

class Palette {
 public:
  static constexpr int kMost = 256;
  // What a map's own palette leaves for the colours a player's arrows add (extended()).
  static constexpr int kForArrows = 16;
  // Colours nearer than this (weighted squared distance 2dR² + 4dG² + 3dB²) share an entry
  // unless the palette has room left once every distinct colour is in.
  static constexpr long kNear = 800;
  // ... and when it has fewer than 1/kBlendShare of that entry's pixels (a blend along an edge of
  // the entry's colour; a flat colour near another, such as two territories' or the sea's and the
  // water's, keeps an entry of its own).
  static constexpr std::uint64_t kBlendShare = 4;

  // More distinct colours than this and an image is not given a palette (true colour instead):
  // it is no map, and counting and matching them would cost time and memory out of proportion.
  static constexpr std::size_t kMostDistinct = 1u << 17;

  // The palette of rows [y0, y1) of `p` (premultiplied ARGB32, every pixel opaque), at most
  // `most` colours (1..kMost), as described above; nullopt when the rows have more than
  // kMostDistinct colours.
  static std::optional<Palette> of(const Pixels& p, int y0, int y1, int most);
  // This palette with up to kMost - size() more colours from the rows [y0, y1) in `rows` of `p`
  // that it does not know; the entries it has keep their indices.
  Palette extended(const Pixels& p, const std::vector<std::pair<int, int>>& rows) const;

  std::size_t size() const { return colours_.size(); }
  // The PLTE chunk's data: R, G, B for each entry.
  std::string plte() const;

 private:
  friend class Indexer;
  // Takes colours from `counts` (colour, pixels) as described above, after those it has, until
  // it has `most`.
  void choose(std::vector<std::pair<std::uint32_t, std::uint32_t>> counts, std::size_t most);
  // The entry nearest `rgb`, the lowest index among equals: as a scan of every entry would
  // choose, but walking out from rgb's green in by_green_ until green alone is farther.
  std::uint8_t nearest(std::uint32_t rgb) const;

  std::vector<std::uint32_t> colours_;  // 0xRRGGBB
  // (green, index) of every entry, sorted; choose() keeps it in step with colours_.
  std::vector<std::pair<std::uint8_t, std::uint8_t>> by_green_;
  ColourTable known_;  // every colour seen when made -> its entry
};

// A pixel's entry in a palette: a colour the palette saw, from its table; another, its nearest
// entry (remembered here).
class Indexer {
 public:
  explicit Indexer(const Palette& p) : palette_(p) {}
  std::uint8_t operator()(std::uint32_t argb);

 private:
  const Palette& palette_;
  ColourTable more_;
  bool have_last_ = false;  // a run of one colour is looked up once
  std::uint32_t last_ = 0;
  std::uint8_t last_index_ = 0;
};

}  // namespace adj::render::raster
