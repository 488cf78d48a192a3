// What is kept of a refused order file. Anyone can send an order file that is refused (no
// secret is needed for that) on every channel (API, web form, mail, command line), so a refused
// file must not let an anonymous client fill the disk: it is stored as a bounded excerpt and
// the SHA-256 of the whole text, and its acknowledgement with a bounded number of lines. An
// accepted file is stored whole (it is the source of truth the turn is run from).
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "rules/orders/validator.h"

namespace adj {

inline constexpr std::size_t kRefusedExcerptBytes = 2048;
inline constexpr std::size_t kRefusedAckLines = 50;

// `text` itself when it is at most kRefusedExcerptBytes long; else its first
// kRefusedExcerptBytes bytes (cut back to the last line end in them, or to a UTF-8 character
// boundary when there is none) followed by the line
// "[refused file of N bytes, SHA-256 <hex>: only the first M bytes are kept]".
std::string refused_excerpt(std::string_view text);

// `ack` with at most kRefusedAckLines lines (the refusal, counts of what is dropped are not
// kept) and no orders: what is stored with a refused file.
OrderAck bounded_refused_ack(OrderAck ack);

}  // namespace adj
