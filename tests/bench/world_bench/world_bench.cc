// Issue 32's aim: a 500-player world generated, validated and drawn in under 2 s. For each
// engine: generate_world, validate_scenario + state_from_scenario, the SVG map and the PNG map
// (the mail's, kMailMapLimits), each timed on its own and summed. Run by scripts/bench-world.sh.
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "rules/game/scenario.h"
#include "rules/world/world_generator.h"
#include "server/render/state_map.h"
#include "server/render/svg_map.h"

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int players = argc > 1 ? std::atoi(argv[1]) : 500;
  std::printf("%-20s %7s %6s %9s %9s %9s %9s %9s %8s\n", "engine", "players", "areas", "generate",
              "validate", "svg", "png", "total", "png KB");
  for (const std::string& engine : adj::world::generator_engines()) {
    adj::world::WorldOptions o;
    o.engine = engine;
    o.players = players;
    o.seed = 2026;
    auto t0 = std::chrono::steady_clock::now();
    auto doc = adj::world::generate_world(o);
    const double gen = since(t0);
    if (!doc.ok()) {
      std::fprintf(stderr, "%s: %s\n", engine.c_str(), doc.status().message().c_str());
      return 1;
    }
    t0 = std::chrono::steady_clock::now();
    auto state = adj::state_from_scenario(*doc, 1);  // validates first
    const double val = since(t0);
    if (!state.ok()) {
      std::fprintf(stderr, "%s: %s\n", engine.c_str(), state.status().message().c_str());
      return 1;
    }
    const nlohmann::json sj = adj::to_json(*state);
    t0 = std::chrono::steady_clock::now();
    const std::string svg = adj::render::render_svg_map(adj::render::map_model_from_state(sj));
    const double svg_s = since(t0);
    t0 = std::chrono::steady_clock::now();
    auto png = adj::render::state_map_png(sj, adj::render::kMailMapLimits);
    const double png_s = since(t0);
    if (!png.ok()) {
      std::fprintf(stderr, "%s png: %s\n", engine.c_str(), png.status().message().c_str());
      return 1;
    }
    std::printf("%-20s %7d %6zu %8.3fs %8.3fs %8.3fs %8.3fs %8.3fs %8zu\n", engine.c_str(), players,
                (*doc)["areas"].size(), gen, val, svg_s, png_s, gen + val + svg_s + png_s,
                png->size() >> 10);
  }
  return 0;
}
