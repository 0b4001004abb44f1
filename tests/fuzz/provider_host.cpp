#include "provider_host.h"

#include <modelgw/sdk.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" const mgw_plugin_descriptor* modelgw_plugin_entry(const mgw_host_api* host);

namespace fuzz {
namespace {

using mgw::view;

bool holds_key(std::string_view text) {
  return text.find(kApiKey) != std::string_view::npos;
}

// A log line reaches the gateway's log: it must never carry the key.
void host_log(void*, mgw_log_level, mgw_str message) {
  if (holds_key(view(message))) finding("the plugin logged its api_key");
}

const mgw_host_api& host() {
  static const mgw_host_api api = [] {
    mgw_host_api h{};
    h.struct_size = sizeof h;
    h.abi_major = MGW_ABI_MAJOR;
    h.abi_minor = MGW_ABI_MINOR;
    h.callback_log_enabled = [](void*, mgw_log_level) -> int32_t { return 1; };
    h.callback_log = &host_log;
    // Fixed clocks: a run must not depend on when it ran.
    h.callback_now_unix_ms = [](void*) -> int64_t { return 1700000000000; };
    h.callback_monotonic_ns = [](void*) -> int64_t { return 1; };
    return h;
  }();
  return api;
}

// What the host requires of a chunk or body: one JSON object (it splices
// request_id after the '{'), valid UTF-8; a chunk also on one line (the relay
// frames it as one SSE `data:` line, which a line break would end early).
void check_object(std::string_view json, std::string_view what, bool one_line) {
  const std::size_t open = json.find_first_not_of(" \t\r\n");
  if (open == std::string_view::npos || json[open] != '{')
    finding(std::string(what) + " is not a JSON object");
  if (one_line && json.find_first_of("\r\n") != std::string_view::npos) {
    finding(std::string(what) + " holds a line break");
  }
  if (!nlohmann::json::accept(json)) finding(std::string(what) + " is not valid JSON (or not UTF-8)");
}

}  // namespace

void finding(std::string_view what) {
  std::fprintf(stderr, "FUZZ FINDING (%s provider): %.*s\n", MGW_FUZZ_PROVIDER, static_cast<int>(what.size()),
               what.data());
  std::abort();
}

void expect_ok(mgw_status status, std::string_view hook) {
  if (status == MGW_OK) return;
  finding(std::string(hook) + " returned status " + std::to_string(status) +
          (status == MGW_INTERNAL ? " (the plugin caught an exception of its own)" : ""));
}

const mgw_provider_hooks& provider_hooks() {
  static const mgw_provider_hooks* hooks = [] {
    const mgw_plugin_descriptor* d = modelgw_plugin_entry(&host());
    if (d == nullptr || d->kind != MGW_KIND_PROVIDER || d->hooks == nullptr)
      finding("no provider descriptor");
    if (std::strcmp(d->name, MGW_FUZZ_PROVIDER) != 0) finding("the descriptor names another provider");
    return static_cast<const mgw_provider_hooks*>(d->hooks);
  }();
  return *hooks;
}

mgw_provider* provider() {
  static mgw_provider* instance = [] {
#ifdef MGW_FUZZ_OPERATION
    const std::string config = std::string(R"({"api_key":")") + std::string(kApiKey) +
                               R"(","native_operations":[")" + MGW_FUZZ_OPERATION + "\"]}";
#else
    const std::string config = std::string(R"({"api_key":")") + std::string(kApiKey) + "\"}";
#endif
    std::string problem;
    mgw_text_sink error{
        &problem, [](void* self, mgw_str text) { static_cast<std::string*>(self)->append(view(text)); }};
    mgw_provider* p = nullptr;
    const mgw_status st = provider_hooks().on_provider_new(&host(), mgw::str(config), &p, &error);
    if (st != MGW_OK || p == nullptr) finding("the minimal configuration was refused: " + problem);
    return p;  // kept for the process: the fuzzer never unloads the plugin
  }();
  return instance;
}

mgw_call_context call_context(bool stream) {
  mgw_call_context c{};
  c.struct_size = sizeof c;
  c.request_id = mgw::str("req_fuzz");
  c.alias = mgw::str("fuzz-alias");
  c.upstream_model = mgw::str("fuzz-model");
  c.created_unix = 1700000000;
  c.stream = stream ? 1 : 0;
  c.default_max_tokens = 256;
  c.prompt_tokens = 12;
#ifdef MGW_FUZZ_OPERATION
  c.operation = mgw::str(MGW_FUZZ_OPERATION);  // a native operation (ABI 1.10)
#endif
  return c;
}

Transcript::Transcript() {
  sink_.struct_size = sizeof sink_;
  sink_.host_data = this;
  sink_.callback_body = &Transcript::on_body;
  sink_.callback_chunk = &Transcript::on_chunk;
  sink_.callback_usage = &Transcript::on_usage;
  sink_.callback_error = &Transcript::on_error;
}

void Transcript::after_error(std::string_view what) const {
  if (failed_) finding(std::string(what) + " after callback_error");
}

void Transcript::on_body(void* self, mgw_str json) {
  auto* t = static_cast<Transcript*>(self);
  t->after_error("callback_body");
  check_object(view(json), "a body", /*one_line=*/false);
  ++t->bodies_;
  t->lines_.push_back("body " + std::string(view(json)));
}

void Transcript::on_chunk(void* self, mgw_str json) {
  auto* t = static_cast<Transcript*>(self);
  t->after_error("callback_chunk");
  check_object(view(json), "a chunk", /*one_line=*/true);
  t->lines_.push_back("chunk " + std::string(view(json)));
}

void Transcript::on_usage(void* self, const mgw_usage* usage) {
  auto* t = static_cast<Transcript*>(self);
  if (usage == nullptr) finding("callback_usage with NULL");
  const mgw_usage u = mgw::copy_usage(usage);
  t->lines_.push_back("usage " + std::to_string(u.prompt_tokens) + " " + std::to_string(u.completion_tokens) +
                      " " + std::to_string(u.total_tokens) + " " + std::to_string(u.cached_prompt_tokens));
}

void Transcript::on_error(void* self, const mgw_error_info* info) {
  auto* t = static_cast<Transcript*>(self);
  if (info == nullptr) finding("callback_error with NULL");
  t->after_error("a second callback_error");
  if (info->http_status < 400 || info->http_status > 599) {
    finding("an error with HTTP status " + std::to_string(info->http_status));
  }
  if (view(info->code).empty()) finding("an error without a code");
  if (holds_key(view(info->message)) || holds_key(view(info->param))) {
    finding("an error quotes the api_key: message '" + std::string(view(info->message)) + "' param '" +
            std::string(view(info->param)) + "'");
  }
  t->failed_ = true;
  t->lines_.push_back("error " + std::to_string(info->http_status) + " " + std::string(view(info->code)) +
                      " " + std::string(view(info->message)) + " [" + std::string(view(info->param)) + "] " +
                      std::to_string(info->retryable) + " " + std::to_string(info->retry_after_ms));
}

}  // namespace fuzz
