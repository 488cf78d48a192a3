// Internal helpers of server/mail/*.cc (not for other modules): owning pointers for GLib and
// GObject values (GPtr<T> releases with g_object_unref, GChars with g_free; both accept null),
// GMime's one-time initialisation, SHA-256 and small ASCII string helpers.
#pragma once

#include "base/ascii.h"
#include "base/sha256.h"

#include <gmime/gmime.h>

#include <cctype>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace adj::mail::detail {

struct GObjectUnref {
  void operator()(void* p) const {
    if (p) g_object_unref(p);
  }
};
template <class T>
using GPtr = std::unique_ptr<T, GObjectUnref>;

struct GFree {
  void operator()(void* p) const { g_free(p); }
};
using GChars = std::unique_ptr<char, GFree>;

// The string of a g_malloc'd C string (released), "" for null.
inline std::string take(char* s) {
  GChars owned(s);
  return owned ? std::string(owned.get()) : std::string();
}

// g_mime_init, once per process. Every entry point of server/mail that uses GMime calls it.
inline void ensure_gmime() {
  static std::once_flag once;
  std::call_once(once, [] { g_mime_init(); });
}

// The SHA-256 of `data` as 64 lower-case hex digits.
inline std::string sha256_hex(std::string_view data) { return sha256_hex_of(data); }

// ASCII case folding, trimming and words (base/ascii.h).
using ::adj::ascii::lower;
using ::adj::ascii::trim;
using ::adj::ascii::upper;
using ::adj::ascii::words;

}  // namespace adj::mail::detail
