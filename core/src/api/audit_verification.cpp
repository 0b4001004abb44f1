// GET /internal/v1/audit/verify[?tenant=NAME] (scope admin): every audit
// chain (or the gateway's own and NAME's) walked as `modelgw audit verify`
// walks it, with the gateway's audit key when it has one; the anchors in
// the process log stay the CLI's (they live outside the store). The web
// console shows the answer beside the audit log.
#include "api/router.h"

#include "audit/audit_verify.h"
#include "http/query_parameters.h"
#include "logging/request_log.h"
#include "plugins/storage_failure.h"

#include <map>

namespace modelgw::api {
namespace {

struct VerifyAnswer {
  std::optional<errors::ApiError> error;
  std::string body;
};

nlohmann::json chain_json(const audit::ChainReport& report,
                          const std::map<std::int64_t, std::string>& names) {
  const auto name = names.find(report.tenant_id);
  nlohmann::json chain = {
      {"tenant_id", report.tenant_id},
      {"tenant",
       report.tenant_id == 0 || name == names.end() ? nlohmann::json() : nlohmann::json(name->second)},
      {"events", report.events},
      {"intact", !report.fault.has_value()},
      {"fault", nullptr}};
  if (report.fault) {
    chain["fault"] = {
        {"kind", report.fault->kind}, {"seq", report.fault->seq}, {"detail", report.fault->detail}};
  }
  return chain;
}

}  // namespace

net::Task<void> Router::verify_audit(http::ServerCall& call, const auth::Principal& principal) {
  const std::string query(call.request().query());
  const auto ticket = enter_query(call, principal);
  if (call.answered()) co_return;
  auto answer = co_await net::offload(query_pool(), [&]() -> VerifyAnswer {
    VerifyAnswer out;
    std::string tenant_name;
    auto parsed = http::strict_query_parameters(query);
    if (auto* err = std::get_if<errors::ApiError>(&parsed)) {
      out.error = *err;
      return out;
    }
    for (const auto& [name, value] : std::get<http::QueryParameters>(parsed)) {
      if (name != "tenant") {
        out.error = errors::bad_request(
            "invalid_parameter",
            "unknown parameter '" + errors::input_excerpt(name) + "': the only one is 'tenant'",
            errors::input_excerpt(name));
        return out;
      }
      tenant_name = value;
    }
    try {
      if (!deps_.storage.supports_audit()) {
        out.error = errors::ApiError{501, "not_implemented", "this gateway's storage keeps no audit log", {}};
        return out;
      }
      std::map<std::int64_t, std::string> names;
      for (const auto& t : deps_.storage.list_tenants()) names[t.id] = t.name;
      audit::VerifyOptions options;
      if (!tenant_name.empty()) {
        auto tenant = deps_.storage.find_tenant(tenant_name);
        if (!tenant) {
          out.error = errors::not_found(
              "not_found", "no tenant named '" + errors::input_excerpt(tenant_name) + "'", "tenant");
          return out;
        }
        options.tenant_id = tenant->id;
      }
      options.key = deps_.audit != nullptr ? deps_.audit->key() : nullptr;
      bool intact = true;
      nlohmann::json chains = nlohmann::json::array();
      for (const auto& report : audit::verify_chains(deps_.storage, options)) {
        intact = intact && !report.fault;
        chains.push_back(chain_json(report, names));
      }
      out.body = nlohmann::json{{"object", "audit.verification"},
                                {"intact", intact},
                                {"macs_checked", options.key != nullptr},
                                {"chains", std::move(chains)}}
                     .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      return out;
    } catch (const std::exception& e) {
      logging::for_request(call.request_id()).error("audit verification failed: {}", e.what());
      out.error = plugins::storage_failure_error(e);
      return out;
    }
  });
  if (answer.error) {
    call.send_error(*answer.error);
    co_return;
  }
  call.send_object(200, answer.body);
}

}  // namespace modelgw::api
