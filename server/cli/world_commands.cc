// world generate (commands.h).
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "rules/world/world_generator.h"
#include "server/app/secrets.h"
#include "server/cli/commands.h"

namespace adj::cli {

int world_generate(const WorldCommand& w) {
  if (w.seas && w.no_seas) return fail(Status::InvalidArgument("--seas and --no-seas: pick one"));
  world::WorldOptions o;
  o.engine = w.engine;
  o.players = w.players;
  o.areas_per_player = w.areas_per_player;
  if (w.seas) o.seas = true;
  if (w.no_seas) o.seas = false;
  o.seed = w.seed ? *w.seed : new_game_seed();
  o.name = w.name;
  o.id = w.id;
  world::WorldFairness f;
  auto doc = world::generate_world(o, &f);
  if (!doc.ok()) return fail(doc.status());
  if (w.fairness_json) {
    std::cout << world::fairness_json(f).dump(2) << "\n";
    return kExitOk;
  }
  const std::string text = doc->dump(1) + "\n";
  if (w.out.empty()) {
    std::cout << text;
  } else if (Status st = write_output(w.out, text); !st.ok()) {
    return fail(st);
  }
  std::cerr << "Seed " << o.seed << " (--seed " << o.seed << " makes this world again).\n"
            << world::fairness_text(f);
  if (!w.out.empty())
    std::cerr << "Next: adjutant game create " << w.out << " (or --signup to open it for "
              << "sign-ups).\n";
  return kExitOk;
}

}  // namespace adj::cli
