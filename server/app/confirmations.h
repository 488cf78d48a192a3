// Confirmed sign-ups and standby: a request to put an address on a game's sign-up list
// (Membership::join) or standby list (Attendance::standby) made on a public channel (web form,
// JSON API, mail) records nothing until someone who reads that address confirms it. Asking
// stores a PendingConfirmation (storage/membership_store.h) with the hash of a random 128-bit
// code (new_token, stored as hash_token) and mails the code to the address: a link
//   <base_url>/games/<g>/confirm?code=<code>
// (its GET shows one button; the POST confirms, since mail scanners fetch links), and the mail
// command "CONFIRM <code>"; the API takes POST /api/games/{g}/confirm {"code"}. Confirming runs
// the real join or standby once; the code is single use and valid kValidHours. The GM adding
// an address (command line) needs no confirmation and does not come here.
//
// The answer to the requester never says whether the address is already on a list. Requests
// are bounded (kLimits, counted from the stored rows, so every thread and process shares
// them): per client (client_key of the HTTP client, IPv6 per /64; "mail:<address>" for mail)
// and per address asked for, per hour; unconfirmed requests per game. A refused request is
// ConfirmationAsked::limited (HTTP 429).
//
// Mail: for the web and the API the code goes out as a notice (kind "confirm") to the address;
// for mail the answer itself goes to the address (the envelope sender) and carries the code.
//
// Audit log (AdminStore): confirm {kind, address, channel} (actor "confirm:<address>").
//
// Thread-safety: one Confirmations per thread (it borrows that thread's Store and Services).
#pragma once

#include <string>
#include <string_view>

#include "server/app/services.h"
#include "storage/membership_store.h"
#include "storage/store.h"

namespace adj {

// What asking did.
struct ConfirmationAsked {
  bool limited = false;  // a rate limit refused it: nothing stored or mailed; `text` says which
  std::string game;      // the stored game id
  std::string text;      // the answer for the requester (plain text)
};

// What confirming recorded.
struct Confirmed {
  std::string game;
  std::string kind;  // "signup" or "standby"
  std::string address;
  std::string text;  // the answer (plain text): the join or standby answer
};

class Confirmations {
 public:
  Confirmations(Services& services, Store& store, Clock clock, std::string base_url = "")
      : svc_(services), s_(store), now_(std::move(clock)), base_url_(std::move(base_url)) {}

  // A sign-up request for `email` (checked as Membership::join checks it: game open for
  // sign-ups, address, preferences; errors as join's). `channel` "web", "api" or "mail";
  // `client` the requester's client key ("" for mail).
  Result<ConfirmationAsked> ask_signup(const std::string& game, const std::string& email,
                                       std::string_view preferences, const std::string& channel,
                                       const std::string& client);
  // A standby request for `address` (checked as Attendance::standby checks it).
  Result<ConfirmationAsked> ask_standby(const std::string& game, const std::string& address,
                                        const std::string& channel, const std::string& client);
  // Confirms the request of `code` (any game's; surrounding blanks ignored) and records it:
  // PermissionDenied("... wrong, used or expired ...") when no request has this code; else the
  // errors of Membership::join / Attendance::standby (the code is used up either way).
  Result<Confirmed> confirm(std::string_view code, const std::string& channel);

  static constexpr ConfirmationLimits kLimits{10, 3, 3600, 500};
  static constexpr int kValidHours = 48;
  static constexpr std::size_t kMaxCode = 64;

 private:
  Result<ConfirmationAsked> ask(const std::string& game, const std::string& game_name,
                                const std::string& kind, const std::string& address,
                                const Json& payload, const std::string& channel,
                                const std::string& client);

  Services& svc_;
  Store& s_;
  Clock now_;
  std::string base_url_;
};

}  // namespace adj
