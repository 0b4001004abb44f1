// A small, conforming provider for an imaginary "echo" vendor, and the same
// provider broken in one chosen way: the conformance runner's own tests run
// it clean (every check must pass) and with each fault (the check that names
// the fault must fail). ECHO_PROVIDER_FAULT in the environment picks the
// fault; unset means none.
//
// The vendor: POST /echo with {"model", "messages"}; it answers
// {"text", "in", "out"} (token counts), or streams "data: {"text": ...}"
// events, then "data: {"in": N, "out": M}" and "data: [END]". It also embeds
// (ABI 1.11, operation "embeddings", floats only): POST /echo/embeddings with
// {"model", "input"}, answered {"vectors": [[...], ...], "tokens": N}.
#include <modelgw/plugin.h>
#include <modelgw/provider/embeddings.hpp>
#include <modelgw/provider/json_scan.hpp>
#include <modelgw/sdk.hpp>

#include <nlohmann/json.hpp>

#include <strings.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using Json = nlohmann::json;

bool fault(const char* name) {
  const char* f = std::getenv("ECHO_PROVIDER_FAULT");
  return f != nullptr && std::strcmp(f, name) == 0;
}

struct Provider {
  const mgw_host_api* host = nullptr;
  mutable std::atomic<long> calls{0};  // fault state_across_calls: what a provider must not keep
  std::string api_key;
  std::vector<std::pair<std::string, std::string>> headers;
};

struct Stream {
  const Provider* provider = nullptr;
  std::string id;
  std::string alias;
  const char* kept_alias = nullptr;  // fault keeps_call_pointer: a borrowed pointer, kept
  std::size_t kept_alias_len = 0;
  std::int64_t created = 0;
  mgw::SseDecoder sse;
  bool ended = false;
  bool failed = false;
  const mgw_response_sink* last_sink = nullptr;  // fault sink_after_return
};

std::string alias_of(const Stream& s) {
  if (s.kept_alias != nullptr) return std::string(s.kept_alias, s.kept_alias_len);
  return s.alias;
}

bool parse_json(std::string_view text, Json& out) {
  out = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  return !out.is_discarded();
}

bool valid_header_name(std::string_view n) {
  if (n.empty()) return false;
  for (char c : n) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) return false;
  }
  return true;
}

void usage_out(const mgw_response_sink* out, std::int64_t in, std::int64_t gen) {
  mgw_usage u = mgw::usage(in, gen);
  if (fault("usage_struct_size_zero")) u.struct_size = 0;
  out->callback_usage(out->host_data, &u);
}

void error_out(const mgw_response_sink* out, int status, const char* code, const std::string& message,
               bool retryable, std::int64_t retry_after_ms = -1) {
  mgw_error_info e{};
  e.struct_size = fault("error_struct_size_zero") ? 0 : sizeof e;
  e.http_status = status;
  e.code = mgw::str(code);
  e.message = mgw::str(message);
  e.retryable = retryable ? 1 : 0;
  e.retry_after_ms = retry_after_ms;
  out->callback_error(out->host_data, &e);
}

void chunk_out(const mgw_response_sink* out, const Json& chunk) {
  const std::string text = chunk.dump(-1, ' ', false, Json::error_handler_t::replace);
  out->callback_chunk(out->host_data, mgw::str(text));
}

Json chunk_envelope(const Stream& s) {
  Json c = {
      {"id", s.id}, {"object", "chat.completion.chunk"}, {"created", s.created}, {"model", alias_of(s)}};
  if (fault("request_id_in_chunk")) c["request_id"] = "req_x";
  return c;
}

mgw_status on_provider_new(const mgw_host_api* host, mgw_str config_json, mgw_provider** out,
                           const mgw_text_sink* error) noexcept {
  try {
    if (out == nullptr) return MGW_INVALID_ARGUMENT;
    if (fault("crash_on_empty_config") && config_json.len == 0) {
      volatile int* null = nullptr;
      *null = 1;
    }
    Json config;
    const char* problem = nullptr;
    if (!parse_json(mgw::view(config_json), config)) {
      problem = "provider config: not valid JSON";
    } else if (!config.is_object()) {
      problem = "provider config: must be a JSON object";
    } else if (config.contains("api_key") && !config["api_key"].is_string() && !config["api_key"].is_null()) {
      problem = "api_key: must be a string";
    } else if (config.contains("headers") && !config["headers"].is_null()) {
      if (!config["headers"].is_object()) {
        problem = "headers: must be an object of header names to string values";
      } else {
        for (const auto& [name, value] : config["headers"].items()) {
          if (!value.is_string() || !valid_header_name(name))
            problem = "headers: names are tokens, values strings";
        }
      }
    }
    if (problem != nullptr) {
      if (fault("handle_left_on_failure")) *out = reinterpret_cast<mgw_provider*>(new Provider{});
      mgw::say(error, problem);
      return MGW_INVALID_ARGUMENT;
    }
    auto p = std::make_unique<Provider>();
    p->host = host;
    if (config.contains("api_key") && config["api_key"].is_string()) p->api_key = config["api_key"];
    if (config.contains("headers") && config["headers"].is_object()) {
      for (const auto& [name, value] : config["headers"].items()) p->headers.emplace_back(name, value);
    }
    mgw::log(host, MGW_LOG_INFO,
             fault("logs_key") ? "echo provider: key " + p->api_key
                               : "echo provider: authenticates with a bearer key");
    *out = reinterpret_cast<mgw_provider*>(p.release());
    return MGW_OK;
  } catch (...) {
    mgw::say(error, "echo provider: failed unexpectedly");
    return MGW_INTERNAL;
  }
}

void on_provider_destroy(mgw_provider* provider) noexcept {
  delete reinterpret_cast<Provider*>(provider);
}

bool is_embeddings(const mgw_call_context* call) {
  return mgw::operation(*call) == MGW_OPERATION_EMBEDDINGS;
}

// {"model", "input"} to /echo/embeddings.
mgw_status build_embeddings(const Provider* p, const mgw_call_context* call, const Json& body,
                            const mgw_request_sink* out) {
  const Json vendor = {{"model", std::string(mgw::view(call->upstream_model))},
                       {"input", body.value("input", Json::array())}};
  const std::string text = vendor.dump(-1, ' ', false, Json::error_handler_t::replace);
  out->callback_path(out->host_data, mgw::str("/echo/embeddings"));
  for (const auto& [n, v] : p->headers) out->callback_header(out->host_data, mgw::str(n), mgw::str(v));
  out->callback_body(out->host_data, mgw::str(text));
  return MGW_OK;
}

// {"vectors": [...], "tokens": N} → OpenAI's list, each vector's text spliced
// as the vendor wrote it (faults reformats_floats, embeddings_drops_one).
bool parse_embeddings(const mgw_call_context* call, std::string_view body, const mgw_response_sink* out) {
  namespace scan = mgw::provider::json_scan;
  std::vector<std::string_view> vectors;
  std::int64_t tokens = 0;
  const bool ok = scan::for_each_member(body, [&](std::string_view name, std::string_view value) {
    if (name == "tokens") tokens = scan::count_value(value).value_or(0);
    if (name != "vectors") return true;
    return scan::for_each_element(value, [&](std::string_view v) {
      vectors.push_back(v);
      return scan::is_number_array(v);
    });
  });
  if (!ok || vectors.empty()) return false;
  std::vector<std::string> reformatted;
  if (fault("reformats_floats")) {
    reformatted.reserve(vectors.size());
    for (auto& v : vectors) v = reformatted.emplace_back(Json::parse(v).dump());
  }
  if (fault("embeddings_drops_one")) vectors.pop_back();
  const mgw_usage u = mgw::provider::embeddings_usage(tokens);
  out->callback_usage(out->host_data, &u);
  const std::string alias = Json(std::string(mgw::view(call->alias))).dump();
  const std::string list = mgw::provider::embeddings_list_json(vectors, alias, tokens);
  out->callback_body(out->host_data, mgw::str(list));
  return true;
}

mgw_status on_build_request(mgw_provider* provider, const mgw_call_context* call, mgw_str request_json,
                            const mgw_request_sink* out, const mgw_response_sink* error) noexcept {
  try {
    const auto* p = reinterpret_cast<const Provider*>(provider);
    if (is_embeddings(call)) {
      Json body;
      if (!parse_json(mgw::view(request_json), body) || !body.is_object()) {
        mgw::fail(error, 400, "invalid_parameter", "the request body is not an embeddings request");
        return MGW_INVALID_ARGUMENT;
      }
      return build_embeddings(p, call, body, out);
    }
    if (fault("reads_members_unchecked")) {
      // The 1.1 index, read without MGW_HAS_FIELD (volatile: the read must happen).
      const volatile std::size_t* count = &call->member_count;
      if (*count > 1000000) return MGW_INTERNAL;
    }
    Json body;
    if (!parse_json(mgw::view(request_json), body) || !body.is_object() || !body.contains("messages") ||
        !body["messages"].is_array()) {
      mgw::fail(error, 400, "invalid_parameter", "the request body is not a chat request");
      return MGW_INVALID_ARGUMENT;
    }
    if (fault("internal_on_wrong_type") && body.contains("temperature") && !body["temperature"].is_number() &&
        !body["temperature"].is_null()) {
      mgw::fail(error, 500, "internal_error", "the echo provider failed", {}, true);
      return MGW_INTERNAL;
    }
    Json vendor = {{"model", std::string(mgw::view(call->upstream_model))}, {"messages", body["messages"]}};
    if (fault("state_across_calls")) vendor["call"] = ++p->calls;
    const std::string text = vendor.dump(-1, ' ', false, Json::error_handler_t::replace);
    out->callback_path(out->host_data, mgw::str("/echo"));
    if (!p->api_key.empty()) {
      const std::string auth = "Bearer " + p->api_key;
      out->callback_header(out->host_data, mgw::str("Authorization"), mgw::str(auth));
    }
    for (const auto& [n, v] : p->headers) out->callback_header(out->host_data, mgw::str(n), mgw::str(v));
    out->callback_header(out->host_data, mgw::str("Content-Type"), mgw::str("application/json"));
    out->callback_body(out->host_data, mgw::str(text));
    return MGW_OK;
  } catch (...) {
    mgw::fail(error, 500, "internal_error", "the echo provider failed", {}, true);
    return MGW_INTERNAL;
  }
}

std::int64_t retry_after_ms(const mgw_header* headers, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::string_view name = mgw::view(headers[i].name);
    const std::string_view value = mgw::view(headers[i].value);
    if (name.size() != 11 || strncasecmp(name.data(), "retry-after", 11) != 0) continue;
    if (value.empty() || value.size() > 9 ||
        value.find_first_not_of("0123456789") != std::string_view::npos) {
      return -1;
    }
    return std::stoll(std::string(value)) * 1000;
  }
  return -1;
}

mgw_status on_parse_response(mgw_provider*, const mgw_call_context* call, int32_t http_status,
                             const mgw_header* headers, size_t header_count, mgw_str body,
                             const mgw_response_sink* out) noexcept {
  try {
    if (is_embeddings(call) && http_status >= 200 && http_status <= 299 &&
        parse_embeddings(call, mgw::view(body), out)) {
      return MGW_OK;
    }
    Json doc;
    const bool json = parse_json(mgw::view(body), doc);
    if (http_status >= 200 && http_status <= 299 && json && doc.is_object() && doc.contains("text") &&
        doc["text"].is_string() && doc.value("in", Json()).is_number_unsigned() &&
        doc.value("out", Json()).is_number_unsigned()) {
      const std::int64_t in = doc["in"];
      const std::int64_t gen = doc["out"];
      usage_out(out, in, gen);
      const Json completion = {
          {"id", "chatcmpl-" + std::string(mgw::view(call->request_id))},
          {"object", "chat.completion"},
          {"created", call->created_unix},
          {"model", std::string(mgw::view(call->alias))},
          {"choices",
           {{{"index", 0},
             {"message", {{"role", "assistant"}, {"content", doc["text"]}}},
             {"finish_reason", "stop"}}}},
          {"usage", {{"prompt_tokens", in}, {"completion_tokens", gen}, {"total_tokens", in + gen}}}};
      const std::string text = fault("body_not_object") ? std::string("[]") : completion.dump();
      out->callback_body(out->host_data, mgw::str(text));
      return MGW_OK;
    }
    if (http_status == 429) {
      error_out(out, 429, "rate_limit_exceeded", "the echo vendor is rate limiting", true,
                retry_after_ms(headers, header_count));
    } else if (http_status >= 500 && http_status <= 599) {
      error_out(out, 502, "provider_failed", "the echo vendor returned HTTP " + std::to_string(http_status),
                true, retry_after_ms(headers, header_count));
    } else if (http_status >= 400 && http_status <= 499) {
      error_out(out, 400, "invalid_parameter", "the echo vendor refused the request", false);
    } else {
      error_out(
          out, 502, "provider_failed",
          "the echo vendor answered HTTP " + std::to_string(http_status) + " with a body it never sends",
          false);
    }
    if (fault("body_after_error")) out->callback_body(out->host_data, mgw::str("{}"));
    return MGW_OK;
  } catch (...) {
    mgw::fail(out, 500, "internal_error", "the echo provider failed", {}, true);
    return MGW_INTERNAL;
  }
}

mgw_status on_stream_new(mgw_provider* provider, const mgw_call_context* call,
                         mgw_provider_stream** out) noexcept {
  try {
    auto s = std::make_unique<Stream>();
    s->provider = reinterpret_cast<const Provider*>(provider);
    s->id = "chatcmpl-" + std::string(mgw::view(call->request_id));
    s->alias = std::string(mgw::view(call->alias));
    if (fault("keeps_call_pointer")) {
      s->kept_alias = call->alias.ptr;
      s->kept_alias_len = call->alias.len;
    }
    s->created = call->created_unix;
    *out = reinterpret_cast<mgw_provider_stream*>(s.release());
    return MGW_OK;
  } catch (...) {
    return MGW_INTERNAL;
  }
}

// One event of the vendor's stream.
void on_event(Stream& s, const mgw::SseEvent& event, const mgw_response_sink* out) {
  if (s.failed || s.ended) return;
  if (event.data == "[END]") {
    s.ended = true;
    return;
  }
  Json doc;
  if (!parse_json(event.data, doc) || !doc.is_object()) {
    s.failed = true;
    error_out(out, 502, "provider_failed", "the echo vendor sent an event that is not JSON", false);
    return;
  }
  if (doc.contains("text") && doc["text"].is_string()) {
    Json c = chunk_envelope(s);
    c["choices"] = {{{"index", 0}, {"delta", {{"content", doc["text"]}}}, {"finish_reason", nullptr}}};
    chunk_out(out, c);
  } else if (doc.value("in", Json()).is_number_unsigned() && doc.value("out", Json()).is_number_unsigned()) {
    const std::int64_t in = doc["in"];
    const std::int64_t gen = doc["out"];
    Json stop = chunk_envelope(s);
    stop["choices"] = {{{"index", 0}, {"delta", Json::object()}, {"finish_reason", "stop"}}};
    chunk_out(out, stop);
    usage_out(out, in, gen);
    Json usage = chunk_envelope(s);
    usage["choices"] = Json::array();
    usage["usage"] = {{"prompt_tokens", in}, {"completion_tokens", gen}, {"total_tokens", in + gen}};
    chunk_out(out, usage);
  } else {
    s.failed = true;
    error_out(out, 502, "provider_failed", "the echo vendor sent an event it never sends", false);
  }
}

mgw_status on_stream_data(mgw_provider_stream* stream, mgw_str bytes, const mgw_response_sink* out) noexcept {
  try {
    auto& s = *reinterpret_cast<Stream*>(stream);
    if (fault("sink_after_return") && s.last_sink != nullptr) {
      chunk_out(s.last_sink, chunk_envelope(s));
    }
    s.last_sink = out;
    if (fault("split_sensitive")) s.sse = mgw::SseDecoder{};  // forgets what an earlier piece began
    s.sse.feed(mgw::view(bytes), [&](const mgw::SseEvent& e) { on_event(s, e, out); });
    if (s.sse.overflowed() && !s.failed) {
      s.failed = true;
      error_out(out, 502, "provider_failed", "the echo vendor sent an event too large", false);
    }
    return MGW_OK;
  } catch (...) {
    mgw::fail(out, 500, "internal_error", "the echo provider failed", {}, false);
    return MGW_INTERNAL;
  }
}

mgw_status on_stream_end(mgw_provider_stream* stream, const mgw_response_sink* out) noexcept {
  auto& s = *reinterpret_cast<Stream*>(stream);
  if (fault("hang")) std::this_thread::sleep_for(std::chrono::seconds(600));
  if (fault("done_chunk")) out->callback_chunk(out->host_data, mgw::str("[DONE]"));
  if (!s.ended && !s.failed) {
    error_out(out, 502, "provider_failed", "the echo vendor's stream ended before [END]", false);
  }
  return MGW_OK;
}

void on_stream_destroy(mgw_provider_stream* stream) noexcept {
  if (fault("leaks_streams")) return;  // seen by LeakSanitizer only
  delete reinterpret_cast<Stream*>(stream);
}

// ABI 1.4: the parameters this vendor takes.
mgw_status on_provider_parameters(mgw_provider*, const mgw_param_sink* out) noexcept {
  const auto declare = [&](std::int32_t handling, const char* name, const char* target, double min,
                           double max) {
    mgw_param_spec spec{};
    spec.struct_size = sizeof spec;
    spec.handling = fault("bad_parameter_handling") ? 9 : handling;
    spec.name = name;
    spec.target = target;
    spec.min = min;
    spec.max = max;
    out->callback_parameter(out->host_data, &spec);
  };
  declare(MGW_PARAM_MAPPED, "temperature", "temperature", 0, 2);
  declare(MGW_PARAM_DROPPED, "seed", "", 1, 0);
  declare(MGW_PARAM_REFUSED, "tools", "", 1, 0);
  return MGW_OK;
}

// ABI 1.10: embeddings natively (1.11); the host translates every other API to chat.
mgw_status on_provider_operations(mgw_provider*, const mgw_text_sink* out) noexcept {
  mgw::say(out, MGW_OPERATION_EMBEDDINGS);
  return MGW_OK;
}

const mgw_provider_hooks kHooks = {
    .struct_size = sizeof(mgw_provider_hooks),
    .on_provider_new = &on_provider_new,
    .on_provider_destroy = &on_provider_destroy,
    .on_build_request = &on_build_request,
    .on_parse_response = &on_parse_response,
    .on_stream_new = &on_stream_new,
    .on_stream_data = &on_stream_data,
    .on_stream_end = &on_stream_end,
    .on_stream_destroy = &on_stream_destroy,
    .on_provider_parameters = &on_provider_parameters,
    .on_provider_operations = &on_provider_operations,
};

const mgw_plugin_descriptor kDescriptor = {
    sizeof(mgw_plugin_descriptor), MGW_ABI_MAJOR, MGW_ABI_MINOR, MGW_KIND_PROVIDER, "echo", "1.0.0", &kHooks,
};

mgw_plugin_descriptor claiming_descriptor(std::uint16_t major) {
  mgw_plugin_descriptor d = kDescriptor;
  d.abi_major = major;
  return d;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const mgw_plugin_descriptor* modelgw_plugin_entry(
    const mgw_host_api* host) {
  if (host == nullptr) return nullptr;
  if (host->abi_major != MGW_ABI_MAJOR) {
    if (fault("claims_other_major")) {
      static mgw_plugin_descriptor claimed;
      claimed = claiming_descriptor(host->abi_major);
      return &claimed;
    }
    return nullptr;
  }
  return &kDescriptor;
}
