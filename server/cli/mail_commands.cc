// `adjutant ingest` and `adjutant outbox list|send`: the mail commands over server/mail.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "server/app/app_runtime.h"
#include "server/app/open_store.h"
#include "server/app/press_digest.h"
#include "server/app/services.h"
#include "server/app/time_text.h"
#include "server/cli/commands.h"
#include "server/mail/mail_ingest.h"
#include "server/mail/mime.h"
#include "server/mail/notice_mailer.h"
#include "server/mail/outbox_worker.h"
#include "server/render/state_map.h"
#include "storage/open_database.h"
#include "storage/store.h"

namespace adj::cli {

namespace {

Result<std::unique_ptr<Store>> open_mail_store(const Common& c) {
  auto store = adj::open_store(c.db, wall_clock());
  if (!store.ok()) return store.status();
  return store;
}

// Queues the due press digests of every game (server/app/press_digest.h, default interval and
// size), as the daemon's delivery pass does.
Status queue_press_digests(Services& services, Store& s) {
  auto games = services.list_games();
  if (!games.ok()) return games.status();
  PressDigest digest(services, s, wall_clock, &s, PressDigestConfig{});
  for (const auto& g : *games)
    if (auto n = digest.run(g.id); !n.ok()) return n.status();
  return Status::Ok();
}

}  // namespace

int mail_ingest(const Common& c, const IngestOptions& o) {
  // Read all of stdin (the MTA expects us to), keeping at most max_bytes + 1 of it.
  std::string raw;
  std::size_t total = 0;
  char buf[1 << 16];
  std::FILE* in = stdin;
  for (;;) {
    const std::size_t n = std::fread(buf, 1, sizeof buf, in);
    if (n == 0) break;
    const std::size_t keep = std::min(n, o.max_bytes + 1 - std::min(raw.size(), o.max_bytes + 1));
    raw.append(buf, keep);
    total += n;
  }
  if (std::ferror(in))
    return fail(Status::IOError("cannot read the message on stdin"), kExitTempFail);

  auto runtime = open_runtime(c);
  if (!runtime.ok()) return fail(runtime.status(), kExitTempFail);
  AppRuntime& app = **runtime;
  Store& s = app.store();
  mail::MailConfig config;
  config.from = {o.mail.from, o.mail.from_name};
  config.base_url = o.mail.base_url;
  config.max_message_bytes = o.max_bytes;
  config.map_painter = render::mail_map_painter(o.mail.maps.maps, o.mail.maps.style);
  config.map_arrows = o.mail.maps.arrows();
  // The GM's own mail carries the GM token, as `serve` reads it.
  if (const char* env = std::getenv("ADJUTANT_GM_TOKEN"); env && *env) config.gm_token = env;
  mail::MailIngest ingest(app, config);
  // The guessing limiter, its counts in the database (shared with the daemon and other ingests).
  StoredThrottle throttle(s, o.auth);  // the Store is the ThrottleStore too
  ingest.set_throttle(&throttle);
  mail::Envelope env{o.envelope_from, o.rcpt_to, ""};

  bool duplicate = false;
  auto id = total > o.max_bytes
                ? ingest.accept_oversized(mail::header_block(raw), total, "pipe", env, &duplicate)
                : ingest.accept(raw, "pipe", env, &duplicate);
  if (!id.ok()) return fail(id.status(), kExitTempFail);
  if (duplicate) {
    std::printf("already stored as inbox message %lld (same Message-ID); not processed again\n",
                static_cast<long long>(*id));
    return kExitOk;
  }
  auto done = ingest.process(*id);
  if (!done.ok()) {
    std::fprintf(stderr,
                 "warning: stored as inbox message %lld, but processing failed: %s (it stays "
                 "new and is processed by the next pass)\n",
                 static_cast<long long>(*id), done.status().message().c_str());
    return kExitOk;
  }
  std::printf("stored as inbox message %lld: %s\n", static_cast<long long>(*id),
              done->outcome.c_str());
  // What the message caused for others (press, sign-up answers) goes to the outbox now.
  if (Status d = queue_press_digests(app.services(), s); !d.ok())
    std::fprintf(stderr, "warning: press digests not queued yet: %s\n", d.message().c_str());
  mail::NoticeMailer notices(app.services(), s, s, config.from, config.base_url, wall_clock);
  notices.set_map_painter(config.map_painter, config.map_arrows);
  notices.set_gm_contact(s, app.config().gm_address);
  if (auto n = notices.deliver(); !n.ok())
    std::fprintf(stderr, "warning: notices not queued yet: %s\n", n.status().message().c_str());
  return kExitOk;
}

int inbox_list(const Common& c, const std::string& state, int limit, bool json) {
  auto store = open_mail_store(c);
  if (!store.ok()) return fail(store.status());
  auto list = (*store)->inbox_list(state, limit, true);
  if (!list.ok()) return fail(list.status());
  if (json) {
    Json arr = Json::array();
    for (const auto& m : *list)
      arr.push_back({{"id", m.id},
                     {"message_id", m.message_id},
                     {"state", m.state},
                     {"received_at", m.received_at},
                     {"channel", m.channel},
                     {"from", m.envelope_from},
                     {"peer", m.peer},
                     {"bytes", m.raw_bytes},
                     {"attempts", m.attempts},
                     {"pruned", m.pruned_at.has_value()},
                     {"outcome", m.outcome}});
    std::printf("%s\n", arr.dump(2).c_str());
    return kExitOk;
  }
  if (list->empty()) {
    std::printf("No received mail%s.\n", state.empty() ? "" : (" in state " + state).c_str());
    return kExitOk;
  }
  std::printf("%6s  %-9s  %-19s  %-7s  %-28s  %9s  %3s  %s\n", "id", "state", "received (UTC)",
              "channel", "envelope sender", "bytes", "try", "outcome");
  for (const auto& m : *list)
    std::printf("%6lld  %-9s  %-19s  %-7s  %-28s  %9lld  %3d  %s\n", static_cast<long long>(m.id),
                m.state.c_str(), utc_seconds_or_dash(m.received_at).c_str(), m.channel.c_str(),
                m.envelope_from.c_str(), static_cast<long long>(m.raw_bytes), m.attempts,
                m.outcome.c_str());
  return kExitOk;
}

int inbox_prune(const Common& c, int keep_days) {
  auto store = open_mail_store(c);
  if (!store.ok()) return fail(store.status());
  const UnixTime now = wall_clock();
  auto n = (*store)->prune_inbox(now - static_cast<UnixTime>(keep_days) * 86400, now);
  if (!n.ok()) return fail(n.status());
  std::printf("dropped the raw bytes of %d processed messages older than %d days\n", *n, keep_days);
  return kExitOk;
}

int outbox_list(const Common& c, const std::string& game, int limit, bool json) {
  auto store = open_mail_store(c);
  if (!store.ok()) return fail(store.status());
  auto list = (*store)->outbox(game, limit);
  if (!list.ok()) return fail(list.status());
  if (json) {
    Json arr = Json::array();
    for (const auto& m : *list) {
      auto parsed = mail::parse_mail(std::string(mail::header_block(m.raw)) + "\r\n");
      arr.push_back({{"id", m.id},
                     {"kind", m.kind},
                     {"game", m.game},
                     {"to", m.to},
                     {"subject", parsed.ok() ? parsed->subject : ""},
                     {"state", m.state},
                     {"attempts", m.attempts},
                     {"next_attempt_at", m.next_attempt_at},
                     {"last_error", m.last_error},
                     {"created_at", m.created_at}});
    }
    std::printf("%s\n", arr.dump(2).c_str());
    return kExitOk;
  }
  if (list->empty()) {
    std::printf("The outbox is empty%s.\n", game.empty() ? "" : (" for game " + game).c_str());
    return kExitOk;
  }
  std::printf("%6s  %-8s  %-9s  %-12s  %-28s  %3s  %-19s  %s\n", "id", "state", "kind", "game",
              "to", "try", "created (UTC)", "subject / last error");
  for (const auto& m : *list) {
    auto parsed = mail::parse_mail(std::string(mail::header_block(m.raw)) + "\r\n");
    std::string what = parsed.ok() ? parsed->subject : "";
    if (!m.last_error.empty()) what += "  [" + m.last_error + "]";
    std::printf("%6lld  %-8s  %-9s  %-12s  %-28s  %3d  %-19s  %s\n", static_cast<long long>(m.id),
                m.state.c_str(), m.kind.c_str(), m.game.c_str(), m.to.c_str(), m.attempts,
                utc_seconds_or_dash(m.created_at).c_str(), what.c_str());
  }
  return kExitOk;
}

int outbox_send(const Common& c, const OutboxSendOptions& o) {
  auto app = open_runtime(c);
  if (!app.ok()) return fail(app.status());
  Store& store = (*app)->store();  // the outbox, and the notices and press behind it
  std::unique_ptr<mail::MailSender> sender;
  if (!o.relay.empty()) {
    mail::SmtpRelayOptions ro;
    ro.url = o.relay;
    ro.starttls = o.starttls;
    ro.user = o.user;
    ro.password = o.password;
    ro.verify_tls = !o.insecure;
    sender = std::make_unique<mail::SmtpRelaySender>(ro);
  } else {
    std::string dir = o.outbox_dir;
    if (dir.empty()) {
      // Beside a SQLite file; in the working directory for a database that is not a file.
      const std::filesystem::path parent = std::filesystem::path(database_file(c.db)).parent_path();
      dir = (parent.empty() ? std::filesystem::path("outbox") : parent / "outbox").string();
    }
    sender = std::make_unique<mail::MaildirSender>(dir);
  }
  // Due press digests and pending notices (press, sign-ups, corrections...) become outbox mail
  // first.
  Services& services = (*app)->services();
  if (Status d = queue_press_digests(services, store); !d.ok()) return fail(d);
  mail::NoticeMailer notices(services, store, store, {o.mail.from, o.mail.from_name},
                             o.mail.base_url, wall_clock);
  // Corrections attach the map.
  notices.set_map_painter(render::mail_map_painter(o.mail.maps.maps, o.mail.maps.style),
                          o.mail.maps.arrows());
  notices.set_gm_contact(store, (*app)->config().gm_address);
  if (auto n = notices.deliver(100000); !n.ok()) return fail(n.status());
  mail::OutboxWorker worker(store, *sender);
  mail::WorkerStats total;
  // Messages that fail are rescheduled into the future, so the passes end.
  for (;;) {
    auto stats = worker.run_once(wall_clock());
    if (!stats.ok()) return fail(stats.status());
    total.claimed += stats->claimed;
    total.sent += stats->sent;
    total.retried += stats->retried;
    total.failed += stats->failed;
    if (stats->claimed == 0) break;
  }
  auto pending = store.pending_count();
  std::printf("%s: %d sent, %d to retry later, %d failed for good; %d still queued\n",
              sender->describe().c_str(), total.sent, total.retried, total.failed,
              pending.ok() ? *pending : -1);
  return kExitOk;
}

}  // namespace adj::cli
