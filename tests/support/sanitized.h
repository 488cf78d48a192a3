// How much work a volume test does in this build. Under AddressSanitizer (the sanitizer stage of
// scripts/test.sh, unoptimised) the tests that repeat one check over thousands of cases run a
// tenth of them: the sanitizers look for memory errors and undefined behaviour, which the first
// tenth of the cases reach as well; the GCC stage runs every case.
#pragma once

namespace adj::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

// `full`, or a tenth of it (at least 1) in a sanitizer build.
constexpr int sanitized_count(int full) { return kSanitized ? (full >= 10 ? full / 10 : 1) : full; }

}  // namespace adj::testing
