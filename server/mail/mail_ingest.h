// The one ingest path for mail (SMTP listener, `adjutant ingest` from an MTA pipe, a watched
// Maildir) and the mail the game sends on its own (turn reports, reminders).
//
// Received mail, in two steps:
//   1. accept(raw, channel, envelope) stores the message durably (MailStore::put_inbox) and does
//      nothing else, so the SMTP 250 (or the MTA pipe's exit 0) can follow at once. The same
//      Message-ID twice is stored once (the second accept reports duplicate and the caller does
//      not process it again). A message without a Message-ID is keyed by a hash of its bytes.
//   2. process(id) reads the stored message and answers it; every answer goes through the outbox
//      (MailStore::enqueue) with a dedupe key derived from the inbox id, and the inbox row is
//      marked "processed" (answered, or deliberately not answered) or "failed" (unreadable: no
//      headers, no From) with an outcome for the GM. process() is idempotent: a crash between
//      any two of its writes is repaired by running it again (a submission with the same source
//      is found instead of made twice; queued answers are not queued twice).
//
// What process() does with a message:
//   * Commands: a message whose first non-blank line, or whose subject, is HELP, RESEND or STATUS
//     (optionally followed by a game id; "Re:" prefixes ignored).
//       HELP: the order syntax (schemas/orders/grammar.md summary) plus, when a game is named (GAME
//         line, command argument, subject or recipient tag), that game's engine order_help().
//       RESEND [<turn>]: the player's latest report, or that turn's, with the map after it
//       (MailConfig::map_painter); needs GAME and PLAYER <code> <secret> lines.
//       STATUS: the acknowledgement of the player's orders on file for the open turn; same lines.
//       SECRET <new>: a line of its own after the GAME and PLAYER <code> <secret> lines changes
//         the player's secret (Services::change_secret; audited "secret"); the answer never
//         carries either secret.
//   * Orders: the text is the first candidate (ParsedMail::texts) with a GAME or PLAYER line, else
//     the first text. The game is the GAME line's, else a game id in the subject, else the
//     recipient's +tag (orders+<game>@host). Services::submit_orders(game, text,
//     "email:<message-id>"). The authority is the PLAYER line's secret, never the From address.
//     An authenticated sender (the secret is right, whatever else is wrong) gets the full
//     acknowledgement (render_ack_text: echo with the secret masked, each line's result,
//     "N accepted, M rejected"), threaded with In-Reply-To/References. When the From differs
//     from the player's address on file, that address also gets a warning (without the orders).
//   * Press: PRESS TO <kingdoms>|ALL [ANONYMOUS] ... ENDPRESS blocks (press_mail.h) are taken out
//     of the orders text before it is checked; with orders left they are sent after the orders
//     are stored (their result added to the acknowledgement), alone they are a signed command
//     (GAME and PLAYER lines, the guessing limiter) answered with what was sent to whom.
//   * Refusals: anyone else (no game, unknown game, unknown player, wrong secret, no usable text,
//     HTML with nothing usable, oversized, past a MIME bound) gets a short refusal that never
//     echoes the message, at most MailConfig::refusals_per_window per address and
//     refusals_per_window_total in all per window; beyond that nothing is sent (the outcome says
//     so). HELP answers count against the same limits. Refusals and HELP answers go to the
//     envelope sender (MAIL FROM; for a pipe or Maildir without one, the Return-Path header),
//     never to From or Reply-To, which anyone can forge, and carry a fixed subject and no display
//     name: nothing of the incoming header is sent back to an unauthenticated sender. No envelope
//     sender: no answer.
//   * Never answered (marked processed, outcome says why): automatic mail (Auto-Submitted other
//     than "no", Precedence bulk/junk/list, From MAILER-DAEMON/postmaster, or an empty envelope
//     sender "<>"), to avoid mail loops.
//   * HTML-only mail is read from its text conversion (mime.h html_to_text) and the answer says
//     so; when that leaves nothing usable the refusal explains to send plain text.
//
// Size limit (decision): messages up to MailConfig::max_message_bytes (default 10 MiB) are stored
// whole. A larger message is stored as its header block only (at most 64 KiB) with an added first
// header "X-Adjutant-Truncated: <original size>", and process() answers it with a refusal giving
// the size and the limit. So nothing the MTA or listener handed over is dropped silently, and a
// 30 MB message never enters GMime or the order parser. The SMTP listener should advertise
// SIZE <max_message_bytes> and, for data beyond the limit, stop buffering and call
// accept_oversized with the header block it kept.
//
// Thread-safety: one MailIngest per thread (it uses its stores from the calling thread). Several
// threads and processes may process the same inbox: process() answers a message only under its
// lease (MailStore::lease_inbox), so a message is answered once however many callers try. The
// daemon processes what it accepted and, at start-up and on its mail timer, what is still "new";
// `adjutant ingest` processes the message it stored.
// Ownership: the services and stores are borrowed and must outlive the object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/app/admin.h"
#include "server/app/auth_throttle.h"
#include "server/app/membership.h"
#include "server/app/services.h"
#include "server/mail/compose.h"
#include "server/mail/mime.h"
#include "server/mail/report_map.h"
#include "storage/mail_store.h"

namespace adj {
class AppRuntime;        // server/app/app_runtime.h
class Press;             // server/app/press.h
struct ParsedOrderFile;  // rules/orders/parser.h
}  // namespace adj

namespace adj::mail {
struct PressBlock;         // press_mail.h
struct AttendanceCommand;  // attendance_mail.h

struct MailConfig {
  Mailbox from{"adjutant@localhost", "Adjutant"};  // the From of every message sent
  std::string base_url;                            // "http://host:8080"; "" leaves links out
  // Envelope recipients accepted (addr-specs, compared without regard to case and ignoring a
  // +tag: "orders@host" allows "orders+britain-1@host"). Empty: any recipient.
  std::vector<std::string> allowed_recipients;
  std::size_t max_message_bytes = 10u << 20;
  int refusals_per_window = 3;  // refusal and HELP answers per sender address per window
  // Refusal and HELP answers to all addresses together per window (forged senders are free to
  // make up, so the per-address limit alone does not bound what the host sends).
  int refusals_per_window_total = 100;
  std::int64_t rate_window_seconds = 3600;
  // Bounds on MIME parsing (mime.h). A message past one is answered with a refusal naming it.
  MimeLimits mime;
  // Tries to answer one message (process() calls that take its lease, persisted on the inbox
  // row, including tries whose process died or ran past its lease). After this many the message
  // is marked "failed" for the GM and never tried again, so one poison message cannot hold the
  // queue or be retried forever after restarts.
  int max_process_attempts = 3;
  // Storage budgets per hour (rate_window_seconds) for anonymous senders: messages and bytes
  // stored from one envelope sender, and from one client address. Over budget, nothing is
  // stored: the SMTP listener answers 452 (the sender may retry later), a pipe exits 75.
  // 0 turns a bound off.
  int max_messages_per_sender = 60;
  std::int64_t max_bytes_per_sender = 50ll << 20;
  int max_messages_per_peer = 300;
  std::int64_t max_bytes_per_peer = 200ll << 20;
  // Client addresses without a per-address budget: an MTA in front of the listener (all its
  // mail comes from one address; the per-sender budget still applies). Exact IP strings.
  std::vector<std::string> trusted_peers = {"127.0.0.1", "::1"};
  // Raw bytes of processed messages older than this are dropped (the row, Message-ID and
  // outcome stay), and so are the maps of report mails delivered before then; 0 keeps them for
  // ever. Applied by prune().
  int keep_raw_days = 30;
  // How long process() holds a message's lease (MailStore::lease_inbox) before another process
  // may take it over; answering one message takes milliseconds.
  std::int64_t lease_seconds = 120;
  // The GM token (ADJUTANT_GM_TOKEN): the GM line of the GM's own mail must carry it (and the
  // mail come from the game's GM address). "" refuses every GM mail.
  std::string gm_token;
  // Paints the map that report mails (queue_turn_reports, queue_corrections' notices, RESEND)
  // attach as map-turn-<turn>.png (report_map.h); null: reports go without a map.
  MapPainter map_painter;
  // Whether each player's map draws that player's own moves and battles (MapMail::arrows,
  // --mail-maps player). Off: a game's mails of a turn share one map, painted and stored once.
  bool map_arrows = false;
};

struct Envelope {
  // MAIL FROM without the <>; "" when unknown (pipe); "<>" for the null sender (bounces).
  std::string mail_from;
  std::vector<std::string> rcpt_to;  // RCPT TO addresses; empty when unknown (pipe)
  std::string peer;                  // the client's IP address; "" when unknown (pipe, Maildir)
};

// What process() did with one message.
struct ProcessResult {
  std::string state;    // "processed" or "failed" (as stored on the inbox row)
  std::string outcome;  // as stored on the inbox row
  // "orders", "help", "resend", "status", "press", "refusal", "ignored", "error"
  std::string action;
  std::optional<std::int64_t> submission_id;  // orders: the stored submission
  int queued = 0;                             // messages queued by this call
  // Nothing was done: the message had been answered before, or another process holds its
  // lease (state "new", outcome "being answered by another process").
  bool already_done = false;
};

class MailIngest {
 public:
  // Borrows `app`, which must outlive this object: the services, GM admin, other services and
  // mail queues of the thread that makes it, which is the thread that uses it. The clock is the
  // runtime's.
  MailIngest(AppRuntime& app, MailConfig config);

  // Stores `raw` (see above); returns the inbox id. `*duplicate` (optional) tells whether the
  // message was already stored. PermissionDenied (nothing stored) when allowed_recipients is set
  // and the envelope names recipients, none of them allowed. FailedPrecondition (nothing stored)
  // when the storage budget of the sender or client address is spent (storage_budget_spent).
  // IOError etc. from the store: the caller must not acknowledge the message then (SMTP 451, pipe
  // exit 1).
  Result<std::int64_t> accept(std::string_view raw, const std::string& channel,
                              const Envelope& envelope, bool* duplicate = nullptr);
  // For a message whose body was not kept: stores `head` (its header block, cut to 64 KiB) marked
  // as truncated at `total_bytes`. Same results as accept.
  Result<std::int64_t> accept_oversized(std::string_view head, std::size_t total_bytes,
                                        const std::string& channel, const Envelope& envelope,
                                        bool* duplicate = nullptr);

  // Group commit (the SMTP listener): prepare() is accept() without the storing, giving the inbox
  // row (PermissionDenied as above); store_batch() stores prepared rows in one transaction.
  Result<InboxMessage> prepare(std::string_view raw, const std::string& channel,
                               const Envelope& envelope) const;
  Result<InboxMessage> prepare_oversized(std::string_view head, std::size_t total_bytes,
                                         const std::string& channel,
                                         const Envelope& envelope) const;
  Result<std::vector<InboxPut>> store_batch(const std::vector<InboxMessage>& rows);
  // Why a message of `bytes` from `envelope` may not be stored now ("" when it may): the
  // sender's or the client address's budget for this window is spent (see MailConfig). The
  // caller answers a temporary refusal (SMTP 452, pipe exit 75) and stores nothing. accept()
  // checks it itself; the group-commit path (prepare/store_batch) calls it before prepare.
  Result<std::string> storage_budget_spent(const Envelope& envelope, std::size_t bytes);
  // Drops the raw bytes of processed messages older than keep_raw_days, and the stored maps of
  // report mails delivered before then (MailStore::prune_mail_parts); returns how many messages.
  Result<int> prune();

  // Answers the stored message `id` (see above) under its lease, so that several processes
  // sharing the database answer it once. NotFound for an unknown id. A message no longer "new",
  // or leased by another process, is left alone (already_done). Errors from the stores are
  // returned with the message still "new" (the error in its outcome) and its lease given back,
  // so that it is retried; a message whose lease was taken max_process_attempts times already
  // is marked "failed" ("gave up after N tries: <last outcome>") instead of tried again.
  Result<ProcessResult> process(std::int64_t id);
  // Gives back the leases of processes on this host that no longer run (a daemon killed while
  // answering), so their messages are answered now rather than when the lease runs out. Returns
  // how many were released. Leases of other hosts are left to run out.
  Result<int> release_dead_leases();
  // process() for up to `limit` "new" messages, oldest first; returns how many it answered (not
  // counting those another process holds). A message whose processing fails is skipped (its
  // try is counted, see max_process_attempts) so it never holds the others; only failing to
  // list the messages is an error. `answered`, when set, is called with each message this call
  // answered (not those answered before or held elsewhere), e.g. to log it as process()'s
  // callers do.
  using Answered = std::function<void(std::int64_t id, const ProcessResult& result)>;
  Result<int> process_pending(int limit = 100, const Answered& answered = {});

  // Whether `address` is an allowed envelope recipient (always true with no allow-list).
  bool recipient_allowed(const std::string& address) const;

  // Queues each player's report of `turn` (Services::report: text with the roundup) to every
  // player with an email address: text body, HTML alternative, links to the web report, the map
  // after the turn attached (MailConfig::map_painter, prepared once for the turn and stored once
  // for all its mails; with map_arrows each player's with that player's own arrows). Dedupe
  // key "report:<game>:<turn>:<player>": running it again queues nothing new. Returns how many
  // were queued now. NotFound when the game or the turn's reports do not exist.
  // When the audit log shows the turn ran before (a rollback, then this re-run), every player's
  // report goes out again as a correction instead (queue_corrections).
  // A done call appends the audit entry "reports" {turn, queued} (actor
  // "mail"): the scheduler of any process sharing the database queues the reports again (a
  // no-op for those already queued) when a turn's entry is missing (GameAdmin::tick).
  Result<int> queue_turn_reports(const std::string& game, int turn);
  // Every player's report of `turn` as a notice (Services::notify, kind "correction"): subject
  // "Correction: ...", first line saying it replaces the report mailed before. `run` (the run's
  // number, 2 for the first re-run) makes each re-run's notices distinct. Returns how many.
  Result<int> queue_corrections(const std::string& game, int turn, int run);
  // Mails each player in `secrets` (code -> new secret in clear) that has an email address their
  // new secret (a game created with fresh secrets, or a GM reset). Returns how many were queued.
  // The mail waits in the outbox like any other until it is sent. NotFound for an unknown game.
  // With `with_link` (and a base_url) each mail also carries a sign-in link: a new link token is
  // issued for the player (their previous link stops working).
  Result<int> queue_new_secrets(const std::string& game,
                                const std::map<std::string, std::string>& secrets,
                                bool with_link = false);
  // Queues a reminder for the open turn to every player with an email address and no orders on
  // file. Dedupe key "reminder:<game>:<turn>:<player>" (":<tag>" appended when tag is set, for a
  // second reminder). Returns how many were queued now.
  Result<int> queue_reminders(const std::string& game, const std::string& tag = "");

  const MailConfig& config() const { return config_; }

  // The guessing limiter for the PLAYER line's secret in orders, RESEND and STATUS (borrowed;
  // null: no limit). Keys: "sender:<envelope sender, else From>" and "player:<game>/<code>". A
  // locked attempt is refused with "too many failed attempts; try again after <time>" (the
  // secret is not checked, the file not stored); a failure that locks the player's key queues
  // the player an alert (auth_alert.h). Set before processing.
  void set_throttle(Throttle* throttle) { throttle_ = throttle; }

 private:
  struct Context;
  Result<ProcessResult> process_leased(InboxMessage in);
  Result<ProcessResult> answer(Context& c);
  Result<ProcessResult> handle_orders(Context& c);
  Result<ProcessResult> handle_help(Context& c);
  Result<ProcessResult> handle_resend(Context& c);
  Result<ProcessResult> handle_secret(Context& c);
  Result<ProcessResult> handle_status(Context& c);
  // STANDBY, TAKEOVER and ABSENCE (attendance_mail.h).
  Result<ProcessResult> handle_attendance(Context& c, const AttendanceCommand& cmd);
  // JOIN and ADDRESS (membership_mail.cc). `words`: the JOIN line's words.
  Result<ProcessResult> handle_join(Context& c, const std::string& refusal_to,
                                    const std::vector<std::string>& words);
  Result<ProcessResult> handle_address(Context& c, const std::string& new_address);
  // CONFIRM <code> (membership_mail.cc): a sign-up or standby request confirmed.
  Result<ProcessResult> handle_confirm(Context& c, const std::string& refusal_to,
                                       const std::string& code);
  // The membership services of the runtime, with this object's base URL.
  Membership membership();
  // PRESS blocks (press_mail.h): alone in a signed mail, or the press part of an orders answer.
  Result<ProcessResult> handle_press(Context& c, const std::vector<PressBlock>& blocks);
  Result<std::string> press_answer(Context& c, const std::string& game, const std::string& player,
                                   const std::vector<PressBlock>& blocks, int* sent = nullptr);
  // Mail between players and the GM (mail_gm.cc). The GM's own mail: a "GM <token>" line, from
  // the game's GM address, whose PRESS blocks go out as the GM's press; from any other address
  // it is read as other mail is (handle_orders).
  Result<ProcessResult> handle_gm_mail(Context& c, const std::string& token);
  // A player's letter to the GM: `text` (the message without quotes and signature) read as no
  // orders and no command (`parsed`), signed with the PLAYER line or sent from a player's
  // address on file. Kept as press to the GM, forwarded to the GM's address, answered. nullopt
  // when it is no player's letter (the caller reads it as orders).
  Result<std::optional<ProcessResult>> letter_to_gm(Context& c, const std::string& text,
                                                    const ParsedOrderFile& parsed);
  // A letter that replies to a press digest mailed to `player`: sent as press to the digest's
  // named `senders` (`anonymous`: how many of its messages had none), and answered.
  Result<ProcessResult> press_reply(Context& c, Press& press, const std::string& game,
                                    const std::string& player, const std::string& text,
                                    const std::vector<std::string>& senders, int anonymous);
  Result<ProcessResult> refuse(Context& c, const std::string& why, const std::string& text);
  // Why no more refusal or HELP answer may go to `address` in this window ("" when one may):
  // refusals_per_window to it, or refusals_per_window_total to anyone, were queued.
  Result<std::string> refusal_budget_spent(const std::string& address);
  // Queues an answer to an unauthenticated sender (refusal, HELP) to c.refusal_to, with `subject`
  // and no display name.
  Result<bool> reply_anonymous(Context& c, const std::string& kind, const std::string& game,
                               const std::string& subject, std::string text);
  // RESEND and STATUS: the game and player the message's GAME and PLAYER lines authenticate;
  // nullopt after queueing a refusal (described in *refusal).
  struct Signed {
    std::string game;
    std::string player;
  };
  Result<std::optional<Signed>> signed_command(Context& c, ProcessResult* refusal);
  // The outbox row of one message (composed, with the GM's contact when it is about a game:
  // `gm_contact` when given, else read for the game).
  Result<OutboxMessage> outgoing(const std::string& kind, const std::string& game,
                                 const Mailbox& to, const std::string& dedupe_key,
                                 OutgoingMail mail, const std::string* gm_contact = nullptr);
  // Queues one message; false (and no error) when its dedupe key was already queued.
  Result<bool> queue(const std::string& kind, const std::string& game, const Mailbox& to,
                     const std::string& dedupe_key, OutgoingMail mail);
  // reply() with `body`, and the result of a message so answered ("processed", `action`,
  // `outcome`, what was queued).
  Result<ProcessResult> answered(Context& c, const std::string& kind, const std::string& game,
                                 const std::string& suffix, std::string body,
                                 const std::string& action, std::string outcome);
  Result<bool> reply(Context& c, const std::string& kind, const std::string& game,
                     const std::string& suffix, std::string text,
                     std::optional<std::string> html = std::nullopt,
                     std::vector<MailAttachment> attachments = {});
  // Whether (game, player, secret) authenticate: the validator accepts a file of just the
  // GAME and PLAYER lines.
  Result<bool> authenticated(const std::string& game, const std::string& player,
                             const std::string& secret);
  std::optional<std::string> find_game(const Context& c, const std::optional<std::string>& named);
  std::string game_link(const std::string& game) const;
  Result<InboxMessage> row(std::string raw, std::string message_id, const std::string& channel,
                           const Envelope& envelope) const;
  // Guessing limiter hooks (set_throttle): the keys of an attempt on `game`/`player` ("" when
  // the code names no player); the refusal to answer when locked (nullopt: go ahead); and the
  // result of a check (`exists`: the player exists; a lockout of it queues the alert).
  ThrottleKeys throttle_keys(const Context& c, const std::string& game,
                             const std::string& player) const;
  Result<std::optional<ProcessResult>> throttled(Context& c, const ThrottleKeys& keys);
  Status throttle_record(const ThrottleKeys& keys, bool ok, const std::string& game,
                         const std::string& player);

  AppRuntime& app_;
  Services& services_;
  GameAdmin& admin_;
  MailStore& mail_;  // the inbox and the outbox
  MailConfig config_;
  Clock now_;
  // The audit entry "reports" of queue_turn_reports.
  Status record_reports_queued(const std::string& game, int turn, int queued);
  // How this object's mails carry their map (report_map.h): parts stored in mail_.
  MapMail map_mail() { return MapMail{config_.map_arrows, &mail_, now_()}; }
  std::string holder_;  // this object's lease holder name ("host:pid:n")
  Throttle* throttle_ = nullptr;
};

}  // namespace adj::mail
