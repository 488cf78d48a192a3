// What the report map tests share (report_map_test.cc, mail_parts_test.cc): a message's MIME
// parts as GMime reads them, and britain-1 after turn 1 with the real painter.
#pragma once

#include <gmime/gmime.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "server/mail/compose.h"
#include "server/mail/report_map.h"
#include "server/render/state_map.h"
#include "tests/mail/mail_test_util.h"
#include "tests/support/cli_runner.h"

namespace adj::report_map_test {

// A MIME leaf part of a message as GMime reads it: its type, filename and decoded bytes.
struct Part {
  std::string type;  // "image/png"
  std::string filename;
  bool attachment = false;
  std::string data;
};

struct Message {
  std::string type;  // the top-level Content-Type, e.g. "multipart/mixed"
  std::vector<Part> parts;
};

inline std::string mime_type(GMimeObject* o) {
  char* t = g_mime_content_type_get_mime_type(g_mime_object_get_content_type(o));
  std::string out = t ? t : "";
  g_free(t);
  return out;
}

inline Message read_message(const std::string& raw) {
  static std::once_flag once;
  std::call_once(once, [] { g_mime_init(); });
  Message out;
  GMimeStream* st = g_mime_stream_mem_new_with_buffer(raw.data(), raw.size());
  GMimeParser* p = g_mime_parser_new_with_stream(st);
  g_object_unref(st);
  GMimeMessage* msg = g_mime_parser_construct_message(p, nullptr);
  g_object_unref(p);
  EXPECT_NE(msg, nullptr);
  if (!msg) return out;
  out.type = mime_type(g_mime_message_get_mime_part(msg));
  g_mime_message_foreach(
      msg,
      [](GMimeObject*, GMimeObject* obj, gpointer ud) {
        if (!GMIME_IS_PART(obj)) return;
        GMimePart* part = GMIME_PART(obj);
        Part r;
        r.type = mime_type(obj);
        const char* name = g_mime_part_get_filename(part);
        r.filename = name ? name : "";
        r.attachment = g_mime_part_is_attachment(part);
        GMimeStream* mem = g_mime_stream_mem_new();
        if (GMimeDataWrapper* content = g_mime_part_get_content(part))
          g_mime_data_wrapper_write_to_stream(content, mem);  // transfer-decoded
        GByteArray* bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(mem));
        r.data.assign(reinterpret_cast<const char*>(bytes->data), bytes->len);
        g_object_unref(mem);
        static_cast<Message*>(ud)->parts.push_back(std::move(r));
      },
      &out);
  g_object_unref(msg);
  return out;
}

inline std::vector<Part> pngs(const Message& m) {
  std::vector<Part> out;
  for (const Part& p : m.parts)
    if (p.type == "image/png") out.push_back(p);
  return out;
}

inline bool map_contains(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

// A turn report from orders@ to wessex@, text and HTML, carrying `a`.
inline mail::OutgoingMail report_mail(mail::MailAttachment a) {
  mail::OutgoingMail m;
  m.from = {"orders@pbm.example.net", "Adjutant"};
  m.to = {"wessex@example.org", "Wessex"};
  m.subject = "Turn 1 report";
  m.message_id = "adj.1@pbm.example.net";
  m.text = "Your report.\n";
  m.html = "<p>Your report.</p>";
  m.attachments.push_back(std::move(a));
  return m;
}

// britain-1 with turn 1 run, and the real painter.
class ReportMapMail : public mail_test::WithTurn {
 protected:
  void SetUp() override {
    WithTurn::SetUp();
    config_.map_painter = counting_painter();
    config_.map_arrows = true;  // each player's own arrows; mail_parts_test.cc has the shared map
    make_ingest();
  }
  // The real painter at state_map_png's default size, counting the maps prepared (once per game
  // and turn) and the players' maps painted from them.
  mail::MapPainter counting_painter() {
    return [this](const Json& st) -> Result<mail::PlayerMapPainter> {
      ++prepared_;
      auto turn = render::map_painter(render::PngLimits{})(st);
      if (!turn.ok()) return turn.status();
      return mail::PlayerMapPainter([this, turn = std::move(turn).value()](const Json* report) {
        ++painted_;
        return turn(report);
      });
    };
  }
  // The map after `turn` as the renderer draws it; with `player`, with that player's report's
  // arrows.
  std::string expected_map(int turn, const std::string& player = "",
                           const render::PngLimits& limits = {}) {
    auto st = store_->load_state("britain-1", turn + 1);
    EXPECT_TRUE(st.ok());
    Json drawn = to_json(*st);
    if (!player.empty()) drawn["report"] = services_->report("britain-1", player, turn)->json;
    auto png = render::state_map_png(drawn, limits);
    EXPECT_TRUE(png.ok());
    return png.ok() ? *png : std::string();
  }
  std::atomic<int> prepared_{0}, painted_{0};
};

}  // namespace adj::report_map_test
