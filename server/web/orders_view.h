// View models for order files on the player's page and the GM's orders desk: the file line by
// line with each rejected line marked where it stands, and the file on record. Pure; strings are
// left unescaped (the templates escape them).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "rules/orders/validator.h"
#include "storage/records.h"

namespace adj::web {

// Every line of `text` in order: {n, text, accepted, rejected, reason}. A line the answer judged
// carries accepted or rejected (with the reason); header, comment and blank lines neither.
// ack's line numbers count the lines of `text` from 1.
nlohmann::json marked_lines(std::string_view text, const OrderAck& ack);

// A stored file (its raw text has the PLAYER secret masked): {received, text, accepted,
// rejected, refused, lines (marked_lines)}.
nlohmann::json on_record_view(const SubmissionRecord& file);

// The file's text for an order form to start from: the stored text without its PLAYER lines (a
// signed-in player and the GM need none; the stored one has its secret masked).
std::string editable_text(const std::string& stored_text);

}  // namespace adj::web
