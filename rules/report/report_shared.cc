#include "rules/report/report_shared.h"

#include "rules/turn/turn_text.h"

namespace adj {

namespace {

// Writes a report tree as Json::dump() would (compact, UTF-8 as is, invalid UTF-8 an error),
// with each battle placeholder replaced by that battle's JSON text. Scalars go through
// nlohmann's own serializer (the one Json::dump uses), so numbers and strings are written by
// the same code as before.
class SplicingWriter {
 public:
  SplicingWriter(std::string& out, const std::vector<ReportBattle>& battles)
      : out_(out),
        battles_(battles),
        scalars_(nlohmann::detail::output_adapter<char, std::string>(out), ' ',
                 nlohmann::detail::error_handler_t::strict) {}

  void write(const Json& j) {
    switch (j.type()) {
      case Json::value_t::object: {
        out_ += '{';
        bool first = true;
        for (auto it = j.begin(); it != j.end(); ++it) {
          if (!first) out_ += ',';
          first = false;
          key(it.key());
          out_ += ':';
          write(it.value());
        }
        out_ += '}';
        break;
      }
      case Json::value_t::array: {
        out_ += '[';
        bool first = true;
        for (const Json& x : j) {
          if (!first) out_ += ',';
          first = false;
          write(x);
        }
        out_ += ']';
        break;
      }
      case Json::value_t::binary:
        out_ += battles_.at(j.get_binary().subtype()).json_text;
        break;
      default:
        scalars_.dump(j, false, false, 0);
    }
  }

 private:
  // Keys are the report's own names (plain ASCII, written as they are); any other key is
  // escaped by the serializer.
  void key(const std::string& k) {
    bool plain = true;
    for (char c : k)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '_')) {
        plain = false;
        break;
      }
    if (plain) {
      out_ += '"';
      out_ += k;
      out_ += '"';
    } else {
      scalars_.dump(Json(k), false, false, 0);
    }
  }

  std::string& out_;
  const std::vector<ReportBattle>& battles_;
  nlohmann::detail::serializer<Json> scalars_;
};

}  // namespace

ReportBattle report_battle(const BattleLog& battle, const GameState& world) {
  ReportBattle out;
  json_text::report_battle(out.json_text, battle, world);  // battle_for_report's dump()
  out.text = report_detail::render_battle_text(battle, world);
  return out;
}

RenderedReport render_report(const GameState&, const TurnResult& result, const std::string& player,
                             const ReportIndex& index, const std::vector<ReportBattle>& battles,
                             const std::vector<LineResult>* rejected) {
  Json r = report_detail::build_report(result, player, index, true);
  if (rejected) add_rejected_lines(r, *rejected);
  RenderedReport out;
  out.text = report_detail::render_text(r, nullptr, &battles);
  SplicingWriter(out.json_text, battles).write(r);
  return out;
}

}  // namespace adj
