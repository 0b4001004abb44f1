// The handshake: the entry symbol and descriptor as the loader checks them,
// and the same plugin under hosts of other ABI versions.
#include "abi_sizes.h"
#include "checks.h"
#include "findings.h"
#include "text_rules.h"

#include <cstring>

namespace mgw::testkit {
namespace {

// A descriptor string: NUL-terminated, non-empty, printable, short.
void check_name(const char* s, const char* field) {
  if (s == nullptr) {
    problem(std::string("the descriptor's ") + field + " is NULL");
    return;
  }
  const std::size_t n = strnlen(s, 257);
  const std::string_view v(s, n);
  if (n == 0) {
    problem(std::string("the descriptor's ") + field + " is empty");
  } else if (n > 256) {
    problem(std::string("the descriptor's ") + field + " is longer than 256 bytes (not NUL-terminated?)");
  } else if (printable(v, 256) != v || v.find(' ') != std::string_view::npos) {
    problem(std::string("the descriptor's ") + field + " '" + printable(v) +
            "' holds spaces or bytes outside printable ASCII");
  }
}

void descriptor(const RunContext& ctx) {
  Session s(ctx.entry, HostShape::current());
  const mgw_plugin_descriptor* d = s.descriptor();
  if (d == nullptr) {
    problem("the entry symbol returned NULL to a host of its own ABI version");
    return;
  }
  if (d->struct_size < kDescriptorSize10) {
    problem("the descriptor's struct_size is " + std::to_string(d->struct_size) + ", less than the " +
            std::to_string(kDescriptorSize10) + " bytes of ABI 1.0");
    return;  // its other fields may not be there
  }
  if (d->struct_size > kPlausibleStructSize) {
    problem("the descriptor's struct_size is " + std::to_string(d->struct_size) +
            ": not a size (left unset?)");
  }
  if (d->abi_major != MGW_ABI_MAJOR) {
    problem("the plugin was built for ABI major " + std::to_string(d->abi_major) + "; this host speaks " +
            std::to_string(MGW_ABI_MAJOR) + "." + std::to_string(MGW_ABI_MINOR) +
            ": the gateway refuses it (rebuild it against this SDK)");
  }
  note("built for ABI " + std::to_string(d->abi_major) + "." + std::to_string(d->abi_minor) + ", name '" +
       (d->name != nullptr ? printable(std::string_view(d->name, strnlen(d->name, 64))) : "") +
       "', version '" +
       (d->version != nullptr ? printable(std::string_view(d->version, strnlen(d->version, 64))) : "") + "'");
  if (d->kind != MGW_KIND_PROVIDER) {
    problem("the descriptor's kind is " + std::to_string(d->kind) +
            ", not MGW_KIND_PROVIDER (1): this runner checks provider plugins");
  }
  check_name(d->name, "name");
  check_name(d->version, "version");
  if (d->hooks == nullptr) {
    problem("the descriptor's hooks is NULL");
    return;
  }
  if (d->kind != MGW_KIND_PROVIDER) return;
  const auto* h = static_cast<const mgw_provider_hooks*>(d->hooks);
  if (h->struct_size < kProviderHooksSize10) {
    problem("the hook table's struct_size is " + std::to_string(h->struct_size) + ", less than the " +
            std::to_string(kProviderHooksSize10) + " bytes of the 1.0 provider table");
    return;
  }
  if (h->struct_size > kPlausibleStructSize) {
    problem("the hook table's struct_size is " + std::to_string(h->struct_size) +
            ": not a size (left unset?)");
  }
  const std::pair<const void*, const char*> hooks[] = {
      {reinterpret_cast<const void*>(h->on_provider_new), "on_provider_new"},
      {reinterpret_cast<const void*>(h->on_provider_destroy), "on_provider_destroy"},
      {reinterpret_cast<const void*>(h->on_build_request), "on_build_request"},
      {reinterpret_cast<const void*>(h->on_parse_response), "on_parse_response"},
      {reinterpret_cast<const void*>(h->on_stream_new), "on_stream_new"},
      {reinterpret_cast<const void*>(h->on_stream_data), "on_stream_data"},
      {reinterpret_cast<const void*>(h->on_stream_end), "on_stream_end"},
      {reinterpret_cast<const void*>(h->on_stream_destroy), "on_stream_destroy"}};
  for (const auto& [fn, name] : hooks) {
    if (fn == nullptr)
      problem(std::string("the hook table leaves ") + name + " NULL (every 1.0 hook is required)");
  }
}

// Everything the fixtures exercise, under a host of another minor version.
void exercise(const RunContext& ctx, const HostShape& shape) {
  auto ready = ready_provider(ctx, shape);
  if (!ready) return;
  Session& s = *ready->session;
  {
    Step step("on_build_request with the base request");
    const auto built = s.build(ready->provider, ctx.settings.call, base_request(ctx));
    if (built.status != MGW_OK) problem("the base request was refused (" + status_name(built.status) + ")");
  }
  for (const auto& file : fixture_files(ctx.fixtures, "requests", ".json")) {
    const RequestCase c = load_request_case(file, ctx.settings.call);
    if (!c.has_expect) continue;  // the fixture check reports it
    Step step("requests/" + c.name);
    run_request_case(s, ready->provider, c);
  }
  for (const auto& file : fixture_files(ctx.fixtures, "responses", ".json")) {
    const ResponseCase c = load_response_case(file, ctx.settings.call);
    if (!c.has_expect) continue;
    Step step("responses/" + c.name);
    run_response_case(s, ready->provider, c, false);
  }
  for (const auto& file : fixture_files(ctx.fixtures, "errors", ".json")) {
    const ResponseCase c = load_response_case(file, ctx.settings.call);
    if (!c.has_expect) continue;
    Step step("errors/" + c.name);
    run_response_case(s, ready->provider, c, true);
  }
  for (const auto& file : fixture_files(ctx.fixtures, "streams", ".sse")) {
    const StreamFixture f = load_stream_fixture(file, ctx.settings.call);
    Step step("streams/" + f.name + " (whole)");
    run_stream_whole(s, ready->provider, f);
  }
}

// A host of another major: the plugin must refuse it (NULL, or a descriptor
// with its own major, which the host refuses) and never claim that major.
void check_refuses(const mgw_plugin_descriptor* d, std::uint16_t major) {
  if (d == nullptr) return;
  if (d->abi_major == major) {
    problem("the plugin answered a host of ABI major " + std::to_string(major) +
            " with a descriptor claiming that major, but it is built for " + std::to_string(MGW_ABI_MAJOR));
  } else {
    note("the plugin returned its descriptor to a host of ABI major " + std::to_string(major) +
         " (the host refuses it); returning NULL and logging why is clearer");
  }
}

void other_major_full_table(const RunContext& ctx, std::uint16_t major) {
  HostShape shape = HostShape::current();
  shape.major = major;
  shape.minor = 0;
  shape.label = "a host of ABI major " + std::to_string(major);
  Session s(ctx.entry, shape);
  check_refuses(s.descriptor(), major);
}

void other_major_header_only(const RunContext& ctx) {
  const auto major = static_cast<std::uint16_t>(MGW_ABI_MAJOR + 1);
  HeaderOnlyHostTable host(major);
  Step step("the entry symbol, called by a host of ABI major " + std::to_string(major) +
            " whose table is only the version header (reading past it faults)");
  check_refuses(ctx.entry(host.get()), major);
}

}  // namespace

std::vector<Check> handshake_checks() {
  return {
      {"handshake.descriptor", "the descriptor and hook table a loader checks", descriptor},
      {"handshake.abi_1_0_host",
       "a 1.0 host (struct sizes of 1.0, ending at unreadable pages) gets the same answers",
       [](const RunContext& ctx) { exercise(ctx, HostShape::abi_1_0()); }},
      {"handshake.newer_minor_host", "a host of a later minor (larger structs) gets the same answers",
       [](const RunContext& ctx) { exercise(ctx, HostShape::newer_minor()); }},
      {"handshake.other_major.newer", "a host of the next ABI major is refused",
       [](const RunContext& ctx) { other_major_full_table(ctx, MGW_ABI_MAJOR + 1); }},
      {"handshake.other_major.older", "a host of the previous ABI major is refused",
       [](const RunContext& ctx) { other_major_full_table(ctx, MGW_ABI_MAJOR - 1); }},
      {"handshake.other_major.header_only",
       "a host of another major is refused reading only the table's version header", other_major_header_only},
  };
}

}  // namespace mgw::testkit
