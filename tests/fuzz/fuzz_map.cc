// libFuzzer harness: the map as a PNG (server/render/state_map.h), what every report mail
// attaches, drawn from data a GM or a scenario supplies (names, codes, coordinates, edges). The
// input is parsed as JSON (without exceptions). Invariants: nothing crashes or throws; the
// starting state of any accepted scenario gives a PNG within the limits (a report never goes
// without its map because of the game's data); any other document gives a PNG within the limits
// or an error with a reason.
#include <cstddef>
#include <cstdint>
#include <string>

#include "rules/game/scenario.h"
#include "server/render/map_png.h"
#include "server/render/state_map.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

void check(const adj::Result<std::string>& png, const adj::render::PngLimits& limits) {
  if (!png.ok()) {
    FUZZ_CHECK(!png.status().message().empty());
    return;
  }
  const auto size = adj::render::png_size(*png);
  FUZZ_CHECK(size.ok());
  FUZZ_CHECK(size->first >= 1 && size->first <= limits.max_width);
  FUZZ_CHECK(size->second >= 1 && size->second <= limits.max_height);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const adj::Json doc = adj::Json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;
  adj::render::PngLimits limits;  // small, so each input is drawn quickly
  limits.max_width = 320;
  limits.max_height = 320;
  check(adj::render::state_map_png(doc, limits), limits);
  const auto state = adj::state_from_scenario(doc, 42);
  if (!state.ok()) return 0;
  const auto png = adj::render::state_map_png(adj::to_json(*state), limits);
  FUZZ_CHECK(png.ok());
  check(png, limits);
  return 0;
}
