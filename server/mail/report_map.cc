#include "server/mail/report_map.h"

#include <spdlog/spdlog.h>

#include <charconv>

#include "base/log_escape.h"

namespace adj::mail {

std::optional<MailAttachment> ReportMaps::fail(const std::string& why) const {
  spdlog::warn("event=report_map_failed game={} turn={} error=\"{}\"", log_escape(game_), turn_,
               log_escape(why));
  return std::nullopt;
}

std::optional<MailAttachment> ReportMaps::for_report(const Json* report) {
  if (mail_.arrows && report && report_draws_arrows(*report)) return paint(report);
  if (!plain_) {
    plain_ = paint(nullptr);
    if (*plain_ && mail_.parts) store_part(**plain_);
  }
  return *plain_;
}

void ReportMaps::store_part(MailAttachment& a) const {
  MailAttachment stored = a;
  const StoredPart part = make_stored_part(stored);
  if (part.key.empty()) return;
  if (Status st = mail_.parts->put_mail_part(part.key, part.body, mail_.now); !st.ok()) {
    fail("storing the map once for the turn: " + st.message() + "; each mail holds a copy");
    return;
  }
  a = std::move(stored);
}

std::optional<MailAttachment> ReportMaps::paint(const Json* report) {
  if (!painter_) return std::nullopt;
  if (!prepared_) {
    prepared_ = PlayerMapPainter();
    auto state = services_.stores().games.load_state(game_, turn_ + 1);
    if (!state.ok()) return fail("the state after the turn: " + state.status().message());
    Result<PlayerMapPainter> p = Status::Internal("the painter threw");
    try {
      p = painter_(to_json(*state));
    } catch (const std::exception& e) {
      return fail(std::string("the painter threw: ") + e.what());
    }
    if (!p.ok()) return fail(p.status().message());
    prepared_ = std::move(p).value();
  }
  if (!*prepared_) return std::nullopt;  // preparing failed (logged then)
  Result<std::string> png = Status::Internal("the painter threw");
  try {
    png = (*prepared_)(report);
  } catch (const std::exception& e) {
    return fail(std::string("the painter threw: ") + e.what());
  }
  if (!png.ok()) return fail(png.status().message());
  if (png->size() > kMaxMapAttachmentBytes)
    return fail("the PNG is " + std::to_string(png->size()) + " bytes, over the limit of " +
                std::to_string(kMaxMapAttachmentBytes));
  return MailAttachment{
      "map-turn-" + std::to_string(turn_) + ".png", "image/png", std::move(png).value(), {}};
}

bool report_draws_arrows(const Json& report) {
  if (!report.is_object()) return false;
  if (auto a = report.find("attacks_on_you"); a != report.end() && a->is_array() && !a->empty())
    return true;
  if (auto it = report.find("actions"); it != report.end() && it->is_array())
    for (const Json& a : *it) {
      if (!a.is_object()) continue;
      if (a.contains("battle")) return true;
      const std::string verb =
          a.value("verb", Json()).is_string() ? a["verb"].get<std::string>() : "";
      if ((verb == "MOVE" || verb == "MIGRATE") && a.value("ok", Json()).is_boolean() &&
          a["ok"].get<bool>())
        return true;
    }
  return false;
}

std::string correction_key(const std::string& game, int turn, int run, const std::string& player) {
  return "correction:" + game + ":" + std::to_string(turn) + ":" + std::to_string(run) + ":" +
         player;
}

std::optional<int> correction_turn(const Notice& n) {
  const std::string prefix = "correction:" + n.game + ":";
  if (n.kind != "correction" || n.dedupe_key.rfind(prefix, 0) != 0) return std::nullopt;
  const char* begin = n.dedupe_key.data() + prefix.size();
  const char* end = n.dedupe_key.data() + n.dedupe_key.size();
  int turn = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, turn);
  if (ec != std::errc() || ptr == begin || ptr == end || *ptr != ':' || turn < 1)
    return std::nullopt;
  return turn;
}

}  // namespace adj::mail
