#include "server/app/press.h"

#include <algorithm>
#include <cctype>

#include "base/ascii.h"
#include "server/app/audit_log.h"
#include "server/app/membership.h"

namespace adj {
namespace {

using ascii::trim;
using ascii::upper;

// Whether `s` is well-formed UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF).
bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int n = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + static_cast<std::size_t>(n) >= s.size()) return false;
    for (int k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n + 1;
  }
  return true;
}

// The body as stored: line ends as \n, no trailing blank lines, no control characters but tab
// and newline.
std::string clean_body(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '\r') {
      if (i + 1 < in.size() && in[i + 1] == '\n') continue;
      out += '\n';
    } else if (c == '\n' || c == '\t' || static_cast<unsigned char>(c) >= 0x20) {
      if (c != 0x7f) out += c;
    }
  }
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  std::size_t lead = 0;
  while (lead < out.size() && out[lead] == '\n') ++lead;
  return out.substr(lead);
}

int level(const std::string& press) {
  if (press == "public") return 1;
  if (press == "private") return 2;
  if (press == "anonymous") return 3;
  return 0;
}

bool game_over(const Json& state) { return state.value("status", "") == "finished"; }

// Whether the GM sent `m` or is among its recipients.
bool involves_gm(const PressMessage& m) {
  return m.sender == kGmPressCode ||
         std::find(m.recipients.begin(), m.recipients.end(), kGmPressCode) != m.recipients.end();
}
// A message between the GM and some players: only they read it, never the archive.
bool private_with_gm(const PressMessage& m) { return !m.to_all && involves_gm(m); }

// Whether `names` names the GM alone ("GM", any case).
bool names_gm_only(const std::vector<std::string>& names) {
  return names.size() == 1 && upper(trim(names[0])) == "GM";
}

// The body as it will be stored, or why it cannot be.
Result<std::string> checked_body(const std::string& raw, std::size_t max_bytes) {
  std::string body = clean_body(raw);
  if (body.empty())
    return Status::InvalidArgument(
        "the message is empty; write something between the PRESS TO "
        "line and ENDPRESS (or in the message field)");
  if (body.size() > max_bytes)
    return Status::InvalidArgument("the message is " + std::to_string(body.size()) +
                                   " bytes long; press messages may be at most " +
                                   std::to_string(max_bytes) +
                                   " bytes. Shorten it or send it in parts");
  if (!valid_utf8(body))
    return Status::InvalidArgument("the message is not valid UTF-8 text; send plain text");
  return body;
}

// The recipients of a draft: InvalidArgument when it names none or too many.
Status check_recipient_count(const PressDraft& draft) {
  if (draft.to.empty())
    return Status::InvalidArgument(
        "the message names no recipient; name kingdoms by code or "
        "name, or ALL for everyone");
  if (draft.to.size() > 64)
    return Status::InvalidArgument("the message names " + std::to_string(draft.to.size()) +
                                   " recipients; at most 64 may be named (or ALL)");
  return Status::Ok();
}

}  // namespace

std::string Press::label(const Json& state, const std::string& code) {
  if (code == kGmPressCode) return "the GM";
  if (state.contains("players"))
    for (const Json& p : state["players"])
      if (p.value("code", "") == code) {
        const std::string name = p.value("name", "");
        return name.empty() || name == code ? code : name + " (" + code + ")";
      }
  return code;
}

std::string Press::describe(const PressOptions& o) {
  if (o.press == "none") return "No press: players cannot send messages in this game.";
  if (o.press == "public") return "Public press only: every message goes to all players.";
  if (o.press == "anonymous")
    return "Private and anonymous press: messages may go to some kingdoms or to all, with or "
           "without the sender's name.";
  return "Private press: messages may go to some kingdoms or to all, always with the sender's "
         "name.";
}

Result<std::vector<std::string>> Press::resolve(const Json& state,
                                                const std::vector<std::string>& names, bool* all) {
  *all = false;
  std::vector<std::string> out, unknown;
  std::vector<std::pair<std::string, std::string>> kingdoms;  // code, upper-case name
  for (const Json& p : state["players"])
    kingdoms.emplace_back(p.value("code", ""), upper(p.value("name", "")));
  const auto find = [&](const std::string& word) -> std::optional<std::string> {
    const std::string w = upper(trim(word));
    if (w == "GM") return std::string(kGmPressCode);  // the game master, never a kingdom
    for (const auto& [code, name] : kingdoms)
      if (w == code || (!name.empty() && w == name)) return code;
    return std::nullopt;
  };
  std::vector<std::string> items;  // "MRC,NUM" is two names
  for (const std::string& raw : names) {
    std::size_t start = 0;
    while (start <= raw.size()) {
      std::size_t comma = raw.find(',', start);
      if (comma == std::string::npos) comma = raw.size();
      items.push_back(raw.substr(start, comma - start));
      start = comma + 1;
    }
  }
  for (const std::string& raw : items) {
    const std::string item = trim(raw);
    if (item.empty()) continue;
    if (upper(item) == "ALL") {
      *all = true;
      continue;
    }
    if (auto code = find(item)) {
      if (std::find(out.begin(), out.end(), *code) == out.end()) out.push_back(*code);
      continue;
    }
    // "WSX MRC": several codes separated by spaces.
    std::vector<std::string> parts;
    std::string part;
    for (char c : item + " ") {
      if (std::isspace(static_cast<unsigned char>(c))) {
        if (!part.empty()) parts.push_back(part);
        part.clear();
      } else {
        part += c;
      }
    }
    bool each = parts.size() > 1;
    std::vector<std::string> found;
    for (const auto& w : parts) {
      auto code = find(w);
      if (!code) {
        each = false;
        break;
      }
      found.push_back(*code);
    }
    if (each) {
      for (const auto& c : found)
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    } else {
      unknown.push_back(item.size() > 40 ? item.substr(0, 40) + "..." : item);
    }
  }
  if (!unknown.empty()) {
    std::string there;
    for (const auto& [code, name] : kingdoms) {
      if (!there.empty()) there += ", ";
      there += label(state, code);
    }
    std::string list;
    for (const auto& u : unknown) list += (list.empty() ? "\"" : ", \"") + u + "\"";
    return Status::InvalidArgument("no kingdom " + list + " in this game; send press to " + there +
                                   ", ALL, or GM (the game master)");
  }
  if (*all) out.clear();
  return out;
}

PressView Press::view(const Json& state, const PressMessage& m, const std::string& reader,
                      bool reveal) const {
  PressView v;
  v.message = m;
  v.sent = !reader.empty() && m.sender == reader;
  const bool hidden = m.anonymous && !v.sent && !reveal;
  if (hidden) v.message.sender.clear();
  v.from =
      hidden ? "anonymous" : label(state, m.sender) + (m.anonymous ? " (sent anonymously)" : "");
  if (m.to_all) {
    v.to = "everyone";
  } else {
    for (const auto& r : m.recipients) v.to += (v.to.empty() ? "" : ", ") + label(state, r);
  }
  return v;
}

Result<PressView> Press::send(const std::string& game, const std::string& player,
                              const PressDraft& draft) {
  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  const std::string me = upper(player);
  bool known = false;
  for (const Json& p : (*state)["players"]) known = known || p.value("code", "") == me;
  if (!known) return Status::NotFound("there is no kingdom " + me + " in game " + game);
  if (game_over(*state))
    return Status::FailedPrecondition(
        "the game is over, so no more press can be sent; its press is in the archive");
  auto opts = store_.press_options(game);
  if (!opts.ok()) return opts.status();
  const int lvl = level(opts->press);
  const bool gm_only = names_gm_only(draft.to);  // always allowed
  if (lvl == 0 && !gm_only)
    return Status::FailedPrecondition(
        "this game has no press: messages between players are "
        "turned off by the GM (you can still write to the GM: PRESS TO GM)");
  bool all = false;
  auto body = checked_body(draft.body, limits_.max_body_bytes);
  if (!body.ok()) return body.status();
  auto to = recipients(*state, draft, me, &all);
  if (!to.ok()) return to.status();
  if (!all && to->empty())
    return Status::InvalidArgument(
        "the only recipient named is yourself; name other kingdoms, "
        "or ALL");
  const bool to_gm = std::find(to->begin(), to->end(), kGmPressCode) != to->end();
  if (!gm_only && !all && lvl < 2)
    return Status::FailedPrecondition("this game allows public press only: send it to ALL");
  if (draft.anonymous && to_gm)
    return Status::FailedPrecondition(
        "a message to the GM always carries your name; send it without ANONYMOUS");
  if (draft.anonymous && lvl < 3)
    return Status::FailedPrecondition(
        "this game does not allow anonymous press; send it without "
        "ANONYMOUS (it will carry your name)");
  PressDraft d = draft;
  d.body = std::move(body).value();
  d.to = all ? std::vector<std::string>{} : *to;
  return store_message(*state, game, me, d);
}

Result<PressView> Press::send_as_gm(const std::string& game, const PressDraft& draft) {
  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  if (game_over(*state))
    return Status::FailedPrecondition(
        "the game is over, so no more press can be sent; its press is in the archive");
  if (draft.anonymous)
    return Status::InvalidArgument("the GM's press always says it is from the GM");
  bool all = false;
  auto body = checked_body(draft.body, limits_.max_body_bytes);
  if (!body.ok()) return body.status();
  auto to = recipients(*state, draft, kGmPressCode, &all);
  if (!to.ok()) return to.status();
  if (!all && to->empty())
    return Status::InvalidArgument("name the kingdoms the message is for, or ALL");
  PressDraft d = draft;
  d.body = std::move(body).value();
  d.to = all ? std::vector<std::string>{} : *to;
  return store_message(*state, game, kGmPressCode, d);
}

Result<std::vector<std::string>> Press::recipients(const Json& state, const PressDraft& draft,
                                                   const std::string& sender, bool* all) {
  ADJ_RETURN_IF_ERROR(check_recipient_count(draft));
  auto to = resolve(state, draft.to, all);
  if (!to.ok()) return to.status();
  to->erase(std::remove(to->begin(), to->end(), sender), to->end());
  return to;
}

Result<PressView> Press::store_message(const Json& state, const std::string& game,
                                       const std::string& sender, const PressDraft& draft) {
  PressMessage m;
  m.game = game;
  m.turn = state.value("turn", 1);
  m.sent_at = now_();
  m.sender = sender;
  m.recipients = draft.to;
  m.to_all = draft.to.empty();
  m.anonymous = draft.anonymous;
  m.body = draft.body;
  m.source = draft.source;
  auto id = store_.append_press(m, limits_.bounds);
  if (!id.ok()) return id.status();
  m.id = *id;
  // Mailed to players by their next press digest (press_digest.h), to the GM at once.
  if (std::find(m.recipients.begin(), m.recipients.end(), kGmPressCode) != m.recipients.end())
    ADJ_RETURN_IF_ERROR(forward_to_gm(state, m));
  return view(state, m, sender, false);
}

Result<std::string> Press::gm_address(const std::string& game) {
  auto opts = store_.press_options(game);
  if (!opts.ok()) return opts.status();
  return effective_gm_address(*opts, host_gm_address_);
}

Status Press::forward_to_gm(const Json& state, const PressMessage& m) {
  auto address = gm_address(m.game);
  if (!address.ok()) return address.status();
  if (address->empty()) return Status::Ok();  // read on the GM desk only
  std::string on_file;
  for (const Json& p : state["players"])
    if (p.value("code", "") == m.sender) on_file = p.value("email", "");
  const std::string from = label(state, m.sender);
  const std::string name = state.value("name", m.game);
  Notice n;
  n.game = m.game;
  n.kind = "gm-message";
  n.addresses = {*address};
  n.subject = "message to the GM from " + from;  // the mailer puts the game before it
  n.text =
      from + (on_file.empty() ? "" : " <" + on_file + ">") + " wrote to the GM of " + name + " (" +
      m.game + ") on turn " + std::to_string(m.turn) +
      (m.source.find("#gm-unsigned") != std::string::npos
           ? ", by mail from the player's address on file, without the secret"
           : "") +
      ":\n\n" + m.body +
      "\n\n-- \nThis message is kept in the game's GM inbox (the GM desk, and GET "
      "/api/games/" +
      m.game + "/gm/messages). To answer, send press from the GM desk, POST /api/games/" + m.game +
      "/press with the GM token, or mail from this address with the lines\n\n  GAME " + m.game +
      "\n  GM <the GM token>\n  PRESS TO " + m.sender + "\n  <your answer>\n  ENDPRESS\n";
  n.dedupe_key = "gm-message:" + m.game + ":" + std::to_string(m.id);
  n.thread = "gm:" + m.game;
  n.created_at = m.sent_at;
  const Status s = services_.notify(std::move(n));
  return s.code() == StatusCode::kAlreadyExists ? Status::Ok() : s;
}

Result<std::vector<PressView>> Press::mailbox(const std::string& game, const std::string& player) {
  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  auto all = store_.press_messages_after(game, 0);
  if (!all.ok()) return all.status();
  const std::string me = upper(player);
  auto since = holder_since(game, me);
  if (!since.ok()) return since.status();
  std::vector<PressView> out;
  for (auto it = all->rbegin(); it != all->rend(); ++it) {
    const PressMessage& m = *it;
    const bool mine = m.sender == me || m.to_all ||
                      std::find(m.recipients.begin(), m.recipients.end(), me) != m.recipients.end();
    const bool earlier = *since && m.sent_at < **since && !m.to_all;
    if (mine && !earlier) out.push_back(view(*state, m, me, false));
  }
  return out;
}

Result<std::optional<UnixTime>> Press::holder_since(const std::string& game,
                                                    const std::string& player) {
  std::optional<UnixTime> since;
  if (!audit_) return since;
  auto opts = store_.press_options(game);
  if (!opts.ok()) return opts.status();
  if (opts->new_holder_reads_earlier) return since;
  auto log = audit_->audit_log(game);
  if (!log.ok()) return log.status();
  for (const AuditEntry& e : *log)
    if (e.action == "replace" && e.detail.is_object() && e.detail.value("player", "") == player)
      since = std::max(since.value_or(e.at), e.at);
  return since;
}

Result<std::vector<PressView>> Press::archive(const std::string& game) {
  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  auto all = store_.press_messages_after(game, 0);
  if (!all.ok()) return all.status();
  const bool over = game_over(*state);
  std::vector<PressView> out;
  for (auto it = all->rbegin(); it != all->rend(); ++it)
    if ((over && !private_with_gm(*it)) || it->to_all) out.push_back(view(*state, *it, "", false));
  return out;
}

Result<std::vector<PressView>> Press::gm_view(const std::string& game) {
  auto opts = store_.press_options(game);
  if (!opts.ok()) return opts.status();
  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  auto all = store_.press_messages_after(game, 0);
  if (!all.ok()) return all.status();
  const bool reads = opts->gm_reads_private, over = game_over(*state);
  std::vector<PressView> out;
  for (auto it = all->rbegin(); it != all->rend(); ++it)
    if (reads || it->to_all || over || involves_gm(*it))
      out.push_back(view(*state, *it, "", reads));
  return out;
}

Result<std::vector<PressView>> Press::gm_inbox(const std::string& game) {
  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  auto all = store_.press_messages_after(game, 0);
  if (!all.ok()) return all.status();
  std::vector<PressView> out;
  for (auto it = all->rbegin(); it != all->rend(); ++it)
    if (std::find(it->recipients.begin(), it->recipients.end(), kGmPressCode) !=
        it->recipients.end())
      out.push_back(view(*state, *it, "", true));
  return out;
}

Result<PressOptions> Press::options(const std::string& game) { return store_.press_options(game); }

Status Press::set_options(const std::string& game, const PressOptions& o,
                          const std::string& actor) {
  if (!o.gm_address.empty()) {
    const Status bad = Membership::check_address(o.gm_address);
    if (!bad.ok()) return Status::InvalidArgument("the GM's address: " + bad.message());
  }
  ADJ_RETURN_IF_ERROR(store_.set_press_options(game, o));
  if (audit_) {
    ADJ_RETURN_IF_ERROR(record_audit(*audit_, game, now_(), actor, "press-options",
                                     {{"press", o.press},
                                      {"gm_reads_private", o.gm_reads_private},
                                      {"new_holder_reads_earlier", o.new_holder_reads_earlier},
                                      {"gm_address", o.gm_address}}));
  }
  return Status::Ok();
}

}  // namespace adj
