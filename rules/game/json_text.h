// JSON text written directly, byte for byte as nlohmann::json's compact dump() (no indent,
// ensure_ascii off) writes the tree of the same value: keys in the tree's sorted order, integers in
// decimal, strings escaped the same way, invalid UTF-8 handled by the same error handler. For the
// hot paths of a big turn (the next state, battle inputs and logs, actions), where building the
// tree first costs most of the time and memory. The state's forms are written from the same
// descriptions as to_json's trees (rules/game/state_fields.h, rules/game/json_form.h), so a member
// is added in one place.
//
// Every function appends to `out`; none keeps a reference to it. Pure and thread-safe on distinct
// outputs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rules/game/state.h"

namespace adj::json_text {

using ErrorHandler = Json::error_handler_t;

// A JSON string. With ErrorHandler::strict, invalid UTF-8 throws Json::type_error as dump() does.
void str(std::string& out, std::string_view s, ErrorHandler on_bad_utf8 = ErrorHandler::strict);
// A string, or null when absent.
void opt_str(std::string& out, const std::optional<std::string>& s,
             ErrorHandler on_bad_utf8 = ErrorHandler::strict);
void integer(std::string& out, std::int64_t v);
void unsigned_integer(std::string& out, std::uint64_t v);
inline void boolean(std::string& out, bool b) { out += b ? "true" : "false"; }
// Any value (through nlohmann's serialiser, straight into `out`).
void value(std::string& out, const Json& j, ErrorHandler on_bad_utf8 = ErrorHandler::strict);

// The game-state forms of rules/game/state.h: the same bytes as to_json(x).dump(-1, ' ', false,
// on_bad_utf8). `public_player` leaves out "email" and "secret" (battle worlds).
void player(std::string& out, const Player& p, bool public_player,
            ErrorHandler on_bad_utf8 = ErrorHandler::strict);
void area(std::string& out, const Area& a, ErrorHandler on_bad_utf8 = ErrorHandler::strict);
void edge(std::string& out, const Edge& e, ErrorHandler on_bad_utf8 = ErrorHandler::strict);
// The same bytes as engine_json(spec).dump().
void engine(std::string& out, const EngineSpec& spec,
            ErrorHandler on_bad_utf8 = ErrorHandler::strict);
// to_json(s).dump(-1, ' ', false, on_bad_utf8).
void state(std::string& out, const GameState& s, ErrorHandler on_bad_utf8 = ErrorHandler::strict);

}  // namespace adj::json_text
