// Generated worlds (rules/world/world_generator.h) drawn as the pages draw them, in a real browser
// (tests/server/map_labels_check.py, Debian's headless Chromium): every engine's worlds for 2, 7,
// 50 and 500 players show no two overlapping labels; at 2 and 7 players every land area carries
// its name or code. A 200-area world without coordinates (the automatic layout) is checked too.
//
// Skipped, with the reason, when Chromium or python3-websocket is missing.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rules/game/scenario.h"
#include "rules/game/state.h"
#include "rules/world/world_generator.h"
#include "server/render/svg_map.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;

constexpr const char* kWorldChromium = "/usr/bin/chromium";
constexpr const char* kWorldPython = "/usr/bin/python3";

// The page as the game page lays the map out (884 px of a 1280 px window).
std::string world_page(const std::string& svg) {
  return "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>body{margin:0}"
         ".box{width:884px}svg.map{display:block;width:100%;height:auto}</style></head><body>"
         "<div class=\"box\">" +
         svg + "</div></body></html>\n";
}

// Runs the check on `files`; its output.
std::string check_labels(const ::adj::testing::TempDir& dir, const std::vector<std::string>& files,
                         bool overlaps_only) {
  std::string cmd = std::string(kWorldPython) + " -B " +
                    shell_quote(std::string(ADJ_SOURCE_DIR) + "/tests/server/map_labels_check.py") +
                    " --profile " +
                    shell_quote(dir.file(overlaps_only ? "profile-dense" : "profile-every"));
  if (overlaps_only) cmd += " --overlaps-only";
  for (const auto& f : files) cmd += " " + shell_quote(f);
  return run_shell(cmd + " 2>&1; echo \"exit=$?\"");
}

TEST(WorldMapBrowser, GeneratedWorldsDrawWithoutOverlappingLabels) {
  if (::access(kWorldChromium, X_OK) != 0) GTEST_SKIP() << "no " << kWorldChromium;
  if (run_shell(std::string(kWorldPython) + " -c 'import websocket; print(1)' 2>/dev/null") !=
      "1\n")
    GTEST_SKIP() << "no python3-websocket (scripts/install-deps.sh --test)";
  ::adj::testing::TempDir dir;
  std::vector<std::string> small, big;
  const auto write = [&](const std::string& name, nlohmann::json doc, bool strip_xy) {
    if (strip_xy)
      for (auto& a : doc["areas"]) a.erase("x"), a.erase("y");
    auto st = state_from_scenario(doc, 1);
    ASSERT_TRUE(st.ok()) << name << ": " << st.status().message();
    const std::string path = dir.file(name + ".html");
    std::ofstream(path) << world_page(
        render::render_svg_map(render::map_model_from_state(to_json(*st)), {false, 1}));
    (doc["players"].size() <= 7 ? small : big).push_back(path);
  };
  for (const std::string& engine : world::generator_engines())
    for (int players : {2, 7, 50, 500}) {
      world::WorldOptions o;
      o.engine = engine;
      o.players = players;
      o.seed = 2026;
      auto doc = world::generate_world(o);
      ASSERT_TRUE(doc.ok()) << doc.status().message();
      write(engine + "-" + std::to_string(players), *doc, false);
    }
  // About 200 areas and no coordinates: the automatic layout.
  world::WorldOptions o;
  o.players = 14;
  o.seas = false;
  auto doc = world::generate_world(o);
  ASSERT_TRUE(doc.ok());
  write("automatic-" + std::to_string((*doc)["areas"].size()), *doc, true);

  const std::string every = check_labels(dir, small, false);
  std::cout << every;
  EXPECT_NE(every.find("exit=0"), std::string::npos) << every;
  EXPECT_EQ(every.find("FAIL"), std::string::npos) << every;
  const std::string dense = check_labels(dir, big, true);
  std::cout << dense;
  EXPECT_NE(dense.find("exit=0"), std::string::npos) << dense;
  EXPECT_EQ(dense.find("FAIL"), std::string::npos) << dense;
  EXPECT_NE(dense.find("dark-age-500.html: "), std::string::npos) << dense;
}

}  // namespace
}  // namespace adj
