// Optional C++ helper: the whole C ABI surface of a PII mode plugin (entry
// symbol, descriptor, hook table, handle lifetimes, argument checks, and an
// exception fence around every hook), generated from a traits type that only
// decides. A plugin written with it is the traits and one macro:
//
//   struct MyMode {
//     static constexpr const char* kName = "mymode";
//     static constexpr const char* kVersion = "1.0.0";
//     using Options = MyOptions;  // read-only after creation; shared by every thread
//     using Scope = MyScope;      // one request: constructed as Scope(const Options&), or
//                                 // default-constructed when it has no such constructor
//     // nullopt and `problem` set when the options object is refused (name the option,
//     // never quote a value). `json` is the mode's options, "{}" when none.
//     static std::optional<Options> parse_options(std::string_view json, std::string& problem);
//     // Decides on one text whose findings were already checked (in bounds, sorted,
//     // non-overlapping, readable by the host's stride): calls out.reject or
//     // out.replace (or neither) and out.record / out.record_all.
//     static void apply(const Options&, Scope&, const mgw::pii::Text& text, mgw::pii::Decision& out);
//   };
//
//   MGW_PII_PLUGIN(MyMode)
//
// Nothing reaches the host's sink until apply() returns: the Decision collects
// it and the helper then emits the reject or replace and the records. So a
// throwing apply() leaves the sink untouched; the exception is logged by hook
// name only (an exception's text may quote a value) and the hook returns
// MGW_INTERNAL. A text or sink that breaks the contract is refused with
// MGW_INVALID_ARGUMENT before apply() runs, and logged without any value.
//
// Also here, for mode plugins that want them: tag() (the placeholder tag of a
// category), critical_reason() (a block mode's reject reason),
// PlaceholderFormat ("[{TAG}_{N}]"), and SecretString, a string whose memory
// is zeroed before it is freed, for values a scope keeps.
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/sdk.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace mgw::pii {

// ---------------------------------------------------------------------------
// A checked view of one mgw_pii_text
// ---------------------------------------------------------------------------

// What apply() sees: the text and its findings, all checked against the text.
// Borrowed: valid only during the on_pii_apply call.
class Text {
 public:
  // Checks `t` against the contract: struct_size covers the 1.0 fields, the
  // strings are readable, finding_size is at least sizeof(mgw_pii_finding) and
  // keeps every element aligned, every finding lies inside the text, has a
  // non-zero length and a readable category, and findings are sorted and do
  // not overlap. Returns nullptr when all holds, or else a short reason that
  // quotes no byte of the text.
  static const char* check(const mgw_pii_text* t) noexcept {
    if (t == nullptr) return "no text";
    if (t->struct_size < MGW_PII_TEXT_SIZE_1_0) return "the text's struct_size is below ABI 1.0's";
    if (t->text.ptr == nullptr && t->text.len != 0) return "the text is NULL with a non-zero length";
    if (t->path.ptr == nullptr && t->path.len != 0) return "the path is NULL with a non-zero length";
    if (t->finding_count == 0) return nullptr;
    if (t->findings == nullptr) return "the findings are NULL";
    if (t->finding_size < sizeof(mgw_pii_finding)) return "finding_size is smaller than mgw_pii_finding";
    if (t->finding_size % alignof(mgw_pii_finding) != 0) return "finding_size breaks the findings' alignment";
    if (reinterpret_cast<std::uintptr_t>(t->findings) % alignof(mgw_pii_finding) != 0)
      return "the findings are misaligned";
    if (t->finding_count > std::numeric_limits<std::size_t>::max() / t->finding_size)
      return "finding_count * finding_size overflows";
    const std::uint64_t size = t->text.len;
    std::uint64_t end_of_previous = 0;
    for (std::size_t i = 0; i < t->finding_count; ++i) {
      const mgw_pii_finding* f = mgw_pii_finding_at(t, i);
      if (f->category.ptr == nullptr && f->category.len != 0) return "a finding's category is NULL";
      if (f->length == 0) return "a finding is empty";
      if (f->offset > size || f->length > size - f->offset) return "a finding lies outside the text";
      if (f->offset < end_of_previous) return "findings overlap or are not sorted by offset";
      end_of_previous = f->offset + f->length;
    }
    return nullptr;
  }

  // `t` must have passed check().
  explicit Text(const mgw_pii_text& t) noexcept : t_(&t) {}

  std::string_view path() const noexcept { return view(t_->path); }
  std::string_view text() const noexcept { return view(t_->text); }
  std::size_t size() const noexcept { return t_->finding_count; }

  // The i-th finding, as the host laid it out (its stride, its element).
  const mgw_pii_finding& finding(std::size_t i) const noexcept { return *mgw_pii_finding_at(t_, i); }
  std::string_view category(std::size_t i) const noexcept { return view(finding(i).category); }
  std::size_t offset(std::size_t i) const noexcept { return static_cast<std::size_t>(finding(i).offset); }
  std::size_t length(std::size_t i) const noexcept { return static_cast<std::size_t>(finding(i).length); }
  bool critical(std::size_t i) const noexcept { return finding(i).critical != 0; }
  // The value's bytes. Never log it, never put it in a reason, never keep it
  // past the scope.
  std::string_view value(std::size_t i) const noexcept { return text().substr(offset(i), length(i)); }

  const mgw_pii_text& raw() const noexcept { return *t_; }

 private:
  const mgw_pii_text* t_;
};

// ---------------------------------------------------------------------------
// What apply() decides
// ---------------------------------------------------------------------------

// Collects one text's decision; the helper emits it once apply() returned.
// At most one of reject() and replace() may be called, once.
class Decision {
 public:
  enum class Kind { pass, reject, replace };

  explicit Decision(const Text& text) : text_(&text) {}

  // Rejects the request. `reason`: the categories that caused it,
  // comma-separated, [a-z_,] only (critical_reason() builds one). Never a value.
  void reject(std::string reason) {
    decide(Kind::reject);
    payload_ = std::move(reason);
  }
  // Sends `new_text` upstream in place of the text.
  void replace(std::string new_text) {
    decide(Kind::replace);
    payload_ = std::move(new_text);
  }
  // Records finding i (the host's own element is passed back, so a host of a
  // later minor version gets its whole element).
  void record(std::size_t i) {
    if (i >= text_->size()) throw std::out_of_range("mgw::pii::Decision::record: no such finding");
    records_.push_back(i);
  }
  void record_all() {
    records_.reserve(records_.size() + text_->size());
    for (std::size_t i = 0; i < text_->size(); ++i) records_.push_back(i);
  }

  Kind kind() const noexcept { return kind_; }
  const std::string& payload() const noexcept { return payload_; }
  const std::vector<std::size_t>& records() const noexcept { return records_; }

 private:
  void decide(Kind k) {
    if (kind_ != Kind::pass) throw std::logic_error("mgw::pii::Decision: decided twice");
    kind_ = k;
  }

  const Text* text_;
  Kind kind_ = Kind::pass;
  std::string payload_;
  std::vector<std::size_t> records_;
};

// ---------------------------------------------------------------------------
// Shared pieces for mode plugins
// ---------------------------------------------------------------------------

// The placeholder tag of a category: its name in ASCII upper case
// ("payment_card" -> "PAYMENT_CARD"); other bytes are kept as they are.
inline std::string tag(std::string_view category) {
  std::string out(category);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

// The distinct categories of the critical findings, in first-seen order,
// comma-separated ("payment_card,ssn"); empty when none is critical.
inline std::string critical_reason(const Text& text) {
  std::vector<std::string_view> seen;
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!text.critical(i)) continue;
    const std::string_view c = text.category(i);
    bool known = false;
    for (std::string_view s : seen) known = known || s == c;
    if (known) continue;
    seen.push_back(c);
    if (!out.empty()) out.push_back(',');
    out.append(c);
  }
  return out;
}

// A placeholder format: literal text with the fields {TAG} (the category's
// tag) and {N} (the value's number within the request). {N} is required, so
// distinct values never share a placeholder within a category; any other
// brace is refused (there is no escape).
class PlaceholderFormat {
 public:
  static constexpr std::string_view kDefault = "[{TAG}_{N}]";
  static constexpr std::size_t kMaxSize = 256;

  // nullopt and `problem` set when `format` is not usable.
  static std::optional<PlaceholderFormat> parse(std::string_view format, std::string& problem) {
    if (format.size() > kMaxSize) {
      problem = "is longer than " + std::to_string(kMaxSize) + " bytes";
      return std::nullopt;
    }
    std::vector<Part> parts;
    bool has_n = false;
    std::string literal;
    const auto flush = [&] {
      if (!literal.empty()) parts.push_back(Part{Field::literal, std::move(literal)});
      literal.clear();
    };
    for (std::size_t i = 0; i < format.size();) {
      const std::string_view rest = format.substr(i);
      if (rest.substr(0, 5) == "{TAG}") {
        flush();
        parts.push_back(Part{Field::tag, {}});
        i += 5;
      } else if (rest.substr(0, 3) == "{N}") {
        flush();
        parts.push_back(Part{Field::number, {}});
        has_n = true;
        i += 3;
      } else if (format[i] == '{' || format[i] == '}') {
        problem = "has a brace that is not part of {TAG} or {N}";
        return std::nullopt;
      } else {
        literal.push_back(format[i]);
        ++i;
      }
    }
    if (!has_n) {
      problem = "lacks {N}";
      return std::nullopt;
    }
    flush();
    return PlaceholderFormat(std::move(parts));
  }

  // The default, kDefault.
  PlaceholderFormat()
      : parts_{{Field::literal, "["},
               {Field::tag, {}},
               {Field::literal, "_"},
               {Field::number, {}},
               {Field::literal, "]"}} {}

  // Appends the placeholder for value number `n` of a category tagged `tag`.
  void append(std::string& out, std::string_view tag, std::uint64_t n) const {
    for (const Part& p : parts_) {
      switch (p.field) {
        case Field::literal:
          out.append(p.text);
          break;
        case Field::tag:
          out.append(tag);
          break;
        case Field::number:
          out.append(std::to_string(n));
          break;
      }
    }
  }

 private:
  enum class Field { literal, tag, number };
  struct Part {
    Field field;
    std::string text;
  };

  explicit PlaceholderFormat(std::vector<Part> parts) : parts_(std::move(parts)) {}

  std::vector<Part> parts_;
};

// An allocator that zeroes memory before giving it back, so values a scope
// kept do not linger in freed heap blocks.
template <typename T>
struct WipingAllocator {
  using value_type = T;
  WipingAllocator() noexcept = default;
  template <typename U>
  WipingAllocator(const WipingAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)

  T* allocate(std::size_t n) { return std::allocator<T>{}.allocate(n); }
  void deallocate(T* p, std::size_t n) noexcept {
    volatile unsigned char* bytes = reinterpret_cast<volatile unsigned char*>(p);
    for (std::size_t i = 0; i < n * sizeof(T); ++i) bytes[i] = 0;
    std::allocator<T>{}.deallocate(p, n);
  }

  template <typename U>
  bool operator==(const WipingAllocator<U>&) const noexcept {
    return true;
  }
  template <typename U>
  bool operator!=(const WipingAllocator<U>&) const noexcept {
    return false;
  }
};

// A string for values kept in a scope. Short strings live inside the object:
// keep SecretStrings in containers that use a WipingAllocator too (then the
// container's nodes are wiped as well), not on the stack.
using SecretString = std::basic_string<char, std::char_traits<char>, WipingAllocator<char>>;

// ---------------------------------------------------------------------------
// The C surface
// ---------------------------------------------------------------------------

template <typename Traits>
class PiiPlugin {
 public:
  // The body of the exported entry symbol (see MGW_PII_PLUGIN).
  static const mgw_plugin_descriptor* entry(const mgw_host_api* host) noexcept {
    try {
      return host_abi_supported(host, prefix()) ? &kDescriptor : nullptr;
    } catch (...) {  // out of memory building the prefix
      return nullptr;
    }
  }

 private:
  using Options = typename Traits::Options;
  using Scope = typename Traits::Scope;

  // What the opaque handles of plugin.h point at. The host never looks inside.
  struct Instance {
    Options options;
    const mgw_host_api* host = nullptr;  // valid until the plugin is unloaded
  };
  struct ScopeBox {
    const Instance* instance;
    Scope scope;
  };
  static Instance* of(mgw_pii* p) { return reinterpret_cast<Instance*>(p); }
  static ScopeBox* of(mgw_pii_scope* s) { return reinterpret_cast<ScopeBox*>(s); }

  static std::string prefix() { return std::string(Traits::kName) + " pii mode: "; }

  // Logs "<name> pii mode: <what><detail> in <hook>". Never pass a value.
  static void log_line(const mgw_host_api* host, mgw_log_level level, std::string_view hook,
                       std::string_view what, std::string_view detail = {}) noexcept {
    try {
      log(host, level, prefix() + std::string(what) + std::string(detail) + " in " + std::string(hook));
    } catch (...) {  // out of memory while logging: nothing more to do
    }
  }

  static mgw_status on_pii_new(const mgw_host_api* host, mgw_str config_json, mgw_pii** out,
                               const mgw_text_sink* error) noexcept {
    if (out == nullptr) return MGW_INVALID_ARGUMENT;
    *out = nullptr;
    if (config_json.ptr == nullptr && config_json.len != 0) {
      say(error, "the pii mode options are NULL with a non-zero length");
      return MGW_INVALID_ARGUMENT;
    }
    try {
      std::string_view json = view(config_json);
      if (json.find_first_not_of(" \t\r\n") == std::string_view::npos) json = "{}";
      std::string problem;
      std::optional<Options> options = Traits::parse_options(json, problem);
      if (!options) {
        say(error, prefix() + problem);
        return MGW_INVALID_ARGUMENT;
      }
      *out = reinterpret_cast<mgw_pii*>(new Instance{std::move(*options), host});
      return MGW_OK;
    } catch (...) {
      log_line(host, MGW_LOG_ERROR, "on_pii_new", "unexpected failure");
      say(error, "a pii mode plugin failed unexpectedly while reading its options");
      return MGW_INTERNAL;
    }
  }

  static void on_pii_destroy(mgw_pii* pii) noexcept { delete of(pii); }

  static mgw_status on_pii_scope_new(mgw_pii* pii, mgw_pii_scope** out) noexcept {
    if (out == nullptr) return MGW_INVALID_ARGUMENT;
    *out = nullptr;
    if (pii == nullptr) return MGW_INVALID_ARGUMENT;
    const Instance* instance = of(pii);
    try {
      if constexpr (std::is_constructible_v<Scope, const Options&>) {
        *out = reinterpret_cast<mgw_pii_scope*>(new ScopeBox{instance, Scope(instance->options)});
      } else {
        *out = reinterpret_cast<mgw_pii_scope*>(new ScopeBox{instance, Scope{}});
      }
      return MGW_OK;
    } catch (...) {
      log_line(instance->host, MGW_LOG_ERROR, "on_pii_scope_new", "unexpected failure");
      return MGW_INTERNAL;
    }
  }

  static void on_pii_scope_destroy(mgw_pii_scope* scope) noexcept { delete of(scope); }

  // The 1.0 sink: all three callbacks, present.
  static bool sink_usable(const mgw_pii_sink* out) noexcept {
    return out->struct_size >= MGW_PII_SINK_SIZE_1_0 && out->callback_reject != nullptr &&
           out->callback_replace != nullptr && out->callback_record != nullptr;
  }

  static mgw_status on_pii_apply(mgw_pii_scope* scope, const mgw_pii_text* text,
                                 const mgw_pii_sink* out) noexcept {
    if (scope == nullptr) return MGW_INVALID_ARGUMENT;
    ScopeBox* box = of(scope);
    const mgw_host_api* host = box->instance->host;
    if (text == nullptr || out == nullptr) {
      log_line(host, MGW_LOG_WARN, "on_pii_apply",
               text == nullptr ? "refused a NULL text" : "refused a NULL sink");
      return MGW_INVALID_ARGUMENT;
    }
    if (!sink_usable(out)) {
      log_line(host, MGW_LOG_WARN, "on_pii_apply", "refused a sink that lacks a 1.0 callback");
      return MGW_INVALID_ARGUMENT;
    }
    if (const char* problem = Text::check(text)) {
      log_line(host, MGW_LOG_WARN, "on_pii_apply", "refused a text: ", problem);
      return MGW_INVALID_ARGUMENT;
    }
    try {
      const Text checked(*text);
      Decision decision(checked);
      Traits::apply(box->instance->options, box->scope, checked, decision);
      // Emit only now: nothing went out if apply() threw.
      switch (decision.kind()) {
        case Decision::Kind::reject:
          out->callback_reject(out->host_data, str(decision.payload()));
          break;
        case Decision::Kind::replace:
          out->callback_replace(out->host_data, str(decision.payload()));
          break;
        case Decision::Kind::pass:
          break;
      }
      for (std::size_t i : decision.records()) out->callback_record(out->host_data, &checked.finding(i));
      return MGW_OK;
    } catch (...) {
      log_line(host, MGW_LOG_ERROR, "on_pii_apply", "unexpected failure");
      return MGW_INTERNAL;
    }
  }

  static constexpr mgw_pii_hooks kHooks = {
      sizeof(mgw_pii_hooks), &on_pii_new,           &on_pii_destroy,
      &on_pii_scope_new,     &on_pii_scope_destroy, &on_pii_apply,
  };

  static constexpr mgw_plugin_descriptor kDescriptor = {
      sizeof(mgw_plugin_descriptor),
      MGW_ABI_MAJOR,
      MGW_ABI_MINOR,
      MGW_KIND_PII,
      Traits::kName,
      Traits::kVersion,
      &kHooks,
  };
};

}  // namespace mgw::pii

// Exports the entry symbol for the PII mode described by `Traits` (one per
// shared object).
#define MGW_PII_PLUGIN(Traits)                                                                         \
  extern "C" __attribute__((visibility("default"))) const mgw_plugin_descriptor* modelgw_plugin_entry( \
      const mgw_host_api* host) {                                                                      \
    return ::mgw::pii::PiiPlugin<Traits>::entry(host);                                                 \
  }
