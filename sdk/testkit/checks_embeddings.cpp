// ABI 1.11, the "embeddings" operation: a plugin that declares
// MGW_OPERATION_EMBEDDINGS (on_provider_operations) gets OpenAI embeddings
// calls with mgw_call_context.operation "embeddings". Its fixture folder's
// embeddings/ holds requests/, responses/ and errors/ laid out as the chat
// ones (never streamed), run with that operation. A response case names the
// request it answers as "call": {"request": {...}}, whose member index the
// host gives on_parse_response too. Beyond the fixture's expectation, every
// answer must be OpenAI's list as plugin.h gives it (items in input order,
// index from 0, one per input) and every float vector must be passed on as
// the vendor wrote its numbers, text for text.
#include "checks.h"
#include "expectations.h"
#include "findings.h"
#include "text_rules.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

namespace mgw::testkit {
namespace {

constexpr const char* kEmbeddingsFolder = "embeddings";

CallSpec embeddings_call(const CallSpec& base) {
  CallSpec call = base;
  call.operation = MGW_OPERATION_EMBEDDINGS;
  return call;
}

std::optional<Ready> embeddings_provider(const RunContext& ctx) {
  auto ready = ready_provider(ctx);
  if (!ready) return std::nullopt;
  if (!ready->session->declares(ready->provider, MGW_OPERATION_EMBEDDINGS)) {
    note("the configured provider does not declare \"" MGW_OPERATION_EMBEDDINGS
         "\" (on_provider_operations): its embeddings/ fixtures are not checked");
    return std::nullopt;
  }
  return ready;
}

// Every innermost array of `text` that holds only numbers, each as its number
// tokens' text, in the order they end. Strings are skipped; a text that is
// not JSON gives what was found before the fault (the parse check reports it).
std::vector<std::vector<std::string_view>> number_arrays(std::string_view text) {
  struct Open {
    std::vector<std::string_view> numbers;
    bool only_numbers = true;
  };
  std::vector<std::vector<std::string_view>> out;
  std::vector<Open> open;
  std::size_t i = 0;
  const auto not_number = [&] {
    if (!open.empty()) open.back().only_numbers = false;
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      not_number();
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      ++i;
    } else if (c == '[') {
      not_number();
      open.emplace_back();
      ++i;
    } else if (c == ']') {
      if (!open.empty()) {
        if (open.back().only_numbers && !open.back().numbers.empty()) out.push_back(open.back().numbers);
        open.pop_back();
      }
      ++i;
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      const std::size_t start = i;
      while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '-' ||
                                 text[i] == '+' || text[i] == '.' || text[i] == 'e' || text[i] == 'E')) {
        ++i;
      }
      if (!open.empty()) open.back().numbers.push_back(text.substr(start, i - start));
    } else {
      if (c == '{' || c == 't' || c == 'f' || c == 'n') not_number();
      ++i;
    }
  }
  return out;
}

bool is_padded_base64(const std::string& s) {
  if (s.size() % 4 != 0) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool pad = c == '=' && i + 2 >= s.size() && (i + 1 == s.size() || s[i + 1] == '=');
    if (!pad && !std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/') return false;
  }
  return true;
}

// The answer's shape as plugin.h gives it, for the request in `call`.
void check_list(const Emitted& body, const CallSpec& call, const std::string& vendor_body) {
  if (!body.json) return;  // not an object: reported when it was emitted
  const Json& j = *body.json;
  const auto data = j.find("data");
  if (data == j.end() || !data->is_array()) {
    problem("the list has no \"data\" array: " + short_dump(j, 200));
    return;
  }
  bool base64 = false;
  std::optional<std::size_t> inputs;
  if (const auto request = parse_json(call.request_json); request && request->is_object()) {
    base64 = request->value("encoding_format", "") == "base64";
    if (const auto in = request->find("input"); in != request->end() && in->is_array()) inputs = in->size();
  }
  if (inputs && *inputs != data->size()) {
    problem("the list has " + std::to_string(data->size()) + " items for " + std::to_string(*inputs) +
            " inputs: one per input");
  }
  for (std::size_t i = 0; i < data->size(); ++i) {
    const Json& item = (*data)[i];
    const std::string where = "data[" + std::to_string(i) + "]";
    if (!item.is_object() || item.value("object", "") != "embedding") {
      problem(where + " is not {\"object\": \"embedding\", ...}: " + short_dump(item, 120));
      continue;
    }
    if (item.value("index", Json()) != Json(i)) {
      problem(where + " has \"index\" " + short_dump(item.value("index", Json()), 40) +
              ": items come in input order, index counted from 0");
    }
    const Json embedding = item.value("embedding", Json());
    if (base64 && !(embedding.is_string() && is_padded_base64(embedding.get<std::string>()))) {
      problem(where + "'s embedding is not a padded base64 string, as encoding_format \"base64\" asks");
    } else if (!base64 &&
               !(embedding.is_array() && std::all_of(embedding.begin(), embedding.end(),
                                                     [](const Json& v) { return v.is_number(); }))) {
      problem(where + "'s embedding is not an array of numbers");
    }
  }
  const auto usage = j.find("usage");
  if (usage == j.end() || !usage->is_object() || !usage->contains("prompt_tokens") ||
      !usage->contains("total_tokens")) {
    problem("the list has no \"usage\" with \"prompt_tokens\" and \"total_tokens\"");
  }
  if (base64) return;
  // Float vectors pass the vendor's number text on unchanged (the host never
  // parses them into doubles). Compared whatever their order: the vendor's
  // may differ (OpenAI's "index"), and the expectation pins the order.
  auto sent = number_arrays(vendor_body);
  auto relayed = number_arrays(body.text);
  std::sort(sent.begin(), sent.end());
  std::sort(relayed.begin(), relayed.end());
  if (sent != relayed) {
    std::size_t k = 0;
    while (k < sent.size() && k < relayed.size() && sent[k] == relayed[k]) ++k;
    const std::string which = k < relayed.size() && !relayed[k].empty()
                                  ? "a float vector relayed (starting " + printable(relayed[k][0], 40) + ")"
                                  : std::string("a vendor's float vector");
    problem(which + " is not one of the vendor's relayed as the vendor wrote its numbers (" +
            std::to_string(sent.size()) + " vectors sent, " + std::to_string(relayed.size()) +
            " relayed): numbers are passed on as text, byte for byte");
  }
}

void embeddings_requests(const RunContext& ctx) {
  auto ready = embeddings_provider(ctx);
  if (!ready) return;
  const auto files = fixture_files(ctx.fixtures / kEmbeddingsFolder, "requests", ".json");
  if (files.empty()) note("no embeddings/requests/ fixtures");
  for (const auto& file : files) {
    const RequestCase c = load_request_case(file, embeddings_call(ctx.settings.call));
    Step step(std::string(kEmbeddingsFolder) + "/requests/" + c.name);
    run_request_case(*ready->session, ready->provider, c, ctx.write_expected);
  }
}

void embeddings_answers(const RunContext& ctx, const char* sub, bool error_case) {
  auto ready = embeddings_provider(ctx);
  if (!ready) return;
  const auto files = fixture_files(ctx.fixtures / kEmbeddingsFolder, sub, ".json");
  if (files.empty()) note(std::string("no embeddings/") + sub + "/ fixtures");
  for (const auto& file : files) {
    const ResponseCase c = load_response_case(file, embeddings_call(ctx.settings.call));
    Step step(std::string(kEmbeddingsFolder) + "/" + sub + "/" + c.name);
    run_response_case(*ready->session, ready->provider, c, error_case, ctx.write_expected);
    if (error_case) continue;
    // The shape rules, on an answer of its own (run_response_case keeps its log).
    const auto parsed = ready->session->parse(ready->provider, c.call, c.status, c.headers, c.body);
    for (const auto& e : parsed.log.events) {
      if (e.kind == Emitted::Kind::body) check_list(e, c.call, c.body);
    }
  }
}

}  // namespace

std::vector<Check> embeddings_checks(const RunContext& /*ctx*/) {
  return {
      {"embeddings.requests", "embeddings/ requests build (operation \"embeddings\") as expected",
       embeddings_requests},
      {"embeddings.responses",
       "embeddings/responses/ cases map to the expected usage and list, one item per input in order, float "
       "vectors passed on as the vendor's text",
       [](const RunContext& c) { embeddings_answers(c, "responses", false); }},
      {"embeddings.errors", "embeddings/errors/ cases map to the expected error",
       [](const RunContext& c) { embeddings_answers(c, "errors", true); }},
  };
}

}  // namespace mgw::testkit
