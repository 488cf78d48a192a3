#include "server/web/page_render.h"

#include "server/app/mail_delivery.h"

#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include <kainjow/mustache.hpp>

#include "schemas/embedded.h"

namespace adj::web {

namespace {

using Json = nlohmann::json;
using kainjow::mustache::data;
using kainjow::mustache::mustache;

data to_data(const Json& j) {
  switch (j.type()) {
    case Json::value_t::object: {
      data d{data::type::object};
      for (const auto& [k, v] : j.items()) d.set(k, to_data(v));
      return d;
    }
    case Json::value_t::array: {
      data d{data::type::list};
      for (const auto& v : j) d.push_back(to_data(v));
      return d;
    }
    case Json::value_t::string:
      return data{j.get_ref<const std::string&>()};
    case Json::value_t::boolean:
      return data{j.get<bool>()};
    case Json::value_t::number_integer:
      return data{std::to_string(j.get<std::int64_t>())};
    case Json::value_t::number_unsigned:
      return data{std::to_string(j.get<std::uint64_t>())};
    case Json::value_t::number_float:
      return data{j.dump()};
    default:
      return data{false};
  }
}

std::string template_text(const std::string& name) {
  const auto text = embedded_file("server/web/templates/" + name + ".mustache");
  if (!text) throw std::runtime_error("no template " + name);
  return std::string(*text);
}

// The template's text with every partial tag {{> _x}} replaced by templates/_x.mustache, nested
// partials too (a partial renders in the context where it appears, so inclusion is the same as
// rendering it there; expanding once at load saves parsing it on every use).
std::string expand_partials(std::string text, int depth = 0) {
  if (depth > 8) throw std::runtime_error("partials nested too deeply");
  std::size_t pos = 0;
  while ((pos = text.find("{{>", pos)) != std::string::npos) {
    const std::size_t end = text.find("}}", pos);
    if (end == std::string::npos) break;
    std::string name = text.substr(pos + 3, end - pos - 3);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    const std::string inner = expand_partials(template_text(name), depth + 1);
    text.replace(pos, end + 2 - pos, inner);
    pos += inner.size();
  }
  return text;
}

// The parsed template `name`, cached for this thread.
mustache& compiled(const std::string& name) {
  thread_local std::map<std::string, std::unique_ptr<mustache>> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return *it->second;
  auto tmpl = std::make_unique<mustache>(expand_partials(template_text(name)));
  if (!tmpl->is_valid())
    throw std::runtime_error("template " + name + ": " + tmpl->error_message());
  return *cache.emplace(name, std::move(tmpl)).first->second;
}

}  // namespace

std::string render_template(const std::string& name, const Json& model) {
  mustache& tmpl = compiled(name);
  std::string out = tmpl.render(to_data(model));
  if (!tmpl.is_valid()) throw std::runtime_error("template " + name + ": " + tmpl.error_message());
  return out;
}

std::string render_page(const std::string& title, const std::string& body_template,
                        const Json& model, const Json& nav) {
  Json page = nav.is_object() ? nav : Json::object();
  page["title"] = title;
  // The GM sees on every page when outgoing mail does not leave the machine or fails.
  if (page.value("gm", false))
    if (std::string w = mail_delivery_warning(mail_delivery().snapshot()); !w.empty())
      page["mail_notice"] = std::move(w);
  page["body"] = render_template(body_template, model);
  return render_template("layout", page);
}

std::string render_error_page(int status, const std::string& message) {
  return render_page("Error " + std::to_string(status), "error",
                     {{"status", status}, {"message", message}});
}

}  // namespace adj::web
