// A sandboxed Lua 5.4 state for one script engine: a capped allocator, an instruction-count hook,
// the safe library set (read-only), and calls that each start from what the script's top level
// left, in a fresh environment, so that no state survives from one call to the next (the chunk runs
// again before each call, or once when keep_top_level finds that changes nothing).
//
// Safe library set: assert error ipairs pairs (sorted keys) pcall rawequal rawget rawlen rawset
// select setmetatable getmetatable tonumber tostring type xpcall _VERSION, and read-only string
// (without dump, find, match, gmatch, gsub; format refuses %p), table, math (without random,
// randomseed) and utf8. No io, os, package, require, load, dofile, loadfile, debug,
// collectgarbage, next or coroutine. setmetatable refuses __gc and __mode (their effects depend on
// when the collector runs) and installs a private copy of the metatable; tostring and
// string.format print tables and functions by their type name only (never an address).
// table.sort is a stable merge sort (the same order on every run, whatever the comparator).
// pcall and xpcall do not catch a memory error: it ends the call.
//
// Work done in C counts against the instruction limit (charge()): the library functions the
// script calls are charged in proportion to their work (elements moved or compared, bytes
// scanned, results pushed), and every string of more than 512 bytes the call makes one
// instruction per 64 bytes (only strings: other allocations, such as the stack's, depend on when
// the collector ran, and the count must not).
//
// Work the VM does on long strings without an allocation (==, <, <= on two strings compare them
// byte by byte, as a table lookup by a long string key does) is charged through the string mark:
// the length of the longest string of more than 512 bytes the call made (or the kept top level
// holds). Every VM instruction then counts 1 + mark / kStringBytesPerInstruction, the most a
// comparison of two strings of that length can cost, in instructions' worth. A string longer than
// the string limit (set_string_limit) is not made at all. The count depends only on the script
// and its input, never on the machine or the collector: the same call gives the same count, and
// the same pass or fail, on every run. No clock is read.
//
// Calls nest at most set_depth_limit() levels (Lua and C functions alike), checked with the
// instruction count (so a recursion stops within a step of 1,000 instructions past the limit).
//
// Lua errors are longjmps (the system's liblua is C): every Lua call that can raise runs inside
// lua_pcall, and code running there keeps no C++ object with a destructor alive across a Lua API
// call (see Body).
//
// Thread-safety: none; the owner serialises calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "rules/combat/lua_keys.h"
#include "rules/core/status.h"

struct lua_State;
struct lua_Debug;

namespace adj {

struct BattleInput;
struct GameState;
struct Order;
class Rng;

// Registry slots (integer keys: one array read each) for values the engine reuses from call to
// call. Each holds false until set.
enum class LuaSlot : int {
  kChunk,         // the compiled script
  kEnvMeta,       // metatable of every call's environment: {__index = globals}
  kWorld,         // lua_marshal: the world object
  kWorldMethods,  // lua_marshal: its method table (holds `turn`)
  kRng,           // lua_marshal: the rng object
  kBattleMeta,    // lua_marshal: the metatable of battles
  kAreaMeta,      // lua_marshal: the metatable of world:area()'s tables
  kRulesView,     // lua_rules_views: world:rules() (a read-only proxy)
  kRulesScalars,  // lua_rules_views: the values its fields were last set from
  // lua_rules_views: world:rules()'s nested tables, a read-only view each
  kTerrainBonusView,
  kCostsView,
  kStickyTerrainView,
  kGaelicNationsView,
  kRaidShelterTerrainView,
  // lua_top_level: the top level's environment, the metatable of every call's environment over
  // it, the metatable of every call's `engine` and the upvalues to set again before each call
  kKeptEnv,
  kKeptEnvMeta,
  kKeptEngine,
  kKeptUpvalues,
  kCount
};

class LuaSandbox {
 public:
  // What the script's C callbacks (world, rng) may read during the current call; null outside.
  struct Access {
    const GameState* world = nullptr;
    Rng* rng = nullptr;
    const BattleInput* battle = nullptr;  // resolve's battle (its fields are filled on first read)
    // check_order's order: the world shows only its areas (from, to), their borders and owners,
    // and the receiving kingdom of a GIFT (lua_marshal.h push_world).
    const Order* order = nullptr;
  };

  // Runs inside lua_pcall with the table holding the script's top-level definitions at stack
  // index 1 (read it raw; see keep_top_level); pushes exactly one result and returns 1. It may
  // raise Lua errors, so it must not keep a C++ object with a destructor alive across a Lua API
  // call; `ctx` is the caller's.
  using Body = int (*)(lua_State* L, void* ctx);

  // A state with the safe library set under `memory_bytes`, running at most `instructions` VM
  // instructions per call. Null when even the libraries do not fit.
  // (Strings of at most kDefaultStringBytes and kDefaultDepth levels until set otherwise.)
  static std::unique_ptr<LuaSandbox> create(std::size_t memory_bytes, std::uint64_t instructions);
  ~LuaSandbox();
  LuaSandbox(const LuaSandbox&) = delete;
  LuaSandbox& operator=(const LuaSandbox&) = delete;

  // Compiles `source` (text only: binary chunks are refused) as the script. Errors carry Lua's
  // message, which names the line ("script:12: ...").
  Status compile(std::string_view source);

  // Runs the script's chunk in a fresh environment (or enters the kept top level), then `body`,
  // under the limits; the instruction limit is the lower of the state's and `instruction_limit`
  // (what remains of a run's budget). On success the body's result is on top of the stack until
  // the next call or clear(). Errors name `what` and the limit broken or the script's message
  // with its line. `access` stays in force until clear() (the outcome readers complete lazy
  // tables with it), without the limits.
  Status call(std::string_view what, Body body, void* ctx, Access access,
              std::uint64_t instruction_limit = UINT64_MAX);
  // Instructions the last call counted, and whether it ended on the instruction limit it was
  // given.
  std::uint64_t last_call_instructions() const { return last_call_instructions_; }
  bool last_call_out_of_instructions() const { return last_call_out_of_instructions_; }
  // The longest string a call may make, in bytes (a longer one fails the call: "string length
  // limit (N bytes) exceeded").
  void set_string_limit(std::size_t bytes) { string_limit_ = bytes; }
  // The deepest a call may nest, in levels of calls ("call depth limit (N levels) exceeded").
  void set_depth_limit(int levels) { depth_limit_ = levels < 1 ? 1 : levels; }
  static constexpr std::size_t kDefaultStringBytes = 1024 * 1024;
  static constexpr int kDefaultDepth = 1000;
  // Bytes of the string mark that count as one more instruction for every VM instruction (a
  // comparison of 256 bytes costs about what 2 to 4 VM instructions do).
  static constexpr std::size_t kStringBytesPerInstruction = 256;
  // Stops running the chunk before every call when that changes nothing a script can see
  // (lua_top_level.cc): with the environment the last call left on top of the stack (the one the
  // chunk ran in), if the top level left only functions, numbers, strings and booleans in globals
  // and upvalues, plus an `engine` table of such values (string keys). Each call then gets a fresh
  // environment over the kept one, a fresh `engine` and the upvalues as the top level left them.
  // Returns whether it did; on false nothing changed. Call once, after the loading call.
  bool keep_top_level();
  bool top_level_kept() const { return top_level_kept_; }

  // Drops whatever the last call left on the stack, and the call's access.
  void clear();
  // Counts calls (from 1); lazy tables remember the call that made them, and refuse to be read
  // in another.
  std::uint64_t call_serial() const { return call_serial_; }

  // Adds `units` instructions' worth of C work to the current call's count; past the limit, marks
  // the call as over it and raises "instruction limit exceeded". From C functions the script
  // calls (inside call()); outside a call (the outcome readers completing a lazy table after it)
  // it charges nothing.
  static void charge(lua_State* L, std::uint64_t units);

  lua_State* state() const { return L_; }
  // The access of the current call (null members outside calls).
  const Access& access() const { return access_; }
  std::size_t memory_used() const { return memory_used_; }
  // Memory the state holds from the system: in use, plus freed small blocks kept for reuse.
  std::size_t memory_held() const { return memory_used_ + pooled_bytes_; }
  // After a call, what an idle state may hold; clear() and a failed call bring it back under this
  // (a full collection and the free lists returned) when it is over.
  static constexpr std::size_t kIdleBytes = 8 * 1024 * 1024;
  // VM instructions run by every call so far (counted in steps of up to 1,000).
  std::uint64_t instructions_total() const { return instructions_total_; }

  // The registry index of the interned field name `k` (lua_rawgeti(L, LUA_REGISTRYINDEX, ...)
  // pushes it), and its characters' address (the same for every equal short string in the state).
  int key_ref(LuaKey k) const { return key_refs_[static_cast<int>(k)]; }
  const char* key_chars(LuaKey k) const { return key_chars_[static_cast<int>(k)]; }
  // The registry index of `slot` (lua_rawgeti pushes its value, lua_rawseti sets it; neither
  // raises: the slot exists from creation on).
  int slot_ref(LuaSlot slot) const { return slot_refs_[static_cast<int>(slot)]; }
  // The interned field name whose characters are at `chars` (from lua_tolstring), or
  // LuaKey::kCount when it is none of them. A hash lookup on the address.
  LuaKey key_of(const char* chars) const;

 private:
  LuaSandbox(std::size_t memory_bytes, std::uint64_t instructions);
  static void* allocate(void* ud, void* ptr, std::size_t osize, std::size_t nsize);
  // Small blocks (up to kPoolMax bytes, in 16-byte classes) are kept on free lists: a battle's
  // Lua objects are many and short-lived, and malloc/free dominated a call's cost.
  static constexpr std::size_t kPoolMax = 512;
  void* take(std::size_t n);
  void give(void* p, std::size_t n);
  static void count_hook(lua_State* L, ::lua_Debug* ar);
  // Marks the call as over its instruction limit and raises.
  [[noreturn]] static void exceed(lua_State* L);
  // A new long string's share of the instruction count; false when it breaks the limit.
  bool charge_allocation(std::size_t bytes);
  // Brings the memory the state holds under kIdleBytes when it is over (see kIdleBytes).
  void release_idle_memory();
  void free_pooled();
  // What every VM instruction counts now: 1 + string mark / kStringBytesPerInstruction.
  std::uint64_t instruction_weight() const { return 1 + string_mark_ / kStringBytesPerInstruction; }
  static int open_keys(lua_State* L);

  lua_State* L_ = nullptr;
  std::size_t memory_cap_;
  std::size_t memory_used_ = 0;
  void* free_lists_[kPoolMax / 16] = {};
  std::size_t pooled_bytes_ = 0;  // bytes on the free lists
  std::uint64_t instruction_limit_;
  std::uint64_t instructions_used_ = 0;
  std::uint64_t instructions_total_ = 0;
  int hook_step_ = 1;
  bool instructions_exceeded_ = false;
  bool counting_ = false;         // inside call(): allocations are charged
  std::uint64_t call_limit_ = 0;  // the current call's instruction limit
  std::uint64_t last_call_instructions_ = 0;
  bool last_call_out_of_instructions_ = false;
  std::size_t string_limit_ = kDefaultStringBytes;
  std::size_t string_overhead_ = 0;  // a string's allocation beyond its characters (create())
  bool measuring_ = false;           // create() is measuring string_overhead_
  bool string_exceeded_ = false;
  std::size_t string_mark_ = 0;       // see the header comment; the current call's
  std::size_t kept_string_mark_ = 0;  // the loading call's, when the top level is kept
  int depth_limit_ = kDefaultDepth;
  bool depth_exceeded_ = false;
  std::uint64_t call_serial_ = 0;
  bool top_level_kept_ = false;
  Access access_;
  int key_refs_[kLuaKeyCount] = {};
  int slot_refs_[static_cast<int>(LuaSlot::kCount)] = {};
  const char* key_chars_[kLuaKeyCount] = {};
  struct KeySlot {
    const char* chars = nullptr;
    LuaKey key = LuaKey::kCount;
  };
  static constexpr std::size_t kKeyTableSize = 256;  // open addressing, at most 1/3 full
  static_assert(kLuaKeyCount * 3 <= kKeyTableSize);
  KeySlot key_table_[kKeyTableSize];
};

// ---- read-only and lazy tables (lua_readonly_lazy.cc) ----

// Replaces the table on top of the stack by a read-only proxy of it (writes, rawset and
// setmetatable refused; reads, #, pairs and ipairs see the table). May raise.
void lua_freeze_top(lua_State* L);
// Lazy tables (lua_views.cc: areas, the battle; lua_rules_views.cc: the rules; lua_top_level.cc: a
// kept call's environment and `engine`): a table whose fields are built when first read. Its
// metatable holds a fill function under a private key; called with the table, the function returns
// the table whose raw contents are everything the lazy one shows (the table itself once completed,
// or a new table for a read-only view). Pops the function on top of the stack into the metatable
// below it. May raise.
void lua_set_lazy_fill(lua_State* L);
// Pops the value on top of the stack (the __index: a function or a table) and pushes a new
// metatable for lazy tables: that __index, `newindex`, a protected __metatable and `fill` as the
// fill function. May raise.
void lua_new_lazy_metatable(lua_State* L, int (*newindex)(lua_State*), int (*fill)(lua_State*));
// A lazy table's usual __newindex: completes the table, then sets the field (so that a field
// written before it was read is not built over later).
int lua_lazy_newindex(lua_State* L);
// Marks the metatable on top of the stack as a read-only table's: rawset, setmetatable and
// table.sort refuse the tables it belongs to (their __newindex must refuse writes too).
void lua_mark_frozen(lua_State* L);
// Pushes the table whose raw contents are what the table at `idx` shows to a script: the real
// table behind a read-only proxy, a lazy table's fill (lua_set_lazy_fill), or the table itself.
// pairs, rawget, # in the table library and the outcome readers go through it. May raise.
void lua_push_contents(lua_State* L, int idx);
// lua_push_contents without raising: false (nothing pushed, *error set) when it failed.
bool lua_push_contents_protected(lua_State* L, int idx, std::string* error);

// For LuaSandbox's calls once the top level is kept (lua_top_level.cc): leaves the kept definitions
// at stack index 1 with the call's fresh environment in every function's _ENV, a fresh `engine`
// and the upvalues as the top level left them. May raise (allocation).
void lua_enter_kept_top_level(lua_State* L);

// For LuaSandbox::create (lua_library.cc, with lua_safe_base.cc and lua_table_library.cc): installs
// the safe library set as the globals every call's environment reads, and drops the full libraries.
// Run protected.
int lua_open_sandbox_library(lua_State* L);

// The message of the error object on top of the stack, at most 2,000 bytes. Never raises.
std::string lua_error_text(lua_State* L);

// The sandbox that owns `L` (set at creation).
LuaSandbox& sandbox_of(lua_State* L);

}  // namespace adj
