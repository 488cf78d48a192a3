#include "server/app/press_digest.h"

#include <algorithm>
#include <map>

#include "server/app/time_text.h"

namespace adj {

std::string PressDigest::text(const Json& state, const std::string& game,
                              const std::vector<PressMessage>& messages,
                              std::size_t* included) const {
  const std::size_t n = messages.size();
  std::string out = "Press in game " + game + ": " + std::to_string(n) +
                    (n == 1 ? " message" : " messages") +
                    " to you since your last press mail, oldest first.\n\n";
  std::size_t shown = 0;
  for (const PressMessage& m : messages) {
    std::string to;
    if (m.to_all) {
      to = "everyone";
    } else {
      for (const auto& r : m.recipients) to += (to.empty() ? "" : ", ") + Press::label(state, r);
    }
    const std::string entry =
        "--- Turn " + std::to_string(m.turn) + ", " + utc_minutes(m.sent_at) +
        "\nFrom: " + (m.anonymous ? "anonymous" : Press::label(state, m.sender)) + "\nTo: " + to +
        "\n\n" + m.body + "\n\n";
    if (shown > 0 && out.size() + entry.size() > config_.max_bytes) break;
    out += entry;
    ++shown;
  }
  if (shown < n) {
    const std::size_t rest = n - shown;
    out += "... and " + std::to_string(rest) + (rest == 1 ? " more message" : " more messages") +
           ", not in this mail to keep it small: read them on your press page on the web.\n\n";
  }
  out +=
      "To answer the senders named here, reply to this mail from your address on file (no secret\n"
      "needed). To write to others, send a mail with your GAME and PLAYER lines and\n"
      "  PRESS TO <kingdom codes, ALL, or GM>\n  <your message>\n  ENDPRESS\n"
      "or use your press page on the web. Press is mailed gathered: at most one press mail every " +
      std::to_string(std::max<std::int64_t>(1, config_.interval_seconds / 60)) +
      " minutes; the web shows it at once.\n";
  if (included) *included = shown;
  return out;
}

Result<int> PressDigest::run(const std::string& game, UnixTime deadline) {
  auto st = store_.press_digest_state(game);
  if (!st.ok()) return st.status();
  if (st->last_press_id == 0) return 0;
  std::map<std::string, PressDigestMark> marks;
  for (const auto& m : st->marks) marks[m.player] = m;
  auto state = services_.show_game(game);
  if (!state.ok()) return state.status();
  std::vector<std::string> players;
  std::int64_t from = st->last_press_id;
  for (const Json& p : (*state)["players"]) {
    const std::string code = p.value("code", "");
    if (code.empty()) continue;
    players.push_back(code);
    const auto it = marks.find(code);
    from = std::min(from, it == marks.end() ? 0 : it->second.last_id);
  }
  if (from >= st->last_press_id) return 0;
  auto messages = store_.press_messages_after(game, from);
  if (!messages.ok()) return messages.status();
  if (messages->empty()) return 0;
  const std::int64_t to_id = messages->back().id;
  const UnixTime now = now_();
  Press press(services_, store_, now_, audit_);
  int queued = 0;
  for (const std::string& player : players) {
    const auto it = marks.find(player);
    const bool marked = it != marks.end();
    const std::int64_t last = marked ? it->second.last_id : 0;
    const UnixTime last_sent = marked ? it->second.sent_at : 0;
    if (last >= to_id) continue;
    auto since = press.holder_since(game, player);
    if (!since.ok()) return since.status();
    std::vector<PressMessage> mine;
    for (const PressMessage& m : *messages) {
      if (m.id <= last || m.sender == player) continue;
      if (!m.to_all &&
          std::find(m.recipients.begin(), m.recipients.end(), player) == m.recipients.end())
        continue;
      if (*since && m.sent_at < **since && !m.to_all) continue;  // the earlier holder's
      mine.push_back(m);
    }
    if (mine.empty()) {  // nothing to read: move the mark, keep when the last mail went
      auto moved = store_.queue_press_digest(game, player, last, to_id, last_sent, nullptr);
      if (!moved.ok()) return moved.status();
      continue;
    }
    const bool due = !marked || last_sent == 0 || now >= last_sent + config_.interval_seconds ||
                     (deadline != 0 && last_sent < deadline);
    if (!due) continue;
    Notice n;
    n.game = game;
    n.kind = "press";
    n.players = {player};
    n.subject = "Press: " + std::to_string(mine.size()) +
                (mine.size() == 1 ? " new message" : " new messages");
    n.text = text(*state, game, mine, nullptr);
    n.dedupe_key = "press-digest:" + game + ":" + player + ":" + std::to_string(to_id);
    n.thread = "press:digest";
    n.created_at = now;
    auto claimed = store_.queue_press_digest(game, player, last, to_id, now, &n);
    if (!claimed.ok()) return claimed.status();
    queued += *claimed ? 1 : 0;
  }
  return queued;
}

}  // namespace adj
