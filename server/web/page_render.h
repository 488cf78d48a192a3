// HTML pages from the mustache templates compiled into the binary (server/web/templates/), with
// view models written as JSON. Escaping is the template's: {{x}} is HTML-escaped; {{{x}}} is
// used only for markup this program generated (SVG maps and charts).
// Thread-safety: every function may be called from any thread (parsed templates are cached per
// thread).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace adj::web {

// Renders server/web/templates/<name>.mustache with `model`. JSON maps to mustache data as:
// objects and arrays as such, strings as strings, numbers as their decimal text, true/false as
// booleans, null as false. A partial tag {{> _x}} includes templates/_x.mustache (expanded once
// when the template is first loaded). Throws std::runtime_error when a template is missing or does
// not parse (a programming error: the handlers catch it and answer 500).
std::string render_template(const std::string& name, const nlohmann::json& model);

// A whole page: `body_template` rendered with `model`, placed in the shared layout
// (templates/layout.mustache) with the page title and navigation. `nav` may carry "game" (id)
// and "game_name" to show the game's links, "player" when a player is signed in, and "gm": true.
std::string render_page(const std::string& title, const std::string& body_template,
                        const nlohmann::json& model,
                        const nlohmann::json& nav = nlohmann::json::object());

// A whole page for an error: status code and message (escaped), with a link home.
std::string render_error_page(int status, const std::string& message);

}  // namespace adj::web
