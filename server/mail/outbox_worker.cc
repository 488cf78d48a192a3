#include "server/mail/outbox_worker.h"

#include "server/app/mail_delivery.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "server/mail/detail.h"
#include "server/mail/mime.h"

namespace adj::mail {

namespace {

void ensure_curl() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Feeds the raw message to curl's upload.
struct Upload {
  const std::string* data;
  std::size_t pos = 0;
};

std::size_t read_chunk(char* buffer, std::size_t size, std::size_t nitems, void* user) {
  auto* up = static_cast<Upload*>(user);
  const std::size_t room = size * nitems;
  const std::size_t n = std::min(room, up->data->size() - up->pos);
  std::memcpy(buffer, up->data->data() + up->pos, n);
  up->pos += n;
  return n;
}

std::string angle(const std::string& addr) { return "<" + addr + ">"; }

std::string from_header_address(const std::string& raw) {
  auto parsed = parse_mail(std::string(header_block(raw)) + "\r\n");
  return parsed.ok() ? parsed->from_address : std::string();
}

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

// ---- SMTP relay ------------------------------------------------------------------------------

SmtpRelaySender::SmtpRelaySender(SmtpRelayOptions options) : options_(std::move(options)) {}

SmtpRelaySender::~SmtpRelaySender() {
  for (void* h : kept_) curl_easy_cleanup(static_cast<CURL*>(h));
}

SendResult SmtpRelaySender::send(const OutboxMessage& m) {
  ensure_curl();
  SendResult r;
  const std::string from =
      options_.envelope_from.empty() ? from_header_address(m.raw) : options_.envelope_from;
  if (from.empty()) {
    r.permanent = true;
    r.error = "no envelope sender: the message has no From address";
    return r;
  }
  CURL* curl = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!kept_.empty()) {
      curl = static_cast<CURL*>(kept_.back());
      kept_.pop_back();
    }
  }
  if (curl)
    curl_easy_reset(curl);  // the options go, the open connection stays
  else
    curl = curl_easy_init();
  if (!curl) {
    r.error = "curl_easy_init failed";
    return r;
  }
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_slist* rcpt = curl_slist_append(nullptr, angle(m.to).c_str());
  Upload up{&m.raw};
  curl_easy_setopt(curl, CURLOPT_URL, options_.url.c_str());
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, options_.connect_timeout_seconds);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, options_.timeout_seconds);
  curl_easy_setopt(curl, CURLOPT_MAXAGE_CONN, kKeepSeconds);
  if (options_.starttls) curl_easy_setopt(curl, CURLOPT_USE_SSL, static_cast<long>(CURLUSESSL_ALL));
  if (!options_.verify_tls) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (!options_.user.empty() || !options_.password.empty()) {
    curl_easy_setopt(curl, CURLOPT_USERNAME, options_.user.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, options_.password.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_MAIL_FROM, angle(from).c_str());
  curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt);
  curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_chunk);
  curl_easy_setopt(curl, CURLOPT_READDATA, &up);
  curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(m.raw.size()));

  const CURLcode rc = curl_easy_perform(curl);
  long reply = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply);
  curl_slist_free_all(rcpt);
  if (rc == CURLE_OK) {
    std::lock_guard<std::mutex> lock(mu_);
    kept_.push_back(curl);
    r.ok = true;
    return r;
  }
  curl_easy_cleanup(curl);
  r.error = std::string(curl_easy_strerror(rc));
  if (errbuf[0]) r.error += ": " + std::string(errbuf);
  if (reply) r.error += " (SMTP " + std::to_string(reply) + ")";
  // 5xx is the relay's final word on this message, except the replies about authentication
  // and TLS (RFC 4954: 530 "authentication/STARTTLS required", 534, 535, 538): those are the
  // relay configuration, which the GM can fix, so the message is retried.
  const bool auth_reply = reply == 530 || reply == 534 || reply == 535 || reply == 538;
  r.permanent = reply >= 500 && reply < 600 && !auth_reply && rc != CURLE_LOGIN_DENIED;
  // No SMTP reply at all (no connection, TLS failed, timed out before a reply), 421 (service not
  // available), or the relay's own configuration: the way out, not this message.
  r.delivery_path = reply == 0 || reply == 421 || auth_reply || rc == CURLE_LOGIN_DENIED ||
                    rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
                    rc == CURLE_USE_SSL_FAILED;
  return r;
}

// ---- Maildir ---------------------------------------------------------------------------------

MaildirSender::MaildirSender(std::string dir) : dir_(std::move(dir)) {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0 || !host[0]) std::strcpy(host, "localhost");
  for (char* p = host; *p; ++p)
    if (*p == '/' || *p == ':') *p = '_';
  host_ = host;
}

std::string MaildirSender::file_name(const OutboxMessage& m) const {
  const std::string hash = detail::sha256_hex(m.dedupe_key);
  return std::to_string(m.created_at) + ".A" + std::to_string(m.id) + "_" + hash.substr(0, 16) +
         "." + host_;
}

SendResult MaildirSender::send(const OutboxMessage& m) {
  namespace fs = std::filesystem;
  SendResult r;
  r.delivery_path = true;  // every failure here is the Maildir's (disk full, permissions)
  std::error_code ec;
  // Mail holds reports and links: directories this sender makes are the owner's only (0700);
  // ones that already exist (an MTA's Maildir) keep the mode their owner gave them.
  for (const fs::path& d :
       {fs::path(dir_), fs::path(dir_) / "tmp", fs::path(dir_) / "new", fs::path(dir_) / "cur"}) {
    if (fs::is_directory(d, ec)) continue;
    fs::create_directories(d, ec);
    if (!ec) fs::permissions(d, fs::perms::owner_all, ec);
    if (ec) {
      r.error = "cannot create " + d.string() + ": " + ec.message();
      return r;
    }
  }
  const std::string name = file_name(m);
  const fs::path fresh = fs::path(dir_) / "new" / name;
  for (const fs::path& p :
       {fresh, fs::path(dir_) / "cur" / name, fs::path(dir_) / "cur" / (name + ":2,"),
        fs::path(dir_) / "cur" / (name + ":2,S")})
    if (fs::exists(p, ec)) {
      r.ok = true;  // delivered before (a crash before it was marked)
      return r;
    }

  std::string body;
  body.reserve(m.raw.size());
  for (std::size_t i = 0; i < m.raw.size(); ++i)
    if (!(m.raw[i] == '\r' && i + 1 < m.raw.size() && m.raw[i + 1] == '\n'))
      body.push_back(m.raw[i]);

  const fs::path tmp = fs::path(dir_) / "tmp" / name;
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    r.error = errno_text("cannot create " + tmp.string());
    return r;
  }
  std::size_t done = 0;
  while (done < body.size()) {
    const ssize_t n = ::write(fd, body.data() + done, body.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      r.error = errno_text("cannot write " + tmp.string());
      ::close(fd);
      ::unlink(tmp.c_str());
      return r;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    r.error = errno_text("cannot sync " + tmp.string());
    ::close(fd);
    ::unlink(tmp.c_str());
    return r;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), fresh.c_str()) != 0) {
    r.error = errno_text("cannot move the message to " + fresh.string());
    ::unlink(tmp.c_str());
    return r;
  }
  // Make the rename durable.
  const fs::path new_dir = fs::path(dir_) / "new";
  if (const int dfd = ::open(new_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  r.ok = true;
  return r;
}

// ---- the worker --------------------------------------------------------------------------------

std::int64_t backoff_delay(int attempts, const BackoffPolicy& p) {
  std::int64_t d = std::max<std::int64_t>(p.first_delay_seconds, 1);
  for (int i = 1; i < attempts && d < p.max_delay_seconds; ++i) d *= 2;
  return std::min(d, p.max_delay_seconds);
}

OutboxWorker::OutboxWorker(MailStore& store, MailSender& sender, BackoffPolicy backoff, int batch,
                           std::int64_t lease_seconds, std::int64_t max_send_seconds)
    : store_(store),
      sender_(sender),
      backoff_(backoff),
      batch_(batch),
      lease_seconds_(lease_seconds),
      max_send_seconds_(max_send_seconds) {}

Result<WorkerStats> OutboxWorker::run_once(UnixTime now) {
  WorkerStats stats;
  // The lease runs from `now` (whole seconds, taken by the caller just before): measured from
  // here, one second earlier, so time spent waiting for the claim's write counts too.
  const auto started = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  auto claimed = store_.claim(now, batch_, lease_seconds_);
  if (!claimed.ok()) return claimed.status();
  stats.claimed = static_cast<int>(claimed->size());
  for (const OutboxMessage& m : *claimed) {
    // A send is started only when it ends within the lease even at its longest: past the lease
    // another process may claim the message and send it too. The rest stay claimed until their
    // lease runs out, then anyone (this worker too) claims them again.
    const auto spent =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started)
            .count();
    if (spent + max_send_seconds_ +
            std::clamp<std::int64_t>(lease_seconds_ / 10, kMinLeaseMarginSeconds,
                                     kLeaseMarginSeconds) >=
        lease_seconds_) {
      stats.left_claimed = stats.claimed - stats.sent - stats.retried - stats.failed;
      break;
    }
    const SendResult res = sender_.send(m);
    if (res.ok) {
      mail_delivery().note_sent(now);
      ADJ_RETURN_IF_ERROR(store_.mark_sent(m.id, now));
      ++stats.sent;
      continue;
    }
    mail_delivery().note_failed(now, res.error);
    const bool final = res.permanent || (!res.delivery_path && m.attempts >= backoff_.max_attempts);
    ADJ_RETURN_IF_ERROR(
        store_.mark_retry(m.id, res.error, now + backoff_delay(m.attempts, backoff_), final));
    ++(final ? stats.failed : stats.retried);
  }
  return stats;
}

}  // namespace adj::mail
