// `adjutant scenario list | check | preview` (scenario_commands.cc): scenarios without a database.
#include "server/cli/cli_state.h"

namespace adj::cli {

void add_scenario_commands(CLI::App& app, CliState& s) {
  auto* sc = app.add_subcommand("scenario",
                                "List the bundled scenarios; check a scenario or draw its map "
                                "(no database)")
                 ->require_subcommand(1);

  auto* list = sc->add_subcommand("list", "The bundled scenarios: engine, game id, players");
  list->add_flag("--json", s.json, "Machine-readable JSON");
  list->callback([&s] { s.code = scenario_list(s.json); });

  auto* check = sc->add_subcommand(
      "check",
      "Print a scenario's errors (which refuse a game) and warnings, one a line with its JSON "
      "path; exit 0 without errors, 1 with errors (docs/scenarios.md#checking-a-scenario)");
  check->add_option("SCENARIO", s.scenario, "Scenario file, '-' for stdin, or bundled:NAME")
      ->required();
  check->add_flag("--json", s.json, "Machine-readable: {\"errors\": [...], \"warnings\": [...]}");
  check->callback([&s] { s.code = scenario_check(s.scenario, s.json); });

  auto* words = sc->add_subcommand(
      "words",
      "The terrain words, feature keys, border flags and engine_state keys a game reads, and "
      "what each does (docs/scenarios.md)");
  words->add_option("WHAT", s.scenario,
                    "An engine name, or a scenario (file, '-' or bundled:NAME: its game's words "
                    "under its options and rules); default: every engine");
  words->callback([&s] { s.code = scenario_words(s.scenario); });

  auto* preview = sc->add_subcommand(
      "preview",
      "Draw a scenario's map as it starts, as SVG or PNG, without creating a game (the findings "
      "of `scenario check` go to standard error)");
  preview->add_option("SCENARIO", s.scenario, "Scenario file, '-' for stdin, or bundled:NAME")
      ->required();
  auto* svg = preview->add_option("--svg", s.preview_out.svg, "Write the map as SVG to this file");
  auto* png = preview->add_option("--png", s.preview_out.png, "Write the map as PNG to this file");
  svg->excludes(png);
  preview->callback([&s] {
    if (s.preview_out.svg.empty() && s.preview_out.png.empty()) {
      std::fprintf(stderr, "error: give --svg FILE or --png FILE\n");
      s.code = kExitError;
      return;
    }
    s.code = scenario_preview(s.scenario, s.preview_out.svg, s.preview_out.png);
  });
}

}  // namespace adj::cli
