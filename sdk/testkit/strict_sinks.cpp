#include "strict_sinks.h"

#include "abi_sizes.h"
#include "findings.h"
#include "guarded_memory.h"
#include "json_compare.h"
#include "text_rules.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

namespace mgw::testkit {

// Every slot a sink ever used, never freed: a plugin that kept a sink past
// its hook must find it closed, not freed (the ABI's host turns such a call
// into a no-op). Reachable from here, so a leak checker does not count them.
namespace {

struct SlotBase {
  virtual ~SlotBase() = default;
  std::string hook;
  std::thread::id thread = std::this_thread::get_id();
  bool open = true;
  std::unique_ptr<GuardedBlock> guarded;
  std::unique_ptr<std::uint64_t[]> plain;

  // Memory for a host struct of `size` bytes (at least `min`), zeroed.
  void* place(std::size_t size, std::size_t min, bool at_guard) {
    const std::size_t n = (std::max(size, min) + 7) / 8 * 8;
    if (at_guard) {
      guarded = std::make_unique<GuardedBlock>(n);
      return guarded->get();
    }
    plain = std::make_unique<std::uint64_t[]>(n / 8);
    std::memset(plain.get(), 0, n);
    return plain.get();
  }
};

// Sinks are made on every thread that calls a hook: one lock for the list.
void keep_slot(std::unique_ptr<SlotBase> slot) {
  static std::mutex mutex;
  static auto* slots = new std::vector<std::unique_ptr<SlotBase>>();
  std::lock_guard lock(mutex);
  slots->push_back(std::move(slot));
}

template <typename S>
S* keep(std::unique_ptr<S> slot) {
  S* raw = slot.get();
  keep_slot(std::move(slot));
  return raw;
}

// The slot behind host_data, or nullptr (and a problem) when its hook has
// returned. Also reports a callback from a thread other than the hook's.
template <typename S>
S* live(void* host_data, std::string_view callback) {
  auto* slot = static_cast<S*>(host_data);
  if (!slot->open) {
    problem(std::string(callback) + " was called after " + slot->hook +
            " returned: a sink is valid only during the hook call it was passed to");
    return nullptr;
  }
  if (std::this_thread::get_id() != slot->thread) {
    problem(std::string(callback) + " was called on another thread than the one running " + slot->hook);
  }
  return slot;
}

void check_struct_size(std::uint32_t size, std::size_t least, std::string_view type) {
  const std::string t(type);
  if (size == 0) {
    problem(t + ".struct_size is 0: set it to sizeof(" + t + ")");
  } else if (size < least) {
    problem(t + ".struct_size is " + std::to_string(size) + ", less than the " + std::to_string(least) +
            " bytes ABI 1.0 gave it");
  } else if (size > kPlausibleStructSize) {
    problem(t + ".struct_size is " + std::to_string(size) + ": not a size (left unset?)");
  }
}

bool size_usable(std::uint32_t size, std::size_t least) {
  return size >= least && size <= kPlausibleStructSize;
}

// A body or chunk: one JSON object the host can put "request_id" into.
// Returns it parsed, or nullptr when it is not one.
std::shared_ptr<const Json> check_object(std::string_view text, std::string_view what) {
  const std::string w(what);
  std::string why;
  auto j = parse_json(text, &why);
  if (!j) {
    problem(w + " is not JSON (" + why + "): " + printable(text));
    return nullptr;
  }
  if (!j->is_object()) {
    problem(w + " is not a JSON object: " + printable(text));
    return nullptr;
  }
  if (j->contains("request_id")) {
    problem(w + " has a \"request_id\" member: the host writes its own, the plugin must not");
  }
  return std::make_shared<const Json>(std::move(*j));
}

bool known_code(std::string_view code) {
  static constexpr std::array<std::string_view, 7> kCodes = {
      "invalid_parameter", "unsupported_parameter", "context_length_exceeded", "rate_limit_exceeded",
      "provider_failed",   "provider_timeout",      "internal_error"};
  return std::find(kCodes.begin(), kCodes.end(), code) != kCodes.end();
}

bool code_chars(std::string_view code) {
  return !code.empty() && std::all_of(code.begin(), code.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

ErrorSeen read_error(const mgw_error_info* e) {
  ErrorSeen out;
  check_struct_size(e->struct_size, kErrorInfoSize10, "mgw_error_info");
  if (!size_usable(e->struct_size, kErrorInfoSize10)) return out;  // fields past it are not the plugin's
  out.http_status = e->http_status;
  out.retryable = e->retryable != 0;
  out.retry_after_ms = e->retry_after_ms;
  if (str_ok(e->code, "mgw_error_info.code")) out.code = std::string(bytes(e->code));
  if (str_ok(e->message, "mgw_error_info.message")) out.message = std::string(bytes(e->message));
  if (str_ok(e->param, "mgw_error_info.param")) out.param = std::string(bytes(e->param));

  if (out.http_status < 400 || out.http_status > 599) {
    problem("callback_error with http_status " + std::to_string(out.http_status) +
            ": the status the client gets must be 4xx or 5xx");
  }
  if (!code_chars(out.code)) {
    problem("callback_error with code '" + printable(out.code) + "': a spec error code, [a-z0-9_]+");
  } else if (!known_code(out.code)) {
    note("callback_error with code '" + out.code + "', which is not one of the spec's provider codes");
  }
  if (out.message.empty()) problem("callback_error with an empty message: say what went wrong");
  if (!valid_utf8(out.message)) problem("callback_error with a message that is not UTF-8");
  if (!valid_utf8(out.param)) problem("callback_error with a param that is not UTF-8");
  check_no_secret(out.message, "callback_error's message");
  if (out.retry_after_ms < -1) {
    problem("callback_error with retry_after_ms " + std::to_string(out.retry_after_ms) +
            ": milliseconds, or -1 when the vendor gave none");
  }
  return out;
}

}  // namespace

// --- ResponseLog ---------------------------------------------------------

bool ResponseLog::failed() const {
  return count(Emitted::Kind::error) > 0;
}

std::size_t ResponseLog::count(Emitted::Kind kind) const {
  return static_cast<std::size_t>(
      std::count_if(events.begin(), events.end(), [&](const Emitted& e) { return e.kind == kind; }));
}

const ErrorSeen* ResponseLog::error() const {
  for (const auto& e : events) {
    if (e.kind == Emitted::Kind::error) return &e.error;
  }
  return nullptr;
}

// --- ResponseSink --------------------------------------------------------

struct ResponseSink::Slot : SlotBase {
  ResponseLog* log = nullptr;
  SinkUse use = SinkUse::stream;
  mgw_response_sink* sink = nullptr;

  static void on_body(void* self, mgw_str body) {
    auto* s = live<Slot>(self, "callback_body");
    if (s == nullptr || !str_ok(body, "callback_body's body")) return;
    const std::string_view text = bytes(body);
    if (s->use == SinkUse::stream) {
      problem("callback_body from a stream hook: a stream emits chunks (callback_chunk)");
    } else if (s->use == SinkUse::build_error) {
      problem("callback_body on on_build_request's error sink, which takes only callback_error");
    }
    if (s->log->failed()) problem("callback_body after callback_error: a failed response has no body");
    if (s->log->count(Emitted::Kind::body) > 0) problem("callback_body called twice for one response");
    auto json = check_object(text, "callback_body's body");
    check_no_secret(text, "callback_body's body");
    s->log->events.push_back(Emitted{Emitted::Kind::body, std::string(text), std::move(json), {}, {}});
  }

  static void on_chunk(void* self, mgw_str chunk) {
    auto* s = live<Slot>(self, "callback_chunk");
    if (s == nullptr || !str_ok(chunk, "callback_chunk's chunk")) return;
    const std::string_view text = bytes(chunk);
    if (s->use == SinkUse::parse_response) {
      problem("callback_chunk from on_parse_response: a whole response is one callback_body");
    } else if (s->use == SinkUse::build_error) {
      problem("callback_chunk on on_build_request's error sink, which takes only callback_error");
    }
    if (s->log->failed()) problem("callback_chunk after callback_error: nothing follows an error");
    std::shared_ptr<const Json> json;
    std::string_view trimmed = text;
    while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\n')) trimmed.remove_prefix(1);
    while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\n')) trimmed.remove_suffix(1);
    if (trimmed == "[DONE]" || trimmed == "data: [DONE]") {
      problem("callback_chunk with [DONE]: the host ends the stream with [DONE] itself");
    } else if (trimmed.substr(0, 5) == "data:") {
      problem("callback_chunk with SSE framing ('data:'): pass the JSON object; the host frames it");
    } else {
      json = check_object(text, "callback_chunk's chunk");
    }
    check_no_secret(text, "callback_chunk's chunk");
    s->log->events.push_back(Emitted{Emitted::Kind::chunk, std::string(text), std::move(json), {}, {}});
  }

  static void on_usage(void* self, const mgw_usage* usage) {
    auto* s = live<Slot>(self, "callback_usage");
    if (s == nullptr) return;
    if (usage == nullptr) {
      problem("callback_usage with a NULL mgw_usage");
      return;
    }
    if (s->use == SinkUse::build_error) {
      problem("callback_usage on on_build_request's error sink, which takes only callback_error");
    }
    if (s->log->failed()) problem("callback_usage after callback_error: nothing follows an error");
    if (s->use == SinkUse::parse_response && s->log->count(Emitted::Kind::body) > 0) {
      problem("callback_usage after callback_body: a response's usage comes first, then its body");
    }
    check_struct_size(usage->struct_size, kUsageSize10, "mgw_usage");
    Emitted e{Emitted::Kind::usage, {}, nullptr, {}, {}};
    if (size_usable(usage->struct_size, kUsageSize10)) {
      std::memcpy(&e.usage, usage, std::min<std::size_t>(usage->struct_size, sizeof e.usage));
      e.usage.struct_size = sizeof e.usage;
      if (e.usage.prompt_tokens < 0 || e.usage.completion_tokens < 0 || e.usage.total_tokens < 0 ||
          e.usage.cached_prompt_tokens < 0 || e.usage.cache_write_prompt_tokens < 0) {
        problem("callback_usage with a negative token count");
      }
    }
    s->log->events.push_back(e);
  }

  static void on_error(void* self, const mgw_error_info* error) {
    auto* s = live<Slot>(self, "callback_error");
    if (s == nullptr) return;
    if (error == nullptr) {
      problem("callback_error with a NULL mgw_error_info");
      return;
    }
    if (s->log->failed()) problem("callback_error called twice for one response");
    Emitted e{Emitted::Kind::error, {}, nullptr, {}, read_error(error)};
    s->log->events.push_back(e);
  }
};

ResponseSink::ResponseSink(ResponseLog& log, SinkUse use, std::string hook, const HostShape& shape) {
  auto slot = std::make_unique<Slot>();
  slot->hook = std::move(hook);
  slot->log = &log;
  slot->use = use;
  slot->sink = static_cast<mgw_response_sink*>(
      slot->place(shape.response_sink_size, sizeof(mgw_response_sink), shape.guarded));
  slot->sink->struct_size = static_cast<std::uint32_t>(shape.response_sink_size);
  slot->sink->host_data = slot.get();
  slot->sink->callback_body = &Slot::on_body;
  slot->sink->callback_chunk = &Slot::on_chunk;
  slot->sink->callback_usage = &Slot::on_usage;
  slot->sink->callback_error = &Slot::on_error;
  slot_ = keep(std::move(slot));
}

ResponseSink::~ResponseSink() {
  slot_->open = false;
  slot_->log = nullptr;
}

const mgw_response_sink* ResponseSink::get() const {
  return slot_->sink;
}

// --- RequestSink ---------------------------------------------------------

struct RequestSink::Slot : SlotBase {
  RequestLog* log = nullptr;
  mgw_request_sink* sink = nullptr;

  static void on_method(void* self, mgw_str method) {
    auto* s = live<Slot>(self, "callback_method");
    if (s == nullptr || !str_ok(method, "callback_method's method")) return;
    const std::string_view m = bytes(method);
    if (!http_token(m))
      problem("callback_method with '" + printable(m) + "', which is not an HTTP method token");
    s->log->method = std::string(m);
  }

  static void on_path(void* self, mgw_str path) {
    auto* s = live<Slot>(self, "callback_path");
    if (s == nullptr || !str_ok(path, "callback_path's path")) return;
    const std::string_view p = bytes(path);
    const bool bad_byte = std::any_of(p.begin(), p.end(), [](char c) {
      const auto u = static_cast<unsigned char>(c);
      return u <= 0x20 || u == 0x7F;
    });
    if (p.empty()) {
      problem("callback_path with an empty path");
    } else if (bad_byte) {
      problem("callback_path with '" + printable(p) +
              "': spaces, control bytes and line breaks do not belong in a path");
    } else if (p.front() != '/' && p.front() != '?') {
      problem("callback_path with '" + printable(p) +
              "': the path is appended to base_url, so it starts with '/' (or '?')");
    }
    s->log->path = std::string(p);
  }

  static void on_header(void* self, mgw_str name, mgw_str value) {
    auto* s = live<Slot>(self, "callback_header");
    if (s == nullptr || !str_ok(name, "callback_header's name") ||
        !str_ok(value, "callback_header's value")) {
      return;
    }
    const std::string_view n = bytes(name);
    const std::string_view v = bytes(value);
    if (!http_token(n))
      problem("callback_header with name '" + printable(n) + "', which is not an HTTP token");
    if (has_line_break_or_nul(v))
      problem("callback_header '" + printable(n) + "' with CR, LF or NUL in its value");
    s->log->headers.emplace_back(std::string(n), std::string(v));
  }

  static void on_body(void* self, mgw_str body) {
    auto* s = live<Slot>(self, "callback_body (request sink)");
    if (s == nullptr || !str_ok(body, "the request sink's callback_body")) return;
    s->log->body = std::string(bytes(body));
  }
};

RequestSink::RequestSink(RequestLog& log, std::string hook, const HostShape& shape) {
  auto slot = std::make_unique<Slot>();
  slot->hook = std::move(hook);
  slot->log = &log;
  slot->sink = static_cast<mgw_request_sink*>(
      slot->place(shape.request_sink_size, sizeof(mgw_request_sink), shape.guarded));
  slot->sink->struct_size = static_cast<std::uint32_t>(shape.request_sink_size);
  slot->sink->host_data = slot.get();
  slot->sink->callback_method = &Slot::on_method;
  slot->sink->callback_path = &Slot::on_path;
  slot->sink->callback_header = &Slot::on_header;
  slot->sink->callback_body = &Slot::on_body;
  slot_ = keep(std::move(slot));
}

RequestSink::~RequestSink() {
  slot_->open = false;
  slot_->log = nullptr;
}

const mgw_request_sink* RequestSink::get() const {
  return slot_->sink;
}

// --- ParamSink -----------------------------------------------------------

struct ParamSink::Slot : SlotBase {
  std::vector<ParamSeen>* params = nullptr;
  mgw_param_sink* sink = nullptr;

  // A NUL-terminated string of the declaration, read at most 256 bytes far.
  static std::optional<std::string> c_string(const char* s, std::string_view what) {
    if (s == nullptr) {
      problem(std::string(what) + " is NULL");
      return std::nullopt;
    }
    const std::size_t n = strnlen(s, 257);
    if (n > 256) {
      problem(std::string(what) + " is longer than 256 bytes (not NUL-terminated?)");
      return std::nullopt;
    }
    return std::string(s, n);
  }

  static void on_parameter(void* self, const mgw_param_spec* spec) {
    auto* s = live<Slot>(self, "callback_parameter");
    if (s == nullptr) return;
    if (spec == nullptr) {
      problem("callback_parameter with a NULL mgw_param_spec");
      return;
    }
    check_struct_size(spec->struct_size, kParamSpecSize14, "mgw_param_spec");
    if (!size_usable(spec->struct_size, kParamSpecSize14)) return;
    ParamSeen p;
    p.handling = spec->handling;
    p.min = spec->min;
    p.max = spec->max;
    const auto name = c_string(spec->name, "mgw_param_spec.name");
    const auto target = c_string(spec->target, "mgw_param_spec.target");
    if (!name || !target) return;
    p.name = *name;
    p.target = *target;
    if (p.handling != MGW_PARAM_MAPPED && p.handling != MGW_PARAM_DROPPED &&
        p.handling != MGW_PARAM_REFUSED) {
      problem("parameter '" + printable(p.name) + "' has handling " + std::to_string(p.handling) +
              ", not MGW_PARAM_MAPPED, _DROPPED or _REFUSED");
    }
    static constexpr std::string_view kGatewayOwn[] = {"model",          "messages", "stream",
                                                       "stream_options", "prompt",   "variables"};
    if (p.name.empty()) {
      problem("a parameter with an empty name");
    } else if (std::find(std::begin(kGatewayOwn), std::end(kGatewayOwn), p.name) != std::end(kGatewayOwn)) {
      problem("parameter '" + p.name + "' is a member the gateway reads itself, not a parameter");
    }
    if (std::any_of(s->params->begin(), s->params->end(),
                    [&](const ParamSeen& q) { return q.name == p.name; })) {
      problem("parameter '" + printable(p.name) + "' is declared twice");
    }
    if (p.min != p.min || p.max != p.max) problem("parameter '" + printable(p.name) + "' has a NaN bound");
    if (p.handling == MGW_PARAM_MAPPED && p.target.empty()) {
      note("parameter '" + p.name + "' is mapped but names no target");
    }
    s->params->push_back(std::move(p));
  }
};

ParamSink::ParamSink(std::vector<ParamSeen>& params, std::string hook, const HostShape& shape) {
  auto slot = std::make_unique<Slot>();
  slot->hook = std::move(hook);
  slot->params = &params;
  slot->sink = static_cast<mgw_param_sink*>(
      slot->place(sizeof(mgw_param_sink), sizeof(mgw_param_sink), shape.guarded));
  slot->sink->struct_size = sizeof(mgw_param_sink);
  slot->sink->host_data = slot.get();
  slot->sink->callback_parameter = &Slot::on_parameter;
  slot_ = keep(std::move(slot));
}

ParamSink::~ParamSink() {
  slot_->open = false;
  slot_->params = nullptr;
}

const mgw_param_sink* ParamSink::get() const {
  return slot_->sink;
}

// --- TextSink ------------------------------------------------------------

struct TextSink::Slot : SlotBase {
  std::string* text = nullptr;
  std::vector<std::string>* texts = nullptr;
  mgw_text_sink sink{};

  static void on_text(void* self, mgw_str text) {
    auto* s = live<Slot>(self, "callback_text");
    if (s == nullptr || !str_ok(text, "callback_text's text")) return;
    const std::string_view t = bytes(text);
    check_no_secret(t, "the error text");
    if (!valid_utf8(t)) problem("callback_text with text that is not UTF-8");
    if (s->texts != nullptr) {
      s->texts->emplace_back(t);
    } else {
      s->text->append(t);
    }
  }
};

TextSink::TextSink(std::string& text, std::string hook) {
  auto slot = std::make_unique<Slot>();
  slot->hook = std::move(hook);
  slot->text = &text;
  slot->sink.host_data = slot.get();
  slot->sink.callback_text = &Slot::on_text;
  slot_ = keep(std::move(slot));
}

TextSink::TextSink(std::vector<std::string>& texts, std::string hook) {
  auto slot = std::make_unique<Slot>();
  slot->hook = std::move(hook);
  slot->texts = &texts;
  slot->sink.host_data = slot.get();
  slot->sink.callback_text = &Slot::on_text;
  slot_ = keep(std::move(slot));
}

TextSink::~TextSink() {
  slot_->open = false;
  slot_->text = nullptr;
  slot_->texts = nullptr;
}

const mgw_text_sink* TextSink::get() const {
  return &slot_->sink;
}

}  // namespace mgw::testkit
