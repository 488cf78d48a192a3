// The map's labels in a real browser (tests/server/map_labels_check.py, Debian's headless
// Chromium): on every bundled scenario and on a generated 60-area map with long names, drawn at
// 1x as the pages draw it, no two areas' labels overlap (measured from the elements' bounding
// boxes) and every area that is no sea carries its name or its code.
//
// Skipped, with the reason, when Chromium or python3-websocket is missing.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rules/game/scenario.h"
#include "rules/game/state.h"
#include "server/render/svg_map.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace adj {
namespace {

using ::adj::testing::run_shell;
using ::adj::testing::shell_quote;

constexpr const char* kLabelsChromium = "/usr/bin/chromium";
constexpr const char* kLabelsPython = "/usr/bin/python3";

// A 60-area map: a jittered grid of land with a sea along one side, names of 9 to 22 letters
// (like "Stonegate Ravenshold"), three players.
render::MapModel generated_map(std::size_t n) {
  static const char* const kWords[] = {"Stonegate", "Ravenshold", "Fenwick", "Marrowdale",
                                       "Ashby",     "Thornmere",  "Kell",    "Wolfsbane",
                                       "Oakridge",  "Saltmarsh",  "Brant",   "Highcombe"};
  render::MapModel m;
  m.title = "Generated";
  m.players = {{"NOR", "Northmark"}, {"WES", "Westmark"}, {"EAS", "Eastmark"}};
  const std::size_t cols = 10;
  for (std::size_t i = 0; i < n; ++i) {
    render::MapArea a;
    a.code = "G" + std::to_string(i);
    a.name = std::string(kWords[i % 12]) +
             (i % 3 == 0 ? std::string(" ") + kWords[(i * 7) % 12] : std::string());
    a.kind = i % cols == 0 ? "sea" : "land";
    a.owner = a.kind == "sea" || i % 4 == 3 ? "" : m.players[i % 3].code;
    a.armies = static_cast<int>(i % 9);
    a.terrain = i % 5 == 0 ? "hills" : "lowlands";
    a.x = static_cast<double>(i % cols) * 10 + std::sin(static_cast<double>(i)) * 3;
    a.y = static_cast<double>(i / cols) * 10 + std::cos(static_cast<double>(i) * 1.3) * 3;
    m.areas.push_back(std::move(a));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (i % cols + 1 < cols && i + 1 < n)
      m.edges.emplace_back(m.areas[i].code, m.areas[i + 1].code);
    if (i + cols < n) m.edges.emplace_back(m.areas[i].code, m.areas[i + cols].code);
  }
  return m;
}

// A page as the game page lays the map out: the SVG at the width the page gives it.
std::string page_of(const std::string& svg) {
  return "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>body{margin:0}"
         ".box{width:884px}svg.map{display:block;width:100%;height:auto}</style></head><body>"
         "<div class=\"box\">" +
         svg + "</div></body></html>\n";
}

TEST(MapLabelsBrowser, NoTwoLabelsOverlapAndEveryLandAreaCarriesItsNameOrCode) {
  if (::access(kLabelsChromium, X_OK) != 0) GTEST_SKIP() << "no " << kLabelsChromium;
  if (run_shell(std::string(kLabelsPython) + " -c 'import websocket; print(1)' 2>/dev/null") !=
      "1\n")
    GTEST_SKIP() << "no python3-websocket (scripts/install-deps.sh --test)";
  ::adj::testing::TempDir dir;
  std::vector<std::string> files;
  const auto write = [&](const std::string& name, const render::MapModel& model) {
    const std::string path = dir.file(name + ".html");
    std::ofstream(path) << page_of(render::render_svg_map(model, {false, 1}));
    files.push_back(path);
  };
  for (const std::string& name : bundled_scenarios()) {
    auto doc = bundled_scenario_published(name);
    ASSERT_TRUE(doc.ok()) << name;
    auto st = state_from_scenario(*doc, 1);
    ASSERT_TRUE(st.ok()) << name;
    write(name, render::map_model_from_state(to_json(*st)));
  }
  write("generated-60", generated_map(60));
  std::string cmd = std::string(kLabelsPython) + " -B " +
                    shell_quote(std::string(ADJ_SOURCE_DIR) + "/tests/server/map_labels_check.py") +
                    " --profile " + shell_quote(dir.file("profile"));
  for (const auto& f : files) cmd += " " + shell_quote(f);
  const std::string out = run_shell(cmd + " 2>&1; echo \"exit=$?\"");
  std::cout << out;
  EXPECT_NE(out.find("exit=0"), std::string::npos) << out;
  EXPECT_EQ(out.find("FAIL"), std::string::npos) << out;
  EXPECT_NE(out.find("generated-60.html: 60 areas"), std::string::npos) << out;
}

}  // namespace
}  // namespace adj
