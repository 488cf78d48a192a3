#include "server/web/orders_view.h"

#include <cctype>
#include <map>

#include "base/ascii.h"
#include "server/web/pages_view.h"

namespace adj::web {

using Json = nlohmann::json;

namespace {

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(pos, end - pos));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
    pos = end + 1;
  }
  return out;
}

bool is_player_line(const std::string& line) {
  std::size_t i = 0;
  while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
  if (line.size() < i + 7) return false;
  std::string word = line.substr(i, 6);
  for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return word == "PLAYER" && std::isspace(static_cast<unsigned char>(line[i + 6]));
}

}  // namespace

Json marked_lines(std::string_view text, const OrderAck& ack) {
  std::map<int, const LineResult*> judged;
  for (const LineResult& l : ack.lines) judged[l.line] = &l;
  Json out = Json::array();
  const auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int n = static_cast<int>(i) + 1;
    Json row = {{"n", n}, {"text", lines[i]}, {"accepted", false}, {"rejected", false}};
    if (auto it = judged.find(n); it != judged.end()) {
      row["accepted"] = it->second->accepted;
      row["rejected"] = !it->second->accepted;
      if (!it->second->accepted) row["reason"] = it->second->reason;
    }
    out.push_back(std::move(row));
  }
  return out;
}

Json on_record_view(const SubmissionRecord& file) {
  Json v = {{"received", time_html(file.received_at)},
            {"text", file.raw_text},
            {"refused", !file.accepted},
            {"accepted", 0},
            {"accepted_lines", ascii::with_count(0, "line")},
            {"rejected", 0},
            {"lines", Json::array()}};
  auto ack = ack_from_json(file.ack);
  if (ack.ok()) {
    v["accepted"] = ack->accepted_count();
    v["accepted_lines"] = ascii::with_count(ack->accepted_count(), "line");
    v["rejected"] = ack->rejected_count();
    v["lines"] = marked_lines(file.raw_text, *ack);
    v["refusal"] = ack->refusal;
  } else {
    v["lines"] = marked_lines(file.raw_text, OrderAck{});
  }
  return v;
}

std::string editable_text(const std::string& stored_text) {
  std::string out;
  for (const std::string& line : split_lines(stored_text))
    if (!is_player_line(line)) out += line + "\n";
  return out;
}

}  // namespace adj::web
