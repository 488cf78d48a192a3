// The map of a game state as a PNG: the web pages' SVG map (server/render/svg_map.h) of the state
// without its secrets (the fields route::public_state drops), rasterised by librsvg (in layers:
// turn_map.h). What report mails attach.
//
// Thread-safety: as svg_to_png (several threads at once); pure apart from librsvg's font lookup.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "server/render/map_png.h"

namespace adj::render {

// The state as the PNG map draws it: without its secrets, every "name" cut to 200 bytes and
// every "code", "terrain", "kind", "owner" and "hinterland" to 64 (with "…"), which bounds the
// text layout time.
nlohmann::json drawable_state(const nlohmann::json& state);

// The map report mails attach: the flat style (PngLimits::flat), at least 1,000 pixels wide (a
// smaller map is laid out that wide: png_map_style in turn_map.h), at most 1,800.
inline constexpr PngLimits kMailMapLimits{1800, 1800, 8u << 20, true, 1000, true, true};
// The mail's map in the web map's look (adjutant serve --mail-map-style full): waves, hatches,
// halos, anti-aliased, at least 1,200 pixels wide; as before the flat style but for the palette's
// rule for near colours (map_palette.h), which every palette map follows.
inline constexpr PngLimits kFullMailMapLimits{1800, 1800, 8u << 20, true, 1200, true, false};

// What state_map_png aims under by default: report mails leave out a map over 1 MiB
// (mail::kMaxMapAttachmentBytes).
inline constexpr std::size_t kMapPngBudget = 1000u << 10;

// `state`: a state document (to_json(GameState), the `game show --json` form), drawn as
// drawable_state(state); with a "report" member (a player's report JSON) its moves and battles
// are drawn as arrows (arrows_from_report). When the PNG is over `max_png_bytes` (0: no bound) the
// map is drawn again with fewer pixels (aspect kept), at most twice; the result may still be over
// (the caller checks). Errors as svg_to_png's; InvalidArgument when `state` is not a JSON object.
// The same bytes as prepare_turn_map(state)->png(report) (turn_map.h), which it calls.
Result<std::string> state_map_png(const nlohmann::json& state, const PngLimits& limits = {},
                                  std::size_t max_png_bytes = kMapPngBudget);

// The mail layer's MapPainter (report_map.h): a TurnPainter prepares a state's map once
// (prepare_turn_map at `limits` and `max_png_bytes`) and gives a PlayerPainter, which paints it
// with the arrows of one player's report (nullptr: the plain map). Both may be called from
// several threads at once; the PlayerPainter keeps the prepared map alive.
using PlayerPainter = std::function<Result<std::string>(const nlohmann::json* report)>;
using TurnPainter = std::function<Result<PlayerPainter>(const nlohmann::json& state)>;
TurnPainter map_painter(PngLimits limits = kMailMapLimits,
                        std::size_t max_png_bytes = kMapPngBudget);
// The painter of a host's mail maps, as `serve` and the commands that queue mail take them:
// `maps` "off" gives none (an empty TurnPainter), "game" and "player" map_painter() at `style`'s
// limits ("full": kFullMailMapLimits; otherwise kMailMapLimits). Whether each player's map has
// its own arrows ("player") is the mail layer's (MailConfig::map_arrows).
TurnPainter mail_map_painter(const std::string& maps, const std::string& style);

}  // namespace adj::render
