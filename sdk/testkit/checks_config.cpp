// on_provider_new: the configured block is taken; every hostile block is
// refused with a reason, or (for a huge but valid one) taken or refused
// cleanly; never a crash, never a handle left behind on failure.
#include "checks.h"
#include "findings.h"
#include "hostile_inputs.h"
#include "text_rules.h"

#include <algorithm>

namespace mgw::testkit {
namespace {

// The block must be refused: non-OK with a reason (Session::create checks
// the reason and *out).
void expect_refused(Session& s, const std::string& config) {
  const auto created = s.create(config);
  if (created.status == MGW_OK) {
    problem("accepted; expected a refusal");
    s.destroy(created.provider);
  }
}

// The block may be taken or refused; a taken one is destroyed at once.
void either(Session& s, const std::string& config) {
  const auto created = s.create(config);
  if (created.status == MGW_OK) s.destroy(created.provider);
}

Json configured_object(const RunContext& ctx) {
  const auto j = parse_json(ctx.settings.provider_config);
  if (!j || !j->is_object()) throw std::runtime_error("the configured provider block is not a JSON object");
  return *j;
}

void accepts_configured_block(const RunContext& ctx) {
  Session s(ctx.entry, HostShape::current());
  if (s.hooks() == nullptr) {
    problem("cannot run: " + s.unusable_reason());
    return;
  }
  Step step("on_provider_new with the configured provider block");
  const auto a = s.create(ctx.settings.provider_config);
  if (a.status != MGW_OK) {
    problem("refused (" + status_name(a.status) + "): " + printable(a.error_text, 300));
    return;
  }
  if (const auto* params = s.parameters(a.provider); params != nullptr) {
    std::string mapped;
    for (const auto& p : *params) {
      if (p.handling == MGW_PARAM_MAPPED) mapped += (mapped.empty() ? "" : ", ") + p.name;
    }
    note("on_provider_parameters declared " + std::to_string(params->size()) +
         " parameters; mapped: " + mapped);
  } else {
    note("no on_provider_parameters (ABI 1.4): the host admits every parameter the catalog lists");
  }
  // Two providers from one block are two handles (the gateway may configure
  // the same plugin under two names).
  const auto b = s.create(ctx.settings.provider_config);
  if (b.status != MGW_OK) problem("a second provider from the same block was refused");
}

void hostile_blocks(const RunContext& ctx) {
  Session s(ctx.entry, HostShape::current());
  if (s.hooks() == nullptr) {
    problem("cannot run: " + s.unusable_reason());
    return;
  }
  for (const auto& h : not_a_json_object()) {
    Step step("on_provider_new with " + h.label);
    expect_refused(s, h.bytes);
  }
  const Json base = configured_object(ctx);
  {
    Step step("on_provider_new with the block plus a 1 MiB unknown member");
    Json j = base;
    j["x_conformance_padding"] = std::string(kHuge, 'p');
    either(s, j.dump());
  }
  {
    Step step("on_provider_new with the block plus an unknown member 100000 arrays deep");
    std::string text = base.dump();
    text.pop_back();
    text += std::string(base.empty() ? "" : ",") + R"("x_conformance_deep":)" + nested_arrays(100000) + "}";
    either(s, text);
  }
  {
    Step step("on_provider_new with the block and every member written twice");
    std::string text = base.dump();
    const std::string inner = text.substr(1, text.size() - 2);
    either(s, base.empty() ? text : "{" + inner + "," + inner + "}");
  }
}

// Each configured member, given a value of every other JSON type (null
// aside: for an optional member, null means "not set").
void config_wrong_types(const RunContext& ctx) {
  Session s(ctx.entry, HostShape::current());
  if (s.hooks() == nullptr) {
    problem("cannot run: " + s.unusable_reason());
    return;
  }
  const Json base = configured_object(ctx);
  const auto loose = [&](const std::string& key) {
    const auto& keys = ctx.settings.loose_config_keys;
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  };
  for (const auto& [key, value] : base.items()) {
    if (loose(key) || value.is_null()) continue;
    std::vector<std::string> allowed = {type_of(value), "null"};
    if (allowed[0] == "integer" || allowed[0] == "number") allowed = {"number", "null"};
    for (const Json& wrong : values_not_of(allowed)) {
      Step step("on_provider_new with \"" + key + "\": " + short_dump(wrong, 60));
      Json j = base;
      j[key] = wrong;
      expect_refused(s, j.dump());
    }
    if (!value.is_object()) continue;
    // One level down: each member of an object-valued member (e.g. headers).
    for (const auto& [inner, inner_value] : value.items()) {
      if (inner_value.is_null()) continue;
      std::vector<std::string> inner_allowed = {type_of(inner_value), "null"};
      if (inner_allowed[0] == "integer" || inner_allowed[0] == "number") inner_allowed = {"number", "null"};
      for (const Json& wrong : values_not_of(inner_allowed)) {
        Step step("on_provider_new with \"" + key + "\".\"" + inner + "\": " + short_dump(wrong, 60));
        Json j = base;
        j[key][inner] = wrong;
        expect_refused(s, j.dump());
      }
    }
  }
}

}  // namespace

std::vector<Check> config_checks() {
  return {
      {"config.accepted", "the configured provider block is accepted, twice", accepts_configured_block},
      {"config.hostile", "blocks that are not a JSON object are refused with a reason; huge ones never crash",
       hostile_blocks},
      {"config.wrong_types", "every configured member with a value of the wrong JSON type is refused",
       config_wrong_types},
  };
}

}  // namespace mgw::testkit
