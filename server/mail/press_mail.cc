#include "server/mail/press_mail.h"

#include <cctype>

#include "server/mail/detail.h"

namespace adj::mail {

using detail::trim;
using detail::upper;
using detail::words;

namespace {

bool is_press_line(const std::string& line) {
  const auto w = words(line);
  return !w.empty() && upper(w[0]) == "PRESS";
}

bool is_end_line(const std::string& line) {
  const std::string u = upper(trim(line));
  return u == "ENDPRESS" || u == "END PRESS";
}

// Reads "PRESS TO <list> [ANONYMOUS]" into `b`.
void read_header(const std::string& line, PressBlock& b) {
  std::string rest = trim(line);
  rest = trim(std::string_view(rest).substr(5));  // after "PRESS"
  const auto w = words(rest);
  if (w.empty() || upper(w[0]) != "TO") {
    b.error = "the PRESS line must say whom it is for: PRESS TO <kingdoms> or PRESS TO ALL";
    return;
  }
  rest = trim(std::string_view(rest).substr(2));
  const auto tail = words(rest);
  if (!tail.empty() && upper(tail.back()) == "ANONYMOUS") {
    b.anonymous = true;
    rest = trim(std::string_view(rest).substr(0, rest.size() - tail.back().size()));
  }
  std::size_t start = 0;
  while (start <= rest.size()) {
    std::size_t comma = rest.find(',', start);
    if (comma == std::string::npos) comma = rest.size();
    std::string item = trim(std::string_view(rest).substr(start, comma - start));
    if (!item.empty()) b.to.push_back(item);
    start = comma + 1;
  }
  if (b.to.empty())
    b.error = "the PRESS TO line names no recipient: name kingdoms by code or name, or ALL";
}

}  // namespace

PressExtract extract_press_blocks(std::string_view text) {
  PressExtract out;
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    if (end == text.size()) break;
    start = end + 1;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!is_press_line(lines[i])) continue;
    PressBlock b;
    b.line = static_cast<int>(i) + 1;
    read_header(lines[i], b);
    lines[i].clear();
    std::size_t j = i + 1;
    std::string body;
    bool closed = false;
    for (; j < lines.size(); ++j) {
      if (is_end_line(lines[j])) {
        closed = true;
        lines[j].clear();
        break;
      }
      body += lines[j];
      body += '\n';
      lines[j].clear();
    }
    if (!closed && b.error.empty())
      b.error = "the PRESS block has no ENDPRESS line after its message";
    b.body = std::move(body);
    out.blocks.push_back(std::move(b));
    i = j;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out.rest += lines[i];
    if (i + 1 < lines.size()) out.rest += '\n';
  }
  return out;
}

Result<std::string> send_press_blocks(Press& press, const std::string& game,
                                      const std::string& player,
                                      const std::vector<PressBlock>& blocks,
                                      const std::string& source, int* sent) {
  std::string out = "Press:\n";
  int n = 0, ok = 0;
  for (const PressBlock& b : blocks) {
    ++n;
    const std::string where = "  PRESS at line " + std::to_string(b.line) + ": ";
    if (n > kMaxPressBlocks) {
      out += where + "not sent: at most " + std::to_string(kMaxPressBlocks) +
             " PRESS blocks are read from one mail; send the rest in another mail.\n";
      continue;
    }
    if (!b.error.empty()) {
      out += where + "not sent: " + b.error + ".\n";
      continue;
    }
    PressDraft d;
    d.to = b.to;
    d.anonymous = b.anonymous;
    d.body = b.body;
    d.source = source + "#" + std::to_string(n);
    auto v = player == kGmPressCode ? press.send_as_gm(game, d) : press.send(game, player, d);
    if (v.ok()) {
      ++ok;
      // An anonymous message's recipients are not named here: this answer sits in the outbox,
      // which the GM may read even when the game keeps private press from them.
      out += where +
             (b.anonymous ? std::string("sent without your name (its recipients are on your "
                                        "press page, not in this answer)")
                          : "sent to " + v->to) +
             ".\n";
      continue;
    }
    switch (v.status().code()) {
      case StatusCode::kInvalidArgument:
      case StatusCode::kFailedPrecondition:
      case StatusCode::kNotFound:
        out += where + "not sent: " + v.status().message() + ".\n";
        break;
      default:
        return v.status();
    }
  }
  if (ok > 0)
    out +=
        "  The recipients read press on their press page at once; by mail it reaches them in "
        "their next press digest.\n";
  if (sent) *sent = ok;
  return out;
}

}  // namespace adj::mail
