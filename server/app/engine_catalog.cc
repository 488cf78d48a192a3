#include "server/app/engine_catalog.h"

#include <atomic>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <utility>

#include "base/sha256.h"
#include "rules/combat/conformance.h"
#include "storage/engine_script_limits.h"

namespace adj {

namespace {

// Compiled script engines by (version, sha256), the most recently built last. Bounded: the
// oldest is dropped past kMaxEngines (holders keep theirs alive through the shared pointer). An
// idle engine holds at most LuaSandbox::kIdleBytes (8 MB) unless its live data is larger, so the
// cache holds about 256 MB at most.
class ScriptCache {
 public:
  static constexpr std::size_t kMaxEngines = 32;

  EngineHandle find(const ScriptId& id) {
    std::lock_guard lock(mu_);
    auto it = engines_.find(key(id));
    return it == engines_.end() ? nullptr : it->second;
  }
  void put(const ScriptId& id, EngineHandle e) {
    std::lock_guard lock(mu_);
    if (!engines_.emplace(key(id), std::move(e)).second) return;
    order_.push_back(key(id));
    while (order_.size() > kMaxEngines) {
      engines_.erase(order_.front());
      order_.pop_front();
    }
  }

 private:
  static std::pair<int, std::string> key(const ScriptId& id) { return {id.version, id.sha256}; }
  std::mutex mu_;
  std::map<std::pair<int, std::string>, EngineHandle> engines_;
  std::deque<std::pair<int, std::string>> order_;
};

ScriptCache& cache() {
  static ScriptCache c;
  return c;
}

std::string version_text(int v) { return "engine script version " + std::to_string(v); }

constexpr const char* kCheckBusy =
    "another engine script is being checked on this host; try again in a minute";

// One conformance check at a time in the process; the holder releases it on destruction.
class CheckSlot {
 public:
  CheckSlot() : held_(!busy().exchange(true)) {}
  ~CheckSlot() {
    if (held_) busy().store(false);
  }
  CheckSlot(const CheckSlot&) = delete;
  CheckSlot& operator=(const CheckSlot&) = delete;
  bool held() const { return held_; }

 private:
  static std::atomic<bool>& busy() {
    static std::atomic<bool> b{false};
    return b;
  }
  bool held_;
};

}  // namespace

const ScriptLimits& host_script_limits() {
  static const ScriptLimits limits;
  return limits;
}

Result<EngineHandle> script_engine_for(std::string_view source, const ScriptId& id) {
  if (EngineHandle e = cache().find(id)) return e;
  auto loaded = load_script_engine(source, id, host_script_limits());
  if (!loaded.ok())
    return Status::FailedPrecondition(version_text(id.version) + ": " + loaded.status().message());
  EngineHandle e = std::move(loaded).value();
  cache().put(id, e);
  return e;
}

Result<ScriptCheck> check_script(std::string_view source) {
  const ScriptLimits& limits = host_script_limits();
  if (source.size() > limits.source_bytes)
    return Status::InvalidArgument("the script has " + std::to_string(source.size()) +
                                   " bytes; the most this host takes is " +
                                   std::to_string(limits.source_bytes));
  CheckSlot slot;
  if (!slot.held()) return Status::Unavailable(kCheckBusy);
  ScriptCheck c;
  c.sha256 = sha256_hex_of(source);
  auto loaded = load_script_engine(source, ScriptId{0, c.sha256}, limits);
  if (!loaded.ok()) return Status::InvalidArgument(loaded.status().message());
  c.engine = std::move(loaded).value();
  const ConformanceReport report = run_conformance(*c.engine);
  c.passed = report.ok();
  c.report = report.to_text();
  Json checks = Json::array();
  for (const ConformanceCheck& k : report.checks)
    checks.push_back(
        {{"name", k.name}, {"runs", k.runs}, {"failures", k.failures}, {"messages", k.messages}});
  c.json = Json{{"passed", c.passed}, {"battles", report.battles}, {"checks", std::move(checks)}};
  return c;
}

bool is_script_check_busy(const Status& s) {
  return s.code() == StatusCode::kUnavailable && s.message() == kCheckBusy;
}

Status script_version_room(EngineScriptStore& scripts, const std::string& game) {
  auto newest = scripts.engine_script_for_turn(game, std::numeric_limits<int>::max());
  if (!newest.ok()) return newest.status();
  if (*newest && (*newest)->version >= kMaxEngineScriptVersions)
    return Status::FailedPrecondition(too_many_script_versions(game));
  return Status::Ok();
}

Result<EngineHandle> game_engine(EngineScriptStore& scripts, const std::string& game,
                                 const EngineSpec& spec) {
  if (spec.name != kScriptEngineName) return builtin_engines().resolve(spec);
  int version = spec.script_version;
  if (version <= 0) {
    auto newest = scripts.engine_script_for_turn(game, std::numeric_limits<int>::max());
    if (!newest.ok()) return newest.status();
    if (!*newest) return Status::NotFound("game " + game + " has no engine script");
    version = (*newest)->version;
  } else if (!spec.script_sha256.empty()) {
    if (EngineHandle e = cache().find(ScriptId{version, spec.script_sha256})) return e;
  }
  auto s = scripts.engine_script(game, version);
  if (!s.ok()) return s.status();
  if (sha256_hex_of(s->source) != s->sha256 ||
      (!spec.script_sha256.empty() && spec.script_sha256 != s->sha256))
    return Status::Corruption("game " + game + ": the stored " + version_text(version) +
                              " does not match its sha256");
  return script_engine_for(s->source, ScriptId{version, s->sha256});
}

Result<EngineHandle> current_engine(EngineScriptStore& scripts, const std::string& game, int turn,
                                    EngineSpec& spec) {
  if (spec.name != kScriptEngineName) return builtin_engines().resolve(spec);
  auto newest = scripts.engine_script_for_turn(game, turn);
  if (!newest.ok()) return newest.status();
  if (!*newest)
    return Status::NotFound("game " + game + " has no engine script for turn " +
                            std::to_string(turn));
  EngineSpec at = spec;
  at.script_version = (*newest)->version;
  at.script_sha256 = (*newest)->sha256;
  auto e = game_engine(scripts, game, at);
  if (e.ok()) spec = std::move(at);
  return e;
}

}  // namespace adj
