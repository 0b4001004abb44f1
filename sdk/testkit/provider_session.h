// One loaded provider plugin as one host sees it: the entry symbol called
// once with that host's table, then hooks called the way the gateway calls
// them, through the strict sinks, with every input lent for the call only.
// Each method also checks the rules that hold for every call of its hook
// (what the status and the handle must be, what must have been emitted).
#pragma once

#include "strict_host.h"
#include "strict_sinks.h"

#include <modelgw/plugin.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mgw::testkit {

using Headers = std::vector<std::pair<std::string, std::string>>;

// The facts of mgw_call_context.
struct CallSpec {
  std::string request_id = "req_conformance";
  std::string alias = "conformance-alias";
  std::string upstream_model = "conformance-model";
  std::int64_t created_unix = 1700000000;
  bool stream = false;
  std::int64_t default_max_tokens = 0;
  std::int64_t prompt_tokens = 0;
  // ABI 1.10: the API the call is in ("responses", ...); empty is chat, and
  // a host older than 1.10 has no such field.
  std::string operation;
  // ABI 1.11: the client's headers a native call passes on (lower-case
  // names), e.g. anthropic-beta; a host older than 1.11 passes none.
  std::vector<std::pair<std::string, std::string>> client_headers;
  // ABI 1.11: the client's request an answer is parsed for (JSON text); its
  // member index goes to on_parse_response, as the host gives it for
  // "embeddings". Empty: none.
  std::string request_json;
};

// "MGW_INVALID_ARGUMENT (2)".
std::string status_name(mgw_status status);

class Session {
 public:
  Session(mgw_plugin_entry_fn entry, HostShape shape);
  // Destroys every handle still live: every stream, then every provider.
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const mgw_plugin_descriptor* descriptor() const { return descriptor_; }
  const HostTable& host() const { return *host_; }
  const HostShape& shape() const { return shape_; }
  // The provider hooks, or nullptr (with the reason) when the descriptor
  // offers no usable 1.0 provider table.
  const mgw_provider_hooks* hooks() const { return hooks_; }
  const std::string& unusable_reason() const { return unusable_; }

  struct Created {
    mgw_status status = MGW_INTERNAL;
    mgw_provider* provider = nullptr;  // set only on MGW_OK
    std::string error_text;
  };
  // on_provider_new, then (a host of ABI 1.4 or later, a plugin with the
  // hook) on_provider_parameters, then (ABI 1.10) on_provider_operations.
  Created create(std::string_view config_json);
  void destroy(mgw_provider* provider);
  // What on_provider_parameters declared for `provider`; nullptr when the
  // plugin declares nothing (the host then admits every parameter).
  const std::vector<ParamSeen>* parameters(mgw_provider* provider) const;
  // What on_provider_operations declared for `provider` (ABI 1.10); empty
  // when the plugin has no such hook or the host is older.
  const std::vector<std::string>& operations(mgw_provider* provider) const;
  bool declares(mgw_provider* provider, std::string_view operation) const;

  struct Built {
    mgw_status status = MGW_INTERNAL;
    RequestLog request;
    ResponseLog error;
  };
  // `with_members`: give the 1.1 member index when the host would.
  Built build(mgw_provider* provider, const CallSpec& call, std::string_view body, bool with_members = true);

  struct Parsed {
    mgw_status status = MGW_INTERNAL;
    ResponseLog log;
  };
  Parsed parse(mgw_provider* provider, const CallSpec& call, int http_status, const Headers& headers,
               std::string_view body);

  struct Streamed {
    bool started = false;  // on_stream_new succeeded
    ResponseLog log;
  };
  // Feeds `pieces` (none empty) as the gateway does: stops at the first error
  // or non-OK status, else calls on_stream_end; then destroys the stream.
  Streamed stream(mgw_provider* provider, const CallSpec& call, const std::vector<std::string_view>& pieces);

 private:
  HostShape shape_;
  HostTable* host_;  // kept until exit: the plugin may use its host table until it is unloaded
  const mgw_plugin_descriptor* descriptor_ = nullptr;
  const mgw_provider_hooks* hooks_ = nullptr;
  std::string unusable_;
  std::set<mgw_provider*> providers_;
  std::map<mgw_provider*, std::vector<ParamSeen>> parameters_;
  std::map<mgw_provider*, std::vector<std::string>> operations_;
};

}  // namespace mgw::testkit
