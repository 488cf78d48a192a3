#include "server/render/map_palette.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <cstdint>

#include "server/render/map_raster.h"

namespace adj::render::raster {
namespace {

long distance(std::uint32_t a, std::uint32_t b) {
  const long dr = static_cast<long>((a >> 16) & 0xff) - static_cast<long>((b >> 16) & 0xff);
  const long dg = static_cast<long>((a >> 8) & 0xff) - static_cast<long>((b >> 8) & 0xff);
  const long db = static_cast<long>(a & 0xff) - static_cast<long>(b & 0xff);
  return 2 * dr * dr + 4 * dg * dg + 3 * db * db;
}

// Adds the colours of rows [y0, y1) of `p` to `counts`, one lookup per run of a colour; false
// (and `counts` incomplete) once it holds more than `most` colours.
bool count_rows(const Pixels& p, int y0, int y1, ColourTable& counts, std::size_t most) {
  for (int y = y0; y < y1; ++y) {
    if (counts.size() > most) return false;
    const std::uint32_t* px = p.row(y);
    for (int x = 0; x < p.width;) {
      const std::uint32_t v = px[x];
      int run = 1;
      while (x + run < p.width && px[x + run] == v) ++run;
      counts.at(v & 0xffffff) += static_cast<std::uint32_t>(run);
      x += run;
    }
  }
  return counts.size() <= most;
}

}  // namespace

std::size_t ColourTable::probe(std::uint32_t rgb) const {
  // A mixed hash (the low bits of a bare product would depend on blue alone); size a power of 2.
  std::uint32_t h = rgb;
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  const std::size_t mask = keys_.size() - 1;
  std::size_t i = h & mask;
  while (keys_[i] != 0 && keys_[i] != rgb + 1) i = (i + 1) & mask;
  return i;
}

std::uint32_t& ColourTable::at(std::uint32_t rgb) {
  if ((used_ + 1) * 2 > keys_.size()) {  // at most half full
    std::vector<std::uint32_t> keys = std::move(keys_), values = std::move(values_);
    keys_.assign(std::max<std::size_t>(1024, keys.size() * 2), 0);
    values_.assign(keys_.size(), 0);
    used_ = 0;
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i]) at(keys[i] - 1) = values[i];
  }
  const std::size_t i = probe(rgb);
  if (keys_[i] == 0) {
    keys_[i] = rgb + 1;
    ++used_;
  }
  return values_[i];
}

const std::uint32_t* ColourTable::find(std::uint32_t rgb) const {
  if (keys_.empty()) return nullptr;
  const std::size_t i = probe(rgb);
  return keys_[i] ? &values_[i] : nullptr;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> ColourTable::entries() const {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  out.reserve(used_);
  for (std::size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i]) out.emplace_back(keys_[i] - 1, values_[i]);
  return out;
}

void Palette::choose(std::vector<std::pair<std::uint32_t, std::uint32_t>> counts,
                     std::size_t most) {
  // Most pixels first; ties by colour, so that the order of the table does not matter.
  std::sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::vector<std::uint32_t> skipped;
  // The pixels of each entry taken here; those the palette had before count as many.
  std::vector<std::uint64_t> pixels(colours_.size(), UINT64_MAX);
  for (const auto& entry : counts) {
    if (colours_.size() >= most) break;
    const std::uint32_t rgb = entry.first;
    bool near = false;
    for (std::size_t i = 0; i < colours_.size() && !near; ++i)
      near = distance(colours_[i], rgb) < kNear && entry.second < pixels[i] / kBlendShare;
    if (near) {
      skipped.push_back(rgb);
    } else {
      colours_.push_back(rgb);
      pixels.push_back(entry.second);
    }
  }
  for (std::size_t i = 0; i < skipped.size() && colours_.size() < most; ++i)
    colours_.push_back(skipped[i]);
  by_green_.clear();
  for (std::size_t i = 0; i < colours_.size(); ++i)
    by_green_.emplace_back(static_cast<std::uint8_t>((colours_[i] >> 8) & 0xff),
                           static_cast<std::uint8_t>(i));
  std::sort(by_green_.begin(), by_green_.end());
}

std::uint8_t Palette::nearest(std::uint32_t rgb) const {
  assert(!colours_.empty() && by_green_.size() == colours_.size());
  const long g = (rgb >> 8) & 0xff;
  std::size_t best = colours_.size();
  long best_d = LONG_MAX;
  // Green weighs 4 in distance(): an entry whose green alone is farther than the best cannot win.
  const auto try_entry = [&](std::size_t at) {
    const long dg = static_cast<long>(by_green_[at].first) - g;
    if (4 * dg * dg > best_d) return false;
    const std::size_t i = by_green_[at].second;
    const long d = distance(colours_[i], rgb);
    if (d < best_d || (d == best_d && i < best)) best = i, best_d = d;
    return true;
  };
  const auto mid = std::lower_bound(by_green_.begin(), by_green_.end(),
                                    std::pair<std::uint8_t, std::uint8_t>(g, 0));
  std::size_t up = static_cast<std::size_t>(mid - by_green_.begin()), down = up;
  bool more_up = true, more_down = true;
  while (more_up || more_down) {
    more_up = more_up && up < by_green_.size() && try_entry(up++);
    more_down = more_down && down > 0 && try_entry(--down);
  }
  return static_cast<std::uint8_t>(best);
}

std::optional<Palette> Palette::of(const Pixels& p, int y0, int y1, int most) {
  assert(most >= 1 && most <= kMost && y0 < y1);
  ColourTable counts;
  if (!count_rows(p, y0, y1, counts, kMostDistinct)) return std::nullopt;
  const auto seen = counts.entries();
  Palette out;
  out.choose(seen, static_cast<std::size_t>(most));
  for (std::size_t i = 0; i < out.colours_.size(); ++i)
    out.known_.at(out.colours_[i]) = static_cast<std::uint32_t>(i);
  for (const auto& [rgb, n] : seen)
    if (!out.known_.find(rgb)) out.known_.at(rgb) = out.nearest(rgb);
  return out;
}

Palette Palette::extended(const Pixels& p, const std::vector<std::pair<int, int>>& rows) const {
  ColourTable counts;
  for (const auto& [y0, y1] : rows)  // at most the rows' pixels: no bound needed
    count_rows(p, y0, y1, counts, static_cast<std::size_t>(-1));
  std::vector<std::pair<std::uint32_t, std::uint32_t>> fresh;
  for (const auto& e : counts.entries())
    if (!known_.find(e.first)) fresh.push_back(e);
  Palette out = *this;
  out.choose(std::move(fresh), kMost);  // after the entries it has
  for (std::size_t i = colours_.size(); i < out.colours_.size(); ++i)
    out.known_.at(out.colours_[i]) = static_cast<std::uint32_t>(i);
  return out;
}

std::string Palette::plte() const {
  std::string s;
  s.reserve(colours_.size() * 3);
  for (const std::uint32_t c : colours_) {
    s += static_cast<char>((c >> 16) & 0xff);
    s += static_cast<char>((c >> 8) & 0xff);
    s += static_cast<char>(c & 0xff);
  }
  return s;
}

std::uint8_t Indexer::operator()(std::uint32_t argb) {
  if (have_last_ && argb == last_) return last_index_;
  const std::uint32_t rgb = argb & 0xffffff;
  std::uint8_t i;
  if (const std::uint32_t* known = palette_.known_.find(rgb))
    i = static_cast<std::uint8_t>(*known);
  else if (const std::uint32_t* seen = more_.find(rgb))
    i = static_cast<std::uint8_t>(*seen);
  else
    more_.at(rgb) = i = palette_.nearest(rgb);
  have_last_ = true;
  last_ = argb;
  last_index_ = i;
  return i;
}

}  // namespace adj::render::raster
