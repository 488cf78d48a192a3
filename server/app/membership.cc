#include "server/app/membership.h"

#include <algorithm>
#include <cctype>
#include <random>
#include <set>

#include "base/ascii.h"
#include "server/app/audit_log.h"
#include "server/app/secrets.h"

namespace adj {
namespace {

using ascii::lower;
using ascii::upper;

// The kingdoms of a state as "WSX (Wessex), MRC (Mercia)".
std::string kingdom_list(const GameState& state) {
  std::string out;
  for (const Player& p : state.players) {
    if (!out.empty()) out += ", ";
    out += p.code + " (" + p.name + ")";
  }
  return out;
}

std::string kingdom_of(const GameState& state, const std::string& code) {
  for (const Player& p : state.players)
    if (p.code == code) return p.name + " (" + code + ")";
  return code;
}

// Words of `text` separated by spaces, tabs or commas.
std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> out;
  std::string w;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\n' || c == ';') {
      if (!w.empty()) out.push_back(std::move(w));
      w.clear();
    } else {
      w.push_back(c);
    }
  }
  if (!w.empty()) out.push_back(std::move(w));
  return out;
}

// A deterministic permutation of 0..n-1 from `seed` (its own Fisher-Yates over mt19937_64, whose
// output the standard fixes, so every platform assigns alike).
std::vector<std::size_t> seeded_order(std::size_t n, std::uint64_t seed) {
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(seed ^ 0x6a6f696e2d736565ull);  // "join-see"
  for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  return order;
}

}  // namespace

Status Membership::check_address(std::string_view a) {
  if (a.empty()) return Status::InvalidArgument("the address is empty; give an email address");
  if (a.size() > 254) return Status::InvalidArgument("the address is longer than 254 characters");
  for (char ch : a) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c >= 0x7f)
      return Status::InvalidArgument(
          "the address holds a space, a line break or a character outside plain ASCII; give "
          "it as name@example.org");
    if (std::string_view("<>()[],;:\\\"").find(ch) != std::string_view::npos)
      return Status::InvalidArgument(std::string("the address holds '") + ch +
                                     "'; give the address alone, as name@example.org");
  }
  const std::size_t at = a.find('@');
  if (at == std::string_view::npos || a.find('@', at + 1) != std::string_view::npos)
    return Status::InvalidArgument("an address needs exactly one '@', as name@example.org");
  const std::string_view local = a.substr(0, at), domain = a.substr(at + 1);
  if (local.empty() || local.size() > 64)
    return Status::InvalidArgument("the part before '@' must have 1 to 64 characters");
  if (domain.empty() || domain.front() == '.' || domain.back() == '.' || domain.front() == '-' ||
      domain.find("..") != std::string_view::npos)
    return Status::InvalidArgument("the part after '@' is not a domain name");
  for (char ch : domain)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-')
      return Status::InvalidArgument(
          "the part after '@' may hold only letters, digits, '.' "
          "and '-'");
  return Status::Ok();
}

Result<std::vector<std::string>> Membership::parse_preferences(const GameState& state,
                                                               std::string_view text) {
  if (text.size() > kMaxPreferencesText)
    return Status::InvalidArgument("the preferences are longer than " +
                                   std::to_string(kMaxPreferencesText) +
                                   " characters; name a few kingdoms by code");
  const std::vector<std::string> w = words_of(text);
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < w.size()) {
    // The longest run of words from i that is a kingdom's name (names may hold spaces), else a
    // code.
    std::string found;
    std::size_t used = 0;
    for (std::size_t n = std::min<std::size_t>(4, w.size() - i); n >= 1 && found.empty(); --n) {
      std::string joined;
      for (std::size_t k = 0; k < n; ++k) joined += (k ? " " : "") + lower(w[i + k]);
      for (const Player& p : state.players)
        if (lower(p.name) == joined || (n == 1 && upper(w[i]) == p.code)) {
          found = p.code;
          used = n;
          break;
        }
    }
    if (found.empty())
      return Status::InvalidArgument("\"" + w[i].substr(0, 40) +
                                     "\" is not a kingdom of this game; the kingdoms are " +
                                     kingdom_list(state));
    if (std::find(out.begin(), out.end(), found) == out.end()) out.push_back(found);
    i += used;
  }
  return out;
}

Result<std::string> Membership::game_id(const std::string& game) {
  auto id = s_.games.stored_game_id(game);
  if (!id.ok() && id.status().code() == StatusCode::kNotFound)
    return Status::NotFound("there is no game \"" + game.substr(0, 64) + "\" on this server");
  return id;
}

Status Membership::audit(const std::string& game, const std::string& actor,
                         const std::string& action, Json detail) {
  return record_audit(admin_, game, now_(), actor, action, std::move(detail));
}

Result<GameSummary> Membership::summary_in(const std::string& game, const std::string& status,
                                           const std::string& doing) {
  auto g = s_.games.game_summary(game);
  if (!g.ok()) return g.status();
  if (g->archived_at) return Status::FailedPrecondition(archived_refusal(game, "sign-ups"));
  if (g->status == status) return g;
  if (status == "signup") {
    const std::string why = g->status == "finished" ? "is over" : "has started";
    return Status::FailedPrecondition("game " + game + " is not open for sign-ups: it " + why +
                                      "; " + doing + " is possible only before the start");
  }
  return Status::FailedPrecondition("game " + game + " is " + g->status + ", not " + status);
}

Status Membership::open_signups(const std::string& game_in, const std::string& actor) {
  auto game = game_id(game_in);
  if (!game.ok()) return game.status();
  auto g = s_.games.game_summary(*game);
  if (!g.ok()) return g.status();
  if (g->status == "signup") return Status::Ok();
  auto turns = s_.reports.report_turns(*game);
  if (!turns.ok()) return turns.status();
  if ((g->status != "open" && g->status != "paused") || !turns->empty())
    return Status::FailedPrecondition("game " + *game + " has started (a turn has run, or it is " +
                                      g->status +
                                      "); sign-ups can be opened only before the first turn");
  ADJ_RETURN_IF_ERROR(admin_.set_game_status(*game, "signup"));
  return audit(*game, actor, "signup-open", {{"from", g->status}});
}

Result<Membership::JoinCheck> Membership::check_join(const std::string& game_in,
                                                     const std::string& email,
                                                     std::string_view preferences) {
  auto game = game_id(game_in);
  if (!game.ok()) return game.status();
  auto g = summary_in(*game, "signup", "joining");
  if (!g.ok()) return g.status();
  ADJ_RETURN_IF_ERROR(check_address(email));
  auto state = s_.games.load_state(*game, std::nullopt);
  if (!state.ok()) return state.status();
  auto prefs = parse_preferences(*state, preferences);
  if (!prefs.ok()) return prefs.status();
  JoinCheck out{
      *game, g->name, std::move(prefs).value(), {}, static_cast<int>(state->players.size())};
  for (const auto& code : out.preferences) out.preference_names.push_back(kingdom_of(*state, code));
  return out;
}

Result<Signup> Membership::signup_by_id(const std::string& game, std::int64_t id) {
  auto all = m_.signups(game);
  if (!all.ok()) return all.status();
  for (Signup& s : *all)
    if (s.id == id) return std::move(s);
  return Status::NotFound("game " + game + " has no sign-up " + std::to_string(id));
}

Status Membership::remove_signup(const std::string& game_in, std::int64_t signup,
                                 const std::string& actor) {
  auto game = game_id(game_in);
  if (!game.ok()) return game.status();
  auto it = signup_by_id(*game, signup);
  if (!it.ok()) return it.status();
  if (it->state == "assigned")
    return Status::FailedPrecondition("the sign-up of " + it->email + " was given " + it->player +
                                      "; to take the position away, replace the player");
  ADJ_RETURN_IF_ERROR(m_.remove_signup(*game, signup));
  return audit(*game, actor, "signup-remove", {{"signup", signup}, {"address", it->email}});
}

Result<JoinOutcome> Membership::join(const std::string& game_in, const std::string& email,
                                     std::string_view preferences, const std::string& channel) {
  auto checked = check_join(game_in, email, preferences);
  if (!checked.ok()) return checked.status();
  const std::string* game = &checked->game;
  const std::string& game_name = checked->game_name;
  const std::vector<std::string>* prefs = &checked->preferences;
  const int places = checked->places;

  Signup s;
  s.game = *game;
  s.email = email;
  s.preferences = *prefs;
  s.channel = channel;
  s.created_at = now_();
  auto id = m_.add_signup(s, places * kSignupsPerPlace);
  if (!id.ok()) {
    if (id.status().code() == StatusCode::kAlreadyExists)
      return Status::AlreadyExists(email + " is already on the sign-up list of " + game_name +
                                   " (" + *game +
                                   "); nothing changed. You will hear by mail when the game "
                                   "starts.");
    if (id.status().code() == StatusCode::kFailedPrecondition)
      return Status::FailedPrecondition("the sign-up list of " + game_name + " (" + *game +
                                        ") is full; ask the GM, or join another game");
    return id.status();
  }
  auto all = m_.signups(*game);
  if (!all.ok()) return all.status();
  JoinOutcome out;
  out.game = *game;
  out.game_name = game_name;
  out.id = *id;
  out.places = places;
  out.preferences = *prefs;
  for (std::size_t i = 0; i < all->size(); ++i)
    if ((*all)[i].id == *id) out.position = static_cast<int>(i) + 1;
  out.text = "You are on the sign-up list for " + game_name + " (" + *game + ") as " + email +
             ": sign-up " + std::to_string(out.position) + " of " + std::to_string(places) +
             " places.\n";
  if (!prefs->empty()) {
    out.text += "Your preferences: ";
    for (std::size_t i = 0; i < prefs->size(); ++i)
      out.text += (i ? ", " : "") + checked->preference_names[i];
    out.text += ".\n";
  } else {
    out.text += "You named no preferred kingdom; any kingdom will do.\n";
  }
  if (out.position > places)
    out.text += "All " + std::to_string(places) +
                " places are asked for already: you get one only if someone before you drops "
                "out. Otherwise you may stand by for a position that becomes free.\n";
  out.text +=
      "\nThe GM approves sign-ups and starts the game. Kingdoms are then assigned, honouring "
      "preferences where possible, and you get your kingdom, your secret and your sign-in link "
      "by mail at this address.\n";
  return out;
}

Result<std::vector<Signup>> Membership::signups(const std::string& game_in) {
  auto game = game_id(game_in);
  if (!game.ok()) return game.status();
  return m_.signups(*game);
}

Status Membership::approve(const std::string& game_in, std::int64_t signup,
                           const std::string& actor) {
  auto game = game_id(game_in);
  if (!game.ok()) return game.status();
  auto g = summary_in(*game, "signup", "approving a sign-up");
  if (!g.ok()) return g.status();
  auto it = signup_by_id(*game, signup);
  if (!it.ok()) return it.status();
  if (it->state == "approved") return Status::Ok();
  if (it->state != "pending")
    return Status::FailedPrecondition("the sign-up of " + it->email + " is " + it->state);
  ADJ_RETURN_IF_ERROR(m_.set_signup_state(*game, signup, "approved", ""));
  return audit(*game, actor, "approve", {{"signup", signup}, {"address", it->email}});
}

Result<StartOutcome> Membership::start(const std::string& game_in, const std::string& actor) {
  auto game = game_id(game_in);
  if (!game.ok()) return game.status();
  auto g = summary_in(*game, "signup", "starting it from its sign-ups");
  if (!g.ok()) return g.status();
  auto state = s_.games.load_state(*game, std::nullopt);
  if (!state.ok()) return state.status();
  auto all = m_.signups(*game);
  if (!all.ok()) return all.status();
  // A generated world for its sign-ups is made for the players who will get a place, before
  // anyone is assigned; a start interrupted after assigning some keeps the world it fitted.
  if (std::none_of(all->begin(), all->end(),
                   [](const Signup& s) { return s.state == "assigned"; })) {
    std::size_t joining = 0;  // as the pool below counts them
    const bool any = std::any_of(all->begin(), all->end(),
                                 [](const Signup& s) { return s.state == "approved"; });
    for (const Signup& s : *all)
      if (s.state == (any ? "approved" : "pending")) ++joining;
    ADJ_RETURN_IF_ERROR(fit_world_to_signups(*game, joining, &*state, actor));
  }
  const std::size_t places = state->players.size();

  // Who gets a position: a start interrupted before the status changed keeps what it assigned.
  std::set<std::string> taken;
  std::vector<const Signup*> pool, left_out;
  for (const Signup& s : *all)
    if (s.state == "assigned") taken.insert(s.player);
  const bool any_approved =
      std::any_of(all->begin(), all->end(), [](const Signup& s) { return s.state == "approved"; });
  for (const Signup& s : *all) {
    if (s.state == "assigned" || s.state == "unassigned") continue;
    const bool eligible = any_approved ? s.state == "approved" : s.state == "pending";
    if (eligible && pool.size() + taken.size() < places)
      pool.push_back(&s);
    else
      left_out.push_back(&s);
  }
  if (pool.empty() && taken.empty())
    return Status::FailedPrecondition(
        "nobody has signed up for " + *game +
        " yet; invite players or wait for sign-ups before starting the game");

  StartOutcome out;
  const std::vector<std::size_t> order = seeded_order(pool.size(), state->seed);
  std::vector<std::pair<const Signup*, Assignment>> picks;
  std::vector<const Signup*> without;
  for (std::size_t k : order) {
    const Signup* s = pool[k];
    Assignment a;
    a.email = s->email;
    for (std::size_t r = 0; r < s->preferences.size(); ++r)
      // A kingdom the sign-up chose may be gone from a world fitted to the sign-ups.
      if (!taken.count(s->preferences[r]) && state->find_player(s->preferences[r])) {
        a.player = s->preferences[r];
        a.preference_rank = static_cast<int>(r) + 1;
        break;
      }
    if (a.player.empty()) {
      without.push_back(s);
      continue;
    }
    taken.insert(a.player);
    picks.emplace_back(s, a);
  }
  std::vector<std::string> free_codes;
  for (const Player& p : state->players)
    if (!taken.count(p.code)) free_codes.push_back(p.code);
  const std::vector<std::size_t> free_order = seeded_order(free_codes.size(), state->seed + 1);
  std::size_t next_free = 0;
  for (const Signup* s : without) {
    Assignment a;
    a.email = s->email;
    a.player = free_codes[free_order[next_free++]];
    taken.insert(a.player);
    picks.emplace_back(s, a);
  }

  const UnixTime now = now_();
  for (const auto& [s, a] : picks) {
    ADJ_RETURN_IF_ERROR(m_.set_contact(*game, Contact{a.player, a.email, "", now}));
    auto secret = svc_.reset_secret(*game, a.player);
    if (!secret.ok()) return secret.status();
    ADJ_RETURN_IF_ERROR(s_.credentials.revoke_tokens(*game, a.player));
    ADJ_RETURN_IF_ERROR(m_.set_signup_state(*game, s->id, "assigned", a.player));
    out.secrets[a.player] = *secret;
    ADJ_RETURN_IF_ERROR(
        audit(*game, actor, "assign",
              {{"player", a.player},
               {"address", a.email},
               {"preference_rank", a.preference_rank ? Json(*a.preference_rank) : Json(nullptr)}}));
    out.assigned.push_back(a);
  }
  for (const Player& p : state->players)
    if (!taken.count(p.code)) {
      ADJ_RETURN_IF_ERROR(m_.set_contact(*game, Contact{p.code, "", "", now}));
      out.vacant.push_back(p.code);
    }
  for (const Signup* s : left_out) {
    ADJ_RETURN_IF_ERROR(m_.set_signup_state(*game, s->id, "unassigned", ""));
    out.unassigned.push_back(s->email);
    Notice n;
    n.game = *game;
    n.kind = "join";
    n.addresses = {s->email};
    n.subject = "the game has started without you";  // the mailer names the game first
    n.text = "The game " + g->name + " (" + *game + ") has started with " +
             std::to_string(out.assigned.size()) + " players and your sign-up did not get a " +
             "place. To take over a position that becomes free, stand by: send a message whose "
             "first line is\n\n  STANDBY " +
             *game + "\n\n";
    if (!base_url_.empty())
      n.text += "or use the page " + base_url_ + "/games/" + *game + "/standby\n";
    n.dedupe_key = "unassigned:" + *game + ":" + std::to_string(s->id);
    n.thread = "join:" + *game;
    ADJ_RETURN_IF_ERROR(svc_.notify(std::move(n)));
  }
  ADJ_RETURN_IF_ERROR(admin_.set_game_status(*game, "open"));
  ADJ_RETURN_IF_ERROR(audit(*game, actor, "start",
                            {{"assigned", out.assigned.size()},
                             {"vacant", out.vacant},
                             {"unassigned", out.unassigned.size()},
                             {"seed_used", true}}));
  return out;
}

Status Membership::invite(const std::string& game_in, const std::string& email,
                          const std::string& actor) {
  auto game = game_id(game_in);
  if (!game.ok()) return game.status();
  auto g = summary_in(*game, "signup", "inviting");
  if (!g.ok()) return g.status();
  ADJ_RETURN_IF_ERROR(check_address(email));
  // Accepting enrols: a confirmation whose use puts the address on the list, approved.
  const std::string code = new_token();
  PendingConfirmation p;
  p.game = *game;
  p.kind = "signup";
  p.address = lower(email);
  p.client = "gm-invite";
  p.payload = Json{{"channel", "invite"}, {"invited", true}}.dump();
  p.code_hash = hash_token(code);
  p.created_at = now_();
  p.expires_at = p.created_at + static_cast<UnixTime>(kInviteValidDays) * 86400;
  auto stored = m_.add_confirmation(p, ConfirmationLimits{1000, 3, 3600, 500});
  if (!stored.ok()) {
    if (stored.status().code() == StatusCode::kUnavailable)
      return Status::FailedPrecondition(
          "this address was invited or asked too often in the last "
          "hour; try again later");
    return stored.status();
  }
  Notice n;
  n.game = *game;
  n.kind = "invite";
  n.addresses = {email};
  n.subject = "an invitation to join";  // the mailer names the game first
  n.text = "The GM of " + g->name + " (" + *game + ") invites you to play.\n\nTo accept, ";
  if (!base_url_.empty())
    n.text += "open\n\n  " + base_url_ + "/games/" + *game + "/confirm?code=" + code +
              "\n\nand press the button there, or ";
  n.text += "reply to this message with the line\n\n  CONFIRM " + code +
            "\n\nand you are on the list of players. When the GM starts the game you get your "
            "kingdom, your secret and the starting position by mail. To say which kingdoms you "
            "would like, send instead a message whose first line is\n\n  JOIN " +
            *game + " <kingdoms, most wanted first>\n\nfrom this address";
  if (!base_url_.empty()) n.text += ", or sign up on " + base_url_ + "/games/" + *game + "/join";
  n.text += ". The code works once and is valid for " + std::to_string(kInviteValidDays) +
            " days. If you do not want to play, ignore this message.\n";
  n.dedupe_key = "invite:" + *game + ":" + lower(email);
  n.thread = "join:" + *game;
  ADJ_RETURN_IF_ERROR(svc_.notify(std::move(n)));
  return audit(*game, actor, "invite", {{"address", email}});
}

Status Membership::change_address(const std::string& game_in, const std::string& player,
                                  const std::string& email, const std::string& actor) {
  auto game = game_id(game_in);
  if (!game.ok()) return game.status();
  ADJ_RETURN_IF_ERROR(check_address(email));
  auto state = s_.games.load_state(*game, std::nullopt);
  if (!state.ok()) return state.status();
  const std::string code = upper(player);
  const auto p = std::find_if(state->players.begin(), state->players.end(),
                              [&](const Player& x) { return x.code == code; });
  if (p == state->players.end())
    return Status::NotFound("game " + *game + " has no player " + code.substr(0, 16));
  if (lower(p->email) == lower(email))
    return Status::InvalidArgument(email + " is already the address of " + code +
                                   "; nothing changed");
  std::string name;
  if (auto cs = m_.contacts(*game); cs.ok()) {
    for (const Contact& c : *cs)
      if (c.player == code) name = c.name;
  } else {
    return cs.status();
  }
  const std::string old = p->email;
  ADJ_RETURN_IF_ERROR(m_.set_contact(*game, Contact{code, email, name, now_()}));
  ADJ_RETURN_IF_ERROR(
      audit(*game, actor, "address", {{"player", code}, {"from", old}, {"to", email}}));
  Notice n;
  n.game = *game;
  n.kind = "address";
  n.addresses = {email};
  if (!old.empty()) n.addresses.push_back(old);
  n.subject = "new address for " + code;  // the mailer names the game first
  const std::string by = actor.starts_with("player:") ? "at the player's request" : "by the GM";
  n.text = "The address of " + p->name + " (" + code + ") in " + state->name + " (" + *game +
           ") was changed " + by + " from " + (old.empty() ? "(none)" : old) + " to " + email +
           ". Reports and messages of the game go to the new address from now on.\n\nIf you did "
           "not ask for this, tell the GM at once.\n";
  n.dedupe_key =
      "address:" + *game + ":" + code + ":" + std::to_string(now_()) + ":" + lower(email);
  n.thread = "address:" + *game + ":" + code;
  return svc_.notify(std::move(n));
}

Result<Replacement> Membership::replace(const std::string& game_in, const std::string& player,
                                        const std::string& email, const std::string& name,
                                        const std::string& actor, const std::string& reason) {
  auto game = game_id(game_in);
  if (!game.ok()) return game.status();
  ADJ_RETURN_IF_ERROR(check_address(email));
  ADJ_RETURN_IF_ERROR(check_gm_reason(reason));
  if (name.size() > 100) return Status::InvalidArgument("the name is longer than 100 characters");
  for (char ch : name)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f)
      return Status::InvalidArgument("the name holds a line break or a control character");
  auto state = s_.games.load_state(*game, std::nullopt);
  if (!state.ok()) return state.status();
  const std::string code = upper(player);
  const auto p = std::find_if(state->players.begin(), state->players.end(),
                              [&](const Player& x) { return x.code == code; });
  if (p == state->players.end())
    return Status::NotFound("game " + *game + " has no player " + code.substr(0, 16));

  Replacement out;
  out.player = code;
  out.old_email = p->email;
  out.email = email;
  ADJ_RETURN_IF_ERROR(m_.set_contact(*game, Contact{code, email, name, now_()}));
  auto secret = svc_.reset_secret(*game, code);
  if (!secret.ok()) return secret.status();
  out.secret = *secret;
  ADJ_RETURN_IF_ERROR(s_.credentials.revoke_tokens(*game, code));
  Json detail = {{"player", code}, {"from", out.old_email}, {"to", email}, {"name", name}};
  if (!reason.empty()) detail["why"] = reason;
  ADJ_RETURN_IF_ERROR(audit(*game, actor, "replace", std::move(detail)));
  if (!out.old_email.empty() && lower(out.old_email) != lower(email)) {
    Notice n;
    n.game = *game;
    n.kind = "replace";
    n.addresses = {out.old_email};
    n.subject = code + " has a new player";  // the mailer names the game first
    n.text = "You no longer play " + p->name + " (" + code + ") in " + state->name + " (" + *game +
             "): the position was given to another player, who has a new secret. Your "
             "secret and sign-in links for it no longer work.\n" +
             gm_reason_paragraph(reason) + "\nIf you think this is a mistake, write to the GM.\n";
    n.dedupe_key =
        "replace:" + *game + ":" + code + ":" + std::to_string(now_()) + ":" + lower(email);
    n.thread = "address:" + *game + ":" + code;
    ADJ_RETURN_IF_ERROR(svc_.notify(std::move(n)));
  }
  return out;
}

Result<std::vector<Contact>> Membership::contacts(const std::string& game_in) {
  auto game = game_id(game_in);
  if (!game.ok()) return game.status();
  return m_.contacts(*game);
}

}  // namespace adj
