#include "rules/combat/script_engine.h"

#include <mutex>
#include <set>

#include "rules/combat/lua_marshal.h"
#include "rules/combat/lua_sandbox.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace adj {

namespace {

// What the script's `engine` table declares (defaults as CombatEngine's).
struct Declarations {
  std::string summary = "A combat engine written in Lua by the game's GM.";
  bool deterministic = false;
  std::set<std::string> keywords;
  int world_radius = 2;
  std::string order_help;
  bool dark_age_actions = false;
  bool simultaneous_fire = false;
  bool combined_attacks = true;
  bool accepts_support = false;
  CombatPhaseRules phase_rules;
  bool has_check_game = false;
  bool has_check_order = false;
  // The words the script reads (engine.terrain, features, borders, area_state, player_state);
  // a list it does not declare reads any word.
  EngineVocabulary vocabulary = open_vocabulary();

  static EngineVocabulary open_vocabulary() {
    EngineVocabulary v;
    for (VocabularyList* l : {&v.terrain, &v.features, &v.borders, &v.area_state, &v.player_state})
      l->any = true;
    return v;
  }
};

Status declaration_error(const std::string& key, const std::string& what) {
  return Status::InvalidArgument("engine." + key + ": " + what);
}

constexpr std::size_t kMaxKeywords = 64;
constexpr std::size_t kMaxVocabularyWords = 256;

// A declared word list: {word = "what it does", ...} or {"word", ...}. Words are 1 to 64 bytes
// without spaces, sentences at most 400 bytes.
Status parse_word_list(const std::string& key, const Json& v, VocabularyList& out) {
  const std::string what =
      "must be a table of words and what each does, e.g. {marsh = \"defence +1\"}, or a list of "
      "words";
  if (!v.is_object() && !v.is_array()) return declaration_error(key, what);
  if (v.size() > kMaxVocabularyWords)
    return declaration_error(key, "at most " + std::to_string(kMaxVocabularyWords) + " words");
  out = VocabularyList{};
  for (auto it = v.begin(); it != v.end(); ++it) {
    const Json& word = v.is_object() ? Json(it.key()) : it.value();
    const Json effect = v.is_object() ? it.value() : Json("read by the script");
    bool ok = word.is_string() && !word.get_ref<const std::string&>().empty() &&
              word.get_ref<const std::string&>().size() <= 64 && effect.is_string() &&
              effect.get_ref<const std::string&>().size() <= 400;
    if (ok)
      for (char c : word.get_ref<const std::string&>()) ok = ok && c != ' ' && c != '\t';
    if (!ok) return declaration_error(key, what + " (words of 1 to 64 bytes without spaces)");
    out.add(word.get<std::string>(), effect.get<std::string>());
  }
  return Status::Ok();
}

Result<Declarations> parse_declarations(const Json& e) {
  Declarations d;
  for (auto it = e.begin(); it != e.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = it.value();
    auto flag = [&](bool& target) -> Status {
      if (!v.is_boolean()) return declaration_error(k, "must be true or false");
      target = v.get<bool>();
      return Status::Ok();
    };
    if (k == "summary" || k == "order_help") {
      if (!v.is_string() || v.get_ref<const std::string&>().size() > 4000)
        return declaration_error(k, "must be a string of at most 4000 bytes");
      (k == "summary" ? d.summary : d.order_help) = v.get<std::string>();
    } else if (k == "deterministic") {
      ADJ_RETURN_IF_ERROR(flag(d.deterministic));
    } else if (k == "dark_age_actions") {
      ADJ_RETURN_IF_ERROR(flag(d.dark_age_actions));
    } else if (k == "simultaneous_fire") {
      ADJ_RETURN_IF_ERROR(flag(d.simultaneous_fire));
    } else if (k == "combined_attacks") {
      ADJ_RETURN_IF_ERROR(flag(d.combined_attacks));
    } else if (k == "accepts_support") {
      ADJ_RETURN_IF_ERROR(flag(d.accepts_support));
    } else if (k == "world_radius") {
      if (!v.is_number_integer() || v.get<int>() < 0 || v.get<int>() > 8)
        return declaration_error(k, "must be an integer from 0 to 8");
      d.world_radius = v.get<int>();
    } else if (k == "keywords") {
      if (!v.is_array()) return declaration_error(k, "must be a list of words, e.g. {\"CARD\"}");
      if (v.size() > kMaxKeywords)
        return declaration_error(k, "at most " + std::to_string(kMaxKeywords) + " keywords");
      for (const Json& w : v) {
        bool ok = w.is_string() && !w.get_ref<const std::string&>().empty() &&
                  w.get_ref<const std::string&>().size() <= 32;
        if (ok)
          for (char c : w.get_ref<const std::string&>()) ok = ok && c >= 'A' && c <= 'Z';
        if (!ok)
          return declaration_error(k, "each keyword is an upper-case word of 1 to 32 letters");
        d.keywords.insert(w.get<std::string>());
      }
    } else if (k == "phase_rules") {
      if (!v.is_object()) return declaration_error(k, "must be a table");
      for (auto p = v.begin(); p != v.end(); ++p) {
        const std::string path = "phase_rules." + p.key();
        if (p.key() == "scope") {
          if (p.value() == "action_round")
            d.phase_rules.scope = CombatPhaseRules::Scope::kActionRound;
          else if (p.value() == "turn")
            d.phase_rules.scope = CombatPhaseRules::Scope::kTurn;
          else
            return declaration_error(path, "must be \"action_round\" or \"turn\"");
        } else if (p.key() == "one_attack_per_unit" || p.key() == "one_attack_per_target") {
          if (!p.value().is_boolean()) return declaration_error(path, "must be true or false");
          (p.key() == "one_attack_per_unit" ? d.phase_rules.one_attack_per_unit
                                            : d.phase_rules.one_attack_per_target) =
              p.value().get<bool>();
        } else {
          return declaration_error(path, "unknown phase rule");
        }
      }
    } else if (k == "terrain" || k == "features" || k == "borders" || k == "area_state" ||
               k == "player_state") {
      EngineVocabulary& w = d.vocabulary;
      VocabularyList& list = k == "terrain"      ? w.terrain
                             : k == "features"   ? w.features
                             : k == "borders"    ? w.borders
                             : k == "area_state" ? w.area_state
                                                 : w.player_state;
      ADJ_RETURN_IF_ERROR(parse_word_list(k, v, list));
    } else {
      return declaration_error(k, "unknown declaration");
    }
  }
  return d;
}

// ---- Protected bodies (LuaSandbox::Body): environment at index 1, one result ----

int body_environment(lua_State* L, void*) {
  lua_pushvalue(L, 1);
  return 1;
}

void get_function(lua_State* L, const char* name) {
  lua_pushstring(L, name);
  if (lua_rawget(L, 1) != LUA_TFUNCTION) luaL_error(L, "the script defines no function %s", name);
}

int body_resolve(lua_State* L, void* ctx) {
  const auto& in = *static_cast<const BattleInput*>(ctx);
  get_function(L, "resolve");
  push_battle(L, in);
  push_rng(L);
  lua_call(L, 2, 1);
  return 1;
}

int body_check_game(lua_State* L, void* ctx) {
  const auto& state = *static_cast<const GameState*>(ctx);
  get_function(L, "check_game");
  push_json(L, state.engine.options);
  push_world(L, state);
  lua_call(L, 2, 1);
  return 1;
}

struct OrderCheck {
  const Order* order;
  const GameState* state;
};

int body_check_order(lua_State* L, void* ctx) {
  const auto& c = *static_cast<const OrderCheck*>(ctx);
  get_function(L, "check_order");
  push_order(L, *c.order);
  push_world(L, *c.state);
  lua_call(L, 2, 1);
  return 1;
}

// A check function's answer on top of the stack: nil or true accept; a string is the reason;
// false refuses without one.
Status check_answer(lua_State* L, const char* call) {
  switch (lua_type(L, -1)) {
    case LUA_TNIL:
      return Status::Ok();
    case LUA_TBOOLEAN:
      return lua_toboolean(L, -1) ? Status::Ok()
                                  : Status::InvalidArgument(std::string("refused by ") + call);
    case LUA_TSTRING: {
      std::size_t n = 0;
      const char* s = lua_tolstring(L, -1, &n);
      return Status::InvalidArgument(std::string(s, n > 500 ? 500 : n));
    }
    default:
      return Status::Internal(std::string(call) +
                              ": must return nil, true or a reason (string), not a " +
                              lua_typename(L, lua_type(L, -1)));
  }
}

// Checks beyond outcome_inconsistency that a script's outcome must pass; "" when it does.
std::string script_inconsistency(const BattleOutcome& o, const BattleInput& in,
                                 const std::vector<AttackGroup>& groups, int defenders) {
  const GameState& w = *in.world;
  const int survivors = in.attacker_armies - o.attacker_losses;
  if (o.attacker_wins && survivors <= 0) return "attacker_wins: the attacker has no survivors";
  if (o.attacker_wins && o.defender_losses < defenders && !o.defender_retreats_to)
    return "attacker_wins: defending armies remain and defender_retreats_to is not given";
  if (o.defender_retreats_to && !w.adjacent(in.to, *o.defender_retreats_to))
    return "defender_retreats_to: " + *o.defender_retreats_to + " is not a neighbour of " + in.to;
  if (o.attacker_retreats_to && !w.adjacent(in.from, *o.attacker_retreats_to))
    return "attacker_retreats_to: " + *o.attacker_retreats_to + " is not a neighbour of " + in.from;
  for (std::size_t k = 0; k < o.group_retreats_to.size() && k < groups.size(); ++k)
    if (o.group_retreats_to[k] && !w.adjacent(groups[k].from, *o.group_retreats_to[k]))
      return "group_retreats_to[" + std::to_string(k + 1) + "]: " + *o.group_retreats_to[k] +
             " is not a neighbour of " + groups[k].from;
  if (o.advancing && *o.advancing > survivors)
    return "advancing: " + std::to_string(*o.advancing) + " of " + std::to_string(survivors) +
           " survivors";
  if (o.fort_after && *o.fort_after < 0) return "fort_after: negative";
  for (std::size_t i = 0; i < o.rounds.size(); ++i) {
    const BattleRound& r = o.rounds[i];
    const std::string p = "rounds[" + std::to_string(i + 1) + "]";
    if (r.attacker_losses < 0 || r.attacker_losses > r.attacker_before)
      return p + ".attacker_losses: " + std::to_string(r.attacker_losses) + " of " +
             std::to_string(r.attacker_before);
    if (r.defender_losses < 0 || r.defender_losses > r.defender_before)
      return p + ".defender_losses: " + std::to_string(r.defender_losses) + " of " +
             std::to_string(r.defender_before);
  }
  return {};
}

class ScriptEngine final : public CombatEngine {
 public:
  ScriptEngine(std::unique_ptr<LuaSandbox> box, Declarations decl, ScriptId id,
               const ScriptLimits& limits)
      : box_(std::move(box)), decl_(std::move(decl)), id_(std::move(id)), limits_(limits) {
    traits_ = {.name = "lua",
               .summary = decl_.summary,
               .order_help = decl_.order_help,
               .deterministic = decl_.deterministic,
               .simultaneous_fire = decl_.simultaneous_fire,
               .combined_attacks = decl_.combined_attacks,
               .accepts_support = decl_.accepts_support,
               .dark_age_actions = decl_.dark_age_actions};
  }
  // traits_ points into decl_.
  ScriptEngine(const ScriptEngine&) = delete;
  ScriptEngine& operator=(const ScriptEngine&) = delete;

  const EngineTraits& traits() const override { return traits_; }
  int world_radius(const Json&) const override { return decl_.world_radius; }
  CombatPhaseRules phase_rules(const Json&) const override { return decl_.phase_rules; }
  EngineVocabulary vocabulary(const Json&, const RulesConfig&) const override {
    return decl_.vocabulary;
  }
  const ScriptId& id() const { return id_; }
  std::uint64_t instructions_total() const {
    std::lock_guard<std::mutex> lock(mu_);
    return box_->instructions_total();
  }
  std::size_t memory_held() const {
    std::lock_guard<std::mutex> lock(mu_);
    return box_->memory_held();
  }
  bool top_level_kept() const {
    std::lock_guard<std::mutex> lock(mu_);
    return box_->top_level_kept();
  }

  Status check_game(const GameState& state) const override {
    if (!decl_.has_check_game) return Status::Ok();
    std::lock_guard<std::mutex> lock(mu_);
    Status s =
        call("check_game", body_check_game, const_cast<GameState*>(&state), {&state, nullptr});
    if (!s.ok()) return failed(s);
    Status answer = check_answer(box_->state(), "check_game");
    box_->clear();
    if (answer.code() == StatusCode::kInternal) return failed(answer);
    if (!answer.ok()) return Status::InvalidArgument("/engine/options: " + answer.message());
    return Status::Ok();
  }

  Status check_order(const Order& order, const GameState& state) const override {
    for (auto it = order.extras.begin(); it != order.extras.end(); ++it)
      if (!decl_.keywords.count(it->first))
        return Status::InvalidArgument(it->first +
                                       " is not part of the orders of this game's rules (lua)");
    if (!decl_.has_check_order) return Status::Ok();
    std::lock_guard<std::mutex> lock(mu_);
    OrderCheck c{&order, &state};
    Status s = call("check_order", body_check_order, &c, {&state, nullptr, nullptr, &order});
    if (!s.ok()) return failed(s);
    Status answer = check_answer(box_->state(), "check_order");
    box_->clear();
    if (answer.code() == StatusCode::kInternal) return failed(answer);
    return answer;
  }

  Result<BattleOutcome> resolve(const BattleInput& in, Rng& rng) const override {
    std::unique_lock<std::mutex> lock(mu_);
    Status s = call("resolve", body_resolve, const_cast<BattleInput*>(&in), {in.world, &rng, &in});
    if (!s.ok()) return failed(s);
    ScriptRunBudget* run = ScriptRunBudget::current();
    OutcomeBound bound{limits_.outcome_bytes,
                       "more than " + std::to_string(limits_.outcome_bytes) +
                           " bytes of data, the limit of one battle's outcome"};
    if (run && run->run() == ScriptRun::kTurnRun) {
      const std::size_t left = run->outcome_bytes < limits_.turn_outcome_bytes
                                   ? limits_.turn_outcome_bytes - run->outcome_bytes
                                   : 0;
      if (left < bound.bytes)
        bound = {left, "the turn run's budget of " + std::to_string(limits_.turn_outcome_bytes) +
                           " bytes of battle outcomes is used up"};
    }
    std::size_t bytes = 0;
    Result<BattleOutcome> out = outcome_from_lua(box_->state(), -1, bound, &bytes);
    box_->clear();
    if (run) {
      run->outcome_bytes += bytes;
      if (!out.ok() && bound.bytes < limits_.outcome_bytes) run->exhausted = true;
    }
    lock.unlock();
    if (!out.ok()) return failed(Status::Internal("resolve: " + out.status().message()));
    // A battle of one group without in.groups: that group (its units are not read here).
    std::vector<AttackGroup> one;
    if (in.groups.empty())
      one.push_back(AttackGroup{in.attacker, in.from, in.attacker_armies, Json(), 0, 0});
    const std::vector<AttackGroup>& groups = in.groups.empty() ? one : in.groups;
    const int defenders = in.target().armies;
    std::string bad = outcome_inconsistency(*out, groups, defenders);
    if (bad.empty()) bad = script_inconsistency(*out, in, groups, defenders);
    if (!bad.empty())
      return failed(
          Status::Internal("resolve: inconsistent outcome of battle " + in.id + ": " + bad));
    return out;
  }

 private:
  // box_->call under the per-call limits and the thread's run budget (ScriptRunBudget), which it
  // charges. Holds mu_.
  Status call(std::string_view what, LuaSandbox::Body body, void* ctx,
              LuaSandbox::Access access) const {
    ScriptRunBudget* run = ScriptRunBudget::current();
    if (!run) return box_->call(what, body, ctx, access);
    const std::uint64_t total =
        run->run() == ScriptRun::kTurnRun ? limits_.turn_instructions : limits_.check_instructions;
    const std::uint64_t left = run->instructions < total ? total - run->instructions : 0;
    if (left > 0) {
      Status s = box_->call(what, body, ctx, access, left);
      run->instructions += box_->last_call_instructions();
      // Failed on the instructions it was given only when the run's budget gave it fewer.
      if (s.ok() || left >= limits_.instructions || !box_->last_call_out_of_instructions())
        return s;
    }
    run->exhausted = true;
    return Status::InvalidArgument(std::string(what) + ": the " + run->name() + "'s budget of " +
                                   std::to_string(total) + " script instructions is used up");
  }

  Status failed(const Status& s) const {
    return Status::Internal("lua script v" + std::to_string(id_.version) + ": " + s.message());
  }

  mutable std::mutex mu_;
  std::unique_ptr<LuaSandbox> box_;  // guarded by mu_
  Declarations decl_;
  ScriptId id_;
  ScriptLimits limits_;
  EngineTraits traits_;  // its strings are decl_'s
};

thread_local ScriptRunBudget* current_run_budget = nullptr;

// Reads the script's top-level definitions from its environment on top of the stack (raw, never
// raising).
Result<Declarations> read_definitions(lua_State* L) {
  bool has_resolve = false, has_game = false, has_order = false;
  Json engine = Json::object();
  const int env = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, env)) {
    if (lua_type(L, -2) == LUA_TSTRING) {
      std::size_t n = 0;
      const char* k = lua_tolstring(L, -2, &n);
      const std::string_view key(k, n);
      const bool fn = lua_type(L, -1) == LUA_TFUNCTION;
      Status bad = Status::Ok();
      if (key == "resolve" || key == "check_game" || key == "check_order") {
        if (!fn) bad = Status::InvalidArgument(std::string(key) + " must be a function");
        (key == "resolve" ? has_resolve : key == "check_game" ? has_game : has_order) = fn;
      } else if (key == "engine") {
        Result<Json> e = json_from_lua(L, -1, "engine");
        if (!e.ok())
          bad = e.status();
        else if (!e->is_object())
          bad = Status::InvalidArgument("engine: must be a table of declarations");
        else
          engine = std::move(e).value();
      }
      if (!bad.ok()) {
        lua_pop(L, 2);
        return bad;
      }
    }
    lua_pop(L, 1);
  }
  if (!has_resolve)
    return Status::InvalidArgument("the script defines no function resolve(battle, rng)");
  Result<Declarations> d = parse_declarations(engine);
  if (!d.ok()) return d;
  d->has_check_game = has_game;
  d->has_check_order = has_order;
  return d;
}

}  // namespace

Result<std::shared_ptr<const CombatEngine>> load_script_engine(std::string_view source,
                                                               const ScriptId& id,
                                                               const ScriptLimits& limits) {
  if (source.size() > limits.source_bytes)
    return Status::InvalidArgument("the script has " + std::to_string(source.size()) +
                                   " bytes; the limit is " + std::to_string(limits.source_bytes));
  std::unique_ptr<LuaSandbox> box = LuaSandbox::create(limits.memory_bytes, limits.instructions);
  if (!box) return Status::InvalidArgument("the Lua libraries do not fit in the memory limit");
  box->set_string_limit(limits.string_bytes);
  box->set_depth_limit(limits.call_depth);
  ADJ_RETURN_IF_ERROR(box->compile(source));
  ADJ_RETURN_IF_ERROR(box->call("loading the script", body_environment, nullptr, {}));
  Result<Declarations> decl = read_definitions(box->state());
  if (decl.ok()) box->keep_top_level();
  box->clear();
  if (!decl.ok()) return decl.status();
  return std::shared_ptr<const CombatEngine>(
      std::make_shared<ScriptEngine>(std::move(box), std::move(decl).value(), id, limits));
}

ScriptRunBudget::ScriptRunBudget(ScriptRun run) : run_(run), outer_(current_run_budget) {
  current_run_budget = this;
}

ScriptRunBudget::~ScriptRunBudget() { current_run_budget = outer_; }

ScriptRunBudget* ScriptRunBudget::current() { return current_run_budget; }

const ScriptId* script_id_of(const CombatEngine& engine) {
  const auto* s = dynamic_cast<const ScriptEngine*>(&engine);
  return s ? &s->id() : nullptr;
}

std::uint64_t script_instructions(const CombatEngine& engine) {
  const auto* s = dynamic_cast<const ScriptEngine*>(&engine);
  return s ? s->instructions_total() : 0;
}

bool script_top_level_kept(const CombatEngine& engine) {
  const auto* s = dynamic_cast<const ScriptEngine*>(&engine);
  return s && s->top_level_kept();
}

std::size_t script_memory_held(const CombatEngine& engine) {
  const auto* s = dynamic_cast<const ScriptEngine*>(&engine);
  return s ? s->memory_held() : 0;
}

}  // namespace adj
