#include "rules/combat/engine_resolver.h"

#include "rules/combat/engine_registry.h"

namespace adj {

EngineHandle builtin_handle(const CombatEngine* engine) {
  // Aliasing constructor with an empty owner: a handle that never deletes.
  return EngineHandle(EngineHandle(), engine);
}

namespace {

class BuiltinResolver final : public EngineResolver {
 public:
  Result<EngineHandle> resolve(const EngineSpec& spec) const override {
    if (spec.name == kScriptEngineName)
      return Status::FailedPrecondition(
          "the game runs a script engine and no script store is available here");
    const CombatEngine* e = find_engine(spec.name);
    if (!e) return Status::NotFound("unknown engine \"" + spec.name + "\"");
    return builtin_handle(e);
  }
};

}  // namespace

const EngineResolver& builtin_engines() {
  static const BuiltinResolver resolver;
  return resolver;
}

}  // namespace adj
