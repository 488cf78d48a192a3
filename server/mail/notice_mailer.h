// Turns pending notices (storage/notice_store.h) into outbox mail: one message per recipient,
// to a player's address on file (the open turn's state) or to a plain address. A player without
// an address is skipped (the notice stays readable on the web). Threaded: notices with the same
// thread key share a References root, so a mail reader shows them as one conversation.
//
// Idempotent: each recipient's outbox dedupe key is "notice:<dedupe_key>:<address>", and a
// notice is marked done only after all its mail is queued, so a crash in between is repaired
// by running deliver() again.
// Thread-safety: one NoticeMailer per thread (it uses its stores from the calling thread).
// Ownership: the stores and services are borrowed and must outlive the object.
#pragma once

#include <memory>

#include "server/app/services.h"
#include "server/mail/compose.h"
#include "server/mail/report_map.h"
#include "storage/mail_store.h"
#include "storage/notice_store.h"
#include "storage/press_store.h"

namespace adj::mail {

class NoticeMailer {
 public:
  // `from`: the From of every message; `base_url` ("" for none): the game page link added
  // under each message.
  NoticeMailer(Services& services, NoticeStore& notices, MailStore& mail, Mailbox from,
               std::string base_url, Clock clock)
      : services_(services),
        notices_(notices),
        mail_(mail),
        from_(std::move(from)),
        base_url_(std::move(base_url)),
        now_(std::move(clock)) {}

  // Queues the mail of up to `limit` pending notices, oldest first; returns how many messages
  // were queued now. A notice whose game is gone is marked done without mail.
  Result<int> deliver(int limit = 100);

  // Corrections of a report (correction_turn) attach the map after their turn, prepared by
  // `painter` once per game, turn and run within one deliver() and stored once for its mails;
  // with `arrows` painted with each player's own (report_map.h: ReportMaps, MapMail). Without a
  // painter they go without it.
  void set_map_painter(MapPainter painter, bool arrows = false) {
    painter_ = std::move(painter);
    map_arrows_ = arrows;
  }
  // Mail to players ends with how to reach the GM (gm_contact.h), whose address is read from
  // `press` (borrowed; must outlive this object), else `host_gm_address`. Without this call it
  // names PRESS TO GM only.
  void set_gm_contact(PressStore& press, std::string host_gm_address) {
    press_ = &press;
    host_gm_address_ = std::move(host_gm_address);
  }

 private:
  Services& services_;
  NoticeStore& notices_;
  MailStore& mail_;
  Mailbox from_;
  std::string base_url_;
  Clock now_;
  MapPainter painter_;
  bool map_arrows_ = false;
  PressStore* press_ = nullptr;
  std::string host_gm_address_;
  // The maps of the corrections being delivered in this deliver(): the correction key without
  // its player ("correction:<game>:<turn>:<run>": a re-run changes the map) and its maps.
  std::optional<std::string> maps_for_;
  std::unique_ptr<ReportMaps> maps_;
};

}  // namespace adj::mail
