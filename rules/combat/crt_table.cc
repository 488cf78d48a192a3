#include "rules/combat/crt_table.h"

#include "rules/game/json_schema.h"
#include "schemas/embedded.h"

namespace adj {

namespace {

constexpr const char* kCrtSchema = "schemas/crt_table.schema.json";

Status err(const std::string& path, const std::string& what) {
  return Status::InvalidArgument(path + ": " + what);
}

// The bundled tables (files schemas/tables/<name>.json) by name, parsed once per process: the
// engine reads its table for every battle. Thread-safe.
const std::map<std::string, Json>& bundled_documents() {
  static const std::map<std::string, Json> docs = [] {
    const std::string dir = "schemas/tables/", ext = ".json";
    std::map<std::string, Json> m;
    for (const auto& f : embedded_files(dir))
      if (f.size() > dir.size() + ext.size() &&
          f.compare(f.size() - ext.size(), ext.size(), ext) == 0)
        m.emplace(f.substr(dir.size(), f.size() - dir.size() - ext.size()),
                  Json::parse(*embedded_file(f)));
    return m;
  }();
  return docs;
}

std::map<std::string, CrtEffect> builtin_results() {
  std::map<std::string, CrtEffect> r;
  r["NR"] = {};
  r["DR"].defender_retreat = 1;
  r["DR2"].defender_retreat = 2;
  r["AR"].attacker_retreat = true;
  r["AE"].attacker_eliminated = true;
  r["DE"].defender_eliminated = true;
  r["EX"].exchange = true;
  return r;
}

}  // namespace

int CrtTable::column_for(int attack, int defence) const {
  int col = 0;
  for (int i = 0; i < columns(); ++i) {
    const bool reached = method == "ratio" ? static_cast<long long>(attack) * odds[i].second >=
                                                 static_cast<long long>(defence) * odds[i].first
                                           : (i == 0 || attack - defence >= min[i]);
    if (reached) col = i;
  }
  return col;
}

Result<Json> crt_document(const Json& spec, const std::string& kind, const std::string& path,
                          bool validate) {
  Json doc;
  if (spec.is_string()) {
    const std::string name = spec.get<std::string>();
    const auto& bundled = bundled_documents();
    const auto it = bundled.find(name);
    if (it == bundled.end()) {
      std::string names;
      for (const auto& entry : bundled) names += (names.empty() ? "" : ", ") + entry.first;
      return err(path, "no bundled table named \"" + name + "\" (bundled: " + names + ")");
    }
    doc = it->second;
  } else if (spec.is_object()) {
    doc = spec;
  } else {
    return err(path, "must be the name of a bundled table or a table object");
  }
  if (validate) {
    auto errors = validate_against_schema(doc, kCrtSchema);
    if (!errors.empty())
      return err(path + (errors[0].path == "/" ? "" : errors[0].path), errors[0].message);
  }
  if (doc.value("kind", "") != kind) return err(path + "/kind", "must be \"" + kind + "\"");
  return doc;
}

Result<CrtTable> crt_table_from_json(const Json& doc, const std::string& path) {
  try {
    CrtTable t;
    t.name = doc.value("name", "inline");
    t.method = doc.value("method", "");
    if (t.method != "differential" && t.method != "ratio")
      return err(path + "/method", "must be one of differential, ratio");
    t.die = doc.value("die", 6);
    if (t.die < 1 || t.die > 100) return err(path + "/die", "must be from 1 to 100");
    const Json& cols = doc.at("columns");
    if (!cols.is_array() || cols.empty())
      return err(path + "/columns", "must be a non-empty array");
    for (std::size_t i = 0; i < cols.size(); ++i) {
      const std::string cp = path + "/columns/" + std::to_string(i);
      const Json& c = cols[i];
      t.labels.push_back(c.value("label", std::to_string(i)));
      if (t.method == "differential") {
        if (i > 0 && !c.contains("min")) return err(cp + "/min", "required after the first column");
        const int m = c.contains("min") ? c["min"].get<int>() : 0;
        if (i > 1 && m <= t.min.back()) return err(cp + "/min", "must increase from left to right");
        t.min.push_back(m);
        t.odds.emplace_back(0, 1);
      } else {
        if (!c.contains("odds") || !c["odds"].is_array() || c["odds"].size() != 2)
          return err(cp + "/odds", "required: [attack, defence]");
        const int a = c["odds"][0].get<int>(), d = c["odds"][1].get<int>();
        if (a < 1 || d < 1) return err(cp + "/odds", "both numbers must be at least 1");
        if (i > 0 && static_cast<long long>(a) * t.odds.back().second <=
                         static_cast<long long>(t.odds.back().first) * d)
          return err(cp + "/odds", "must increase from left to right");
        t.odds.emplace_back(a, d);
        t.min.push_back(0);
      }
    }
    t.results = builtin_results();
    if (doc.contains("results")) {
      for (const auto& [code, e] : doc["results"].items()) {
        CrtEffect fx;
        fx.defender_retreat = e.value("defender_retreat", 0);
        fx.defender_eliminated = e.value("defender_eliminated", false);
        fx.attacker_retreat = e.value("attacker_retreat", false);
        fx.attacker_eliminated = e.value("attacker_eliminated", false);
        fx.exchange = e.value("exchange", false);
        if (fx.defender_retreat < 0 || fx.defender_retreat > 5)
          return err(path + "/results/" + code + "/defender_retreat", "must be from 0 to 5");
        t.results[code] = fx;
      }
    }
    const Json& rows = doc.at("rows");
    if (!rows.is_array() || static_cast<int>(rows.size()) != t.die)
      return err(path + "/rows", "must have one row per die face (" + std::to_string(t.die) + ")");
    for (std::size_t f = 0; f < rows.size(); ++f) {
      const std::string rp = path + "/rows/" + std::to_string(f);
      if (!rows[f].is_array() || rows[f].size() != cols.size())
        return err(rp, "must have one result per column (" + std::to_string(cols.size()) + ")");
      std::vector<std::string> row;
      for (std::size_t c = 0; c < rows[f].size(); ++c) {
        const std::string code = rows[f][c].get<std::string>();
        if (!t.results.count(code))
          return err(rp + "/" + std::to_string(c),
                     "unknown result \"" + code + "\" (define it under results)");
        row.push_back(code);
      }
      t.rows.push_back(std::move(row));
    }
    return t;
  } catch (const std::exception& e) {
    return err(path, std::string("malformed table: ") + e.what());
  }
}

Result<ShiftChart> shift_chart_from_json(const Json& doc, const std::string& path) {
  try {
    ShiftChart c;
    c.name = doc.value("name", "inline");
    if (!doc.contains("terrain") || !doc["terrain"].is_object())
      return err(path + "/terrain", "must be an object of terrain name -> left shift");
    for (const auto& [k, v] : doc["terrain"].items()) c.terrain[k] = v.get<int>();
    c.river = doc.value("river", 0);
    return c;
  } catch (const std::exception& e) {
    return err(path, std::string("malformed shift chart: ") + e.what());
  }
}

}  // namespace adj
