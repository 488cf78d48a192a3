#include "rules/combat/battle_input_text.h"

#include <algorithm>
#include <cassert>

#include "rules/combat/engine_registry.h"
#include "rules/game/json_text.h"

namespace adj {

namespace {

constexpr auto kReplace = Json::error_handler_t::replace;

bool less_deref(const std::string* a, const std::string* b) { return *a < *b; }

}  // namespace

BattleInputWriter::BattleInputWriter(const GameState& world, const CombatEngine* engine)
    : world_(world) {
  json_text::engine(engine_text_, world.engine, kReplace);
  json_text::value(rules_text_, to_json(world.rules), kReplace);
  if (!engine) engine = find_engine(world.engine.name);
  if (engine) radius_ = engine->world_radius(world.engine.options);
}

std::size_t BattleInputWriter::index_of(std::string_view code) const {
  const Area* a = world_.find_area(code);
  assert(a && "battle areas exist in the world");
  return static_cast<std::size_t>(a - world_.areas.data());
}

void BattleInputWriter::index_borders() {
  const GameState& w = world_;
  first_border_.assign(1, 0);
  borders_.clear();
  for (const Area& a : w.areas) {
    for (const auto& n : w.neighbours(a.code)) {
      const Edge* e = w.find_edge(a.code, n);
      assert(e && "a neighbour is across a border");
      borders_.push_back({index_of(n), static_cast<std::size_t>(e - w.edges.data())});
    }
    first_border_.push_back(borders_.size());
  }
}

bool BattleInputWriter::kept(std::size_t area) const {
  return std::binary_search(keep_.begin(), keep_.end(), area);
}

void BattleInputWriter::keep(std::size_t area, std::vector<std::size_t>* frontier) {
  auto it = std::lower_bound(keep_.begin(), keep_.end(), area);
  if (it != keep_.end() && *it == area) return;
  keep_.insert(it, area);
  if (frontier) frontier->push_back(area);
}

std::string BattleInputWriter::write(const BattleInput& in,
                                     const std::map<std::string, std::size_t>* order_position) {
  assert(in.world == &world_);
  const GameState& w = world_;
  if (first_border_.size() != w.areas.size() + 1) index_borders();
  auto borders_of = [&](std::size_t i) {
    return std::pair(borders_.begin() + static_cast<std::ptrdiff_t>(first_border_[i]),
                     borders_.begin() + static_cast<std::ptrdiff_t>(first_border_[i + 1]));
  };
  // The areas within the engine's radius of the target, the origin and the groups' areas; in
  // code order (the areas are sorted by code, so by index).
  keep_.clear();
  keep(index_of(in.to), nullptr);
  keep(index_of(in.from), nullptr);
  for (const auto& g : in.groups) keep(index_of(g.from), nullptr);
  frontier_.assign(1, index_of(in.to));
  for (int step = 0; step < radius_; ++step) {
    next_.clear();
    for (std::size_t i : frontier_)
      for (auto [b, end] = borders_of(i); b != end; ++b) keep(b->area, &next_);
    frontier_.swap(next_);
  }
  owners_.clear();
  owners_.push_back(&in.attacker);
  for (const auto& g : in.groups) owners_.push_back(&g.player);
  for (std::size_t i : keep_)
    if (w.areas[i].owner) owners_.push_back(&*w.areas[i].owner);
  std::sort(owners_.begin(), owners_.end(), less_deref);
  owners_.erase(std::unique(owners_.begin(), owners_.end(),
                            [](const std::string* a, const std::string* b) { return *a == *b; }),
                owners_.end());

  std::string& out = text_;  // reused: its capacity grows to the largest battle's
  out.clear();
  out += "{\"adjacency\":[";
  bool first = true;
  for (std::size_t i : keep_) {
    // Codes are sorted with the areas: code < neighbour's code is i < its index.
    for (auto [b, end] = borders_of(i); b != end; ++b) {
      if (!(i < b->area) || !kept(b->area)) continue;
      if (!first) out += ',';
      first = false;
      json_text::edge(out, w.edges[b->edge], kReplace);
    }
  }
  out += "],\"ambush\":";
  json_text::boolean(out, in.ambush);
  out += ",\"areas\":[";
  first = true;
  for (std::size_t i : keep_) {
    if (!first) out += ',';
    first = false;
    json_text::area(out, w.areas[i], kReplace);
  }
  out += "],\"attacker\":{\"armies\":";
  json_text::integer(out, in.attacker_armies);
  out += ",\"extras\":{";
  first = true;
  for (const auto& [k, v] : in.extras) {
    if (!first) out += ',';
    first = false;
    json_text::str(out, k, kReplace);
    out += ':';
    json_text::integer(out, v);
  }
  out += "},\"from\":";
  json_text::str(out, in.from, kReplace);
  out += ",\"player\":";
  json_text::str(out, in.attacker, kReplace);
  out += ",\"units\":";
  json_text::value(out, in.attacker_units, kReplace);
  out += "},\"engine\":";
  out += engine_text_;
  out += ",\"groups\":[";
  first = true;
  for (const auto& g : in.groups) {
    out += first ? "{\"action\":" : ",{\"action\":";
    first = false;
    json_text::integer(out, g.action);
    out += ",\"armies\":";
    json_text::integer(out, g.armies);
    out += ",\"from\":";
    json_text::str(out, g.from, kReplace);
    out += ",\"line\":";
    json_text::integer(out, g.line);
    out += ",\"player\":";
    json_text::str(out, g.player, kReplace);
    out += ",\"units\":";
    json_text::value(out, g.units, kReplace);
    out += '}';
  }
  out += "],\"kind\":\"";
  out += to_string(in.kind);
  out += "\",\"order_of_play\":[";
  // The order of play cut down to the battle's players, in the same order (local_world.h).
  first = true;
  auto listed = [&](const std::string& code) {
    if (!first) out += ',';
    first = false;
    json_text::str(out, code, kReplace);
  };
  if (order_position) {
    listed_.clear();
    for (const std::string* code : owners_)
      if (auto it = order_position->find(*code); it != order_position->end())
        listed_.emplace_back(it->second, code);
    std::sort(listed_.begin(), listed_.end());
    for (const auto& entry : listed_) listed(*entry.second);
  } else {
    for (const auto& code : w.order_of_play)
      if (std::binary_search(owners_.begin(), owners_.end(), &code, less_deref)) listed(code);
  }
  out += "],\"players\":[";
  first = true;
  for (const std::string* code : owners_)
    if (const Player* p = w.find_player(*code)) {
      if (!first) out += ',';
      first = false;
      json_text::player(out, *p, true, kReplace);
    }
  out += "],\"rules\":";
  out += rules_text_;
  out += ",\"to\":";
  json_text::str(out, in.to, kReplace);
  out += ",\"turn\":";
  json_text::integer(out, w.turn);
  out += '}';
  return std::string(
      out);  // exactly its size: tens of thousands of these are kept until the commit
}

}  // namespace adj
