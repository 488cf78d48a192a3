#include "rules/combat/lua_sandbox.h"

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace adj {

namespace {

// Protected steps run through lua_pcall take their arguments as light userdata.
struct CompileJob {
  const char* data;
  std::size_t size;
};

struct CallJob {
  LuaSandbox::Body body;
  void* ctx;
};

int compile_chunk(lua_State* L) {
  const auto* job = static_cast<const CompileJob*>(lua_touserdata(L, 1));
  if (luaL_loadbufferx(L, job->data, job->size, "=script", "t") != LUA_OK) return lua_error(L);
  lua_rawseti(L, LUA_REGISTRYINDEX, sandbox_of(L).slot_ref(LuaSlot::kChunk));
  return 0;
}

int run_call(lua_State* L) {
  const auto* job = static_cast<const CallJob*>(lua_touserdata(L, 1));
  const LuaSandbox& box = sandbox_of(L);
  lua_settop(L, 0);
  if (box.top_level_kept()) {
    lua_enter_kept_top_level(L);
    return job->body(L, job->ctx);
  }
  lua_createtable(L, 0, 8);  // 1: the environment
  lua_rawgeti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kEnvMeta));
  lua_setmetatable(L, 1);
  lua_pushvalue(L, 1);
  lua_setfield(L, 1, "_G");
  lua_rawgeti(L, LUA_REGISTRYINDEX, box.slot_ref(LuaSlot::kChunk));
  lua_pushvalue(L, 1);
  lua_setupvalue(L, 2, 1);  // _ENV
  lua_call(L, 0, 0);
  return job->body(L, job->ctx);
}

}  // namespace

std::string lua_error_text(lua_State* L) {
  if (lua_type(L, -1) == LUA_TSTRING) {
    std::size_t n = 0;
    const char* s = lua_tolstring(L, -1, &n);
    return std::string(s, n > 2000 ? 2000 : n);
  }
  return std::string("(an error object of type ") + lua_typename(L, lua_type(L, -1)) + ")";
}

LuaSandbox& sandbox_of(lua_State* L) { return **static_cast<LuaSandbox**>(lua_getextraspace(L)); }

LuaSandbox::LuaSandbox(std::size_t memory_bytes, std::uint64_t instructions)
    : memory_cap_(memory_bytes), instruction_limit_(instructions) {}

LuaSandbox::~LuaSandbox() {
  if (L_) lua_close(L_);
  free_pooled();
}

void LuaSandbox::free_pooled() {
  for (void*& head : free_lists_)
    while (head) {
      void* next = *static_cast<void**>(head);
      std::free(head);
      head = next;
    }
  pooled_bytes_ = 0;
}

void LuaSandbox::release_idle_memory() {
  if (memory_used_ + pooled_bytes_ <= kIdleBytes) return;
  lua_gc(L_, LUA_GCCOLLECT);
  free_pooled();
}

namespace {
std::size_t size_class(std::size_t n) { return (n + 15) / 16 - 1; }  // REQUIRES: 1 <= n
// The length of the string create() makes to measure a string's allocation beyond its characters.
constexpr std::size_t kProbeStringBytes = 1000;
}  // namespace

void* LuaSandbox::take(std::size_t n) {
  if (n > kPoolMax) return std::malloc(n);
  void*& head = free_lists_[size_class(n)];
  if (!head) return std::malloc((size_class(n) + 1) * 16);
  void* p = head;
  head = *static_cast<void**>(p);
  pooled_bytes_ -= (size_class(n) + 1) * 16;
  return p;
}

void LuaSandbox::give(void* p, std::size_t n) {
  if (n > kPoolMax || n == 0) {
    std::free(p);
    return;
  }
  void*& head = free_lists_[size_class(n)];
  *static_cast<void**>(p) = head;
  head = p;
  pooled_bytes_ += (size_class(n) + 1) * 16;
}

bool LuaSandbox::charge_allocation(std::size_t bytes) {
  if (!counting_) return true;
  if (bytes > string_limit_ + string_overhead_) {
    string_exceeded_ = true;  // the call fails on this limit, whatever pcall does
    return false;
  }
  if (bytes > string_mark_) string_mark_ = bytes;
  instructions_used_ += bytes / 64;
  if (instructions_used_ <= call_limit_ && !instructions_exceeded_) return true;
  // From now on every instruction fails (count_hook), as when the count passes the limit there.
  instructions_exceeded_ = true;
  hook_step_ = 1;
  lua_sethook(L_, count_hook, LUA_MASKCOUNT, 1);
  return false;
}

void* LuaSandbox::allocate(void* ud, void* ptr, std::size_t osize, std::size_t nsize) {
  auto* self = static_cast<LuaSandbox*>(ud);
  // A new block's osize is the kind of object (a long string: LUA_TSTRING).
  const bool new_string = ptr == nullptr && osize == LUA_TSTRING;
  if (new_string && self->measuring_) self->string_overhead_ = nsize - kProbeStringBytes;
  if (ptr == nullptr) osize = 0;
  if (nsize == 0) {
    if (ptr) self->give(ptr, osize);
    self->memory_used_ -= osize;
    return nullptr;
  }
  if (nsize > osize && nsize - osize > self->memory_cap_ - self->memory_used_) return nullptr;
  if (new_string && nsize > kPoolMax && !self->charge_allocation(nsize)) return nullptr;
  void* p;
  if (ptr == nullptr) {
    p = self->take(nsize);
  } else if (osize > kPoolMax && nsize > kPoolMax) {
    p = std::realloc(ptr, nsize);
  } else if (osize <= kPoolMax && nsize <= kPoolMax && size_class(osize) == size_class(nsize)) {
    p = ptr;  // the block already has room
  } else {
    p = self->take(nsize);
    if (p == nullptr) {
      if (nsize > osize) return nullptr;
      // A shrink may not fail: keep the bigger block (it is at least nsize's class).
      self->memory_used_ = self->memory_used_ - osize + nsize;
      return ptr;
    }
    std::memcpy(p, ptr, osize < nsize ? osize : nsize);
    self->give(ptr, osize);
  }
  if (p == nullptr) return nullptr;
  self->memory_used_ = self->memory_used_ - osize + nsize;
  return p;
}

void LuaSandbox::count_hook(lua_State* L, lua_Debug*) {
  LuaSandbox& self = sandbox_of(L);
  self.instructions_used_ +=
      static_cast<std::uint64_t>(self.hook_step_) * self.instruction_weight();
  if (!self.depth_exceeded_ && !self.instructions_exceeded_) {
    lua_Debug deepest;
    // O(the depth, at most the limit): a walk of the call chain every 1,000 instructions.
    if (lua_getstack(L, self.depth_limit_, &deepest)) self.depth_exceeded_ = true;
  }
  if (self.depth_exceeded_) {
    // Sticky, as the instruction limit: a pcall in the script cannot swallow it.
    if (self.hook_step_ != 1) {
      self.hook_step_ = 1;
      lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    }
    luaL_error(L, "call depth limit exceeded");
  }
  if (self.instructions_used_ > self.call_limit_ || self.instructions_exceeded_) {
    // From now on every instruction fails, so a pcall in the script cannot swallow the limit.
    self.instructions_exceeded_ = true;
    if (self.hook_step_ != 1) {
      self.hook_step_ = 1;
      lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    }
    luaL_error(L, "instruction limit exceeded");
  }
}

void LuaSandbox::exceed(lua_State* L) {
  LuaSandbox& self = sandbox_of(L);
  self.instructions_exceeded_ = true;
  if (self.hook_step_ != 1) {
    self.hook_step_ = 1;
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
  }
  luaL_error(L, "instruction limit exceeded");
  std::abort();  // luaL_error does not return
}

void LuaSandbox::charge(lua_State* L, std::uint64_t units) {
  LuaSandbox& self = sandbox_of(L);
  if (!self.counting_) return;  // after the call: an outcome reader completing a lazy table
  if (units > self.call_limit_ - self.instructions_used_ ||
      self.instructions_used_ > self.call_limit_) {
    self.instructions_used_ = self.call_limit_ + 1;
    exceed(L);
  }
  self.instructions_used_ += units;
}

namespace {
std::size_t key_slot(const char* chars, std::size_t probe) {
  const auto h = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(chars));
  return static_cast<std::size_t>(((h >> 3) * 0x9E3779B97F4A7C15ull) >> 57) + probe;
}
}  // namespace

int LuaSandbox::open_keys(lua_State* L) {
  LuaSandbox& self = sandbox_of(L);
  // A string's allocation beyond its characters (Lua 5.4's header and final '\0'), which the
  // string limit does not count.
  static const char kProbe[kProbeStringBytes] = {};
  self.measuring_ = true;
  lua_pushlstring(L, kProbe, kProbeStringBytes);
  self.measuring_ = false;
  lua_pop(L, 1);
  for (int& ref : self.slot_refs_) {
    lua_pushboolean(L, 0);
    ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  for (std::size_t i = 0; i < kLuaKeyCount; ++i) {
    lua_pushstring(L, kLuaKeyNames[i]);
    const char* chars = lua_tostring(L, -1);
    self.key_chars_[i] = chars;
    self.key_refs_[i] = luaL_ref(L, LUA_REGISTRYINDEX);
    std::size_t probe = 0;
    while (self.key_table_[key_slot(chars, probe) % kKeyTableSize].chars) ++probe;
    self.key_table_[key_slot(chars, probe) % kKeyTableSize] = {chars, static_cast<LuaKey>(i)};
  }
  return 0;
}

LuaKey LuaSandbox::key_of(const char* chars) const {
  for (std::size_t probe = 0;; ++probe) {
    const KeySlot& slot = key_table_[key_slot(chars, probe) % kKeyTableSize];
    if (slot.chars == chars) return slot.key;
    if (!slot.chars) return LuaKey::kCount;
  }
}

std::unique_ptr<LuaSandbox> LuaSandbox::create(std::size_t memory_bytes,
                                               std::uint64_t instructions) {
  std::unique_ptr<LuaSandbox> box(new LuaSandbox(memory_bytes, instructions));
  box->L_ = lua_newstate(&LuaSandbox::allocate, box.get());
  if (!box->L_) return nullptr;
  *static_cast<LuaSandbox**>(lua_getextraspace(box->L_)) = box.get();
  lua_pushcfunction(box->L_, open_keys);
  if (lua_pcall(box->L_, 0, 0, 0) != LUA_OK) return nullptr;
  lua_pushcfunction(box->L_, lua_open_sandbox_library);
  if (lua_pcall(box->L_, 0, 0, 0) != LUA_OK) return nullptr;
  lua_settop(box->L_, 0);
  lua_gc(box->L_, LUA_GCCOLLECT);
  // The incremental collector, starting a cycle when the heap reaches 10 times what the last one
  // left (Lua's default is 2 times): a battle's garbage all dies young, the live heap is small
  // (the libraries, the script), so cycles are rarer and each costs the same; the heap stays
  // under the memory limit all the same, which makes Lua collect in full before it refuses an
  // allocation. About 8% of a Dark Age battle (the generational collector measured no faster).
  lua_gc(box->L_, LUA_GCINC, 1000, 0, 0);
  return box;
}

Status LuaSandbox::compile(std::string_view source) {
  CompileJob job{source.data(), source.size()};
  lua_settop(L_, 0);
  lua_pushcfunction(L_, compile_chunk);
  lua_pushlightuserdata(L_, &job);
  const int rc = lua_pcall(L_, 1, 0, 0);
  if (rc == LUA_OK) return Status::Ok();
  std::string msg = rc == LUA_ERRMEM ? "the script does not fit in the memory limit (" +
                                           std::to_string(memory_cap_) + " bytes)"
                                     : lua_error_text(L_);
  lua_settop(L_, 0);
  return Status::InvalidArgument("compile: " + msg);
}

Status LuaSandbox::call(std::string_view what, Body body, void* ctx, Access access,
                        std::uint64_t instruction_limit) {
  CallJob job{body, ctx};
  lua_settop(L_, 0);
  access_ = access;
  ++call_serial_;
  call_limit_ = instruction_limit < instruction_limit_ ? instruction_limit : instruction_limit_;
  instructions_used_ = 0;
  instructions_exceeded_ = false;
  string_exceeded_ = false;
  depth_exceeded_ = false;
  string_mark_ = top_level_kept_ ? kept_string_mark_ : 0;
  hook_step_ = call_limit_ < 1000 ? static_cast<int>(call_limit_ ? call_limit_ : 1) : 1000;
  lua_sethook(L_, count_hook, LUA_MASKCOUNT, hook_step_);
  counting_ = true;
  lua_pushcfunction(L_, run_call);
  lua_pushlightuserdata(L_, &job);
  const int rc = lua_pcall(L_, 1, 1, 0);
  counting_ = false;
  lua_sethook(L_, nullptr, 0, 0);
  instructions_total_ += instructions_used_;
  last_call_instructions_ = instructions_used_;
  last_call_out_of_instructions_ = instructions_exceeded_ && !string_exceeded_ && !depth_exceeded_;
  if (rc == LUA_OK && !instructions_exceeded_ && !string_exceeded_ && !depth_exceeded_)
    return Status::Ok();
  std::string msg;
  if (string_exceeded_)
    msg = "string length limit (" + std::to_string(string_limit_) + " bytes) exceeded";
  else if (depth_exceeded_)
    msg = "call depth limit (" + std::to_string(depth_limit_) + " levels) exceeded";
  else if (instructions_exceeded_)
    msg = "instruction limit (" + std::to_string(call_limit_) + " per call) exceeded";
  else if (rc == LUA_ERRMEM)
    msg = "memory limit (" + std::to_string(memory_cap_) + " bytes) exceeded";
  else
    msg = lua_error_text(L_);
  lua_settop(L_, 0);
  access_ = {};
  // Reclaim what the failed call left (a memory bomb) before the next one.
  lua_gc(L_, LUA_GCCOLLECT);
  release_idle_memory();
  return Status::InvalidArgument(std::string(what) + ": " + msg);
}

void LuaSandbox::clear() {
  lua_settop(L_, 0);
  access_ = {};
  release_idle_memory();
}

}  // namespace adj
