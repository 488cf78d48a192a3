// Issue 33: a host's busiest minute. The time MailIngest::queue_turn_reports takes to queue every
// report mail of one turn, with its map, of a generated Dark Age world of N players (every player
// attacks from each home area that can; each has an address), measured alternately
//   before: each player's map drawn whole, as the code before issue 33 did (the state loaded
//           again, render_svg_map with that player's arrows, librsvg, cairo's PNG writer, the
//           budget loop), the plain map once;
//   after:  the real painter (render::map_painter): the map prepared once for the turn, each
//           player's adds its arrows (turn_map.h).
// Each run starts from a copy of the same database. Then, on the turn's plain map, the PNG
// writers: cairo's against ours (map_raster.h) at zlib levels 1, 3 and 6.
// Prints figures (with the after map's PNG bytes and size); asserts nothing about speed. Run by
// scripts/bench-mail-maps.sh.
//   adjutant_mail_map_bench [ROUNDS] [PLAYERS...]   (default 2 rounds, 20 and 200 players)
// Environment: ADJ_MAP_PNG_DIR=DIR writes the after map of N players to DIR/mail-map-N.png (to
// look at it); ADJ_MAIL_MAP_BENCH_AFTER_ONLY=1 runs only the after code and not the writers
// (the before code takes about 1 s a player's map).
#include <cairo.h>
#include <librsvg/rsvg.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "rules/game/scenario.h"
#include "rules/world/world_generator.h"
#include "server/app/app_runtime.h"
#include "server/app/secrets.h"
#include "server/mail/mail_ingest.h"
#include "server/render/map_png.h"
#include "server/render/map_raster.h"
#include "server/render/report_arrows.h"
#include "server/render/state_map.h"
#include "server/render/svg_map.h"
#include "storage/open_database.h"

namespace {

using namespace adj;
namespace fs = std::filesystem;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "adjutant_mail_map_bench: %s\n", what.c_str());
  std::exit(1);
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

cairo_status_t append_png(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

// svg_to_png as it was before issue 33: librsvg into a cairo surface, cairo's PNG writer.
Result<std::string> old_svg_to_png(const std::string& svg, const render::PngLimits& limits) {
  RsvgHandle* h =
      rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg.data()), svg.size(), nullptr);
  if (!h) return Status::Internal("librsvg could not load the SVG");
  rsvg_handle_set_dpi(h, 96);
  double w = 0, hh = 0;
  rsvg_handle_get_intrinsic_size_in_pixels(h, &w, &hh);
  const double up = limits.min_width > 0 ? std::max(1.0, limits.min_width / w) : 1.0;
  const double scale = std::min({up, limits.max_width / w, limits.max_height / hh});
  const int ow = std::clamp(static_cast<int>(std::lround(w * scale)), 1, limits.max_width);
  const int oh = std::clamp(static_cast<int>(std::lround(hh * scale)), 1, limits.max_height);
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, ow, oh);
  cairo_t* cr = cairo_create(s);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  const RsvgRectangle viewport{0, 0, static_cast<double>(ow), static_cast<double>(oh)};
  rsvg_handle_render_document(h, cr, &viewport, nullptr);
  cairo_surface_flush(s);
  std::string png;
  cairo_surface_write_to_png_stream(s, append_png, &png);
  cairo_destroy(cr);
  cairo_surface_destroy(s);
  g_object_unref(h);
  return png;
}

// state_map_png as it was before issue 33: the whole document with the report's arrows.
Result<std::string> old_state_map_png(const Json& state, const render::PngLimits& limits,
                                      std::size_t budget) {
  render::MapModel model = render::map_model_from_state(render::drawable_state(state));
  if (auto r = state.find("report"); r != state.end())
    model.arrows = render::arrows_from_report(*r);
  const std::string svg = render::render_svg_map(model);
  auto png = old_svg_to_png(svg, limits);
  for (int retry = 0; retry < 2 && png.ok() && png->size() > budget; ++retry) {
    const auto size = render::png_size(*png);
    const double f = 0.85 * std::sqrt(static_cast<double>(budget) / png->size());
    render::PngLimits smaller = limits;
    smaller.max_width = std::max(1, static_cast<int>(size->first * f));
    smaller.max_height = std::max(1, static_cast<int>(size->second * f));
    png = old_svg_to_png(svg, smaller);
  }
  return png;
}

// Counts what a painter does: maps prepared and players' maps painted, and the time each took.
struct Counts {
  int prepared = 0, painted = 0;
  double prepare_ms = 0, paint_ms = 0;
  std::size_t png_bytes = 0;  // the last map painted (after only)
  int width = 0, height = 0;
  int players = 0;  // the game's, to name the PNG written
};

// The painter of the code before issue 33: nothing prepared; each map loads the state again and
// is drawn whole.
mail::MapPainter before_painter(Store& store, const std::string& game, int turn, Counts& n) {
  return [&store, game, turn, &n](const Json&) -> Result<mail::PlayerMapPainter> {
    ++n.prepared;
    return mail::PlayerMapPainter([&store, game, turn, &n](const Json* report) {
      ++n.painted;
      const auto t0 = std::chrono::steady_clock::now();
      auto st = store.load_state(game, turn + 1);
      if (!st.ok()) return Result<std::string>(st.status());
      Json drawn = to_json(*st);
      if (report) drawn["report"] = *report;
      auto png = old_state_map_png(drawn, render::kMailMapLimits, render::kMapPngBudget);
      n.paint_ms += ms_since(t0);
      return png;
    });
  };
}

mail::MapPainter after_painter(Counts& n) {
  const render::TurnPainter real = render::map_painter();
  return [real, &n](const Json& st) -> Result<mail::PlayerMapPainter> {
    ++n.prepared;
    const auto t0 = std::chrono::steady_clock::now();
    auto turn = real(st);
    n.prepare_ms += ms_since(t0);
    if (!turn.ok()) return turn.status();
    return mail::PlayerMapPainter([turn = std::move(turn).value(), &n](const Json* report) {
      ++n.painted;
      const auto t1 = std::chrono::steady_clock::now();
      auto png = turn(report);
      n.paint_ms += ms_since(t1);
      if (png.ok()) {
        n.png_bytes = png->size();
        if (auto size = render::png_size(*png); size.ok()) std::tie(n.width, n.height) = *size;
        if (const char* dir = std::getenv("ADJ_MAP_PNG_DIR"))
          std::ofstream(std::string(dir) + "/mail-map-" + std::to_string(n.players) + ".png",
                        std::ios::binary)
              << *png;
      }
      return png;
    });
  };
}

// An order file attacking from each home area with armies to spare into a neighbour it does
// not own.
std::string orders_of(const GameState& st, const Player& p, const std::string& secret) {
  std::map<std::string, const Area*> by_code;
  for (const Area& a : st.areas) by_code[a.code] = &a;
  std::string text = "GAME " + st.game_id + "\nPLAYER " + p.code + " " + secret + "\nTURN 1\n";
  int n = 0;
  for (const Area& a : st.areas) {
    if (a.owner != p.code || a.armies < 2) continue;
    for (const auto& e : st.edges) {
      const std::string other = e.a == a.code ? e.b : e.b == a.code ? e.a : "";
      const auto it = by_code.find(other);
      if (it == by_code.end() || it->second->owner == p.code || it->second->kind == AreaKind::kSea)
        continue;
      text += std::to_string(++n) + ". MOVE " + a.code + " " + other + " " +
              std::to_string(a.armies - 1) + "\n";
      break;
    }
  }
  return text + "END\n";
}

// A database with the world of `players` created and its turn 1 run; returns the game's id.
std::string make_game(const std::string& db, int players) {
  SecretHashCost cheap;
  cheap.opslimit = 1;
  cheap.memlimit = 8u << 10;
  if (Status s = set_secret_hash_cost(cheap); !s.ok()) die(s.message());
  world::WorldOptions o;
  o.engine = "dark-age";
  o.players = players;
  o.seed = 2026;
  auto doc = world::generate_world(o);
  if (!doc.ok()) die(doc.status().message());
  for (std::size_t i = 0; i < (*doc)["players"].size(); ++i)
    (*doc)["players"][i]["email"] = "p" + std::to_string(i) + "@example.org";
  AppConfig config;
  config.db_path = db;
  AppRuntime app(config, [] { return UnixTime{1795046400}; });
  std::map<std::string, std::string> secrets;
  auto game = app.services().create_game(*doc, 7, true, &secrets);
  if (!game.ok()) die("create_game: " + game.status().message());
  auto st = app.services().load_state(game->id);
  if (!st.ok()) die(st.status().message());
  for (const Player& p : st->players) {
    auto r = app.services().submit_orders(game->id, orders_of(*st, p, secrets[p.code]), "cli");
    if (!r.ok()) die("orders: " + r.status().message());
  }
  auto run = app.services().run_turn(game->id, false);
  if (!run.ok()) die("turn: " + run.status().message());
  return game->id;
}

// How many players' turn 1 reports draw arrows.
int with_arrows(const std::string& db, const std::string& game) {
  AppConfig config;
  config.db_path = db;
  AppRuntime app(config, [] { return UnixTime{1795046400}; });
  auto st = app.services().load_state(game, 1);
  if (!st.ok()) die(st.status().message());
  int n = 0;
  for (const Player& p : st->players) {
    auto rep = app.services().report(game, p.code, 1);
    if (!rep.ok()) die(rep.status().message());
    n += mail::report_draws_arrows(rep->json) ? 1 : 0;
  }
  return n;
}

struct Run {
  double ms = 0;
  int queued = 0, prepared = 0, painted = 0;
  double prepare_ms = 0, paint_ms = 0;
  std::size_t png_bytes = 0;
  int width = 0, height = 0;
};

Run queue_once(const std::string& tmpl, const std::string& work, const std::string& game,
               int players, bool before) {
  for (const char* ext : {"", "-wal", "-shm"}) fs::remove(work + ext);
  fs::copy_file(tmpl, work);
  AppConfig config;
  config.db_path = work;
  AppRuntime app(config, [] { return UnixTime{1795046400}; });
  Counts n;
  n.players = players;
  auto reader = open_database(work);
  if (!reader.ok()) die(reader.status().message());
  mail::MailConfig mc;
  mc.from = {"orders@pbm.example.net", "Adjutant"};
  mc.map_painter = before ? before_painter(**reader, game, 1, n) : after_painter(n);
  mail::MailIngest ingest(app, mc);
  const auto t0 = std::chrono::steady_clock::now();
  auto q = ingest.queue_turn_reports(game, 1);
  Run r;
  r.ms = ms_since(t0);
  if (!q.ok()) die("queue_turn_reports: " + q.status().message());
  r.queued = *q;
  r.prepared = n.prepared;
  r.painted = n.painted;
  r.prepare_ms = n.prepare_ms;
  r.paint_ms = n.paint_ms;
  r.png_bytes = n.png_bytes;
  r.width = n.width;
  r.height = n.height;
  return r;
}

// The PNG writers on the turn's plain map: cairo's, and ours (true colour and with a palette) at
// zlib levels 1, 3 and 6.
void writers(const std::string& tmpl, const std::string& game) {
  auto store = open_database(tmpl);
  if (!store.ok()) die(store.status().message());
  auto st = (*store)->load_state(game, 2);
  if (!st.ok()) die(st.status().message());
  const std::string svg =
      render::render_svg_map(render::map_model_from_state(render::drawable_state(to_json(*st))));
  auto doc = render::raster::Svg::load(svg, render::kMailMapLimits);
  if (!doc.ok()) die(doc.status().message());
  const auto [w, h] = doc->pixel_size(render::kMailMapLimits);
  auto px = render::raster::Pixels::blank(w, h, true);
  if (!px.ok() || !doc->draw(*px).ok()) die("could not draw the map");
  cairo_surface_t* s =
      cairo_image_surface_create_for_data(px->data.data(), CAIRO_FORMAT_ARGB32, w, h, px->stride);
  auto t0 = std::chrono::steady_clock::now();
  std::string png;
  cairo_surface_write_to_png_stream(s, append_png, &png);
  std::printf("  %dx%d: cairo's writer %.0f ms %zu KiB", w, h, ms_since(t0), png.size() >> 10);
  cairo_surface_destroy(s);
  for (const bool palette : {false, true})
    for (int level : {1, 3, 6}) {
      t0 = std::chrono::steady_clock::now();
      auto ours = render::raster::encode_png(*px, h, palette, level);
      std::printf(", %s zlib %d %.0f ms %zu KiB", palette ? "palette" : "RGB", level, ms_since(t0),
                  ours.ok() ? ours->size() >> 10 : 0);
    }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line as it is measured
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2;
  std::vector<int> sizes;
  for (int i = 2; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {20, 200};
  const fs::path dir = fs::temp_directory_path() / ("adj-mail-map-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const bool after_only = std::getenv("ADJ_MAIL_MAP_BENCH_AFTER_ONLY") != nullptr;
  std::printf("%-7s %-6s %5s %6s %6s %-20s %9s %8s %10s %9s %10s %9s\n", "players", "code", "round",
              "mails", "arrows", "drawn", "ms/turn", "ms/mail", "prepare_ms", "ms/paint",
              "png_bytes", "png_size");
  for (const int n : sizes) {
    const std::string tmpl = (dir / ("game" + std::to_string(n) + ".db")).string();
    const std::string game = make_game(tmpl, n);
    const int arrows = with_arrows(tmpl, game);
    for (int round = 1; round <= rounds; ++round)
      for (int k = 0; k < 2; ++k) {
        const bool before = (round + k) % 2 == 0;  // alternate which goes first
        if (before && after_only) continue;
        const Run r = queue_once(tmpl, (dir / "work.db").string(), game, n, before);
        // before: whole maps drawn; after: maps prepared, then players' maps painted from them
        const std::string drawn = before ? std::to_string(r.painted) + " whole"
                                         : std::to_string(r.prepared) + " base + " +
                                               std::to_string(r.painted) + " painted";
        const std::string size =
            before ? "-" : std::to_string(r.width) + "x" + std::to_string(r.height);
        std::printf("%-7d %-6s %5d %6d %6d %-20s %9.0f %8.1f %10.0f %9.1f %10zu %9s\n", n,
                    before ? "before" : "after", round, r.queued, arrows, drawn.c_str(), r.ms,
                    r.ms / std::max(1, r.queued), r.prepare_ms, r.paint_ms / std::max(1, r.painted),
                    before ? std::size_t{0} : r.png_bytes, size.c_str());
      }
    if (!after_only) writers(tmpl, game);
  }
  fs::remove_all(dir);
  return 0;
}
