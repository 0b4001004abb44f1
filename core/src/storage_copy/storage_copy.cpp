#include "storage_copy/storage_copy.h"

#include "audit/audit_verify.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace modelgw::storage_copy {
namespace {

using plugins::Storage;

void say(const CopyOptions& options, const std::string& line) {
  if (options.progress) options.progress(line);
}

// Refuses, before anything is written, a destination that holds tenants the
// source does not: it is another deployment's database, not an empty one
// or an interrupted copy of this one.
void check_destination(const std::vector<plugins::Tenant>& source, Storage& to) {
  std::map<std::int64_t, const plugins::Tenant*> by_id;
  for (const auto& t : source) by_id[t.id] = &t;
  for (const auto& t : to.list_tenants()) {
    auto it = by_id.find(t.id);
    if (it == by_id.end() || it->second->name != t.name || it->second->created_unix_ms != t.created_unix_ms) {
      throw CopyError("the destination already holds tenant '" + t.name + "' (id " + std::to_string(t.id) +
                      "), which the source does not have: storage copy fills an empty database, or resumes "
                      "an interrupted copy of the same source");
    }
  }
}

std::int64_t copy_prompts(Storage& from, Storage& to, const std::vector<plugins::Tenant>& tenants) {
  std::int64_t count = 0;
  for (const auto& tenant : tenants) {
    const auto versions = from.list_prompt_versions(tenant.id, "");  // by name, then version
    for (const auto& v : versions) {
      ++count;
      if (auto there = to.find_prompt_version(tenant.id, v.name, v.version)) {
        if (there->template_json != v.template_json || there->model != v.model ||
            there->parameters_json != v.parameters_json) {
          throw CopyError("prompt '" + v.name + "' version " + std::to_string(v.version) + " of tenant '" +
                          tenant.name + "' differs in the destination");
        }
        continue;
      }
      const std::int64_t made = to.create_prompt_version(v, false);
      if (made != v.version) {
        throw CopyError("prompt '" + v.name + "' of tenant '" + tenant.name +
                        "': the destination numbered version " + std::to_string(v.version) + " as " +
                        std::to_string(made) + " (versions were created there outside this copy)");
      }
    }
    for (const auto& v : versions) {
      if (v.active) to.activate_prompt_version(tenant.id, v.name, v.version);
    }
  }
  return count;
}

// One tenant's records, oldest first, in pages: the hooks page newest first,
// so a first pass notes where each page starts and a second inserts them
// from the oldest, keeping the tenant's order in the destination.
std::int64_t copy_usage_of(Storage& from, Storage& to, std::int64_t tenant_id, std::int64_t page) {
  plugins::UsageFilter filter;
  filter.tenant_id = tenant_id;
  filter.limit = page;
  std::vector<std::int64_t> starts;
  std::int64_t total = 0;
  for (std::int64_t before = 0;;) {
    filter.before_seq = before;
    const auto rows = from.usage_page(filter);
    if (rows.empty()) break;
    starts.push_back(before);
    total += static_cast<std::int64_t>(rows.size());
    // A short page is the last; a page that did not go back is a plugin fault, not a loop.
    if (static_cast<std::int64_t>(rows.size()) < page || (before != 0 && rows.back().seq >= before)) break;
    before = rows.back().seq;
  }
  for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
    filter.before_seq = *it;
    auto rows = from.usage_page(filter);
    std::reverse(rows.begin(), rows.end());
    for (auto& r : rows) r.charges.clear();  // the ledgers' spend is copied as it stands
    to.insert_usage(rows);                   // records already there (a resumed copy) are skipped
  }
  return total;
}

std::int64_t copy_audit(Storage& from, Storage& to, std::int64_t page, std::int64_t& chains) {
  std::map<std::int64_t, plugins::AuditRow> there;
  for (auto& head : to.audit_heads()) there[head.tenant_id] = std::move(head);
  std::int64_t count = 0;
  for (const auto& head : from.audit_heads()) {
    ++chains;
    count += head.seq;
    std::int64_t after = 0;
    if (auto it = there.find(head.tenant_id); it != there.end()) {
      after = it->second.seq;
      plugins::AuditFilter at;
      at.tenant_id = head.tenant_id;
      at.ascending = true;
      at.after_seq = after - 1;
      at.limit = 1;
      const auto same = from.audit_page(at);
      if (after > head.seq || same.empty() || same.front().hash != it->second.hash) {
        throw CopyError("the destination's audit chain of tenant id " + std::to_string(head.tenant_id) +
                        " is not the source's (it differs at seq " + std::to_string(after) + ")");
      }
    }
    plugins::AuditFilter next;
    next.tenant_id = head.tenant_id;
    next.ascending = true;
    next.limit = page;
    while (after < head.seq) {
      next.after_seq = after;
      const auto events = from.audit_page(next);
      if (events.empty()) break;
      if (!to.append_audit(events)) {
        throw CopyError("another process appended to the destination's audit chain of tenant id " +
                        std::to_string(head.tenant_id) + " during the copy; stop every gateway on it");
      }
      after = events.back().seq;
    }
  }
  return count;
}

// Every stored response, paged by (tenant_id, id). A response already in the
// destination (a resumed copy) is put again, which is fine when equal;
// a different one there is a conflict (StorageError).
std::int64_t copy_responses(Storage& from, Storage& to, std::int64_t page) {
  // Responses may be large (up to 16 MiB of JSON each, twice): fewer per read
  // than usage records bound what one page holds in memory.
  const std::int64_t limit = std::min<std::int64_t>(page, 100);
  std::int64_t count = 0;
  std::int64_t after_tenant = 0;
  std::string after_id;
  for (;;) {
    const auto rows = from.response_page(after_tenant, after_id, limit);
    for (const auto& r : rows) to.response_put(r);
    count += static_cast<std::int64_t>(rows.size());
    if (static_cast<std::int64_t>(rows.size()) < limit) break;
    const auto& last = rows.back();
    // A page that did not move forward is a plugin fault, not a loop.
    if (last.tenant_id < after_tenant || (last.tenant_id == after_tenant && last.id <= after_id))
      throw CopyError("the source's response pages do not advance (at tenant id " +
                      std::to_string(last.tenant_id) + ", response " + last.id + ")");
    after_tenant = last.tenant_id;
    after_id = last.id;
  }
  return count;
}

// The destination's standing equals the source's, and its chains verify.
void verify(Storage& from, Storage& to, const std::vector<plugins::Tenant>& tenants,
            const CopyReport& report) {
  auto fail = [](const std::string& what) { throw CopyError("verification failed: " + what); };
  if (to.list_tenants().size() != tenants.size()) fail("tenant count differs");
  if (static_cast<std::int64_t>(to.list_api_keys(0).size()) != report.api_keys) fail("API key count differs");
  if (static_cast<std::int64_t>(to.list_budgets(0).size()) != report.budgets) fail("budget count differs");
  std::set<std::tuple<std::string, std::int64_t, std::int64_t>> windows;
  for (const auto& w : from.ledger_windows()) windows.emplace(w.account, w.window_start_unix_ms, w.spent);
  for (const auto& w : to.ledger_windows()) {
    if (windows.erase({w.account, w.window_start_unix_ms, w.spent}) == 0)
      fail("ledger window " + w.account + " differs");
  }
  if (!windows.empty()) fail(std::to_string(windows.size()) + " ledger windows missing");
  std::vector<std::int64_t> ids{0};
  for (const auto& t : tenants) ids.push_back(t.id);
  for (std::int64_t id : ids) {
    plugins::UsageFilter all;
    all.tenant_id = id;
    const auto a = from.usage_totals(all);
    const auto b = to.usage_totals(all);
    const auto sum = [](const std::vector<plugins::UsageGroup>& g) {
      return g.empty() ? plugins::UsageGroup{} : g.front();
    };
    const auto x = sum(a);
    const auto y = sum(b);
    if (x.requests != y.requests || x.total_tokens != y.total_tokens || x.cost_micros != y.cost_micros)
      fail("usage of tenant id " + std::to_string(id) + ": " + std::to_string(y.requests) +
           " records in the destination, " + std::to_string(x.requests) + " in the source");
  }
  if (from.keeps_responses() && to.keeps_responses()) {
    std::int64_t there = 0;
    std::int64_t after_tenant = 0;
    std::string after_id;
    for (;;) {
      const auto rows = to.response_page(after_tenant, after_id, 100);
      there += static_cast<std::int64_t>(rows.size());
      if (rows.size() < 100) break;
      after_tenant = rows.back().tenant_id;
      after_id = rows.back().id;
    }
    if (there != report.responses)
      fail("response count differs: " + std::to_string(there) + " in the destination, " +
           std::to_string(report.responses) + " in the source");
  }
  std::map<std::int64_t, std::string> heads;
  for (const auto& h : from.audit_heads()) heads[h.tenant_id] = h.hash;
  for (const auto& h : to.audit_heads()) {
    if (heads[h.tenant_id] != h.hash) fail("audit chain head of tenant id " + std::to_string(h.tenant_id));
  }
  for (const auto& chain : audit::verify_chains(to, std::nullopt)) {
    if (chain.fault)
      fail("audit chain of tenant id " + std::to_string(chain.tenant_id) + ": " + chain.fault->kind +
           " at seq " + std::to_string(chain.fault->seq));
  }
}

}  // namespace

CopyReport copy_storage(Storage& from, Storage& to, const CopyOptions& options) {
  if (!to.supports_restore()) {
    throw CopyError("the '" + to.plugin_name() +
                    "' storage cannot be copied into: its plugin lacks the restore hooks of ABI 1.5");
  }
  if (!from.supports_spend_control() || !from.supports_audit()) {
    throw CopyError("the '" + from.plugin_name() + "' storage is too old to copy from (it needs ABI 1.3)");
  }
  const std::int64_t page = std::clamp<std::int64_t>(options.page, 1, 1000);
  CopyReport report;
  auto tenants = from.list_tenants();
  std::sort(tenants.begin(), tenants.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  check_destination(tenants, to);

  for (const auto& t : tenants) to.restore_tenant(t);
  report.tenants = static_cast<std::int64_t>(tenants.size());
  say(options, "tenants: " + std::to_string(report.tenants));

  for (const auto& k : from.list_api_keys(0)) {
    to.restore_api_key(k);
    ++report.api_keys;
  }
  say(options, "API keys: " + std::to_string(report.api_keys));

  report.prompt_versions = copy_prompts(from, to, tenants);
  say(options, "prompt versions: " + std::to_string(report.prompt_versions));

  for (const auto& b : from.list_budgets(0)) {
    to.restore_budget(b);
    ++report.budgets;
  }
  for (const auto& w : from.ledger_windows()) {
    to.restore_ledger_window(w);
    ++report.ledger_windows;
  }
  say(options, "budgets: " + std::to_string(report.budgets) +
                   ", ledger windows: " + std::to_string(report.ledger_windows));

  report.audit_events = copy_audit(from, to, page, report.audit_chains);
  say(options, "audit events: " + std::to_string(report.audit_events) + " in " +
                   std::to_string(report.audit_chains) + " chains");

  report.usage_records = copy_usage_of(from, to, 0, page);
  for (const auto& t : tenants) report.usage_records += copy_usage_of(from, to, t.id, page);
  say(options, "usage records: " + std::to_string(report.usage_records));

  if (from.keeps_responses() && to.keeps_responses()) {
    report.responses = copy_responses(from, to, page);
    say(options, "responses: " + std::to_string(report.responses));
  } else if (from.keeps_responses()) {
    // Said, not refused: a store without responses loses only what the
    // API would have let clients continue or fetch again.
    say(options, "responses: not copied (the '" + to.plugin_name() +
                     "' storage plugin is older than ABI 1.9 and keeps none)");
  }

  verify(from, to, tenants, report);
  say(options, "verified: counts, usage totals and every audit chain match");
  return report;
}

}  // namespace modelgw::storage_copy
