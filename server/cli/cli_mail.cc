#include "server/cli/cli_state.h"

#include <cstdlib>

namespace adj::cli {

void add_mail_commands(CLI::App& app, CliState& s) {
  // ingest | outbox list | outbox send: mail (server/mail)
  if (const char* env = std::getenv("ADJUTANT_MAIL_FROM"); env && *env) s.mail.mail_opts.from = env;
  if (const char* env = std::getenv("ADJUTANT_BASE_URL"); env && *env)
    s.mail.mail_opts.base_url = env;
  const auto add_mail_options = [&s](CLI::App* cmd) {
    cmd->add_option("--mail-from", s.mail.mail_opts.from,
                    "From address of the mail Adjutant sends (env ADJUTANT_MAIL_FROM)")
        ->capture_default_str();
    cmd->add_option("--base-url", s.mail.mail_opts.base_url,
                    "Public base URL for links in mail (env ADJUTANT_BASE_URL)");
  };
  auto* ing = app.add_subcommand(
      "ingest",
      "Read one mail message on stdin (an MTA pipe), store it and answer it through the outbox. "
      "Exit 0 once stored; 75 (try again later) when it could not be stored");
  add_mail_options(ing);
  add_mail_map_options(ing, s.mail.mail_opts.maps,
                       "the answer to a RESEND (and the secrets of a game started by mail)");
  ing->add_option("--sender", s.mail.io.envelope_from, "Envelope sender (e.g. Postfix ${sender})");
  ing->add_option("--recipient", s.mail.io.rcpt_to,
                  "Envelope recipient (e.g. Postfix ${recipient})");
  ing->add_option("--max-bytes", s.mail.io.max_bytes,
                  "Larger messages are kept as their headers only and answered with a refusal")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30));
  add_auth_options(ing, s.mail.io.auth);
  ing->callback([&s] {
    s.mail.io.mail = s.mail.mail_opts;
    s.code = mail_ingest(s.common, s.mail.io);
  });

  auto* inbox =
      app.add_subcommand("inbox", "List or prune the received mail")->require_subcommand(1);
  auto* ilist =
      inbox->add_subcommand("list", "List received mail (without its bytes), newest first");
  ilist->add_option("--state", s.mail.inbox_state, "Only this state: new, processed or failed")
      ->check(CLI::IsMember({"new", "processed", "failed"}));
  ilist->add_option("--limit", s.mail.inbox_limit, "At most this many")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  ilist->add_flag("--json", s.mail.inbox_json, "JSON output");
  ilist->callback([&s] {
    s.code = inbox_list(s.common, s.mail.inbox_state, s.mail.inbox_limit, s.mail.inbox_json);
  });
  auto* iprune = inbox->add_subcommand(
      "prune", "Drop the raw bytes of processed mail older than --keep-days (rows stay)");
  iprune->add_option("--keep-days", s.mail.keep_days, "Days to keep")
      ->capture_default_str()
      ->check(CLI::Range(0, 36500));
  iprune->callback([&s] { s.code = inbox_prune(s.common, s.mail.keep_days); });

  auto* outbox =
      app.add_subcommand("outbox", "List or deliver the outgoing mail")->require_subcommand(1);
  auto* olist = outbox->add_subcommand("list", "List the outbox, newest first");
  olist->add_option("--game", s.game_id, "Only this game's messages");
  olist->add_option("--limit", s.mail.outbox_limit, "At most this many")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  olist->add_flag("--json", s.json, "Machine-readable JSON");
  olist->callback([&s] { s.code = outbox_list(s.common, s.game_id, s.mail.outbox_limit, s.json); });
  if (const char* env = std::getenv("ADJUTANT_RELAY"); env && *env) s.mail.oso.relay = env;
  if (const char* env = std::getenv("ADJUTANT_RELAY_USER"); env && *env) s.mail.oso.user = env;
  if (const char* env = std::getenv("ADJUTANT_RELAY_PASSWORD"); env && *env)
    s.mail.oso.password = env;
  auto* osend = outbox->add_subcommand(
      "send", "Deliver what is due once: to the relay, or without one into the outbox Maildir");
  osend->add_option("--relay", s.mail.oso.relay,
                    "smtp://HOST:PORT or smtps://HOST:PORT (env ADJUTANT_RELAY)");
  osend->add_flag("--starttls", s.mail.oso.starttls, "Require STARTTLS on an smtp:// relay");
  osend->add_option("--user", s.mail.oso.user,
                    "Relay AUTH user (env ADJUTANT_RELAY_USER; password from env "
                    "ADJUTANT_RELAY_PASSWORD)");
  osend->add_flag("--insecure", s.mail.oso.insecure, "Do not verify the relay's TLS certificate");
  osend->add_option("--outbox", s.mail.oso.outbox_dir,
                    "Maildir for the mail when there is no relay (default: <db dir>/outbox)");
  add_mail_options(osend);
  add_mail_map_options(osend, s.mail.mail_opts.maps, "a correction mailed now");
  osend->callback([&s] {
    s.mail.oso.mail = s.mail.mail_opts;
    s.code = outbox_send(s.common, s.mail.oso);
  });

  // backup FILE
  auto* bk = app.add_subcommand(
      "backup",
      "Copy the SQLite database to FILE, consistently, even while the daemon runs (for "
      "PostgreSQL use pg_dump)");
  bk->add_option("FILE", s.mail.backup_to, "Where to write the copy (must not exist)")->required();
  bk->callback([&s] { s.code = backup(s.common, s.mail.backup_to); });

  // copy --from DB --to DB
  auto* cp = app.add_subcommand(
      "copy",
      "Copy every game (and everything else the host keeps) into an empty database, SQLite to "
      "PostgreSQL or back, then compare every table row by row");
  cp->add_option("--from", s.mail.copy_from,
                 "Source database (sqlite:PATH, a path, or postgresql://...; default: --db)");
  cp->add_option("--to", s.mail.copy_to,
                 "Destination database, empty (created when a missing file)")
      ->required();
  cp->callback([&s] {
    s.code =
        copy_database(s.mail.copy_from.empty() ? s.common.db : s.mail.copy_from, s.mail.copy_to);
  });
}

}  // namespace adj::cli
