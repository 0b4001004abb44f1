// The built-in dataset, read once on first use (at start-up, when the
// catalog is priced), then looked up by the package's own match rules.
#include <modelgw/pricing.h>

#include <re2/re2.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace modelgw::pricing {
namespace detail {
extern const std::string_view kDataset;
}  // namespace detail

namespace {

// One node of a match rule: equals, starts_with, ends_with, contains, regex,
// or (any child), and (every child).
struct Rule {
  enum Kind { equals, starts_with, ends_with, contains, regex, any, every, never } kind = never;
  std::string text;
  std::shared_ptr<const RE2> pattern;
  std::vector<Rule> children;

  bool matches(std::string_view model) const {
    switch (kind) {
      case equals:
        return model == text;
      case starts_with:
        return model.substr(0, text.size()) == text;
      case ends_with:
        return model.size() >= text.size() && model.substr(model.size() - text.size()) == text;
      case contains:
        return model.find(text) != std::string_view::npos;
      case regex:
        return pattern && pattern->ok() && RE2::PartialMatch(model, *pattern);
      case any:
        for (const auto& c : children) {
          if (c.matches(model)) return true;
        }
        return false;
      case every:
        for (const auto& c : children) {
          if (!c.matches(model)) return false;
        }
        return !children.empty();
      case never:
        break;
    }
    return false;
  }
};

Rule rule_of(const nlohmann::json& j) {
  Rule r;
  if (!j.is_object() || j.size() != 1) return r;
  const auto& [key, value] = *j.items().begin();
  if (value.is_string()) {
    r.text = value.get<std::string>();
    if (key == "equals") r.kind = Rule::equals;
    if (key == "starts_with") r.kind = Rule::starts_with;
    if (key == "ends_with") r.kind = Rule::ends_with;
    if (key == "contains") r.kind = Rule::contains;
    if (key == "regex") {
      r.kind = Rule::regex;
      r.pattern = std::make_shared<const RE2>(r.text, RE2::Quiet);
    }
  } else if (value.is_array() && (key == "or" || key == "and")) {
    r.kind = key == "or" ? Rule::any : Rule::every;
    for (const auto& c : value) r.children.push_back(rule_of(c));
  }
  return r;
}

struct Model {
  Rule match;
  Prices prices;
};

struct Book {
  std::string version;
  std::vector<std::pair<std::string, std::vector<Model>>> vendors;
};

const Book& book() {
  static const Book b = [] {
    Book out;
    const auto doc = nlohmann::json::parse(detail::kDataset);
    out.version = doc.at("version").get<std::string>();
    for (const auto& [vendor, models] : doc.at("vendors").items()) {
      std::vector<Model> list;
      for (const auto& m : models) {
        list.push_back(Model{rule_of(m.at("match")),
                             Prices{m.at("input").get<std::int64_t>(), m.at("output").get<std::int64_t>(),
                                    m.at("cached").get<std::int64_t>()}});
      }
      out.vendors.emplace_back(vendor, std::move(list));
    }
    return out;
  }();
  return b;
}

}  // namespace

std::optional<Prices> builtin_prices(std::string_view vendor, std::string_view model) {
  for (const auto& [name, models] : book().vendors) {
    if (name != vendor) continue;
    for (const auto& m : models) {
      if (m.match.matches(model)) return m.prices;
    }
  }
  return std::nullopt;
}

std::string_view dataset_version() {
  return book().version;
}

}  // namespace modelgw::pricing
