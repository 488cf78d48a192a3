// The descriptions of the game state's JSON form (rules/game/json_form.h): every member of Player,
// Area, Edge and GameState, once, in key order, with its defaults. Every form of the state comes
// from these: to_json and state_from_json (rules/game/state.cc, through the tree), the direct
// writer (rules/game/json_text.h) and the direct reader (rules/game/state_reader.h). A new member
// is one line here (plus its own type).
//
// The visitor V is one of json_form's writers, with const structs, or a reader (TreeReader below,
// the text reader of state_reader.cc), with mutable ones; each offers integer, string,
// optional_string, optional_number, enumeration, json, decimal, tree, strings and list.
#pragma once

#include <concepts>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "rules/game/json_form.h"
#include "rules/game/state.h"

namespace adj {

inline constexpr const char* kAreaKindNames[] = {"land", "city", "sea"};             // AreaKind
inline constexpr const char* kDefenceModeNames[] = {"retreat", "defend", "ambush"};  // DefenceMode

template <class V, class P>
requires std::same_as<std::remove_const_t<P>, Player>
void describe(V& v, P& p) {
  using json_form::Field;
  v.integer("bp", p.bp);
  v.string("code", p.code, Field{.required = true});
  v.string("email", p.email, Field{.is_private = true});
  v.json("engine_state", p.engine_state);
  v.string("name", p.name);
  v.string("nation", p.nation, Field{.or_member = &p.code});
  v.integer("reserve", p.reserve);
  // Stored states have none (server/app/secrets.h).
  v.string("secret", p.secret, Field{.omit_empty = true, .is_private = true});
  v.integer("treasury", p.treasury);
  v.integer("vp", p.vp);
}

template <class V, class A>
requires std::same_as<std::remove_const_t<A>, Area>
void describe(V& v, A& a) {
  using json_form::Field;
  using json_form::Names;
  v.optional_string("ambush_against", a.ambush_against);
  v.integer("armies", a.armies);
  v.string("code", a.code, Field{.required = true});
  v.json("engine_state", a.engine_state);
  v.json("features", a.features);
  v.integer("fort", a.fort);
  v.string("hinterland", a.hinterland, Field{.omit_empty = true});
  v.enumeration("kind", a.kind, Names<AreaKind, 3>{kAreaKindNames});
  v.enumeration("mode", a.mode, Names<DefenceMode, 3>{kDefenceModeNames});
  v.string("name", a.name, Field{.or_member = &a.code});
  v.json("outline", a.outline, Field{.omit_null = true});
  v.optional_string("owner", a.owner);
  v.integer("population", a.population);
  v.optional_string("retreat_to", a.retreat_to);
  v.string("terrain", a.terrain, Field{.or_text = "lowlands"});
  v.integer("trade", a.trade);
  v.optional_number("x", a.x);
  v.optional_number("y", a.y);
}

// [a, b] or [a, b, features] (features only when not empty).
template <class V, class E>
requires std::same_as<std::remove_const_t<E>, Edge>
void describe(V& v, E& e) {
  using json_form::Field;
  v.string("a", e.a, Field{.required = true});
  v.string("b", e.b, Field{.required = true});
  v.json("features", e.features, Field{.omit_empty = true});
}

template <class V, class S>
requires std::same_as<std::remove_const_t<S>, GameState>
void describe(V& v, S& s) {
  using json_form::Field;
  constexpr Field kRequired{.required = true};
  v.list("adjacency", s.edges, kRequired);
  v.list("areas", s.areas, kRequired);
  v.tree("engine", s.engine, engine_json, engine_spec_from_json, kRequired);
  v.string("game", s.game_id, kRequired);
  v.string("name", s.name, kRequired);
  v.strings("order_of_play", s.order_of_play);
  v.list("players", s.players, kRequired);
  v.tree(
      "rules", s.rules, [](const RulesConfig& r) { return to_json(r); }, rules_from_json,
      kRequired);
  v.json("scenario_extra", s.scenario_extra);
  v.decimal("seed", s.seed, kRequired);
  v.integer("turn", s.turn, kRequired);
}

namespace json_form {

template <>
inline constexpr bool kTuple<Edge> = true;
template <>
inline constexpr bool kTuple<const Edge> = true;

// Reads described members from a tree, as nlohmann's at() (required members) and value() (the
// others, with their defaults) read them: a member of the wrong type throws nlohmann's
// exception naming it. A tree() member whose reader fails throws Failed with its status.
class TreeReader {
 public:
  struct Failed {
    Status status;
  };

  explicit TreeReader(const Json& j) : j_(j) {}

  void integer(std::string_view k, int& m, Field f = {}) {
    m = f.required ? at(k).get<int>() : value(k, 0);
  }
  void string(std::string_view k, std::string& m, Field f = {}) {
    if (f.required)
      m = at(k).get<std::string>();
    else
      m = value(k, f.or_member ? *f.or_member : std::string(f.or_text));
  }
  void optional_string(std::string_view k, std::optional<std::string>& m, Field = {}) {
    const Json* x = find(k);
    if (x && !x->is_null())
      m = x->get<std::string>();
    else
      m.reset();
  }
  void optional_number(std::string_view k, std::optional<double>& m, Field = {}) {
    const Json* x = find(k);
    if (x && !x->is_null())
      m = x->get<double>();
    else
      m.reset();
  }
  template <class E, std::size_t N>
  void enumeration(std::string_view k, E& m, Names<E, N> n, Field = {}) {
    const std::string name = value(k, std::string(n.names[0]));
    m = static_cast<E>(0);
    for (std::size_t i = 0; i < N; ++i)
      if (name == n.names[i]) m = static_cast<E>(i);
  }
  void json(std::string_view k, Json& m, Field f = {}) {
    const Json* x = find(k);
    if (x)
      m = *x;
    else
      m = f.omit_null ? Json() : Json::object();
  }
  void decimal(std::string_view k, std::uint64_t& m, Field = {}) {
    m = std::stoull(at(k).get<std::string>());
  }
  template <class T, class ToTree, class FromTree>
  void tree(std::string_view k, T& m, ToTree, FromTree from_tree, Field = {}) {
    auto r = from_tree(at(k));
    if (!r.ok()) throw Failed{r.status()};
    m = std::move(r).value();
  }
  void strings(std::string_view k, std::vector<std::string>& m, Field f = {}) {
    m = f.required ? at(k).get<std::vector<std::string>>() : value(k, std::vector<std::string>{});
  }
  template <class T>
  void list(std::string_view k, std::vector<T>& m, Field = {}) {
    for (const Json& x : at(k)) {
      T item;
      TreeReader r(x);
      r.tuple_ = kTuple<T>;
      describe(r, item);
      m.push_back(std::move(item));
    }
  }

 private:
  // A member by key, or a tuple's next element by position.
  const Json& at(std::string_view k) {
    if (tuple_) return j_.at(position_++);
    return j_.at(k);
  }
  const Json* find(std::string_view k) {
    if (tuple_) {
      const std::size_t i = position_++;
      return j_.size() > i ? &j_.at(i) : nullptr;
    }
    if (!j_.is_object()) (void)j_.value(k, 0);  // throws value()'s error naming the type
    auto it = j_.find(k);
    return it == j_.end() ? nullptr : &*it;
  }
  template <class T>
  T value(std::string_view k, T fallback) {
    const Json* x = find(k);
    return x ? x->get<T>() : std::move(fallback);
  }

  const Json& j_;
  bool tuple_ = false;
  std::size_t position_ = 0;
};

}  // namespace json_form

}  // namespace adj
