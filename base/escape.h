// Escaping text for HTML and XML (web pages, SVG, the HTML part of mail) and for URLs. Pure.
#pragma once

#include <string>
#include <string_view>

namespace adj {

// & < > " ' as character references; safe in element text and in quoted attribute values.
std::string html_escape(std::string_view s);

// html_escape for XML 1.0 text (SVG): also drops the control characters XML does not allow
// (all below 0x20 but tab and newline).
std::string xml_escape(std::string_view s);

// Percent-decoding: "%XY" (two hex digits) becomes that byte; a '%' without two hex digits after
// it stays as it is. With plus_as_space, '+' becomes ' ' (queries and forms).
std::string url_decode(const std::string& s, bool plus_as_space);

// Percent-encoding of every byte but the unreserved ones (letters, digits, - _ . ~).
std::string url_encode(const std::string& s);

}  // namespace adj
