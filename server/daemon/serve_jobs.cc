#include "server/daemon/serve_jobs.h"

#include <malloc.h>
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <latch>
#include <map>
#include <random>
#include <sstream>
#include "base/client_address.h"
#include "base/log_escape.h"
#include "server/app/gm_token_file.h"
#include "server/app/reports_in_flight.h"
#include "server/http/conn_caps.h"
#include "server/http/http_server.h"
#include "server/http/smtp_server.h"
#include "server/http/thread_setup.h"
#include "server/mail/auth_alert.h"
#include "server/mail/mail_ingest.h"
#include "server/mail/mime.h"
#include "server/mail/notice_mailer.h"
#include "server/mail/outbox_worker.h"
#include "server/render/state_map.h"
#include "server/web/web_context.h"
#include "server/web/web_session.h"
#include "storage/open_database.h"
#include "storage/store.h"

namespace adj::daemon {

// This thread's MailIngest over this thread's store (MailIngest is one object per thread).
// Its guessing limiter keeps its counts in the database (migration 0008), shared with
// `adjutant ingest` processes, under the limits of app.config().throttle.
mail::MailIngest& thread_ingest(AppRuntime& app, const mail::MailConfig& config) {
  thread_local std::unique_ptr<mail::MailIngest> ingest;
  thread_local std::unique_ptr<StoredThrottle> throttle;
  if (!ingest) {
    Store& s = app.store();  // also the ThrottleStore
    ingest = std::make_unique<mail::MailIngest>(app, config);
    throttle = std::make_unique<StoredThrottle>(s, app.config().throttle);
    ingest->set_throttle(throttle.get());
  }
  return *ingest;
}

// Stores messages that arrived by SMTP (on the SMTP store thread; one transaction for the batch)
// and returns their final replies: 250 once stored (then `process` is handed each new id), 550
// for a message none of whose recipients is accepted, 451 for all when the batch could not be
// stored (the clients keep their messages and retry).
std::vector<std::string> store_smtp_batch(AppRuntime& app, const mail::MailConfig& config,
                                          std::vector<http::SmtpMessage>& batch,
                                          const std::function<void(std::int64_t)>& process) {
  mail::MailIngest& ingest = thread_ingest(app, config);
  std::vector<std::string> replies(batch.size());
  std::vector<InboxMessage> rows;
  std::vector<std::size_t> row_of;  // rows[k] is batch[row_of[k]]
  for (std::size_t i = 0; i < batch.size(); ++i) {
    http::SmtpMessage& m = batch[i];
    const mail::Envelope env{m.mail_from, m.rcpt_to, m.peer};
    if (auto spent = ingest.storage_budget_spent(env, m.oversized ? 0 : m.data.size());
        !spent.ok() || !spent->empty()) {  // over budget: 452, nothing stored
      replies[i] =
          spent.ok() ? "452 4.3.1 " + *spent + "\r\n" : http::SmtpProtocol::reply_temp_failure();
      if (spent.ok())
        spdlog::warn("event=mail_budget_refused peer={} reason=\"{}\"", m.peer, *spent);
      continue;
    }
    auto row = m.oversized ? ingest.prepare_oversized(mail::header_block(m.data), m.total_bytes,
                                                      "smtp", env)
                           : ingest.prepare(m.data, "smtp", env);
    if (!row.ok()) {
      replies[i] = row.status().code() == StatusCode::kPermissionDenied
                       ? http::SmtpProtocol::reply_refused(row.status().message())
                       : http::SmtpProtocol::reply_temp_failure();
      continue;
    }
    rows.push_back(std::move(row).value());
    row_of.push_back(i);
  }
  if (rows.empty()) return replies;
  auto put = ingest.store_batch(rows);
  if (!put.ok()) {
    spdlog::error("event=smtp_store_failed messages={} error=\"{}\"", rows.size(),
                  log_escape(put.status().message()));
    for (std::size_t i : row_of) replies[i] = http::SmtpProtocol::reply_temp_failure();
    return replies;
  }
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const InboxPut& p = (*put)[k];
    const std::size_t i = row_of[k];
    spdlog::info("event=mail_received channel=smtp inbox_id={} bytes={} duplicate={} batch={}",
                 p.id, batch[i].total_bytes, p.duplicate, rows.size());
    if (!p.duplicate) process(p.id);
    replies[i] = http::SmtpProtocol::reply_stored("queued as " + std::to_string(p.id));
  }
  return replies;
}

// Accepts every file in DIR/new through MailIngest (channel "maildir"), then moves it to DIR/cur.
// A file that could not be stored stays in new/ for the next pass.
void scan_maildir(AppRuntime& app, const mail::MailConfig& config, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "cur", ec);
  fs::create_directories(fs::path(dir) / "tmp", ec);
  for (const auto& entry : fs::directory_iterator(fs::path(dir) / "new", ec)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream buf;
    if (in) buf << in.rdbuf();
    if (!in || in.bad()) {  // e.g. out of descriptors: leave it in new/ for the next pass
      spdlog::warn("event=maildir_read_failed file=\"{}\"", log_escape(entry.path().string()));
      continue;
    }
    std::string raw = buf.str();
    mail::MailIngest& ingest = thread_ingest(app, config);
    bool duplicate = false;
    auto id = raw.size() > config.max_message_bytes
                  ? ingest.accept_oversized(mail::header_block(raw), raw.size(), "maildir", {},
                                            &duplicate)
                  : ingest.accept(raw, "maildir", {}, &duplicate);
    if (!id.ok()) {
      spdlog::error("event=maildir_store_failed file=\"{}\" error=\"{}\"",
                    log_escape(entry.path().string()), log_escape(id.status().message()));
      continue;
    }
    fs::rename(entry.path(), fs::path(dir) / "cur" / (entry.path().filename().string() + ":2,S"),
               ec);
    spdlog::info("event=mail_received channel=maildir inbox_id={} duplicate={}", *id, duplicate);
    if (!duplicate) {
      auto done = ingest.process(*id);
      if (!done.ok())
        spdlog::warn("event=mail_process_failed inbox_id={} error=\"{}\"", *id,
                     log_escape(done.status().message()));
    }
  }
}

void run_tick(AppRuntime& app, http::Metrics& metrics, int shards, const SpawnShard& spawn) {
  const auto start = std::chrono::steady_clock::now();
  // Each game's actions as soon as it is done: a turn's reports are queued (on the report
  // threads) while the tick goes on with the next games.
  const auto act = [&app](const TickAction& a) {
    try {
      if (a.action == "ran") app.turn_ran(a.game, a.turn);
      if (a.action == "reports") app.turn_ran(a.game, a.turn, true);  // see GameAdmin::tick
    } catch (const std::exception& e) {
      spdlog::error("event=tick_exception game={} what=\"{}\"", log_escape(a.game),
                    log_escape(e.what()));
    }
    const std::string game = log_escape(a.game), detail = log_escape(a.detail);
    if (a.action == "waiting")
      spdlog::debug("event=tick game={} action={} detail=\"{}\"", game, a.action, detail);
    else if (a.action == "failed" || a.action == "held")
      spdlog::warn("event=tick game={} action={} detail=\"{}\"", game, a.action, detail);
    else
      spdlog::info("event=tick game={} action={} detail=\"{}\"", game, a.action, detail);
  };
  std::vector<TickAction> actions;
  if (shards <= 1 || !spawn) {
    actions = app.admin().tick(true, act);
  } else {
    GameAdmin::TickPass pass = app.admin().begin_tick_pass();
    pass.shards = shards;
    std::vector<std::vector<TickAction>> shard_actions(static_cast<std::size_t>(shards));
    std::vector<char> completed(static_cast<std::size_t>(shards), 0);
    const auto run_shard = [&](int i) {
      GameAdmin::TickPass mine = pass;
      mine.shard = i;
      bool done = false;
      try {
        shard_actions[static_cast<std::size_t>(i)] = app.admin().tick_shard(mine, true, act, &done);
      } catch (const std::exception& e) {  // e.g. this thread could not open the database
        spdlog::error("event=tick_exception shard={} what=\"{}\"", i, log_escape(e.what()));
      }
      completed[static_cast<std::size_t>(i)] = done;
    };
    std::latch left(shards - 1);
    for (int i = 1; i < shards; ++i)
      spawn([&run_shard, &left, i] {
        run_shard(i);
        left.count_down();
      });
    run_shard(0);
    left.wait();  // the shards borrow this frame
    if (std::all_of(completed.begin(), completed.end(), [](char c) { return c != 0; }))
      app.admin().end_tick_pass(pass);
    for (auto& a : shard_actions)
      actions.insert(actions.end(), std::make_move_iterator(a.begin()),
                     std::make_move_iterator(a.end()));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int runs = 0;
  for (const auto& a : actions) runs += a.action == "ran" || a.action == "failed";
  // The tick's time is shared out over the turns it ran (a tick does little else).
  for (const auto& a : actions)
    if (a.action == "ran" || a.action == "failed")
      metrics.turn_run(seconds / runs, a.action == "ran");
}

// Queues a reminder for each open game whose deadline is less than `hours` away (tag: the
// deadline, so one reminder per deadline; MailIngest dedupes repeats).
void queue_due_reminders(AppRuntime& app, const mail::MailConfig& config, double hours) {
  auto games = app.services().list_games();
  if (!games.ok()) return;
  const UnixTime now = app.clock()();
  for (const auto& g : *games) {
    if (g.status != "open" || g.archived_at) continue;  // an archived game takes no orders
    auto sched = app.admin().schedule(g.id);
    if (!sched.ok() || !sched->deadline) continue;
    const auto left = static_cast<double>(*sched->deadline - now);
    if (left < 0 || left > hours * 3600) continue;
    auto n = thread_ingest(app, config).queue_reminders(g.id, std::to_string(*sched->deadline));
    if (!n.ok())
      spdlog::warn("event=reminders_failed game={} error=\"{}\"", log_escape(g.id),
                   log_escape(n.status().message()));
    else if (*n > 0)
      spdlog::info("event=reminders_queued game={} count={}", log_escape(g.id), *n);
  }
}

void queue_press_digests(AppRuntime& app, const PressDigestConfig& config, bool before_tick) {
  auto games = app.services().list_games();
  if (!games.ok()) return;
  Store& store = app.store();
  PressDigest digest(app.services(), store, app.clock(), &store, config);
  const UnixTime now = app.clock()();
  for (const auto& g : *games) {
    UnixTime deadline = 0;
    if (before_tick) {
      auto sched = app.admin().schedule(g.id);
      if (!sched.ok() || !sched->deadline || *sched->deadline > now) continue;
      deadline = *sched->deadline;
    }
    auto n = digest.run(g.id, deadline);
    if (!n.ok())
      spdlog::warn("event=press_digest_failed game={} error=\"{}\"", log_escape(g.id),
                   log_escape(n.status().message()));
    else if (*n > 0)
      spdlog::info("event=press_digests game={} queued={} deadline={}", log_escape(g.id), *n,
                   deadline);
  }
}

}  // namespace adj::daemon
