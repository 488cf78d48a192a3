// The full battle input form of rules/combat/local_world.h written as text directly, without
// building a tree: the only writer of the form (battle_input_json parses its text). Strings are
// written as nlohmann's dump(-1, ' ', false, Json::error_handler_t::replace) writes them; the
// areas, players, borders and engine use the game state's forms (rules/game/state_fields.h,
// engine_json()).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "rules/combat/combat_engine.h"

namespace adj {

// Writes the battle inputs of one world, battle after battle (a turn's). The world's engine, its
// rules and the engine's world radius are written once, at construction, and its borders are
// indexed at the first write: the engine, the rules, which areas there are (their codes and
// order) and which borders must not change while the writer is used (the areas' and players'
// contents may). `world` must outlive the writer. Not thread-safe: one writer per thread.
class BattleInputWriter {
 public:
  // `engine`: the engine that fights the battles (its world_radius(); a script engine is not
  // found by name); null: the world's engine name is looked up. Borrowed for the constructor only.
  explicit BattleInputWriter(const GameState& world, const CombatEngine* engine = nullptr);

  // The battle input document of `in` as compact text. Precondition: in.world is the world
  // given at construction, and in.to, in.from and every group's area exist in it.
  std::string write(const BattleInput& in,
                    const std::map<std::string, std::size_t>* order_position = nullptr);

 private:
  bool kept(std::size_t area) const;
  void keep(std::size_t area, std::vector<std::size_t>* frontier);
  std::size_t index_of(std::string_view code) const;
  // Fills first_border_ and borders_ from the world's neighbours and edges.
  void index_borders();

  const GameState& world_;
  std::string engine_text_;
  std::string rules_text_;
  int radius_ = 2;
  // The neighbours of area i (indices into world_.areas, in code order, as GameState::neighbours)
  // and the index of the border's Edge: borders_[first_border_[i] .. first_border_[i + 1]).
  struct Border {
    std::size_t area, edge;
  };
  std::vector<std::size_t> first_border_;
  std::vector<Border> borders_;
  // Scratch, reused from battle to battle.
  std::string text_;
  std::vector<std::size_t> keep_;  // area indices, sorted
  std::vector<std::size_t> frontier_, next_;
  std::vector<const std::string*> owners_;  // sorted by value, unique
  std::vector<std::pair<std::size_t, const std::string*>> listed_;
};

}  // namespace adj
