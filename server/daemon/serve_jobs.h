// The background work of `adjutant serve`, apart from its listeners: one MailIngest per thread,
// the maildir scan, the scheduler's tick and the reminders. Called from serve.cc's threads;
// each function uses the calling thread's store (the AppRuntime they borrow is thread-safe).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "server/app/app_runtime.h"
#include "server/app/press_digest.h"
#include "server/http/metrics.h"
#include "server/http/smtp_protocol.h"
#include "server/mail/mail_ingest.h"

namespace adj::daemon {

// This thread's MailIngest over this thread's store (MailIngest is one object per thread).
// Its guessing limiter keeps its counts in the database (migration 0008), shared with
// `adjutant ingest` processes, under the limits of app.config().throttle.
mail::MailIngest& thread_ingest(AppRuntime& app, const mail::MailConfig& config);

// Stores messages that arrived by SMTP (on the SMTP store thread; one transaction for the batch)
// and returns their final replies: 250 once stored (then `process` is handed each new id), 550
// for a message none of whose recipients is accepted, 451 for all when the batch could not be
// stored (the clients keep their messages and retry).
std::vector<std::string> store_smtp_batch(AppRuntime& app, const mail::MailConfig& config,
                                          std::vector<http::SmtpMessage>& batch,
                                          const std::function<void(std::int64_t)>& process);

// Accepts every file in DIR/new through MailIngest (channel "maildir"), then moves it to DIR/cur.
// A file that could not be stored stays in new/ for the next pass.
void scan_maildir(AppRuntime& app, const mail::MailConfig& config, const std::string& dir);

// The scheduler's pass (GameAdmin::tick): runs the due turns, counting each run in `metrics`, and
// tells the runtime's turn-run hook. With `shards` > 1 the games are shared out
// (GameAdmin::tick_shard): shard 0 on the calling thread, each other one handed to `spawn`, which
// must run it on another thread (one that keeps its store from pass to pass); returns once all
// are done.
using SpawnShard = std::function<void(std::function<void()>)>;
void run_tick(AppRuntime& app, http::Metrics& metrics, int shards = 1,
              const SpawnShard& spawn = {});

// Queues a reminder for each open game whose deadline is less than `hours` away (tag: the
// deadline, so one reminder per deadline; MailIngest dedupes repeats).
void queue_due_reminders(AppRuntime& app, const mail::MailConfig& config, double hours);

// Queues the due press digests of every game (server/app/press_digest.h) on the calling thread's
// store. before_tick: only games whose deadline has come, each player's unmailed press once per
// deadline (the tick then runs their turns); otherwise every game, by the interval. Safe beside
// other threads and processes doing the same (each digest is claimed in one transaction).
void queue_press_digests(AppRuntime& app, const PressDigestConfig& config, bool before_tick);

}  // namespace adj::daemon
