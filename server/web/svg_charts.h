// Line charts as SVG: pure functions, data in, SVG text out, deterministic. Used for each
// kingdom's areas, armies and population over the turns. Every label is XML-escaped.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace adj::web {

struct ChartSeries {
  std::string label;           // e.g. "Wessex (WSX)"
  std::string colour;          // "#rrggbb"
  std::vector<double> values;  // one per chart x value; shorter series simply stop early
};

struct LineChart {
  std::string title;    // e.g. "Armies"
  std::string x_label;  // e.g. "after turn"
  std::vector<int> x;   // x values (turn numbers), ascending
  std::vector<ChartSeries> series;
};

// One <svg class="chart"> with axes from 0 to a rounded maximum, grid lines, one <polyline> (and
// point markers) per series with class "series" and data-series="<label>", and a legend with one
// entry per series. With no x values it draws the frame and "no data yet".
std::string render_line_chart(const LineChart& chart, int width = 420, int height = 260);

// Every kingdom's totals over the turns, as the charts need them.
struct KingdomHistory {
  std::vector<int> turns;  // x values: 0 is the start of the game, t the end of turn t
  struct Kingdom {
    std::string code, name;
    std::size_t palette = 0;  // palette_colour index (the player's index in the game)
    std::vector<double> areas, armies, population;  // one per entry of `turns`
  };
  std::vector<Kingdom> kingdoms;
};

// Builds the history from roundups (report.h build_roundup documents, any order; each gives the
// totals at the end of its "turn") and, when given, the starting state of the game (a state
// document whose "turn" is 1: its totals become x = 0). Players are taken from `players` (the
// state's "players" array, in palette order); kingdoms a roundup does not mention count 0.
// Tolerant: malformed entries are skipped or count 0; never throws.
KingdomHistory history_from_roundups(const nlohmann::json& players,
                                     const std::vector<nlohmann::json>& roundups,
                                     const nlohmann::json* start_state = nullptr);

// The most kingdoms a chart of kingdom_charts draws.
inline constexpr std::size_t kMaxChartSeries = 12;

// Three charts (areas, armies, population), one series per kingdom, colours from the palette.
// With more than kMaxChartSeries kingdoms, each chart draws the kMaxChartSeries leading at its
// last turn (ties: the game's order) and says so in its title.
std::vector<LineChart> kingdom_charts(const KingdomHistory& history);

}  // namespace adj::web
