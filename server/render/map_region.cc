#include "server/render/map_region.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

namespace adj::render {

MapModel map_region(const MapModel& whole, const std::vector<std::string>& seeds,
                    std::size_t most) {
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < whole.areas.size(); ++i) index.emplace(whole.areas[i].code, i);
  std::vector<std::vector<std::size_t>> next(whole.areas.size());
  for (const auto& [a, b] : whole.edges) {
    const auto i = index.find(a), j = index.find(b);
    if (i == index.end() || j == index.end()) continue;
    next[i->second].push_back(j->second);
    next[j->second].push_back(i->second);
  }
  std::vector<bool> kept(whole.areas.size());
  std::size_t count = 0;
  std::deque<std::size_t> queue;
  for (const std::string& s : seeds)
    if (auto it = index.find(s); it != index.end() && !kept[it->second] && count < most) {
      kept[it->second] = true;
      ++count;
      queue.push_back(it->second);
    }
  // Neighbours in the model's order, so the same seeds always give the same region.
  for (auto& n : next) std::sort(n.begin(), n.end());
  while (!queue.empty() && count < most) {
    const std::size_t at = queue.front();
    queue.pop_front();
    for (std::size_t n : next[at]) {
      if (kept[n] || count == most) continue;
      kept[n] = true;
      ++count;
      queue.push_back(n);
    }
  }

  MapModel out;
  out.title = whole.title;
  out.players = whole.players;
  out.region = true;
  for (std::size_t i = 0; i < whole.areas.size(); ++i)
    if (kept[i]) out.areas.push_back(whole.areas[i]);
  const auto in = [&](const std::string& code) {
    const auto it = index.find(code);
    return it != index.end() && kept[it->second];
  };
  for (const auto& e : whole.edges)
    if (in(e.first) && in(e.second)) out.edges.push_back(e);
  for (const std::string& r : whole.rivers)
    if (const auto bar = r.find('|');
        bar != std::string::npos && in(r.substr(0, bar)) && in(r.substr(bar + 1)))
      out.rivers.push_back(r);
  for (const MapArrow& a : whole.arrows)
    if (in(a.from) && in(a.to)) out.arrows.push_back(a);
  return out;
}

std::vector<bool> players_shown(const MapModel& model) {
  std::vector<bool> out(model.players.size(), !model.region);
  if (!model.region) return out;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < model.players.size(); ++i) index.emplace(model.players[i].code, i);
  const auto show = [&](const std::string& code) {
    if (auto it = index.find(code); it != index.end()) out[it->second] = true;
  };
  for (const MapArea& a : model.areas) show(a.owner);
  for (const MapArrow& a : model.arrows) show(a.player);
  return out;
}

std::vector<std::string> areas_of(const MapModel& model, const std::string& player) {
  std::vector<std::string> out;
  for (const MapArea& a : model.areas)
    if (!player.empty() && a.owner == player) out.push_back(a.code);
  return out;
}

}  // namespace adj::render
