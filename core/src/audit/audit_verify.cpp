#include "audit/audit_verify.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>

namespace modelgw::audit {
namespace {

constexpr std::int64_t kPage = 1000;

// Calls `each` on the chain's events, oldest first, page by page; stops when
// it returns false.
template <typename Each>
void walk(plugins::Storage& storage, std::int64_t tenant_id, const std::string& action, Each each) {
  plugins::AuditFilter f;
  f.tenant_id = tenant_id;
  f.action = action;
  f.ascending = true;
  f.limit = kPage;
  while (true) {
    const auto page = storage.audit_page(f);
    for (const auto& e : page) {
      if (!each(e)) return;
    }
    if (static_cast<std::int64_t>(page.size()) < kPage) return;
    f.after_seq = page.back().seq;
  }
}

// The newest head of each chain that a checkpoint (in chain 0) recorded.
std::map<std::int64_t, ChainHead> checkpointed_heads(plugins::Storage& storage) {
  std::map<std::int64_t, ChainHead> heads;
  walk(storage, 0, "audit.checkpoint", [&](const plugins::AuditRow& e) {
    const auto details = nlohmann::json::parse(e.details_json, nullptr, false);
    if (!details.is_object() || !details.contains("heads") || !details["heads"].is_array()) return true;
    for (const auto& h : details["heads"]) {
      if (!h.is_array() || h.size() != 3 || !h[0].is_number_integer() || !h[1].is_number_integer() ||
          !h[2].is_string()) {
        continue;
      }
      auto& known = heads[h[0].get<std::int64_t>()];
      if (h[1].get<std::int64_t>() >= known.seq)
        known = ChainHead{h[1].get<std::int64_t>(), h[2].get<std::string>()};
    }
    return true;
  });
  return heads;
}

ChainReport verify_chain(plugins::Storage& storage, std::int64_t tenant_id, ChainExpectations expect) {
  ChainReport report;
  report.tenant_id = tenant_id;
  ChainVerifier verifier(tenant_id, std::move(expect));
  walk(storage, tenant_id, "", [&](const plugins::AuditRow& e) {
    report.fault = verifier.feed(e);
    return !report.fault;
  });
  if (!report.fault) report.fault = verifier.finish();
  report.events = verifier.events();
  return report;
}

}  // namespace

std::vector<ChainReport> verify_chains(plugins::Storage& storage, const VerifyOptions& options) {
  const auto anchors_of = [&](std::int64_t tenant) {
    return options.anchors == nullptr ? nullptr : options.anchors->of(tenant);
  };
  std::vector<ChainReport> reports;
  // The gateway's chain holds the checkpoints: it is checked first, and a
  // checkpoint read from a chain that fails is not trusted. The process
  // log's anchors are: the store cannot rewrite them.
  ChainReport own = verify_chain(storage, 0, ChainExpectations{std::nullopt, anchors_of(0), options.key});
  const auto checkpoints = own.fault ? std::map<std::int64_t, ChainHead>{} : checkpointed_heads(storage);
  std::set<std::int64_t> tenants;
  for (const auto& head : storage.audit_heads()) tenants.insert(head.tenant_id);
  // A chain deleted whole still has its checkpoints and anchors.
  for (const auto& [tenant, head] : checkpoints) tenants.insert(tenant);
  if (options.anchors != nullptr) {
    for (const auto& [tenant, anchors] : options.anchors->chains) tenants.insert(tenant);
  }
  tenants.erase(0);
  const auto& only = options.tenant_id;
  if (!only || *only == 0) reports.push_back(std::move(own));
  for (const std::int64_t tenant : tenants) {
    if (only && *only != tenant) continue;
    auto checkpoint = checkpoints.find(tenant);
    reports.push_back(verify_chain(
        storage, tenant,
        ChainExpectations{
            checkpoint == checkpoints.end() ? std::nullopt : std::optional<ChainHead>(checkpoint->second),
            anchors_of(tenant), options.key}));
  }
  if (only && *only != 0 && !tenants.count(*only)) {
    reports.push_back(ChainReport{*only, 0, std::nullopt});  // no events, and none ever checkpointed
  }
  return reports;
}

std::vector<ChainReport> verify_chains(plugins::Storage& storage, std::optional<std::int64_t> tenant_id) {
  return verify_chains(storage, VerifyOptions{tenant_id, nullptr, nullptr});
}

}  // namespace modelgw::audit
