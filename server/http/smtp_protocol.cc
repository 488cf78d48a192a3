#include "server/http/smtp_protocol.h"
#include "base/ascii.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <stdexcept>
#include <utility>

namespace adj::http {

namespace {

constexpr std::size_t kDataFlush = 16 * 1024;  // a data line longer than this is flushed early

// "<addr> PARAMS" after "MAIL FROM:" or "RCPT TO:". Accepts a bare address without <> too.
bool parse_path(std::string_view rest, std::string* addr, std::string_view* params) {
  rest = ascii::trim_view(rest);
  if (rest.empty()) return false;
  if (rest.front() == '<') {
    const std::size_t close = rest.find('>');
    if (close == std::string_view::npos) return false;
    *addr = std::string(rest.substr(1, close - 1));
    *params = ascii::trim_view(rest.substr(close + 1));
  } else {
    const std::size_t sp = rest.find(' ');
    *addr = std::string(rest.substr(0, sp));
    *params =
        sp == std::string_view::npos ? std::string_view() : ascii::trim_view(rest.substr(sp + 1));
  }
  if (addr->find_first_of(" \t<>\r\n") != std::string::npos) return false;
  return true;
}

std::string reply(std::string text) { return text + "\r\n"; }

}  // namespace

SmtpProtocol::SmtpProtocol(SmtpLimits limits, std::function<bool(const std::string&)> allow,
                           SmtpDataBudget* budget)
    : limits_(std::move(limits)), allow_(std::move(allow)), budget_(budget) {}

void SmtpDataBudget::give_back(std::size_t n, const std::string& client) {
  used_ -= n < used_ ? n : used_;
  if (client.empty()) return;
  auto it = by_client_.find(client);
  if (it == by_client_.end()) return;
  it->second -= n < it->second ? n : it->second;
  if (it->second == 0) by_client_.erase(it);
}

std::size_t SmtpDataBudget::free(const std::string& client) const {
  const std::size_t all = used_ < limit_ ? limit_ - used_ : 0;
  if (client.empty()) return all;
  auto it = by_client_.find(client);
  const std::size_t held = it == by_client_.end() ? 0 : it->second;
  const std::size_t share = held < per_client_ ? per_client_ - held : 0;
  return std::min(all, share);
}

SmtpProtocol::~SmtpProtocol() { release_budget(); }

void SmtpProtocol::release_budget() {
  if (budget_) budget_->give_back(charged_, client_);
  charged_ = 0;
}

bool SmtpProtocol::reserve_data(std::size_t need) {
  if (!budget_) return true;
  std::string& d = msg_.data;
  if (need <= d.capacity() && d.capacity() <= charged_) return true;
  // Grow geometrically here, so that every byte the string reserves is in the budget.
  std::size_t want = std::max({need, d.capacity() * 2, std::size_t{4096}});
  want = std::min(want, std::max(need, limits_.max_message_bytes + 2));
  if (want > charged_ && !budget_->try_take(want - charged_, client_)) {
    // What is left of the budget, if the need fits in it (one last growth, not one per line).
    want = charged_ + budget_->free(client_);
    if (want < need || !budget_->try_take(want - charged_, client_)) return false;
  }
  charged_ = std::max(charged_, want);
  if (want > d.capacity()) {  // exactly `want` (reserve() on a full string may double instead)
    std::string grown;
    grown.reserve(want);
    grown.append(d);
    d.swap(grown);
  }
  if (d.capacity() > charged_) {  // the allocator rounded up: count it, even past the limit
    budget_->take_anyway(d.capacity() - charged_, client_);
    charged_ = d.capacity();
  }
  return true;
}

std::string SmtpProtocol::greeting() const {
  return reply("220 " + limits_.hostname + " ESMTP Adjutant");
}

std::string SmtpProtocol::reply_stored(const std::string& detail) {
  return reply("250 2.0.0 OK" + (detail.empty() ? "" : " " + detail));
}
std::string SmtpProtocol::reply_temp_failure(const std::string& detail) {
  return reply("451 4.3.0 " + (detail.empty() ? "Cannot store the message now" : detail));
}
std::string SmtpProtocol::reply_refused(const std::string& detail) {
  return reply("550 5.7.1 " + (detail.empty() ? "Refused" : detail));
}
std::string SmtpProtocol::reply_timeout() { return reply("421 4.4.2 Timeout, closing connection"); }
std::string SmtpProtocol::reply_no_storage() {
  return reply("452 4.3.1 Insufficient system storage, try again later");
}

void SmtpProtocol::tls_started() {
  assert(awaiting_tls_);
  awaiting_tls_ = false;
  tls_ = true;
  reset_transaction();
  state_ = State::kGreeted;
  partial_.clear();
  discarding_ = false;
}

void SmtpProtocol::receive(std::string_view bytes, std::vector<SmtpEvent>& out) {
  // After STARTTLS, nothing (not even the rest of this chunk) is taken until tls_started().
  while (!bytes.empty() && !closed_ && !awaiting_tls_) {
    const std::size_t nl = bytes.find('\n');
    const std::string_view piece =
        bytes.substr(0, nl == std::string_view::npos ? bytes.size() : nl);
    if (state_ != State::kData) {
      // Commands: bounded lines; an over-long one is discarded up to its end.
      if (!discarding_) {
        const std::size_t room = limits_.max_command_line > partial_.size()
                                     ? limits_.max_command_line - partial_.size()
                                     : 0;
        if (piece.size() > room) {
          discarding_ = true;
          partial_.clear();
        } else {
          partial_.append(piece);
        }
      }
      if (nl == std::string_view::npos) return;
      bytes.remove_prefix(nl + 1);
      if (discarding_) {
        discarding_ = false;
        error(reply("500 5.5.2 Line too long"), out);
        continue;
      }
      std::string l = std::move(partial_);
      partial_.clear();
      if (!l.empty() && l.back() == '\r') l.pop_back();
      command(l, out);
    } else {
      partial_.append(piece);
      if (nl == std::string_view::npos) {
        // A long partial line cannot be the terminating "."; move it to the data.
        if (partial_.size() > kDataFlush) {
          std::string keep;
          if (partial_.back() == '\r') keep = "\r", partial_.pop_back();
          data_line_mid_ = true;
          append_data(partial_);
          partial_ = std::move(keep);
        }
        return;
      }
      bytes.remove_prefix(nl + 1);
      std::string l = std::move(partial_);
      partial_.clear();
      if (!l.empty() && l.back() == '\r') l.pop_back();
      data_line(l, out);
    }
  }
}

void SmtpProtocol::append_data(std::string_view bytes) {
  msg_.total_bytes += bytes.size();
  if (msg_.oversized || over_budget_) return;
  if (msg_.total_bytes > limits_.max_message_bytes) {
    msg_.oversized = true;
    const std::size_t room =
        msg_.data.size() < kOversizedHead ? kOversizedHead - msg_.data.size() : 0;
    if (room > 0 && !reserve_data(msg_.data.size() + std::min(room, bytes.size()))) {
      over_budget_ = true;
      return;
    }
    msg_.data.append(bytes.substr(0, std::min(room, bytes.size())));
    if (msg_.data.size() > kOversizedHead) msg_.data.resize(kOversizedHead);
    if (budget_) {  // only the head is kept: give the rest of the reservation back
      msg_.data.shrink_to_fit();
      if (msg_.data.capacity() < charged_) {
        budget_->give_back(charged_ - msg_.data.capacity(), client_);
        charged_ = msg_.data.capacity();
      }
    }
    return;
  }
  if (!reserve_data(msg_.data.size() + bytes.size())) {
    over_budget_ = true;            // drop what was buffered: this message is answered 452
    std::string().swap(msg_.data);  // frees (assigning "" would keep the capacity)
    release_budget();
    return;
  }
  msg_.data.append(bytes);
}

void SmtpProtocol::data_line(std::string_view l, std::vector<SmtpEvent>& out) {
  if (!data_line_mid_) {
    if (l == ".") {
      if (over_budget_) {
        out.push_back({SmtpEvent::kReply, reply_no_storage(), {}, 0});
      } else {
        SmtpEvent e;
        e.kind = SmtpEvent::kMessage;
        e.message = std::move(msg_);
        e.budget_charge = charged_;
        charged_ = 0;  // now the listener's to give back
        out.push_back(std::move(e));
      }
      reset_transaction();
      state_ = State::kReady;
      return;
    }
    if (!l.empty() && l.front() == '.') l.remove_prefix(1);  // dot-unstuffing
  }
  data_line_mid_ = false;
  append_data(l);
  append_data("\r\n");
}

void SmtpProtocol::error(std::string r, std::vector<SmtpEvent>& out) {
  if (++errors_ >= limits_.max_errors) {
    out.push_back(
        {SmtpEvent::kReply, reply("421 4.7.0 Too many errors, closing connection"), {}, 0});
    out.push_back({SmtpEvent::kClose, "", {}, 0});
    closed_ = true;
    return;
  }
  out.push_back({SmtpEvent::kReply, std::move(r), {}, 0});
}

void SmtpProtocol::reset_transaction() {
  {
    SmtpMessage empty;  // swapped, not assigned: the old buffers are freed, not kept for reuse
    std::swap(msg_, empty);
  }
  release_budget();
  data_line_mid_ = false;
  over_budget_ = false;
}

void SmtpProtocol::command(std::string_view l, std::vector<SmtpEvent>& out) {
  const std::size_t sp = l.find(' ');
  const std::string verb = ascii::upper(std::string(l.substr(0, sp)));
  const std::string_view arg =
      sp == std::string_view::npos ? std::string_view() : ascii::trim_view(l.substr(sp + 1));
  auto ok = [&](std::string r) { out.push_back({SmtpEvent::kReply, reply(std::move(r)), {}, 0}); };

  if (verb == "EHLO" || verb == "HELO") {
    if (arg.empty()) return error(reply("501 5.5.4 " + verb + " needs a domain"), out);
    reset_transaction();
    state_ = State::kReady;
    if (verb == "HELO") return ok("250 " + limits_.hostname);
    return ok("250-" + limits_.hostname + " greets " + std::string(arg) + "\r\n250-SIZE " +
              std::to_string(limits_.max_message_bytes) + "\r\n250-8BITMIME\r\n250-PIPELINING\r\n" +
              (limits_.starttls && !tls_ ? "250-STARTTLS\r\n" : "") + "250 ENHANCEDSTATUSCODES");
  }
  if (verb == "STARTTLS" && limits_.starttls) {
    if (!arg.empty()) return error(reply("501 5.5.4 STARTTLS takes no argument"), out);
    if (tls_) return error(reply("503 5.5.1 TLS already active"), out);
    if (in_transaction())
      return error(reply("503 5.5.1 STARTTLS not allowed during a mail transaction"), out);
    ok("220 2.0.0 Ready to start TLS");
    out.push_back({SmtpEvent::kStartTls, "", {}, 0});
    awaiting_tls_ = true;
    return;
  }
  if ((verb == "MAIL" || verb == "RCPT" || verb == "DATA") && limits_.require_tls && !tls_)
    return error(reply("530 5.7.0 Must issue a STARTTLS command first"), out);
  if (verb == "NOOP") return ok("250 2.0.0 OK");
  if (verb == "RSET") {
    reset_transaction();
    if (state_ != State::kGreeted) state_ = State::kReady;
    return ok("250 2.0.0 OK");
  }
  if (verb == "QUIT") {
    ok("221 2.0.0 Bye");
    out.push_back({SmtpEvent::kClose, "", {}, 0});
    closed_ = true;
    return;
  }
  if (verb == "VRFY") return ok("252 2.5.2 Cannot VRFY user, but will accept message");
  if (verb == "EXPN" || verb == "HELP" || verb == "TURN" || verb == "ETRN" || verb == "STARTTLS" ||
      verb == "AUTH" || verb == "BDAT")
    return error(reply("502 5.5.1 Command not implemented"), out);
  if (verb == "MAIL") {
    if (state_ == State::kGreeted) return error(reply("503 5.5.1 Send EHLO first"), out);
    if (state_ != State::kReady) return error(reply("503 5.5.1 Nested MAIL command"), out);
    if (!ascii::istarts_with(arg, "FROM:"))
      return error(reply("501 5.5.4 Syntax: MAIL FROM:<address>"), out);
    std::string addr;
    std::string_view params;
    if (!parse_path(arg.substr(5), &addr, &params))
      return error(reply("501 5.1.7 Bad sender address syntax"), out);
    while (!params.empty()) {
      const std::size_t psp = params.find(' ');
      const std::string p = ascii::upper(std::string(params.substr(0, psp)));
      params = psp == std::string_view::npos ? std::string_view()
                                             : ascii::trim_view(params.substr(psp + 1));
      if (p.rfind("SIZE=", 0) == 0) {
        try {
          std::size_t used = 0;
          const unsigned long long n = std::stoull(p.substr(5), &used);
          if (used != p.size() - 5) throw std::invalid_argument(p);
          if (n > limits_.max_message_bytes)
            return error(reply("552 5.3.4 Message size exceeds fixed maximum message size"), out);
        } catch (const std::exception&) {
          return error(reply("501 5.5.4 Bad SIZE parameter"), out);
        }
      } else if (p.rfind("BODY=", 0) == 0 || p == "SMTPUTF8") {
        // Accepted: the message is stored as bytes.
      } else {
        return error(reply("555 5.5.4 Unsupported MAIL parameter " + p), out);
      }
    }
    reset_transaction();
    msg_.mail_from = addr.empty() ? "<>" : addr;
    state_ = State::kMail;
    return ok("250 2.1.0 OK");
  }
  if (verb == "RCPT") {
    if (state_ != State::kMail && state_ != State::kRcpt)
      return error(reply("503 5.5.1 Need MAIL before RCPT"), out);
    if (!ascii::istarts_with(arg, "TO:"))
      return error(reply("501 5.5.4 Syntax: RCPT TO:<address>"), out);
    std::string addr;
    std::string_view params;
    if (!parse_path(arg.substr(3), &addr, &params) || addr.empty())
      return error(reply("501 5.1.3 Bad recipient address syntax"), out);
    if (msg_.rcpt_to.size() >= limits_.max_recipients) return ok("452 4.5.3 Too many recipients");
    if (allow_ && !allow_(addr)) return error(reply("550 5.1.1 No such recipient here"), out);
    msg_.rcpt_to.push_back(addr);
    state_ = State::kRcpt;
    return ok("250 2.1.5 OK");
  }
  if (verb == "DATA") {
    if (state_ == State::kMail) return error(reply("554 5.5.1 No valid recipients"), out);
    if (state_ != State::kRcpt) return error(reply("503 5.5.1 Need RCPT before DATA"), out);
    if (!arg.empty()) return error(reply("501 5.5.4 DATA takes no argument"), out);
    if (budget_ && budget_->free(client_) < kDataStartFree) {
      out.push_back({SmtpEvent::kReply, reply_no_storage(), {}, 0});
      return;
    }
    state_ = State::kData;
    return ok("354 End data with <CR><LF>.<CR><LF>");
  }
  return error(reply("500 5.5.2 Command unrecognized"), out);
}

}  // namespace adj::http
