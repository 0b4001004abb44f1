// W3C Trace Context Level 1 (https://www.w3.org/TR/trace-context/): reading a
// client's `traceparent` and `tracestate`, starting a trace when there is
// none, and the `traceparent` the gateway sends upstream. An invalid header
// is never an error: the request simply starts a new trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace modelgw::trace {

// What a valid `traceparent` carries. Ids are lowercase hex, as on the wire.
struct TraceParent {
  std::string trace_id;   // 32 hex, not all zeros
  std::string parent_id;  // 16 hex, not all zeros: the caller's span
  std::uint8_t flags = 0;
};

// Parses a `traceparent` value strictly: lowercase hex only, version ff
// refused, ids not all zeros. Version 00 is exactly 55 characters; a later
// version is read per the spec's forward-compatibility rules (its first 55
// characters as version 00, followed by the end or a '-', only the sampled
// flag kept). nullopt for anything else.
std::optional<TraceParent> parse_traceparent(std::string_view value);

// "00-<trace_id>-<span_id>-<flags>".
std::string format_traceparent(std::string_view trace_id, std::string_view span_id, std::uint8_t flags);

// A `tracestate` worth forwarding: at most kMaxTracestate characters of
// visible ASCII and spaces, at most 32 comma-separated members, each empty or
// "key=value". It is opaque to the gateway otherwise.
inline constexpr std::size_t kMaxTracestate = 512;
bool forwardable_tracestate(std::string_view value);

// Random ids, never all zeros: 32 and 16 lowercase hex characters. From a
// per-thread generator seeded once from the OpenSSL CSPRNG.
std::string new_trace_id();
std::string new_span_id();

// The trace one request is served under, decided once when it arrives.
struct RequestTrace {
  std::string trace_id;    // the client's, or a new one
  std::string span_id;     // the gateway's own span: the parent-id sent upstream
  std::string parent_id;   // the client's span; empty when the trace started here
  std::uint8_t flags = 0;  // the client's, or 0 (not sampled) for a new trace
  std::string tracestate;  // forwarded unchanged; empty when absent or not forwardable

  // The `traceparent` to send upstream.
  std::string traceparent() const { return format_traceparent(trace_id, span_id, flags); }
};

// From the request's headers (`traceparent` counted: more than one is
// invalid; `tracestate` as combined from every field of that name).
RequestTrace start_request_trace(std::optional<std::string_view> traceparent, std::string_view tracestate);

}  // namespace modelgw::trace
