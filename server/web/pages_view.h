// View models for the HTML templates: pure functions from the report, roundup and
// acknowledgement data (the same JSON the text and --json forms come from) to the JSON a template
// renders. No I/O. Strings are left unescaped: the templates escape them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "rules/orders/validator.h"

namespace adj::web {

// A player's report (report.h build_report, with "roundup" when Services::report added it) as
// the model of templates/report.mustache: actions with their results, every battle with every
// round and die, attacks on the player, economy, areas, neighbours, roundup, order template.
// Tolerant of missing fields; never throws.
nlohmann::json report_view(const nlohmann::json& report);

// One battle (turn_result.h to_json(BattleLog)) as shown to `viewer`.
nlohmann::json battle_view(const nlohmann::json& battle, const std::string& viewer);

// The roundup (report.h build_roundup) as the model of the roundup section: order of play this
// and next turn (codes, with names from `players`, the state's "players" array) and every
// kingdom's totals. Null input gives null.
nlohmann::json roundup_view(const nlohmann::json& roundup, const nlohmann::json& players);

// An order acknowledgement as a table model: lines with result and reason, counts, refusal, and
// the plain text of render_ack_text (what the command line prints).
nlohmann::json ack_view(const OrderAck& ack);

// "2025-03-01 18:00 UTC".
std::string format_time(std::int64_t unix_seconds);
// `<time datetime="2025-03-01T18:00:00Z">2025-03-01 18:00 UTC</time>` (with `seconds`:
// "2025-03-01 18:00:00 UTC"): a time on a page, made of digits only, for templates to insert
// unescaped ({{{...}}}); static/time.js adds the reader's local time beside it.
std::string time_html(std::int64_t unix_seconds, bool seconds = false);
// Parses "YYYY-MM-DDTHH:MM[:SS]" or "YYYY-MM-DD HH:MM[:SS]" (UTC, as an HTML datetime-local field
// sends it) or plain Unix seconds. nullopt when malformed.
std::optional<std::int64_t> parse_time(const std::string& text);
// "YYYY-MM-DDTHH:MM" for an HTML datetime-local field's value.
std::string datetime_local(std::int64_t unix_seconds);

}  // namespace adj::web
