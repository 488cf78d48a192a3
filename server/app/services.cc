#include "server/app/services.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "base/ascii.h"
#include "base/log_escape.h"
#include "rules/combat/engine_registry.h"
#include "rules/combat/local_world.h"
#include "rules/combat/script_engine.h"
#include "rules/game/scenario.h"
#include "rules/game/scenario_lint.h"
#include "rules/report/report.h"
#include "rules/report/report_shared.h"
#include "server/app/ending.h"
#include "server/app/engine_catalog.h"
#include "server/app/secrets.h"
#include "server/app/stored_text.h"
#include "server/app/turn_guard.h"
#include "storage/admin_store.h"

namespace adj {

namespace {

// The engine that checks orders for the game's open turn: the one its next run uses (for a Lua
// game the script version for that turn, engine_catalog.h current_engine).
Result<EngineHandle> engine_for_state(const Stores& s, const GameState& state) {
  EngineSpec spec = state.engine;
  Result<EngineHandle> e = current_engine(s.scripts, state.game_id, state.turn, spec);
  if (!e.ok() && e.status().code() == StatusCode::kNotFound &&
      state.engine.name != kScriptEngineName)
    return Status::Corruption("game " + state.game_id + " names an unknown engine");
  return e;
}

using ascii::upper;

bool is_token_shaped(const std::string& t) {
  if (t.size() != 32) return false;
  for (char c : t)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// What checking one order file reads of the open turn (rules/orders/validator.h
// check_order_file): the part of the state the file names (GameStore::load_view) and, only when
// it names an area the game lacks, every area's code and name for the suggestions. Its cost
// follows the file, not the size of the game.
struct FileView {
  GameState state;
  std::optional<std::vector<Area>> area_names;
};

Result<FileView> view_for_file(GameStore& games, const std::string& game, std::string_view text) {
  Result<GameState> head = games.load_view(game, std::nullopt, {}, {});
  if (!head.ok()) return head.status();
  // Parsed as the validator parses it, so the references are those of the orders it checks.
  const FileReferences refs = references_of(parse_order_file(text, head->rules.actions_per_turn));
  Result<GameState> st = games.load_view(game, head->turn, refs.players, refs.areas);
  if (!st.ok()) return st.status();
  FileView v{std::move(st).value(), std::nullopt};
  for (const std::string& code : refs.areas)
    if (!v.state.find_area(code)) {
      Result<std::vector<Area>> names = games.area_names(game, v.state.turn);
      if (!names.ok()) return names.status();
      v.area_names = std::move(names).value();
      break;
    }
  return v;
}

}  // namespace

bool counts_as_orders(const OrderAck& ack) {
  return !ack.refused && (ack.lines.empty() || ack.accepted_count() > 0);
}

bool counts_as_orders(const SubmissionRecord& s) {
  if (!s.accepted || !s.ack.is_object()) return false;
  const int accepted = s.ack.value("accepted", 0);
  const int rejected = s.ack.value("rejected", 0);
  return accepted > 0 || rejected == 0;
}

Result<std::vector<SubmissionRecord>> Services::orders_on_file(const std::string& game, int turn) {
  auto subs = s_.submissions.current_submissions(game, turn);
  if (!subs.ok()) return subs.status();
  std::vector<SubmissionRecord> out;
  for (auto& s : *subs)
    if (counts_as_orders(s)) out.push_back(std::move(s));
  return out;
}

Result<GameSummary> Services::create_game(const Json& scenario, Seed seed, bool fresh_secrets,
                                          std::map<std::string, std::string>* issued) {
  // validate_scenario's errors and the words no part of the game reads (scenario_lint.h).
  if (const std::vector<ScenarioError> errors = scenario_errors(scenario); !errors.empty())
    return Status::InvalidArgument("the scenario is not valid:\n" + format_errors(errors));
  Result<GameState> st = state_from_scenario(scenario, seed);
  if (!st.ok()) return st.status();
  // A Lua game: its script is checked before anything is written and stored as version 1.
  std::optional<EngineScript> script;
  if (st->engine.name == kScriptEngineName) {
    const std::string source = scenario["engine"]["script"].get<std::string>();
    Result<ScriptCheck> checked = check_script(source);
    if (!checked.ok()) return checked.status();
    if (!checked->passed)
      return Status::InvalidArgument("/engine/script: the script fails the conformance suite:\n" +
                                     checked->report);
    script = EngineScript{st->game_id,         1, source, checked->sha256, now_(), "scenario",
                          checked->json.dump()};
    st->engine.script_version = 1;
    st->engine.script_sha256 = checked->sha256;
  }
  // Hashed before anything is written, so a failure leaves nothing behind; on as many threads
  // as Argon2id may run at once (--argon2-threads), since a big game has thousands of secrets.
  std::map<std::string, std::string> hashes, fresh;
  for (Player& p : st->players)
    if (fresh_secrets || p.secret.empty()) p.secret = fresh[p.code] = new_secret();
  if (const double est = st->players.size() >= 20 ? hash_secrets_estimate(st->players.size()) : 0;
      est > 3)
    spdlog::info("event=hashing_secrets game={} count={} threads={} estimate_s={:.0f}",
                 log_escape(st->game_id), st->players.size(), secret_hash_cost().max_concurrent,
                 est);
  std::vector<std::string> plain;
  plain.reserve(st->players.size());
  for (const Player& p : st->players) plain.push_back(p.secret);
  auto hashed = hash_secrets(plain);
  if (!hashed.ok()) return hashed.status();
  for (std::size_t i = 0; i < st->players.size(); ++i) {
    hashes[st->players[i].code] = std::move((*hashed)[i]);
    st->players[i].secret.clear();  // the stored state has no secret
  }
  Json copy = scenario;
  if (copy.is_object() && copy.contains("players") && copy["players"].is_array())
    for (Json& p : copy["players"])
      if (p.is_object()) p.erase("secret");
  const UnixTime now = now_();
  // The store's AlreadyExists names the id taken and what to do.
  ADJ_RETURN_IF_ERROR(s_.games.create_game(*st, copy, now));
  if (script) {
    Result<int> v = s_.scripts.add_engine_script(*script);
    if (!v.ok()) return v.status();
    if (*v != 1) return Status::Internal("a new game's first engine script is not version 1");
  }
  for (const auto& [code, h] : hashes)
    ADJ_RETURN_IF_ERROR(s_.credentials.set_secret_hash(st->game_id, code, h, now));
  if (issued) *issued = std::move(fresh);
  return s_.games.game_summary(st->game_id);
}

Result<std::vector<GameSummary>> Services::list_games() { return s_.games.list_games(); }

Result<Json> Services::show_game(const std::string& game, GameState* typed) {
  Result<GameState> st = s_.games.load_state(game, std::nullopt);
  if (!st.ok()) return st.status();
  Json j = to_json(*st);
  if (typed) *typed = std::move(st).value();
  for (auto& p : j["players"]) p.erase("secret");  // never shown
  Result<GameSummary> sum = s_.games.game_summary(game);
  if (sum.ok()) j["status"] = sum->status;
  if (sum.ok() && sum->archived_at) j["archived_at"] = *sum->archived_at;  // only when archived
  return j;
}

Result<SubmitOutcome> Services::check_or_submit(const std::string& game, std::string_view text,
                                                const std::string& source, bool store,
                                                const std::string& authenticated_player) {
  Result<FileView> view = view_for_file(s_.games, game, text);
  if (!view.ok()) return view.status();
  const GameState* st = &view->state;
  // A game open for sign-ups (server/app/membership.h) takes no orders yet.
  const auto unless_started = [&](OrderAck& a) {
    auto g = s_.games.game_summary(game);
    if (!a.refused && g.ok() && g->status == "signup") {
      a.refused = true;
      a.refusal =
          "the game has not started: it is open for sign-ups. Send your orders once the GM has "
          "started it and you have your kingdom and secret by mail";
    }
  };
  std::optional<std::string> over = game_over(s_, st->game_id);  // server/app/ending.h
  if (Result<GameSummary> g = s_.games.game_summary(st->game_id); !over && g.ok() && g->archived_at)
    over = archived_refusal(st->game_id, "orders");  // (the store refuses them too)
  if (over) {                                        // nothing is stored
    OrderAck ack;
    ack.refused = true;
    ack.refusal = *over;
    ack.game = st->game_id;
    ack.turn = st->turn;
    return SubmitOutcome{std::move(ack), std::nullopt, ""};
  }
  // The validator asks only when the file names a player of the game; with an authenticated
  // player the one PLAYER line is the caller's own (submit_as), so the code alone decides.
  const auto check_for = [&](const GameState& state) -> SecretCheck {
    return [this, &state, &authenticated_player](const std::string& code, std::string_view given) {
      if (!authenticated_player.empty()) return code == authenticated_player;
      return authenticate_player(state.game_id, code, given).ok();
    };
  };
  const auto check_file = [&](const FileView& v) -> Result<OrderAck> {
    Result<EngineHandle> engine = engine_for_state(s_, v.state);
    if (!engine.ok()) return engine.status();
    return check_order_file(text, v.state, engine->get(), check_for(v.state),
                            v.area_names ? &*v.area_names : nullptr);
  };
  if (!store) {
    Result<OrderAck> ack = check_file(*view);
    if (!ack.ok()) return ack.status();
    unless_started(*ack);
    return SubmitOutcome{std::move(ack).value(), std::nullopt, ""};
  }
  const int first_turn = st->turn;
  // The store refuses a file for a turn that stopped being open after it was checked; then it is
  // checked again against the new open turn. Each retry needs a turn run or rollback to have
  // committed in between, so a few attempts suffice.
  constexpr int kAttempts = 4;
  for (int attempt = 1;; ++attempt) {
    if (attempt > 1) {
      view = view_for_file(s_.games, game, text);
      if (!view.ok()) return view.status();
      st = &view->state;
    }
    Result<OrderAck> ack = check_file(*view);
    if (!ack.ok()) return ack.status();
    unless_started(*ack);
    SubmissionRecord rec;
    rec.game = st->game_id;
    rec.player = st->find_player(ack->player) ? ack->player : "";
    rec.turn = st->turn;
    rec.source = source;
    rec.received_at = now_();
    rec.raw_text = mask_player_secret(text);  // never the secret, right or wrong
    rec.ack = to_json(*ack);
    if (ack->refused) {  // anyone can be refused: keep a bounded excerpt (stored_text.h)
      rec.raw_text = refused_excerpt(rec.raw_text);
      rec.ack = to_json(bounded_refused_ack(*ack));
    }
    rec.accepted = !ack->refused;
    rec.current = rec.accepted;
    Result<std::int64_t> id = s_.submissions.put_submission(rec);
    if (id.ok()) {
      SubmitOutcome out{std::move(ack).value(), *id, ""};
      if (st->turn != first_turn)
        out.note = "The open turn of game " + st->game_id + " changed from " +
                   std::to_string(first_turn) + " to " + std::to_string(st->turn) +
                   " while this file arrived, so it was checked against turn " +
                   std::to_string(st->turn) + (out.ack.refused ? "." : " and applies to it.");
      return out;
    }
    if (id.status().code() != StatusCode::kFailedPrecondition || attempt == kAttempts)
      return id.status();
    auto now_open = s_.games.game_summary(game);
    if (!now_open.ok()) return now_open.status();
    if (now_open->turn == rec.turn) return id.status();  // being resolved: the store says so
  }
}

std::string SubmitOutcome::text() const {
  const std::string ack_text = render_ack_text(ack);
  return note.empty() ? ack_text : note + "\n\n" + ack_text;
}

Result<SubmitOutcome> Services::check_orders(const std::string& game, std::string_view text) {
  return check_or_submit(game, text, "", false, "");
}

Result<SubmitOutcome> Services::submit_orders(const std::string& game, std::string_view text,
                                              const std::string& source) {
  return check_or_submit(game, text, source, true, "");
}

Result<std::string> Services::player_code(const std::string& game, const std::string& player) {
  Result<GameState> st = s_.games.load_state(game, std::nullopt);
  if (!st.ok()) return st.status();
  const std::string code = upper(player);
  if (!st->find_player(code)) return Status::NotFound("player " + code + " in game " + game);
  return code;
}

Status Services::authenticate_player(const std::string& game, const std::string& player,
                                     std::string_view secret) {
  const Status denied = Status::PermissionDenied("wrong player code or secret");
  if (player.empty() || player.size() > 16 || secret.empty() || secret.size() > 256) {
    Result<GameSummary> g = s_.games.game_summary(game);
    return g.ok() ? denied : g.status();
  }
  Result<std::string> hash = s_.credentials.secret_hash(game, upper(player));
  if (!hash.ok()) {
    if (hash.status().code() != StatusCode::kNotFound) return hash.status();
    Result<GameSummary> g = s_.games.game_summary(game);
    return g.ok() ? denied : g.status();
  }
  return verify_secret(secret, *hash) ? Status::Ok() : denied;
}

Result<TokenRecord> Services::credential(const std::string& token) {
  if (!is_token_shaped(token)) return Status::NotFound("unknown player token");
  const std::string hash = hash_token(token);
  Result<TokenRecord> r = s_.credentials.token_record(hash);
  if (!r.ok() || !r->session) return r;
  const UnixTime now = now_();
  if (now - r->created_at >= sessions_.absolute_seconds ||
      now - r->last_used_at >= sessions_.idle_seconds)
    return Status::NotFound("sign-in session expired");  // its row goes with kMaxSessions
  if (now - r->last_used_at >= sessions_.touch_seconds) {
    ADJ_RETURN_IF_ERROR(s_.credentials.touch_session(hash, now));
    r->last_used_at = now;
  }
  return r;
}

Result<std::pair<std::string, std::string>> Services::token_owner(const std::string& token) {
  Result<TokenRecord> r = credential(token);
  if (!r.ok()) return r.status();
  return std::make_pair(r->game, r->player);
}

Status Services::end_sessions(const std::string& game, const std::string& player) {
  return s_.credentials.revoke_sessions(game, upper(player), "");
}

Result<std::string> Services::issue_link_token(const std::string& game, const std::string& player) {
  Result<std::string> code = player_code(game, player);
  if (!code.ok()) return code.status();
  std::string token = new_token();
  ADJ_RETURN_IF_ERROR(s_.credentials.set_link_token(game, *code, hash_token(token), now_()));
  return token;
}

Result<std::string> Services::new_session_token(const std::string& game,
                                                const std::string& player) {
  Result<std::string> code = player_code(game, player);
  if (!code.ok()) return code.status();
  std::string token = new_token();
  ADJ_RETURN_IF_ERROR(s_.credentials.add_session_token(game, *code, hash_token(token), now_()));
  return token;
}

Result<std::string> Services::rotate_tokens(const std::string& game, const std::string& player) {
  Result<std::string> code = player_code(game, player);
  if (!code.ok()) return code.status();
  ADJ_RETURN_IF_ERROR(s_.credentials.revoke_tokens(game, *code));
  return issue_link_token(game, *code);
}

Status Services::change_secret(const std::string& game, const std::string& player,
                               const std::string& new_secret, const std::string& keep_token) {
  std::string why;
  if (!acceptable_secret(new_secret, &why)) return Status::InvalidArgument(why);
  Result<std::string> code = player_code(game, player);
  if (!code.ok()) return code.status();
  Result<std::string> h = hash_secret(new_secret);
  if (!h.ok()) return h.status();
  ADJ_RETURN_IF_ERROR(s_.credentials.set_secret_hash(game, *code, *h, now_()));
  return s_.credentials.revoke_sessions(game, *code,
                                        is_token_shaped(keep_token) ? hash_token(keep_token) : "");
}

Result<std::string> Services::reset_secret(const std::string& game, const std::string& player) {
  std::string secret = new_secret();
  ADJ_RETURN_IF_ERROR(change_secret(game, player, secret));
  return secret;
}

Result<SubmitOutcome> Services::submit_as(const std::string& game, const std::string& player,
                                          const std::optional<std::string>& secret,
                                          std::string_view text, const std::string& source,
                                          bool check_only) {
  const ParsedOrderFile parsed = parse_order_file(text);
  std::string full(text);
  int added = 0;
  std::string vouched;
  if (!parsed.player && !player.empty()) {
    if (!secret) vouched = upper(player);
    std::string head = "PLAYER " + upper(player) + " " + (secret ? *secret : "********") + "\n";
    ++added;
    if (!parsed.game) {
      head = "GAME " + game + "\n" + head;
      ++added;
    }
    full = head + full;
  }
  Result<SubmitOutcome> out = check_or_submit(game, full, source, !check_only, vouched);
  if (!out.ok()) return out;
  for (auto& l : out->ack.lines) l.line -= added;
  for (auto& o : out->ack.orders) o.line -= added;
  return out;
}

Status Services::rollback(const std::string& game, int turn) {
  return s_.games.rollback(game, turn);
}

namespace {
// A stored report as the player receives it: its text with the turn's roundup, which its JSON
// carries under "roundup".
void add_roundup(ReportRecord& r, const Json& roundup) {
  r.text = render_report_text(r.json, &roundup);
  r.json["roundup"] = roundup;
}
}  // namespace

Result<ReportRecord> Services::report(const std::string& game, const std::string& player,
                                      std::optional<int> turn) {
  if (!turn) {
    Result<std::vector<int>> turns = s_.reports.report_turns(game);
    if (!turns.ok()) return turns.status();
    if (turns->empty())
      return Status::NotFound("game " + game + " has no reports yet (no turn has run)");
    turn = turns->back();
  }
  Result<ReportRecord> r = s_.reports.report(game, upper(player), *turn);
  if (!r.ok()) return r;
  Result<Json> roundup = turn_roundup(game, *turn);
  if (!roundup.ok()) return roundup.status();
  add_roundup(*r, *roundup);
  return r;
}

Result<Json> Services::turn_roundup(const std::string& game, int turn) {
  Result<Json> record = s_.games.turn_record(game, turn);
  if (!record.ok()) return record.status();
  return (*record)["summary"].value("roundup", Json::object());
}

Result<ReportRecord> Services::report(const std::string& game, const std::string& player, int turn,
                                      const Json& roundup) {
  Result<ReportRecord> r = s_.reports.report(game, upper(player), turn);
  if (r.ok()) add_roundup(*r, roundup);
  return r;
}

std::string TurnRunOutcome::full_text(const ReportRecord& r) const {
  if (r.json.is_null() && !r.json_text.empty())  // a committed run keeps reports as text
    return render_report_text(Json::parse(r.json_text), &roundup);
  return render_report_text(r.json, &roundup);
}

Status Services::notify(Notice n) {
  n.created_at = now_();
  auto id = s_.notices.append_notice(n);
  if (!id.ok() && id.status().code() != StatusCode::kAlreadyExists) return id.status();
  return Status::Ok();
}

Result<EngineScript> Services::upload_engine_script(const std::string& game,
                                                    std::string_view source,
                                                    const std::string& who) {
  Result<GameState> st = s_.games.load_view(game, std::nullopt, {}, {});
  if (!st.ok()) return st.status();
  if (st->engine.name != kScriptEngineName)
    return Status::FailedPrecondition("game " + game + " runs the built-in engine \"" +
                                      st->engine.name + "\", not a script");
  Result<ScriptCheck> checked = check_script(source);
  if (!checked.ok()) return checked.status();
  if (!checked->passed)
    return Status::InvalidArgument("the script fails the conformance suite:\n" + checked->report);
  // The script must take the game as it stands (its options and engine data).
  Result<GameState> whole = s_.games.load_state(game, std::nullopt);
  if (!whole.ok()) return whole.status();
  if (Status fits = checked->engine->check_game(*whole); !fits.ok())
    return Status::InvalidArgument("the script refuses this game: " + fits.message());
  // Used from the open turn's run on; a rerun of an earlier turn keeps its own version.
  EngineScript s{game,   0,   std::string(source),  checked->sha256,
                 now_(), who, checked->json.dump(), st->turn};
  Result<int> v = s_.scripts.add_engine_script(s);
  if (!v.ok()) return v.status();
  s.version = *v;
  s.source.clear();
  return s;
}

Result<EngineHandle> Services::engine_of(const std::string& game) {
  Result<GameState> st = s_.games.load_view(game, std::nullopt, {}, {});
  if (!st.ok()) return st.status();
  return engine_for_state(s_, *st);
}

Result<std::vector<EngineScript>> Services::engine_scripts(const std::string& game) {
  return s_.scripts.engine_script_versions(game);
}

Result<Json> Services::replay_battle(const std::string& game, int turn, const std::string& id) {
  Result<BattleRecord> rec = s_.reports.battle(game, turn, id);
  if (!rec.ok()) return rec.status();
  // Dark Age RAID and INVADE are logged as battles but fought by no engine (turn_raids.cc).
  if (rec->input.is_object() && rec->input.value("replay", true) == false)
    return Status::InvalidArgument(
        "battle " + id + " is a Dark Age " + rec->input.value("kind", std::string("action")) +
        ": its losses are fixed by the rules, there is nothing to replay");
  Json doc = rec->input;
  doc["seed"] = std::to_string(rec->seed);
  doc["id"] = rec->id;
  // A Lua battle is fought again by the script version its log names.
  EngineHandle engine;
  if (doc.contains("engine") && doc["engine"].is_object() &&
      doc["engine"].value("name", "") == kScriptEngineName) {
    EngineSpec spec;
    spec.name = kScriptEngineName;
    const Json& script = doc["engine"].value("script", Json::object());
    if (!script.is_object() || !script.contains("version") ||
        !script["version"].is_number_integer())
      return Status::Corruption("stored battle " + id + " names no engine script version");
    spec.script_version = script["version"].get<int>();
    spec.script_sha256 = script.value("sha256", "");
    Result<EngineHandle> e = game_engine(s_.scripts, game, spec);
    if (!e.ok()) return e.status();
    engine = std::move(e).value();
  }
  auto battle = prepare_battle(doc, "", engine);
  if (!battle.ok())
    return Status::Corruption("stored battle " + id + ": " + battle.status().message());
  Xoshiro256 rng((*battle)->seed);
  Result<BattleOutcome> out = (*battle)->engine->resolve((*battle)->input, rng);
  if (!out.ok()) return out.status();
  Json replayed = to_json(*out);
  Json draws = Json::array();
  for (const auto& d : rng.draws()) draws.push_back({d.bound, d.value + 1});
  const Json& stored = rec->outcome;
  const bool same = stored["outcome"] == replayed && stored["draws"] == draws;
  return Json{{"game", game},          {"turn", turn},
              {"battle", id},          {"seed", std::to_string(rec->seed)},
              {"engine", rec->engine}, {"stored", stored["outcome"]},
              {"replayed", replayed},  {"draws", draws},
              {"same", same}};
}

}  // namespace adj
