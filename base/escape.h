// Escaping text for HTML and XML (web pages, SVG, the HTML part of mail). Pure.
#pragma once

#include <string>
#include <string_view>

namespace adj {

// & < > " ' as character references; safe in element text and in quoted attribute values.
std::string html_escape(std::string_view s);

// html_escape for XML 1.0 text (SVG): also drops the control characters XML does not allow
// (all below 0x20 but tab and newline).
std::string xml_escape(std::string_view s);

}  // namespace adj
