#include "server/app/world_request.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "server/app/secrets.h"

namespace adj {

namespace {

Status bad(const std::string& field, const std::string& why) {
  return Status::InvalidArgument("/" + field + ": " + why);
}

}  // namespace

Result<nlohmann::json> world_from_request(const nlohmann::json& r, world::WorldFairness* fairness) {
  if (!r.is_object()) return Status::InvalidArgument("the world request must be a JSON object");
  static const char* const kFields[] = {
      "engine", "players", "areas_per_player", "seed", "seas", "for_signups", "id", "name"};
  for (const auto& [k, v] : r.items()) {
    bool known = false;
    for (const char* f : kFields) known = known || k == f;
    if (!known)
      return bad(k.substr(0, 40),
                 "unknown field (known: engine, players, areas_per_player, "
                 "seed, seas, for_signups, id, name)");
  }
  world::WorldOptions o;
  const auto text = [&](const char* f, std::string* out) -> Status {
    if (!r.contains(f)) return Status::Ok();
    if (!r[f].is_string() || r[f].get<std::string>().size() > 200)
      return bad(f, "must be text of at most 200 characters");
    *out = r[f].get<std::string>();
    return Status::Ok();
  };
  const auto whole = [&](const char* f, int* out) -> Status {
    if (!r.contains(f)) return Status::Ok();
    const nlohmann::json& v = r[f];
    if (v.is_number_integer()) {
      const auto n = v.get<long long>();
      *out = n < -1000000 ? -1000000 : n > 1000000 ? 1000000 : static_cast<int>(n);
      return Status::Ok();
    }
    if (v.is_string()) {
      try {
        std::size_t used = 0;
        const std::string s = v.get<std::string>();
        *out = std::stoi(s, &used);
        if (used == s.size()) return Status::Ok();
      } catch (const std::exception&) {
      }
    }
    return bad(f, "must be a whole number");
  };
  // true/false, or the words a form sends: 1/0, yes/no, on/off, true/false.
  const auto flag = [&](const char* f, bool* out) -> Status {
    if (!r.contains(f)) return Status::Ok();
    if (r[f].is_boolean()) {
      *out = r[f].get<bool>();
      return Status::Ok();
    }
    if (r[f].is_string()) {
      const std::string v = r[f].get<std::string>();
      for (const char* yes : {"1", "yes", "on", "true"})
        if (v == yes) return *out = true, Status::Ok();
      for (const char* no : {"0", "no", "off", "false"})
        if (v == no) return *out = false, Status::Ok();
    }
    return bad(f, "must be true or false");
  };
  ADJ_RETURN_IF_ERROR(text("engine", &o.engine));
  ADJ_RETURN_IF_ERROR(text("id", &o.id));
  ADJ_RETURN_IF_ERROR(text("name", &o.name));
  ADJ_RETURN_IF_ERROR(whole("players", &o.players));
  ADJ_RETURN_IF_ERROR(whole("areas_per_player", &o.areas_per_player));
  ADJ_RETURN_IF_ERROR(flag("for_signups", &o.for_signups));
  if (r.contains("seas")) {
    bool seas = false;
    ADJ_RETURN_IF_ERROR(flag("seas", &seas));
    o.seas = seas;
  }
  o.seed = new_game_seed();
  if (r.contains("seed") && !(r["seed"].is_string() && r["seed"].get<std::string>().empty())) {
    const nlohmann::json& v = r["seed"];
    try {
      if (v.is_number_unsigned()) {
        o.seed = v.get<std::uint64_t>();
      } else if (v.is_number_integer()) {
        if (v.get<std::int64_t>() < 0) throw std::invalid_argument("seed");
        o.seed = static_cast<std::uint64_t>(v.get<std::int64_t>());
      } else if (v.is_string()) {
        std::size_t used = 0;
        const std::string s = v.get<std::string>();
        if (s.empty() || s.size() > 20 ||
            !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
          throw std::invalid_argument("seed");
        o.seed = std::stoull(s, &used);
        if (used != s.size()) throw std::invalid_argument("seed");
      } else {
        throw std::invalid_argument("seed");
      }
    } catch (const std::exception&) {
      return bad("seed", "must be a whole number from 0 to 18446744073709551615");
    }
  }
  auto doc = world::generate_world(o, fairness);
  if (!doc.ok()) {
    // The generator names its options as the command line does (--players): as fields here.
    std::string m = doc.status().message();
    if (m.rfind("--", 0) == 0) {
      m = "/" + m.substr(2);
      if (const auto dash = m.find('-'); dash != std::string::npos && dash < m.find(':'))
        for (std::size_t i = 1; i < m.find(':'); ++i)
          if (m[i] == '-') m[i] = '_';
    }
    return Status::InvalidArgument(m);
  }
  return doc;
}

}  // namespace adj
