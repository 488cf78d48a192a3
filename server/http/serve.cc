// `adjutant serve`: the daemon. Opens the database, registers the routes, starts the HTTP server
// (http_server.h: its own I/O thread and handler pool), and runs the main thread's io_context for
// the signals and the scheduler timer. Every --tick seconds GameAdmin::tick() runs on a one-thread
// pool (it may resolve a turn), and the next tick is armed only after it returns, so ticks never
// overlap. SIGINT/SIGTERM: stop accepting, finish the requests and any turn in hand, exit 0.
// All state is in SQLite: stopping and starting loses nothing.
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <random>

#include "server/cli/commands.h"
#include "server/http/http_server.h"
#include "server/web/web_context.h"

namespace adj::cli {

namespace {

namespace asio = boost::asio;

struct HostPort {
  std::string host;
  int port = 0;
};

// "HOST:PORT" or "[V6]:PORT".
Result<HostPort> parse_host_port(const std::string& s) {
  HostPort hp;
  std::string port;
  if (!s.empty() && s.front() == '[') {
    const std::size_t close = s.find(']');
    if (close == std::string::npos || close + 1 >= s.size() || s[close + 1] != ':')
      return Status::InvalidArgument("--http wants HOST:PORT or [V6]:PORT, not " + s);
    hp.host = s.substr(1, close - 1);
    port = s.substr(close + 2);
  } else {
    const std::size_t colon = s.rfind(':');
    if (colon == std::string::npos || colon == 0)
      return Status::InvalidArgument("--http wants HOST:PORT, not " + s);
    hp.host = s.substr(0, colon);
    port = s.substr(colon + 1);
  }
  try {
    std::size_t used = 0;
    hp.port = std::stoi(port, &used);
    if (used != port.size() || hp.port < 0 || hp.port > 65535) throw std::out_of_range(port);
  } catch (const std::exception&) {
    return Status::InvalidArgument("--http: bad port " + port);
  }
  return hp;
}

std::string random_hex(int bytes) {
  std::random_device rd;
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < bytes; ++i) {
    const unsigned v = rd() & 0xff;
    out += digits[v >> 4];
    out += digits[v & 15];
  }
  return out;
}

// logfmt-style lines on stderr: ts=... level=... event=... key=value ...
void setup_logging() {
  auto logger = spdlog::stderr_color_mt("adjutant");
  logger->set_pattern("ts=%Y-%m-%dT%H:%M:%S.%eZ level=%l %v", spdlog::pattern_time_type::utc);
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::info);
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug shows every request
}

// For the default base URL: a wildcard address is reached through the loopback one.
std::string url_host(const std::string& host) {
  if (host == "0.0.0.0" || host.empty()) return "127.0.0.1";
  if (host == "::") return "[::1]";
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

// Port 0 means "any free port": pick one now, so that the base URL can name it.
Result<int> free_port(const std::string& host) {
  try {
    asio::io_context io;
    asio::ip::tcp::resolver resolver(io);
    const auto ep = resolver.resolve(host, "0").begin()->endpoint();
    asio::ip::tcp::acceptor acceptor(io, ep);
    return static_cast<int>(acceptor.local_endpoint().port());
  } catch (const std::exception& e) {
    return Status::IOError("cannot find a free port on " + host + ": " + e.what());
  }
}

// A player's sign-in link, from the API itself (so the URL format lives in one place).
std::string player_link(const http::Router& router, const std::string& gm_token,
                        const std::string& game, const std::string& player) {
  http::Request req;
  req.method = "GET";
  req.path = "/api/games/" + game + "/players/" + player + "/token";
  req.headers["authorization"] = "Bearer " + gm_token;
  const http::Response r = router.route(req);
  if (r.status != 200) return "";
  const Json j = Json::parse(r.body, nullptr, false);
  return j.is_object() ? j.value("url", "") : "";
}

void run_tick(web::WebContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<TickAction> actions = ctx.admin().tick();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int runs = 0;
  for (const auto& a : actions) runs += a.action == "ran" || a.action == "failed";
  for (const auto& a : actions) {
    // The tick's time is shared out over the turns it ran (a tick does little else).
    if (a.action == "ran" || a.action == "failed")
      ctx.metrics().turn_run(seconds / runs, a.action == "ran");
    if (a.action == "waiting")
      spdlog::debug("event=tick game={} action={} detail=\"{}\"", a.game, a.action, a.detail);
    else if (a.action == "failed" || a.action == "held")
      spdlog::warn("event=tick game={} action={} detail=\"{}\"", a.game, a.action, a.detail);
    else
      spdlog::info("event=tick game={} action={} detail=\"{}\"", a.game, a.action, a.detail);
  }
}

}  // namespace

int serve(const Common& c, const ServeOptions& o) {
  setup_logging();
  std::signal(SIGPIPE, SIG_IGN);

  auto hp = parse_host_port(o.http);
  if (!hp.ok()) {
    spdlog::error("event=bad_option error=\"{}\"", hp.status().message());
    return kExitError;
  }
  if (hp->port == 0) {
    auto port = free_port(hp->host);
    if (!port.ok()) {
      spdlog::error("event=listen_failed error=\"{}\"", port.status().message());
      return kExitError;
    }
    hp->port = *port;
  }

  web::WebConfig config;
  config.db_path = c.db;
  config.base_url = o.base_url.empty()
                        ? "http://" + url_host(hp->host) + ":" + std::to_string(hp->port)
                        : o.base_url;
  while (!config.base_url.empty() && config.base_url.back() == '/') config.base_url.pop_back();
  if (const char* env = std::getenv("ADJUTANT_GM_TOKEN"); env && *env) config.gm_token = env;
  bool generated_gm_token = false;
  if (config.gm_token.empty() && o.demo) {
    config.gm_token = random_hex(16);
    generated_gm_token = true;
  }
  if (config.gm_token.empty())
    spdlog::warn("event=gm_disabled reason=\"ADJUTANT_GM_TOKEN is not set: no GM pages or API\"");

  web::WebContext ctx(config, [] { return static_cast<UnixTime>(std::time(nullptr)); });
  if (Status s = ctx.open_check(); !s.ok()) {
    spdlog::error("event=db_open_failed error=\"{}\"", s.message());
    return kExitError;
  }

  // The demo game, when asked for and the database has no game yet.
  std::string demo_id;
  auto games = ctx.services().list_games();
  if (!games.ok()) {
    spdlog::error("event=db_error error=\"{}\"", games.status().message());
    return kExitError;
  }
  if (o.demo) {
    if (games->empty()) {
      if (!o.create_demo || o.create_demo(&demo_id) != kExitOk) {
        spdlog::error("event=demo_failed");
        return kExitError;
      }
      spdlog::info("event=demo_created game={} turns_played=2", demo_id);
    } else {
      demo_id = games->front().id;
    }
  }

  http::Router router;
  web::register_routes(router, ctx);
  http::HttpServer server(router, ctx.metrics());

  // Signals first, so that a SIGTERM during startup is a clean stop too.
  asio::io_context io;
  asio::signal_set signals(io, SIGINT, SIGTERM);
  asio::steady_timer timer(io);
  asio::thread_pool tick_pool(1);
  bool stopping = false;  // main thread only

  if (Status s = server.start(hp->host, hp->port); !s.ok()) {
    spdlog::error("event=listen_failed error=\"{}\"", s.message());
    return kExitError;
  }
  const std::string& base = config.base_url;
  spdlog::info("event=listening addr={}:{} db=\"{}\" base_url={} tick_seconds={} gm={}", hp->host,
               server.port(), c.db, base, o.tick_seconds, config.gm_token.empty() ? "off" : "on");

  std::string lines = "\nAdjutant is serving " + base + "  (Ctrl-C stops it)\n";
  lines += "  Games:            " + base + "/\n";
  if (!demo_id.empty()) {
    lines += "  Demo game:        " + base + "/games/" + http::url_encode(demo_id) + "\n";
    auto shown = ctx.services().show_game(demo_id);
    if (shown.ok() && !(*shown)["players"].empty()) {
      const std::string player = (*shown)["players"][0].value("code", "");
      const std::string link = player_link(router, config.gm_token, demo_id, player);
      if (!link.empty()) lines += "  Player " + player + " link:  " + link + "\n";
      spdlog::info("event=open game_page={}/games/{} player={}", base, demo_id, player);
    }
  }
  if (!config.gm_token.empty()) {
    lines += "  GM desk:          " + base + "/gm";
    lines += generated_gm_token ? "  (GM token for this run: " + config.gm_token + ")\n"
                                : "  (sign in with ADJUTANT_GM_TOKEN)\n";
  }
  lines += "  Health, metrics:  " + base + "/healthz  " + base + "/metrics\n";
  std::fputs(lines.c_str(), stdout);
  std::fflush(stdout);

  // The scheduler: a tick now (it also notices downtime), then every tick_seconds after the
  // previous one finished.
  std::function<void(std::chrono::seconds)> arm = [&](std::chrono::seconds delay) {
    timer.expires_after(delay);
    timer.async_wait([&](const boost::system::error_code& ec) {
      if (ec || stopping) return;
      asio::post(tick_pool, [&] {
        try {
          run_tick(ctx);
        } catch (const std::exception& e) {
          spdlog::error("event=tick_exception what=\"{}\"", e.what());
        }
        asio::post(io, [&] {
          if (!stopping) arm(std::chrono::seconds(o.tick_seconds));
        });
      });
    });
  };
  if (o.tick_seconds > 0) arm(std::chrono::seconds(0));

  signals.async_wait([&](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    spdlog::info("event=stopping signal={}", signo == SIGINT ? "SIGINT" : "SIGTERM");
    stopping = true;
    timer.cancel();
    server.stop();     // no new connections; requests in hand finish
    tick_pool.join();  // a turn the scheduler is running finishes
    io.stop();
  });
  io.run();
  spdlog::info("event=stopped");
  return kExitOk;
}

}  // namespace adj::cli
