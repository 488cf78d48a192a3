#include "server/daemon/serve_setup.h"

#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <sys/resource.h>
#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "base/escape.h"
#include "base/log_escape.h"
#include "server/app/allocator.h"
#include "server/app/gm_token_file.h"
#include "server/app/mail_delivery.h"
#include "server/daemon/cache_credentials.h"
#include "server/http/http_types.h"
#include "server/mail/outbox_worker.h"
#include "server/render/state_map.h"
#include "server/web/web_session.h"
#include "storage/open_database.h"
#include "storage/wait_limit.h"

namespace adj::daemon {

namespace {

namespace asio = boost::asio;

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

// Raises the soft RLIMIT_NOFILE to the hard limit (idle clients cost a descriptor each). Returns
// the soft limit now in force, or -1 for none (RLIM_INFINITY or unknown).
long long raise_file_limit() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
  if (rl.rlim_cur < rl.rlim_max) {
    const rlim_t before = rl.rlim_cur;
    rl.rlim_cur = rl.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &rl) != 0) rl.rlim_cur = before;
  }
  return rl.rlim_cur == RLIM_INFINITY ? -1 : static_cast<long long>(rl.rlim_cur);
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
  req.method = "POST";  // issues a new link token (only its hash is stored)
  req.path = "/api/games/" + game + "/players/" + player + "/token";
  req.headers["authorization"] = "Bearer " + gm_token;
  const http::Response r = router.route(req);
  if (r.status != 200) return "";
  const Json j = Json::parse(r.body, nullptr, false);
  return j.is_object() ? j.value("url", "") : "";
}

}  // namespace

Result<HostPort> parse_host_port(const std::string& s, const std::string& flag) {
  HostPort hp;
  std::string port;
  if (!s.empty() && s.front() == '[') {
    const std::size_t close = s.find(']');
    if (close == std::string::npos || close + 1 >= s.size() || s[close + 1] != ':')
      return Status::InvalidArgument(flag + " wants HOST:PORT or [V6]:PORT, not " + s);
    hp.host = s.substr(1, close - 1);
    port = s.substr(close + 2);
  } else {
    const std::size_t colon = s.rfind(':');
    if (colon == std::string::npos || colon == 0)
      return Status::InvalidArgument(flag + " wants HOST:PORT, not " + s);
    hp.host = s.substr(0, colon);
    port = s.substr(colon + 1);
  }
  try {
    std::size_t used = 0;
    hp.port = std::stoi(port, &used);
    if (used != port.size() || hp.port < 0 || hp.port > 65535) throw std::out_of_range(port);
  } catch (const std::exception&) {
    return Status::InvalidArgument(flag + ": bad port " + port);
  }
  return hp;
}

Result<HostPort> http_address(const ServeOptions& o) {
  auto hp = parse_host_port(o.http);
  if (!hp.ok() || hp->port != 0) return hp;
  auto port = free_port(hp->host);
  if (!port.ok()) return port.status();
  hp->port = *port;
  return hp;
}

Result<TrustedProxies> trusted_proxies(const ServeOptions& o) {
  TrustedProxies out;
  for (const std::string& cidr : o.trusted_proxies)
    if (!out.add(cidr))
      return Status::InvalidArgument("--trusted-proxy " + cidr + ": not an IP address or CIDR");
  return out;
}

void setup_logging() {
  auto logger = spdlog::stderr_color_mt("adjutant");
  logger->set_pattern("ts=%Y-%m-%dT%H:%M:%S.%eZ level=%l %v", spdlog::pattern_time_type::utc);
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::info);
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug shows every request
}

http::FittedCaps connection_caps(const ServeOptions& o) {
  const long long fd_limit = raise_file_limit();
  const http::FittedCaps caps = http::fit_caps_to_fd_limit(
      o.http_max_conns, o.smtp == "off" ? 0 : o.smtp_max_conns, fd_limit);
  if (caps.lowered)
    spdlog::warn(
        "event=connection_caps_lowered fd_limit={} http_max_conns={} smtp_max_conns={} "
        "reason=\"the caps asked for do not fit the file limit; raise LimitNOFILE / ulimit -n\"",
        fd_limit, caps.http, caps.smtp);
  return caps;
}

void tune_allocator() {
  const long delay = set_decommit_delay(kDecommitDelayMs);
  if (delay < 0)
    spdlog::info("event=allocator allocator={}", allocator_name());
  else
    spdlog::info("event=allocator allocator={} decommit_delay_ms={}", allocator_name(), delay);
}

void set_wait_limits(const ServeOptions& o) {
  DatabaseWaitLimits waits;
  waits.connect = std::chrono::seconds(o.pg_connect_timeout);
  waits.statement = std::chrono::seconds(o.pg_statement_timeout);
  waits.idle = std::chrono::seconds(o.pg_idle_timeout);
  set_database_wait_limits(waits);
}

web::WebConfig web_config(const std::string& db, const ServeOptions& o, const HostPort& http,
                          GmTokenOrigin* origin) {
  web::WebConfig config;
  config.db_path = db;
  config.throttle = o.auth;
  config.sessions = o.sessions;
  config.gm_address = o.gm_address;
  config.mail_address = o.smtp_allow.empty() ? o.mail_from : o.smtp_allow.front();
  config.base_url = o.base_url.empty()
                        ? "http://" + url_host(http.host) + ":" + std::to_string(http.port)
                        : o.base_url;
  while (!config.base_url.empty() && config.base_url.back() == '/') config.base_url.pop_back();
  if (const char* env = std::getenv("ADJUTANT_GM_TOKEN"); env && *env) config.gm_token = env;
  *origin = GmTokenOrigin{};
  if (config.gm_token.empty() && o.demo) {
    // Made up once and kept beside the database, so every quick start has the same token.
    auto kept = database_file(db).empty()
                    ? Result<std::string>(Status::FailedPrecondition(
                          "the database is not a file: no GM token file beside it"))
                    : load_or_create_gm_token(database_file(db));
    if (kept.ok()) {
      config.gm_token = *kept;
      origin->kept = true;
    } else {
      spdlog::warn("event=gm_token_file_failed error=\"{}\"", log_escape(kept.status().message()));
      config.gm_token = random_hex(16);
    }
    origin->made_up = true;
  }
  if (config.gm_token.empty())
    spdlog::warn("event=gm_disabled reason=\"ADJUTANT_GM_TOKEN is not set: no GM pages or API\"");
  return config;
}

mail::MailConfig mail_config(const ServeOptions& o, const std::string& base_url,
                             const std::string& gm_token) {
  mail::MailConfig c;
  c.from = {o.mail_from, "Adjutant"};
  c.base_url = base_url;
  c.gm_token = gm_token;
  c.allowed_recipients = o.smtp_allow;
  c.max_message_bytes = o.max_message_bytes;
  c.refusals_per_window = o.refusals_per_hour;
  c.refusals_per_window_total = o.refusals_per_hour_total;
  c.max_process_attempts = o.mail_max_tries;
  c.mime.max_parts = o.mail_max_parts;
  c.max_messages_per_sender = o.mail_sender_messages;
  c.max_bytes_per_sender = o.mail_sender_bytes;
  c.max_messages_per_peer = o.mail_peer_messages;
  c.max_bytes_per_peer = o.mail_peer_bytes;
  c.keep_raw_days = o.mail_keep_days;
  c.map_painter = render::mail_map_painter(o.mail_maps, o.mail_map_style);
  c.map_arrows = o.mail_maps == "player";
  c.trusted_peers.clear();
  for (const std::string& p : o.mail_trusted_peers)
    if (p != "none") c.trusted_peers.push_back(p);
  return c;
}

std::string outbox_dir(const std::string& db, const ServeOptions& o) {
  if (!o.outbox.empty()) return o.outbox;
  // Beside a SQLite file; in the working directory for a database that is not a file.
  const std::filesystem::path parent = std::filesystem::path(database_file(db)).parent_path();
  return parent.empty() ? std::string("outbox") : (parent / "outbox").string();
}

std::unique_ptr<mail::MailSender> mail_sender(const ServeOptions& o, const std::string& outbox) {
  if (o.relay.empty()) {
    mail_delivery().set_mode(MailDeliveryMode::kMaildir, outbox);
    return std::make_unique<mail::MaildirSender>(outbox);
  }
  mail::SmtpRelayOptions ro;
  ro.url = o.relay;
  ro.starttls = o.relay_starttls;
  ro.user = o.relay_user;
  ro.password = o.relay_password;
  ro.timeout_seconds = std::min<long>(120, o.outbox_lease_seconds / 3);
  ro.connect_timeout_seconds = std::min<long>(10, ro.timeout_seconds);
  mail_delivery().set_mode(MailDeliveryMode::kRelay, o.relay);
  return std::make_unique<mail::SmtpRelaySender>(ro);
}

Result<std::string> demo_game(web::WebContext& ctx, const ServeOptions& o) {
  auto games = ctx.services().list_games();
  if (!games.ok()) {
    spdlog::error("event=db_error error=\"{}\"", log_escape(games.status().message()));
    return games.status();
  }
  if (!o.demo) return std::string();
  if (!games->empty()) return games->front().id;
  std::string id;
  if (!o.create_demo || o.create_demo(&id) != kServeOk) {
    spdlog::error("event=demo_failed");
    return Status::Internal("the demo game could not be made");
  }
  spdlog::info("event=demo_created game={} turns_played=2", log_escape(id));
  return id;
}

http::ServerOptions http_server_options(const ServeOptions& o, int max_connections,
                                        const TrustedProxies& proxies) {
  http::ServerOptions h;
  h.max_connections = max_connections;
  h.max_connections_per_address = o.http_max_conns_per_addr;
  h.io_threads = o.http_io_threads;
  h.stale_wait = std::chrono::milliseconds(o.http_stale_wait_ms);
  h.trusted_proxies = proxies;
  return h;
}

http::CacheOptions cache_options(const ServeOptions& o, web::WebContext& ctx) {
  http::CacheOptions c;
  c.max_bytes = static_cast<std::size_t>(o.cache_mb) << 20;
  // Only issued credentials are keyed (cache_credentials.h); the CSRF token, which forms embed,
  // only beside one.
  c.credential_cookies = {web::kPlayerCookie, web::kGmCookie};
  c.companion_cookies = {web::kCsrfCookie};
  c.check = issued_credential_check(ctx);
  return c;
}

std::function<void(std::string&)> cache_collector(const http::ResponseCache& cache) {
  return [&cache](std::string& out) {
    const auto st = cache.stats();
    out +=
        "# HELP adjutant_http_cache Answers served from the page cache, made, kept.\n"
        "# TYPE adjutant_http_cache counter\n";
    out += "adjutant_http_cache{what=\"hits\"} " + std::to_string(st.hits) + "\n";
    out += "adjutant_http_cache{what=\"misses\"} " + std::to_string(st.misses) + "\n";
    out += "adjutant_http_cache{what=\"stale\"} " + std::to_string(st.stale) + "\n";
    out += "adjutant_http_cache{what=\"kept\"} " + std::to_string(st.kept) + "\n";
    out += "adjutant_http_cache{what=\"evicted\"} " + std::to_string(st.evicted) + "\n";
    out += "adjutant_http_cache{what=\"bytes\"} " + std::to_string(st.bytes) + "\n";
  };
}

std::string listen_hint(const std::string& what, const std::string& addr, const std::string& flag,
                        const std::string& why, const std::string& alternative) {
  return "adjutant serve: cannot listen for " + what + " on " + addr + " (" + why +
         "). Another program (perhaps another adjutant serve) may be using it. Pass " + flag +
         " HOST:PORT with a free port, " + alternative + ".\n";
}

std::string startup_lines(const StartupFacts& f, web::WebContext& ctx, const http::Router& router) {
  const std::string& base = f.base_url;
  std::string lines = "\nAdjutant is serving " + base + "  (Ctrl-C stops it)\n";
  lines += "  Games:            " + base + "/\n";
  if (!f.demo_game.empty()) {
    lines += "  Demo game:        " + base + "/games/" + url_encode(f.demo_game) + "\n";
    auto shown = ctx.services().show_game(f.demo_game);
    if (shown.ok() && !(*shown)["players"].empty()) {
      const std::string player = (*shown)["players"][0].value("code", "");
      const std::string link = player_link(router, f.gm_token, f.demo_game, player);
      if (!link.empty()) lines += "  Player " + player + " link:  " + link + "\n";
      spdlog::info("event=open game_page=\"{}/games/{}\" player=\"{}\"", log_escape(base),
                   log_escape(f.demo_game), log_escape(player));
    }
  }
  if (!f.gm_token.empty()) {
    lines += "  GM desk:          " + base + "/gm";
    lines += !f.gm_origin.made_up ? "  (sign in with ADJUTANT_GM_TOKEN)\n"
             : f.gm_origin.kept   ? "  (GM token: " + f.gm_token + ", kept in " +
                                      gm_token_path(database_file(f.db)) + " for the next start)\n"
                                : "  (GM token for this run: " + f.gm_token + ")\n";
  }
  lines += "  Health, metrics:  " + base + "/healthz  " + base + "/metrics\n";
  if (mail_delivery().mode() == MailDeliveryMode::kMaildir)
    lines +=
        "\n  MAIL IS NOT SENT. Outgoing mail (players' secrets, sign-in links, reports) is\n"
        "  written to the local Maildir " +
        f.outbox +
        "\n"
        "  and stays on this machine. To send it, start with --relay smtp://HOST:PORT\n"
        "  (or set ADJUTANT_RELAY; --relay-user, --relay-password for AUTH).\n";
  else
    lines += "  Mail out:         through " + mail_delivery().snapshot().target + "\n";
  return lines;
}

}  // namespace adj::daemon
