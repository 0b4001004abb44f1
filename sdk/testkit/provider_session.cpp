#include "provider_session.h"

#include "abi_sizes.h"
#include "findings.h"
#include "guarded_memory.h"
#include "json_compare.h"
#include "json_members.h"
#include "lent_bytes.h"
#include "text_rules.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace mgw::testkit {
namespace {

bool valid_status(mgw_status s) {
  return s >= MGW_OK && s <= MGW_INTERNAL;
}

void check_status(mgw_status s, std::string_view hook) {
  if (!valid_status(s)) {
    problem(std::string(hook) + " returned " + std::to_string(s) + ", which is not an mgw_status");
  }
}

// An mgw_call_context lent for one call, laid out as the host's ABI version
// has it; its strings and member index are lent too.
class LentCall {
 public:
  LentCall(const CallSpec& spec, const HostShape& shape, const LentBytes* body,
           const std::vector<MemberSpan>* members)
      : request_id_(spec.request_id),
        alias_(spec.alias),
        upstream_model_(spec.upstream_model),
        operation_(spec.operation) {
    mgw_call_context c{};
    c.struct_size = static_cast<std::uint32_t>(shape.call_context_size);
    c.request_id = request_id_.str();
    c.alias = alias_.str();
    c.upstream_model = upstream_model_.str();
    c.created_unix = spec.created_unix;
    c.stream = spec.stream ? 1 : 0;
    c.default_max_tokens = spec.default_max_tokens;
    c.prompt_tokens = spec.prompt_tokens;
    if (!spec.operation.empty() && MGW_HAS_FIELD(&c, mgw_call_context, operation)) {
      c.operation = operation_.str();
    }
    if (!spec.client_headers.empty() && MGW_HAS_FIELD(&c, mgw_call_context, client_header_count)) {
      for (const auto& [name, value] : spec.client_headers) {
        header_bytes_.push_back(std::make_unique<LentBytes>(name));
        const mgw_str n = header_bytes_.back()->str();
        header_bytes_.push_back(std::make_unique<LentBytes>(value));
        headers_.push_back(mgw_header{n, header_bytes_.back()->str()});
      }
      c.client_headers = headers_.data();
      c.client_header_count = headers_.size();
    }
    if (members != nullptr && body != nullptr && MGW_HAS_FIELD(&c, mgw_call_context, member_count)) {
      for (const auto& m : *members) {
        members_.push_back(mgw_json_member{mgw_str{body->data() + m.name_pos, m.name_len},
                                           mgw_str{body->data() + m.value_pos, m.value_len}});
      }
      c.members = members_.empty() ? nullptr : members_.data();
      c.member_count = members_.size();
    }
    const std::size_t size = (shape.call_context_size + 7) / 8 * 8;
    void* mem = nullptr;
    if (shape.guarded) {
      guarded_ = std::make_unique<GuardedBlock>(size);
      mem = guarded_->get();
    } else {
      plain_.assign(std::max(size, sizeof c) / 8 + 1, 0);
      mem = plain_.data();
    }
    std::memcpy(mem, &c, std::min(shape.call_context_size, sizeof c));
    ctx_ = static_cast<mgw_call_context*>(mem);
    size_ = shape.call_context_size;
  }
  ~LentCall() {
    if (!members_.empty())
      std::memset(static_cast<void*>(members_.data()), 0xA5, members_.size() * sizeof(mgw_json_member));
    if (!headers_.empty())
      std::memset(static_cast<void*>(headers_.data()), 0xA5, headers_.size() * sizeof(mgw_header));
    std::memset(static_cast<void*>(ctx_), 0xA5, size_);
  }
  LentCall(const LentCall&) = delete;
  LentCall& operator=(const LentCall&) = delete;
  const mgw_call_context* get() const { return ctx_; }

 private:
  LentBytes request_id_;
  LentBytes alias_;
  LentBytes upstream_model_;
  LentBytes operation_;
  std::vector<mgw_json_member> members_;
  std::vector<std::unique_ptr<LentBytes>> header_bytes_;
  std::vector<mgw_header> headers_;
  std::unique_ptr<GuardedBlock> guarded_;
  std::vector<std::uint64_t> plain_;
  mgw_call_context* ctx_ = nullptr;
  std::size_t size_ = 0;
};

// Host tables are never freed: the ABI keeps a host table valid until the
// plugin is unloaded, and this process unloads it only at exit. Reachable
// from here, so a leak checker does not count them.
HostTable* keep_host_table(std::unique_ptr<HostTable> table) {
  static auto* kept = new std::vector<std::unique_ptr<HostTable>>();
  kept->push_back(std::move(table));
  return kept->back().get();
}

// The member index the host would give for `body`, if any.
std::optional<std::vector<MemberSpan>> host_members(std::string_view body) {
  const auto doc = parse_json(body);
  if (!doc || !doc->is_object()) return std::nullopt;
  return index_members(body);
}

// "object" and "model" of a body or chunk the plugin emitted.
void check_envelope(const Emitted& e, std::string_view object, const CallSpec& call, std::string_view what) {
  if (!e.json) return;  // not an object: reported when it was emitted
  const Json& j = *e.json;
  const std::string w(what);
  const auto o = j.find("object");
  if (o == j.end() || *o != object) {
    problem(w + " has \"object\": " + (o == j.end() ? std::string("(none)") : short_dump(*o, 60)) +
            ", not \"" + std::string(object) + "\"");
  }
  const auto m = j.find("model");
  if (m == j.end() || *m != call.alias) {
    problem(w + " has \"model\": " + (m == j.end() ? std::string("(none)") : short_dump(*m, 80)) +
            ", not the call's alias \"" + call.alias + "\"");
  }
}

bool is_responses(const CallSpec& call) {
  return call.operation == MGW_OPERATION_RESPONSES;
}

bool is_messages(const CallSpec& call) {
  return call.operation == MGW_OPERATION_MESSAGES;
}

bool is_count_tokens(const CallSpec& call) {
  return call.operation == MGW_OPERATION_COUNT_TOKENS;
}

// A Messages body (ABI 1.11): a "message" with the alias as its "model".
void check_message_body(const Emitted& e, const CallSpec& call) {
  if (!e.json) return;  // not an object: reported when it was emitted
  const Json& j = *e.json;
  const auto type = j.find("type");
  if (type == j.end() || *type != "message") {
    problem("the Messages body has \"type\": " +
            (type == j.end() ? std::string("(none)") : short_dump(*type, 60)) + ", not \"message\"");
  }
  const auto m = j.find("model");
  if (m == j.end() || *m != call.alias) {
    problem(
        "the Messages body has \"model\": " + (m == j.end() ? std::string("(none)") : short_dump(*m, 80)) +
        ", not the call's alias \"" + call.alias + "\"");
  }
}

// A count_tokens body (ABI 1.11): {"input_tokens": N} and nothing else.
void check_count_body(const Emitted& e) {
  if (!e.json) return;
  const Json& j = *e.json;
  const auto n = j.find("input_tokens");
  if (j.size() != 1 || n == j.end() || !n->is_number_integer() || n->get<std::int64_t>() < 0) {
    problem("the count_tokens body is " + short_dump(j, 120) + ", not {\"input_tokens\": N}");
  }
}

// An event of a Messages stream (ABI 1.11): its data object, with a "type";
// an "error" event is a failure, and message_start's message has the alias.
void check_messages_event(const Emitted& e, const CallSpec& call) {
  if (!e.json) return;
  const Json& j = *e.json;
  const auto type = j.find("type");
  if (type == j.end() || !type->is_string()) {
    problem("a Messages stream event has no string \"type\": " + short_dump(j, 120));
    return;
  }
  if (*type == "error") {
    problem(
        "a Messages stream event of type \"error\" was passed as a chunk: it is a failure (callback_error)");
  }
  if (*type == "message_start") {
    const auto msg = j.find("message");
    const Json* model = nullptr;
    if (msg != j.end() && msg->is_object() && msg->contains("model")) model = &msg->at("model");
    if (model == nullptr || *model != call.alias) {
      problem("the message_start event's message has \"model\": " +
              (model == nullptr ? std::string("(none)") : short_dump(*model, 80)) +
              ", not the call's alias \"" + call.alias + "\"");
    }
  }
}

// A successful Messages stream ends with message_stop, right after the one
// callback_usage.
void check_messages_stream_end(const ResponseLog& log) {
  const Emitted* last = nullptr;
  const Emitted* before = nullptr;
  for (const auto& e : log.events) {
    before = last;
    last = &e;
  }
  const bool stop = last != nullptr && last->kind == Emitted::Kind::chunk && last->json &&
                    last->json->value("type", std::string()) == "message_stop";
  if (!stop) {
    problem(
        "the Messages stream succeeded without ending in message_stop: a body that ends before it is "
        "provider_failed");
    return;
  }
  if (before == nullptr || before->kind != Emitted::Kind::usage) {
    problem("the message_stop event was not right after callback_usage");
  }
  if (log.count(Emitted::Kind::usage) != 1) {
    problem("the Messages stream reported usage " + std::to_string(log.count(Emitted::Kind::usage)) +
            " times: once, right before message_stop");
  }
}

bool is_embeddings(const CallSpec& call) {
  return call.operation == MGW_OPERATION_EMBEDDINGS;
}

// The "object" of a whole answer's envelope in the call's operation (chat,
// responses, embeddings; a Messages body and a count have none).
std::string_view body_object(const CallSpec& call) {
  if (is_responses(call)) return "response";
  if (is_embeddings(call)) return "list";
  return "chat.completion";
}

// An event of a Responses stream (ABI 1.10): its data object, with a "type",
// and any "response" in it carries the alias as its "model".
void check_responses_event(const Emitted& e, const CallSpec& call) {
  if (!e.json) return;  // not an object: reported when it was emitted
  const Json& j = *e.json;
  const auto type = j.find("type");
  if (type == j.end() || !type->is_string()) {
    problem("a Responses stream event has no string \"type\": " + short_dump(j, 120));
    return;
  }
  if (*type == "response.failed" || *type == "error") {
    problem("a Responses stream event of type " + short_dump(*type) +
            " was passed as a chunk: it is a failure (callback_error)");
  }
  const auto r = j.find("response");
  if (r != j.end() && r->is_object()) {
    const auto m = r->find("model");
    if (m == r->end() || *m != call.alias) {
      problem("a " + type->get<std::string>() + " event's response has \"model\": " +
              (m == r->end() ? std::string("(none)") : short_dump(*m, 80)) + ", not the call's alias \"" +
              call.alias + "\"");
    }
  }
}

// A successful Responses stream ends with its terminal event
// (response.completed or response.incomplete), passed after callback_usage.
void check_responses_stream_end(const ResponseLog& log) {
  const Emitted* last = nullptr;
  const Emitted* before = nullptr;
  for (const auto& e : log.events) {
    before = last;
    last = &e;
  }
  const auto type = [](const Emitted* e) -> std::string {
    if (e == nullptr || e->kind != Emitted::Kind::chunk || !e->json) return {};
    const auto t = e->json->find("type");
    return t != e->json->end() && t->is_string() ? t->get<std::string>() : std::string();
  };
  const std::string t = type(last);
  if (t != "response.completed" && t != "response.incomplete") {
    problem(
        "the Responses stream succeeded without ending in its terminal event (response.completed or "
        "response.incomplete): a body that ends before one is provider_failed");
    return;
  }
  if (before == nullptr || before->kind != Emitted::Kind::usage) {
    problem("the terminal " + t + " event was not preceded by callback_usage");
  }
  if (log.count(Emitted::Kind::usage) != 1) {
    problem("the Responses stream reported usage " + std::to_string(log.count(Emitted::Kind::usage)) +
            " times: once, before its terminal event");
  }
}

// A successful stream reports its usage, and also sends it to the client as
// a final chunk with "choices": [] and "usage".
void check_stream_usage(const ResponseLog& log) {
  const Emitted* usage = nullptr;
  for (const auto& e : log.events) {
    if (e.kind == Emitted::Kind::usage) usage = &e;
  }
  if (usage == nullptr) {
    problem("the stream succeeded without callback_usage: report the vendor's counts (or an estimate)");
    return;
  }
  bool choice_after_usage_chunk = false;
  const Json* usage_chunk = nullptr;
  for (const auto& e : log.events) {
    if (e.kind != Emitted::Kind::chunk || !e.json) continue;
    const Json& j = *e.json;
    const auto choices = j.find("choices");
    const bool has_choices = choices != j.end() && choices->is_array() && !choices->empty();
    if (has_choices && usage_chunk != nullptr) choice_after_usage_chunk = true;
    const auto u = j.find("usage");
    if (choices != j.end() && choices->is_array() && choices->empty() && u != j.end() && u->is_object()) {
      usage_chunk = &j;
    }
  }
  if (usage_chunk != nullptr) {
    const Json* u = &usage_chunk->at("usage");
    if (choice_after_usage_chunk) problem("a chunk with choices came after the final usage chunk");
    const auto number = [&](const char* key) {
      const auto v = u->find(key);
      return v != u->end() && v->is_number_integer() ? v->get<std::int64_t>() : -1;
    };
    if (number("prompt_tokens") != usage->usage.prompt_tokens ||
        number("completion_tokens") != usage->usage.completion_tokens ||
        number("total_tokens") != usage->usage.total_tokens) {
      problem("the final usage chunk says " + short_dump(*u, 200) + " but callback_usage reported prompt " +
              std::to_string(usage->usage.prompt_tokens) + ", completion " +
              std::to_string(usage->usage.completion_tokens) + ", total " +
              std::to_string(usage->usage.total_tokens));
    }
    return;
  }
  problem("the stream reported usage but sent no final chunk with \"choices\": [] and \"usage\"");
}

}  // namespace

std::string status_name(mgw_status status) {
  static constexpr const char* kNames[] = {"MGW_OK",          "MGW_NOT_FOUND", "MGW_INVALID_ARGUMENT",
                                           "MGW_UNSUPPORTED", "MGW_CONFLICT",  "MGW_UNAVAILABLE",
                                           "MGW_INTERNAL"};
  if (valid_status(status)) return std::string(kNames[status]) + " (" + std::to_string(status) + ")";
  return "status " + std::to_string(status);
}

Session::Session(mgw_plugin_entry_fn entry, HostShape shape)
    : shape_(std::move(shape)), host_(keep_host_table(std::make_unique<HostTable>(shape_))) {
  {
    Step step("the entry symbol, called by " + shape_.label);
    descriptor_ = entry(host_->get());
  }
  const mgw_plugin_descriptor* d = descriptor_;
  if (d == nullptr) {
    unusable_ = "the entry symbol returned NULL to " + shape_.label;
  } else if (d->struct_size < kDescriptorSize10 || d->struct_size > kPlausibleStructSize) {
    unusable_ = "the descriptor's struct_size is " + std::to_string(d->struct_size);
  } else if (d->abi_major != shape_.major) {
    unusable_ = "the descriptor's abi_major is " + std::to_string(d->abi_major) + ", the host's " +
                std::to_string(shape_.major);
  } else if (d->kind != MGW_KIND_PROVIDER) {
    unusable_ = "the descriptor's kind is " + std::to_string(d->kind) + ", not MGW_KIND_PROVIDER";
  } else if (d->hooks == nullptr) {
    unusable_ = "the descriptor has no hook table";
  } else {
    const auto* h = static_cast<const mgw_provider_hooks*>(d->hooks);
    if (h->struct_size < kProviderHooksSize10 || h->struct_size > kPlausibleStructSize) {
      unusable_ = "the hook table's struct_size is " + std::to_string(h->struct_size);
    } else if (!h->on_provider_new || !h->on_provider_destroy || !h->on_build_request ||
               !h->on_parse_response || !h->on_stream_new || !h->on_stream_data || !h->on_stream_end ||
               !h->on_stream_destroy) {
      unusable_ = "the hook table leaves a 1.0 hook NULL";
    } else {
      hooks_ = h;
    }
  }
}

Session::~Session() {
  if (hooks_ == nullptr) return;
  for (mgw_provider* p : providers_) {
    Step step("on_provider_destroy");
    hooks_->on_provider_destroy(p);
  }
}

Session::Created Session::create(std::string_view config_json) {
  Created out;
  LentBytes config(config_json);
  mgw_provider* handle = nullptr;  // the host sets *out to NULL before the call
  {
    TextSink error(out.error_text, "on_provider_new");
    out.status = hooks_->on_provider_new(host_->get(), config.str(), &handle, error.get());
  }
  check_status(out.status, "on_provider_new");
  if (out.status != MGW_OK) {
    if (handle != nullptr) {
      // The host passes such a handle to on_provider_destroy at once.
      problem("on_provider_new failed but left a handle in *out: leave it NULL on failure");
      Step step("on_provider_destroy of the handle left by a failed on_provider_new");
      hooks_->on_provider_destroy(handle);
    }
    if (out.error_text.empty()) problem("on_provider_new failed without saying why through the error sink");
    return out;
  }
  if (handle == nullptr) {
    problem("on_provider_new returned MGW_OK with *out NULL: the host takes that as a failure");
    out.status = MGW_INTERNAL;
    return out;
  }
  if (providers_.count(handle) > 0) {
    problem("on_provider_new returned a handle that is already live");
    out.status = MGW_INTERNAL;
    return out;
  }
  providers_.insert(handle);
  out.provider = handle;
  if (shape_.minor >= 4 && hooks_->struct_size >= kProviderHooksSize14 &&
      hooks_->on_provider_parameters != nullptr) {
    Step step("on_provider_parameters");
    std::vector<ParamSeen> params;
    mgw_status st = MGW_INTERNAL;
    {
      ParamSink sink(params, "on_provider_parameters", shape_);
      st = hooks_->on_provider_parameters(handle, sink.get());
    }
    check_status(st, "on_provider_parameters");
    if (st != MGW_OK)
      problem("on_provider_parameters failed (" + status_name(st) + "): the gateway would not start");
    parameters_[handle] = std::move(params);
  }
  if (shape_.minor >= 10 && hooks_->struct_size >= kProviderHooksSize110 &&
      hooks_->on_provider_operations != nullptr) {
    Step step("on_provider_operations");
    std::vector<std::string> ops;
    mgw_status st = MGW_INTERNAL;
    {
      TextSink sink(ops, "on_provider_operations");
      st = hooks_->on_provider_operations(handle, sink.get());
    }
    check_status(st, "on_provider_operations");
    if (st != MGW_OK)
      problem("on_provider_operations failed (" + status_name(st) + "): the gateway would not start");
    for (const auto& op : ops) {
      if (op.empty()) problem("on_provider_operations declared an empty operation name");
      if (std::count(ops.begin(), ops.end(), op) > 1)
        problem("on_provider_operations declared \"" + printable(op, 40) + "\" more than once");
    }
    operations_[handle] = std::move(ops);
  }
  return out;
}

const std::vector<ParamSeen>* Session::parameters(mgw_provider* provider) const {
  const auto it = parameters_.find(provider);
  return it == parameters_.end() ? nullptr : &it->second;
}

const std::vector<std::string>& Session::operations(mgw_provider* provider) const {
  static const std::vector<std::string> kNone;
  const auto it = operations_.find(provider);
  return it == operations_.end() ? kNone : it->second;
}

bool Session::declares(mgw_provider* provider, std::string_view operation) const {
  const auto& ops = operations(provider);
  return std::find(ops.begin(), ops.end(), operation) != ops.end();
}

void Session::destroy(mgw_provider* provider) {
  if (providers_.erase(provider) == 0) return;
  parameters_.erase(provider);
  operations_.erase(provider);
  Step step("on_provider_destroy");
  hooks_->on_provider_destroy(provider);
}

Session::Built Session::build(mgw_provider* provider, const CallSpec& call, std::string_view body,
                              bool with_members) {
  Built out;
  const LentBytes lent_body(body);
  const auto members = with_members ? host_members(body) : std::nullopt;
  {
    const LentCall ctx(call, shape_, &lent_body, members ? &*members : nullptr);
    RequestSink request(out.request, "on_build_request", shape_);
    ResponseSink error(out.error, SinkUse::build_error, "on_build_request", shape_);
    out.status = hooks_->on_build_request(provider, ctx.get(), lent_body.str(), request.get(), error.get());
  }
  check_status(out.status, "on_build_request");
  if (out.status == MGW_OK) {
    if (out.error.failed()) problem("on_build_request returned MGW_OK after calling callback_error");
    if (!out.request.path) problem("on_build_request returned MGW_OK without calling callback_path");
  } else if (!out.error.failed()) {
    problem("on_build_request returned " + status_name(out.status) +
            " without callback_error: a refusal is reported through the error sink");
  }
  return out;
}

Session::Parsed Session::parse(mgw_provider* provider, const CallSpec& call, int http_status,
                               const Headers& headers, std::string_view body) {
  Parsed out;
  const LentBytes lent_body(body);
  std::vector<std::unique_ptr<LentBytes>> lent_headers;
  std::vector<mgw_header> raw;
  for (const auto& [n, v] : headers) {
    lent_headers.push_back(std::make_unique<LentBytes>(n));
    const mgw_str name = lent_headers.back()->str();
    lent_headers.push_back(std::make_unique<LentBytes>(v));
    raw.push_back(mgw_header{name, lent_headers.back()->str()});
  }
  {
    // ABI 1.11: the request's member index, when the call names its request.
    const LentBytes lent_request(call.request_json);
    const auto request_members = call.request_json.empty() ? std::nullopt : host_members(call.request_json);
    const LentCall ctx(call, shape_, &lent_request, request_members ? &*request_members : nullptr);
    ResponseSink sink(out.log, SinkUse::parse_response, "on_parse_response", shape_);
    out.status =
        hooks_->on_parse_response(provider, ctx.get(), http_status, raw.empty() ? nullptr : raw.data(),
                                  raw.size(), lent_body.str(), sink.get());
  }
  if (!raw.empty()) std::memset(static_cast<void*>(raw.data()), 0xA5, raw.size() * sizeof(mgw_header));
  check_status(out.status, "on_parse_response");
  const bool has_body = out.log.count(Emitted::Kind::body) > 0;
  if (out.status != MGW_OK && !out.log.failed()) {
    problem("on_parse_response returned " + status_name(out.status) + " without callback_error");
  } else if (!has_body && !out.log.failed()) {
    problem("on_parse_response emitted neither a body nor an error");
  }
  if (has_body && !out.log.failed()) {
    if (http_status < 200 || http_status > 299) {
      problem("on_parse_response answered HTTP " + std::to_string(http_status) +
              " with a body: every status but 2xx is a failure (callback_error)");
    }
    // The rules per operation (plugin.h): chat, responses, messages and
    // embeddings report usage, then their body; a token count is never
    // billed, so it has no usage, and its body is {"input_tokens": N}.
    if (is_count_tokens(call)) {
      if (out.log.count(Emitted::Kind::usage) != 0) {
        problem("on_parse_response reported usage for count_tokens, which is never billed");
      }
    } else if (out.log.count(Emitted::Kind::usage) == 0) {
      problem("on_parse_response reported a success without callback_usage (usage, then body)");
    }
    for (const auto& e : out.log.events) {
      if (e.kind != Emitted::Kind::body) continue;
      if (is_messages(call)) {
        check_message_body(e, call);
      } else if (is_count_tokens(call)) {
        check_count_body(e);
      } else {
        check_envelope(e, body_object(call), call, "the body");
      }
    }
  }
  return out;
}

Session::Streamed Session::stream(mgw_provider* provider, const CallSpec& call,
                                  const std::vector<std::string_view>& pieces) {
  Streamed out;
  mgw_provider_stream* stream = nullptr;  // the host sets *out to NULL before the call
  mgw_status st = MGW_INTERNAL;
  {
    Step step("on_stream_new");
    const LentCall ctx(call, shape_, nullptr, nullptr);
    st = hooks_->on_stream_new(provider, ctx.get(), &stream);
  }
  check_status(st, "on_stream_new");
  if (st != MGW_OK) {
    problem("on_stream_new failed (" + status_name(st) + ") for a valid call");
    if (stream != nullptr) {
      problem("on_stream_new failed but left a handle in *out: leave it NULL on failure");
      Step step("on_stream_destroy of the handle left by a failed on_stream_new");
      hooks_->on_stream_destroy(stream);
    }
    return out;
  }
  if (stream == nullptr) {
    problem("on_stream_new returned MGW_OK with *out NULL: the host takes that as a failure");
    return out;
  }
  out.started = true;
  bool stopped = false;
  for (std::size_t i = 0; i < pieces.size() && !stopped; ++i) {
    const LentBytes piece(pieces[i]);
    {
      ResponseSink sink(out.log, SinkUse::stream, "on_stream_data", shape_);
      st = hooks_->on_stream_data(stream, piece.str(), sink.get());
    }
    check_status(st, "on_stream_data");
    if (st != MGW_OK && !out.log.failed()) {
      problem("on_stream_data returned " + status_name(st) + " without callback_error");
    }
    stopped = st != MGW_OK || out.log.failed();  // the gateway stops reading there
  }
  if (!stopped) {
    {
      ResponseSink sink(out.log, SinkUse::stream, "on_stream_end", shape_);
      st = hooks_->on_stream_end(stream, sink.get());
    }
    check_status(st, "on_stream_end");
    if (st != MGW_OK && !out.log.failed()) {
      problem("on_stream_end returned " + status_name(st) + " without callback_error");
    }
  }
  {
    Step step("on_stream_destroy");
    hooks_->on_stream_destroy(stream);
  }
  if (is_messages(call)) {
    for (const auto& e : out.log.events) {
      if (e.kind == Emitted::Kind::chunk) check_messages_event(e, call);
    }
    if (!out.log.failed()) check_messages_stream_end(out.log);
    return out;
  }
  if (is_responses(call)) {
    for (const auto& e : out.log.events) {
      if (e.kind == Emitted::Kind::chunk) check_responses_event(e, call);
    }
    if (!out.log.failed()) check_responses_stream_end(out.log);
    return out;
  }
  for (const auto& e : out.log.events) {
    if (e.kind == Emitted::Kind::chunk) check_envelope(e, "chat.completion.chunk", call, "a chunk");
  }
  if (!out.log.failed()) check_stream_usage(out.log);
  return out;
}

}  // namespace mgw::testkit
