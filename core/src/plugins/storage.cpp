#include "plugins/storage.h"

#include "plugins/callback_guard.h"
#include "plugins/plugin_error.h"
#include "plugins/storage_failure.h"

#include <modelgw/sdk.hpp>

#include <cstring>

namespace modelgw::plugins {
namespace {

// Collects the reason a hook failed, and whether the host itself failed to
// take what the plugin passed (callback_guard.h): then the call failed, whatever
// status the plugin returned.
struct ErrorText {
  TextCollector reason;
  CallbackGuard rows;
  std::string breach;  // the rule a row broke, for the log
  mgw_text_sink& sink = reason.sink;
  const std::string& text() const { return reason.text; }
};

// Collects rows of every type; each call uses the vector it expects.
struct Rows {
  explicit Rows(ErrorText& e) : error(e) {}
  Rows(const Rows&) = delete;
  Rows& operator=(const Rows&) = delete;

  ErrorText& error;
  std::vector<Tenant> tenants;
  std::vector<ApiKeyRow> keys;
  std::vector<UsageRow> usage;
  std::vector<PromptVersionRow> prompts;
  std::vector<BudgetRow> budgets;
  std::vector<UsageGroup> groups;
  std::vector<IdempotencyRow> idempotency;
  std::vector<AuditRow> audit;
  std::vector<LedgerWindow> ledger;
  std::vector<StoredResponse> responses;
  std::vector<std::pair<std::size_t, IdempotencyRow>> idempotency_at;  // ABI 1.12: (batch index, row)

  // One sink entry point per row type: never unwinds into the plugin, and
  // refuses a row whose struct_size does not cover the fields its version has.
  template <typename Row, void (Rows::*Take)(const Row*), std::size_t MinSize>
  static void entry(void* self, const Row* row) noexcept {
    auto* rows = static_cast<Rows*>(self);
    rows->error.rows.run([&] {
      if (row == nullptr || row->struct_size < MinSize) {
        rows->error.breach = "a row smaller than its ABI version defines";
        rows->error.rows.fail();
        return;
      }
      (rows->*Take)(row);
    });
  }
  mgw_row_sink sink{sizeof(mgw_row_sink),
                    this,
                    &entry<mgw_tenant_record, &Rows::take_tenant, MGW_TENANT_RECORD_SIZE_1_0>,
                    &entry<mgw_api_key_record, &Rows::take_key, MGW_API_KEY_RECORD_SIZE_1_0>,
                    &entry<mgw_usage_record, &Rows::take_usage, MGW_USAGE_RECORD_SIZE_1_0>,
                    &entry<mgw_prompt_version_record, &Rows::take_prompt, MGW_PROMPT_VERSION_RECORD_SIZE_1_0>,
                    &entry<mgw_budget_record, &Rows::take_budget, MGW_BUDGET_RECORD_SIZE_1_2>,
                    &entry<mgw_usage_group, &Rows::take_group, MGW_USAGE_GROUP_SIZE_1_2>,
                    &entry<mgw_idempotency_record, &Rows::take_idempotency, MGW_IDEMPOTENCY_RECORD_SIZE_1_3>,
                    &entry<mgw_audit_event, &Rows::take_audit, MGW_AUDIT_EVENT_SIZE_1_3>,
                    &entry<mgw_ledger_window, &Rows::take_ledger, MGW_LEDGER_WINDOW_SIZE_1_5>,
                    &entry<mgw_response_record, &Rows::take_response, MGW_RESPONSE_RECORD_SIZE_1_9>,
                    &take_idempotency_at};

  static void take_idempotency_at(void* self, std::size_t index, const mgw_idempotency_record* row) noexcept {
    auto* rows = static_cast<Rows*>(self);
    rows->error.rows.run([&] {
      if (row == nullptr || row->struct_size < MGW_IDEMPOTENCY_RECORD_SIZE_1_3) {
        rows->error.breach = "a row smaller than its ABI version defines";
        rows->error.rows.fail();
        return;
      }
      rows->idempotency_at.emplace_back(index, IdempotencyRow{});
      rows->idempotency_at.back().second = idempotency_row(row);
    });
  }
  static IdempotencyRow idempotency_row(const mgw_idempotency_record* r) {
    return IdempotencyRow{r->tenant_id, s(r->key),      s(r->digest),       s(r->owner),
                          r->state,     s(r->response), r->created_unix_ms, r->expires_unix_ms};
  }

  static std::string s(mgw_str v) { return std::string(mgw::view(v)); }
  void take_tenant(const mgw_tenant_record* r) {
    std::string settings = s(r->settings_json);
    if (settings.empty()) settings = "{}";
    tenants.push_back(Tenant{r->id, s(r->name), r->created_unix_ms, std::move(settings)});
  }
  void take_prompt(const mgw_prompt_version_record* r) {
    prompts.push_back(PromptVersionRow{r->tenant_id, s(r->name), r->version, r->active != 0,
                                       s(r->template_json), s(r->model), s(r->parameters_json),
                                       r->created_unix_ms});
  }
  void take_key(const mgw_api_key_record* r) {
    keys.push_back(ApiKeyRow{r->id, r->tenant_id, s(r->tenant_name), s(r->key_hash), s(r->display_prefix),
                             s(r->scopes), r->created_unix_ms, r->revoked_unix_ms});
  }
  void take_usage(const mgw_usage_record* r) {
    UsageRow u;
    u.request_id = s(r->request_id);
    u.tenant_id = r->tenant_id;
    u.key_id = r->key_id;
    u.alias = s(r->alias);
    u.provider = s(r->provider);
    u.upstream_model = s(r->upstream_model);
    u.prompt_tokens = r->prompt_tokens;
    u.completion_tokens = r->completion_tokens;
    u.total_tokens = r->total_tokens;
    u.http_status = r->http_status;
    u.error_code = s(r->error_code);
    u.latency_us = r->latency_us;
    u.ttft_us = r->ttft_us;
    u.streamed = r->streamed != 0;
    u.created_unix_ms = r->created_unix_ms;
    u.prompt_name = s(r->prompt_name);
    u.prompt_version = r->prompt_version;
    u.pii_action = s(r->pii_action);
    u.pii_findings = s(r->pii_findings);
    if (MGW_HAS_FIELD(r, mgw_usage_record, reason)) {
      u.seq = r->seq;
      u.feature = s(r->feature);
      u.cached_prompt_tokens = r->cached_prompt_tokens;
      u.cost_micros = r->cost_micros;
      u.price_input_micros = r->price_input_micros;
      u.price_output_micros = r->price_output_micros;
      u.price_cached_micros = r->price_cached_micros;
      u.reason = s(r->reason);
    }
    if (MGW_HAS_FIELD(r, mgw_usage_record, trace_id)) u.trace_id = s(r->trace_id);
    // An older plugin's records, and an empty operation, keep the default.
    if (MGW_HAS_FIELD(r, mgw_usage_record, operation) && r->operation.len != 0) u.operation = s(r->operation);
    usage.push_back(std::move(u));
  }
  void take_budget(const mgw_budget_record* r) {
    budgets.push_back(BudgetRow{r->id, r->tenant_id, s(r->scope), s(r->subject), s(r->name), s(r->window),
                                r->limit_micros, r->created_unix_ms});
  }
  void take_idempotency(const mgw_idempotency_record* r) { idempotency.push_back(idempotency_row(r)); }
  void take_audit(const mgw_audit_event* r) {
    audit.push_back(AuditRow{r->id, r->tenant_id, r->seq, r->created_unix_ms, s(r->actor), s(r->action),
                             s(r->target), s(r->request_id), s(r->details_json), s(r->prev_hash), s(r->hash),
                             MGW_HAS_FIELD(r, mgw_audit_event, mac) ? s(r->mac) : std::string()});
  }
  void take_ledger(const mgw_ledger_window* r) {
    ledger.push_back(LedgerWindow{s(r->account), r->window_start_unix_ms, r->spent});
  }
  void take_response(const mgw_response_record* r) {
    responses.push_back(StoredResponse{r->tenant_id, s(r->id), s(r->previous_id), r->created_unix_ms,
                                       r->expires_unix_ms, s(r->input_json), s(r->response_json)});
  }
  void take_group(const mgw_usage_group* r) {
    groups.push_back(UsageGroup{s(r->key), r->requests, r->prompt_tokens, r->completion_tokens,
                                r->total_tokens, r->cost_micros});
  }
};

const char* status_name(mgw_status s) {
  switch (s) {
    case MGW_NOT_FOUND:
      return "not found";
    case MGW_INVALID_ARGUMENT:
      return "invalid argument";
    case MGW_UNSUPPORTED:
      return "unsupported";
    case MGW_CONFLICT:
      return "conflict";
    case MGW_UNAVAILABLE:
      return "unavailable";
    default:
      return "internal error";
  }
}

void check(mgw_status status, const ErrorText& error, const char* what) {
  if (error.rows.failed()) {
    // The plugin's answer could not be taken: never act on part of it.
    note_storage_failure(MGW_INTERNAL);
    throw StorageError(MGW_INTERNAL, std::string("storage: ") + what +
                                         " failed: the gateway could not take " +
                                         (error.breach.empty() ? "a row the plugin returned" : error.breach));
  }
  if (status == MGW_OK) return;
  if (status != MGW_NOT_FOUND && status != MGW_CONFLICT && status != MGW_UNSUPPORTED)
    note_storage_failure(status);
  std::string msg = std::string("storage: ") + what + " failed (" + status_name(status) + ")";
  if (!error.text().empty()) msg += ": " + error.text();
  throw StorageError(status, msg);
}

mgw_usage_record to_record(const UsageRow& u) {
  mgw_usage_record r{};
  r.struct_size = sizeof r;
  r.request_id = mgw::str(u.request_id);
  r.tenant_id = u.tenant_id;
  r.key_id = u.key_id;
  r.alias = mgw::str(u.alias);
  r.provider = mgw::str(u.provider);
  r.upstream_model = mgw::str(u.upstream_model);
  r.prompt_tokens = u.prompt_tokens;
  r.completion_tokens = u.completion_tokens;
  r.total_tokens = u.total_tokens;
  r.http_status = u.http_status;
  r.error_code = mgw::str(u.error_code);
  r.latency_us = u.latency_us;
  r.ttft_us = u.ttft_us;
  r.streamed = u.streamed ? 1 : 0;
  r.created_unix_ms = u.created_unix_ms;
  r.prompt_name = mgw::str(u.prompt_name);
  r.prompt_version = u.prompt_version;
  r.pii_action = mgw::str(u.pii_action);
  r.pii_findings = mgw::str(u.pii_findings);
  r.feature = mgw::str(u.feature);
  r.cached_prompt_tokens = u.cached_prompt_tokens;
  r.cost_micros = u.cost_micros;
  r.price_input_micros = u.price_input_micros;
  r.price_output_micros = u.price_output_micros;
  r.price_cached_micros = u.price_cached_micros;
  r.reason = mgw::str(u.reason);
  r.charges = u.charges.empty() ? nullptr : u.charges.data();
  r.charge_count = u.charges.size();
  r.trace_id = mgw::str(u.trace_id);
  r.operation = mgw::str(u.operation);
  return r;
}

mgw_usage_filter to_filter(const UsageFilter& f) {
  mgw_usage_filter r{};
  r.struct_size = sizeof r;
  r.tenant_id = f.tenant_id;
  r.from_unix_ms = f.from_unix_ms;
  r.to_unix_ms = f.to_unix_ms;
  r.model = mgw::str(f.model);
  r.has_feature = f.feature ? 1 : 0;
  if (f.feature) r.feature = mgw::str(*f.feature);
  r.key_id = f.key_id;
  r.status_min = f.status_min;
  r.status_max = f.status_max;
  r.stream = f.stream;
  r.before_seq = f.before_seq;
  r.limit = f.limit;
  r.group_by = mgw::str(f.group_by);
  r.operation = mgw::str(f.operation);
  return r;
}

}  // namespace

Storage::Storage(std::shared_ptr<PluginLibrary> library, const nlohmann::json& options,
                 std::size_t table_bytes)
    : library_(std::move(library)), hooks_(library_->hooks<mgw_storage_hooks>()) {
  if (table_bytes < sizeof hooks_) {
    // As an older plugin's table: every hook past it absent.
    std::memset(reinterpret_cast<unsigned char*>(&hooks_) + table_bytes, 0, sizeof hooks_ - table_bytes);
    hooks_.struct_size = static_cast<std::uint32_t>(table_bytes);
  }
  ErrorText error;
  const std::string config = options.dump();
  const mgw_status st = hooks_.on_storage_open(library_->host(), mgw::str(config), &handle_, &error.sink);
  if (!keep_new_handle(st, handle_, hooks_.on_storage_close)) {
    const std::string why = st == MGW_OK           ? "it returned OK without a handle"
                            : error.text().empty() ? status_name(st)
                                                   : error.text();
    throw PluginError("plugin " + library_->file().string() + ": storage '" + library_->name() +
                      "' failed to open: " + why);
  }
}

Storage::~Storage() {
  if (handle_ != nullptr) hooks_.on_storage_close(handle_);
}

std::int64_t Storage::create_tenant(const std::string& name, std::int64_t now_unix_ms) {
  ErrorText error;
  std::int64_t id = 0;
  check(hooks_.on_tenant_create(handle_, mgw::str(name), now_unix_ms, &id, &error.sink), error,
        "create tenant");
  return id;
}

std::optional<Tenant> Storage::find_tenant(const std::string& name) {
  ErrorText error;
  Rows rows{error};
  mgw_status st = hooks_.on_tenant_find(handle_, mgw::str(name), &rows.sink, &error.sink);
  if (!error.rows.failed() && (st == MGW_NOT_FOUND || (st == MGW_OK && rows.tenants.empty())))
    return std::nullopt;
  check(st, error, "find tenant");
  return rows.tenants.front();
}

std::vector<Tenant> Storage::list_tenants() {
  ErrorText error;
  Rows rows{error};
  check(hooks_.on_tenant_list(handle_, &rows.sink, &error.sink), error, "list tenants");
  return std::move(rows.tenants);
}

// A hook a later minor added (ABI 1.2, 1.3): NULL in the host's copy of an
// older plugin's table (plugin_descriptor.h).
template <typename Hook>
Hook Storage::hook(Hook mgw_storage_hooks::*member, const char* what) const {
  if (hooks_.*member == nullptr) {
    throw StorageError(MGW_UNSUPPORTED, std::string("storage: the '") + library_->name() +
                                            "' storage plugin is too old to " + what +
                                            "; install the plugin that came with this gateway");
  }
  return hooks_.*member;
}

#define MGW_STORAGE_HOOK(name, what) hook(&mgw_storage_hooks::name, what)

bool Storage::set_tenant_settings(std::int64_t tenant_id, const std::string& settings_json) {
  const auto set = hooks_.on_tenant_settings_set;  // ABI 1.0: always set
  ErrorText error;
  mgw_status st = set(handle_, tenant_id, mgw::str(settings_json), &error.sink);
  if (st == MGW_NOT_FOUND) return false;
  check(st, error, "set tenant settings");
  return true;
}

std::int64_t Storage::create_prompt_version(const PromptVersionRow& row, bool activate) {
  const auto create = hooks_.on_prompt_version_create;  // ABI 1.0: always set
  mgw_prompt_version_record r{};
  r.struct_size = sizeof r;
  r.tenant_id = row.tenant_id;
  r.name = mgw::str(row.name);
  r.template_json = mgw::str(row.template_json);
  r.model = mgw::str(row.model);
  r.parameters_json = mgw::str(row.parameters_json);
  r.created_unix_ms = row.created_unix_ms;
  ErrorText error;
  std::int64_t version = 0;
  check(create(handle_, &r, activate ? 1 : 0, &version, &error.sink), error, "create prompt version");
  return version;
}

std::optional<PromptVersionRow> Storage::find_prompt_version(std::int64_t tenant_id, const std::string& name,
                                                             std::int64_t version) {
  const auto find = hooks_.on_prompt_version_find;  // ABI 1.0: always set
  ErrorText error;
  Rows rows{error};
  mgw_status st = find(handle_, tenant_id, mgw::str(name), version, &rows.sink, &error.sink);
  if (!error.rows.failed() && (st == MGW_NOT_FOUND || (st == MGW_OK && rows.prompts.empty())))
    return std::nullopt;
  check(st, error, "find prompt version");
  return std::move(rows.prompts.front());
}

std::vector<PromptVersionRow> Storage::list_prompt_versions(std::int64_t tenant_id, const std::string& name) {
  const auto list = hooks_.on_prompt_version_list;  // ABI 1.0: always set
  ErrorText error;
  Rows rows{error};
  check(list(handle_, tenant_id, mgw::str(name), &rows.sink, &error.sink), error, "list prompt versions");
  return std::move(rows.prompts);
}

bool Storage::activate_prompt_version(std::int64_t tenant_id, const std::string& name, std::int64_t version) {
  const auto activate = hooks_.on_prompt_activate;  // ABI 1.0: always set
  ErrorText error;
  mgw_status st = activate(handle_, tenant_id, mgw::str(name), version, &error.sink);
  if (st == MGW_NOT_FOUND) return false;
  check(st, error, "activate prompt version");
  return true;
}

bool Storage::supports_spend_control() const {
  return hooks_.on_ledger_read != nullptr && hooks_.on_usage_page != nullptr &&
         hooks_.on_usage_totals != nullptr && hooks_.on_budget_create != nullptr &&
         hooks_.on_budget_list != nullptr && hooks_.on_budget_set_limit != nullptr &&
         hooks_.on_budget_delete != nullptr && hooks_.on_lease_take != nullptr &&
         hooks_.on_lease_return != nullptr && hooks_.on_lease_renew != nullptr;
}

// A plugin older than ABI 1.8 stores no operation (its records are all chat
// completions) and would ignore the filter: the filter as it can take it, or
// nullopt when no record of its can match.
std::optional<UsageFilter> Storage::operation_filter_for_plugin(const UsageFilter& filter) const {
  if (filter.operation.empty() || keeps_usage_operation()) return filter;
  if (filter.operation != UsageRow{}.operation) return std::nullopt;
  UsageFilter any = filter;
  any.operation.clear();
  return any;
}

std::vector<UsageRow> Storage::usage_page(const UsageFilter& filter) {
  auto page = MGW_STORAGE_HOOK(on_usage_page, "query usage records");
  const auto taken = operation_filter_for_plugin(filter);
  if (!taken) return {};
  const mgw_usage_filter f = to_filter(*taken);
  ErrorText error;
  Rows rows{error};
  check(page(handle_, &f, &rows.sink, &error.sink), error, "query usage page");
  return std::move(rows.usage);
}

std::vector<UsageGroup> Storage::usage_totals(const UsageFilter& filter) {
  auto totals = MGW_STORAGE_HOOK(on_usage_totals, "sum usage records");
  const auto taken = operation_filter_for_plugin(filter);
  // What a plugin answers for a filter nothing matches: one zero row for
  // totals, no row per group.
  if (!taken)
    return filter.group_by.empty() ? std::vector<UsageGroup>{UsageGroup{}} : std::vector<UsageGroup>{};
  const mgw_usage_filter f = to_filter(*taken);
  ErrorText error;
  Rows rows{error};
  check(totals(handle_, &f, &rows.sink, &error.sink), error, "sum usage");
  return std::move(rows.groups);
}

std::int64_t Storage::create_budget(const BudgetRow& budget) {
  auto create = MGW_STORAGE_HOOK(on_budget_create, "store budgets");
  mgw_budget_record r{};
  r.struct_size = sizeof r;
  r.tenant_id = budget.tenant_id;
  r.scope = mgw::str(budget.scope);
  r.subject = mgw::str(budget.subject);
  r.name = mgw::str(budget.name);
  r.window = mgw::str(budget.window);
  r.limit_micros = budget.limit_micros;
  r.created_unix_ms = budget.created_unix_ms;
  ErrorText error;
  std::int64_t id = 0;
  check(create(handle_, &r, &id, &error.sink), error, "create budget");
  return id;
}

std::vector<BudgetRow> Storage::list_budgets(std::int64_t tenant_id) {
  auto list = MGW_STORAGE_HOOK(on_budget_list, "store budgets");
  ErrorText error;
  Rows rows{error};
  check(list(handle_, tenant_id, &rows.sink, &error.sink), error, "list budgets");
  return std::move(rows.budgets);
}

std::optional<std::int64_t> Storage::set_budget_limit(std::int64_t budget_id, bool replace,
                                                      std::int64_t amount) {
  auto set = MGW_STORAGE_HOOK(on_budget_set_limit, "store budgets");
  ErrorText error;
  std::int64_t limit = 0;
  mgw_status st = set(handle_, budget_id, replace ? 1 : 0, amount, &limit, &error.sink);
  if (st == MGW_NOT_FOUND) return std::nullopt;
  check(st, error, "set budget limit");
  return limit;
}

bool Storage::delete_budget(std::int64_t budget_id) {
  auto remove = MGW_STORAGE_HOOK(on_budget_delete, "store budgets");
  ErrorText error;
  mgw_status st = remove(handle_, budget_id, &error.sink);
  if (st == MGW_NOT_FOUND) return false;
  check(st, error, "delete budget");
  return true;
}

LeaseGrant Storage::take_lease(const LeaseRequest& request) {
  auto take = MGW_STORAGE_HOOK(on_lease_take, "lease budget");
  mgw_lease_request r{};
  r.struct_size = sizeof r;
  r.account = mgw::str(request.account);
  r.window_start_unix_ms = request.window_start_unix_ms;
  r.limit = request.limit;
  r.lease_id = request.lease_id;
  r.want = request.want;
  r.at_least = request.at_least;
  r.expires_unix_ms = request.expires_unix_ms;
  r.holder = mgw::str(request.holder);
  mgw_lease_grant g{};
  g.struct_size = sizeof g;
  ErrorText error;
  check(take(handle_, &r, &g, &error.sink), error, "take lease");
  return LeaseGrant{g.lease_id, g.added, g.granted, g.spent, g.reserved};
}

void Storage::return_lease(std::int64_t lease_id, std::int64_t keep) {
  auto give_back = MGW_STORAGE_HOOK(on_lease_return, "lease budget");
  ErrorText error;
  check(give_back(handle_, lease_id, keep, &error.sink), error, "return lease");
}

void Storage::renew_leases(const std::vector<std::int64_t>& lease_ids, std::int64_t expires_unix_ms) {
  if (lease_ids.empty()) return;
  auto renew = MGW_STORAGE_HOOK(on_lease_renew, "lease budget");
  ErrorText error;
  check(renew(handle_, lease_ids.data(), lease_ids.size(), expires_unix_ms, &error.sink), error,
        "renew leases");
}

LedgerState Storage::read_ledger(const std::string& account, std::int64_t window_start_unix_ms,
                                 std::int64_t now_unix_ms) {
  auto read = MGW_STORAGE_HOOK(on_ledger_read, "read budget spend");
  mgw_ledger_state state{};
  state.struct_size = sizeof state;
  ErrorText error;
  check(read(handle_, mgw::str(account), window_start_unix_ms, now_unix_ms, &state, &error.sink), error,
        "read ledger");
  return LedgerState{state.spent, state.reserved};
}

bool Storage::supports_idempotency() const {
  return hooks_.on_idempotency_claim != nullptr && hooks_.on_idempotency_complete != nullptr &&
         hooks_.on_idempotency_release != nullptr && hooks_.on_idempotency_purge != nullptr;
}

namespace {

mgw_idempotency_record to_record(const IdempotencyRow& row) {
  mgw_idempotency_record r{};
  r.struct_size = sizeof r;
  r.tenant_id = row.tenant_id;
  r.key = mgw::str(row.key);
  r.digest = mgw::str(row.digest);
  r.owner = mgw::str(row.owner);
  r.state = row.state;
  r.response = mgw::str(row.response);
  r.created_unix_ms = row.created_unix_ms;
  r.expires_unix_ms = row.expires_unix_ms;
  return r;
}

}  // namespace

std::optional<IdempotencyRow> Storage::claim_idempotency(const IdempotencyRow& claim,
                                                         std::int64_t now_unix_ms) {
  auto claim_hook = MGW_STORAGE_HOOK(on_idempotency_claim, "keep idempotency keys");
  const mgw_idempotency_record r = to_record(claim);
  ErrorText error;
  Rows rows{error};
  const mgw_status st = claim_hook(handle_, &r, now_unix_ms, &rows.sink, &error.sink);
  if (st == MGW_OK) return std::nullopt;
  if (!error.rows.failed() && st == MGW_CONFLICT && !rows.idempotency.empty())
    return std::move(rows.idempotency.front());
  if (st == MGW_CONFLICT)
    throw StorageError(MGW_INTERNAL, "storage: idempotency claim: a conflict without its row");
  check(st, error, "claim idempotency key");
  return std::nullopt;
}

bool Storage::complete_idempotency(const IdempotencyRow& done) {
  auto complete = MGW_STORAGE_HOOK(on_idempotency_complete, "keep idempotency keys");
  const mgw_idempotency_record r = to_record(done);
  ErrorText error;
  const mgw_status st = complete(handle_, &r, &error.sink);
  if (st == MGW_NOT_FOUND) return false;
  check(st, error, "complete idempotency key");
  return true;
}

void Storage::release_idempotency(std::int64_t tenant_id, const std::string& key, const std::string& owner) {
  auto release = MGW_STORAGE_HOOK(on_idempotency_release, "keep idempotency keys");
  ErrorText error;
  check(release(handle_, tenant_id, mgw::str(key), mgw::str(owner), &error.sink), error,
        "release idempotency key");
}

std::int64_t Storage::purge_idempotency(std::int64_t now_unix_ms, std::int64_t limit) {
  auto purge = MGW_STORAGE_HOOK(on_idempotency_purge, "keep idempotency keys");
  ErrorText error;
  std::int64_t removed = 0;
  check(purge(handle_, now_unix_ms, limit, &removed, &error.sink), error, "purge idempotency keys");
  return removed;
}

bool Storage::batches_idempotency() const {
  return hooks_.on_idempotency_claim_batch != nullptr && hooks_.on_idempotency_finish_batch != nullptr;
}

namespace {

// The rows as one array for a batch hook (records[0].struct_size apart).
std::vector<mgw_idempotency_record> to_records(const std::vector<IdempotencyRow>& rows) {
  std::vector<mgw_idempotency_record> records;
  records.reserve(rows.size());
  for (const auto& row : rows) records.push_back(to_record(row));
  return records;
}

std::string batch_row_error(mgw_status status, const char* what) {
  return std::string("storage: ") + what + " failed (" + status_name(status) + ") for this row of the batch";
}

}  // namespace

std::vector<IdempotencyClaimOutcome> Storage::claim_idempotency_batch(
    const std::vector<IdempotencyRow>& claims, std::int64_t now_unix_ms) {
  std::vector<IdempotencyClaimOutcome> out(claims.size());
  if (claims.empty()) return out;
  using Kind = IdempotencyClaimOutcome::Kind;
  if (hooks_.on_idempotency_claim_batch == nullptr) {
    // An older plugin: one transaction per row, as before the batch hooks.
    for (std::size_t i = 0; i < claims.size(); ++i) {
      try {
        auto held = claim_idempotency(claims[i], now_unix_ms);
        out[i].kind = held ? Kind::held : Kind::claimed;
        if (held) out[i].held = std::move(*held);
      } catch (const std::exception& e) {
        out[i].error = e.what();
      }
    }
    return out;
  }
  const auto records = to_records(claims);
  std::vector<mgw_status> statuses(claims.size(), MGW_INTERNAL);
  ErrorText error;
  Rows rows{error};
  const mgw_status st = hooks_.on_idempotency_claim_batch(
      handle_, records.data(), records.size(), now_unix_ms, statuses.data(), &rows.sink, &error.sink);
  check(st, error, "claim idempotency keys");
  std::vector<IdempotencyRow*> held(claims.size(), nullptr);
  for (auto& [index, row] : rows.idempotency_at) {
    if (index < held.size() && held[index] == nullptr) held[index] = &row;
  }
  for (std::size_t i = 0; i < claims.size(); ++i) {
    switch (statuses[i]) {
      case MGW_OK:
        out[i].kind = Kind::claimed;
        break;
      case MGW_CONFLICT:
        if (held[i] != nullptr) {
          out[i].kind = Kind::held;
          out[i].held = std::move(*held[i]);
        } else {
          note_storage_failure(MGW_INTERNAL);
          out[i].error = "storage: idempotency claim: a conflict without its row";
        }
        break;
      default:
        note_storage_failure(statuses[i]);
        out[i].error = batch_row_error(statuses[i], "claim idempotency key");
    }
  }
  return out;
}

std::vector<IdempotencyFinishOutcome> Storage::finish_idempotency_batch(
    const std::vector<IdempotencyRow>& rows) {
  std::vector<IdempotencyFinishOutcome> out(rows.size());
  if (rows.empty()) return out;
  using Kind = IdempotencyFinishOutcome::Kind;
  if (hooks_.on_idempotency_finish_batch == nullptr) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      try {
        if (rows[i].state == MGW_IDEMPOTENCY_DONE) {
          out[i].kind = complete_idempotency(rows[i]) ? Kind::done : Kind::lapsed;
        } else {
          release_idempotency(rows[i].tenant_id, rows[i].key, rows[i].owner);
          out[i].kind = Kind::done;
        }
      } catch (const std::exception& e) {
        out[i].error = e.what();
      }
    }
    return out;
  }
  const auto records = to_records(rows);
  std::vector<mgw_status> statuses(rows.size(), MGW_INTERNAL);
  ErrorText error;
  check(hooks_.on_idempotency_finish_batch(handle_, records.data(), records.size(), statuses.data(),
                                           &error.sink),
        error, "finish idempotency keys");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (statuses[i] == MGW_OK) {
      out[i].kind = Kind::done;
    } else if (statuses[i] == MGW_NOT_FOUND && rows[i].state == MGW_IDEMPOTENCY_DONE) {
      out[i].kind = Kind::lapsed;
    } else {
      note_storage_failure(statuses[i]);
      out[i].error = batch_row_error(statuses[i], "finish idempotency key");
    }
  }
  return out;
}

bool Storage::supports_audit() const {
  return hooks_.on_audit_append != nullptr && hooks_.on_audit_page != nullptr &&
         hooks_.on_audit_heads != nullptr;
}

bool Storage::keeps_audit_mac() const {
  return supports_audit() && library_->descriptor().abi_minor >= 7;
}

bool Storage::keeps_usage_operation() const {
  return library_->descriptor().abi_minor >= 8;
}

bool Storage::append_audit(const std::vector<AuditRow>& events) {
  if (events.empty()) return true;
  auto append = MGW_STORAGE_HOOK(on_audit_append, "keep an audit log");
  std::vector<mgw_audit_event> records;
  records.reserve(events.size());
  for (const AuditRow& e : events) {
    mgw_audit_event r{};
    r.struct_size = sizeof r;
    r.tenant_id = e.tenant_id;
    r.seq = e.seq;
    r.created_unix_ms = e.created_unix_ms;
    r.actor = mgw::str(e.actor);
    r.action = mgw::str(e.action);
    r.target = mgw::str(e.target);
    r.request_id = mgw::str(e.request_id);
    r.details_json = mgw::str(e.details_json);
    r.prev_hash = mgw::str(e.prev_hash);
    r.hash = mgw::str(e.hash);
    r.mac = mgw::str(e.mac);
    records.push_back(r);
  }
  ErrorText error;
  const mgw_status st = append(handle_, records.data(), records.size(), &error.sink);
  if (st == MGW_CONFLICT) return false;
  check(st, error, "append audit events");
  return true;
}

std::vector<AuditRow> Storage::audit_page(const AuditFilter& filter) {
  auto page = MGW_STORAGE_HOOK(on_audit_page, "keep an audit log");
  mgw_audit_filter f{};
  f.struct_size = sizeof f;
  f.tenant_id = filter.tenant_id;
  f.from_unix_ms = filter.from_unix_ms;
  f.to_unix_ms = filter.to_unix_ms;
  f.action = mgw::str(filter.action);
  f.actor = mgw::str(filter.actor);
  f.before_seq = filter.before_seq;
  f.after_seq = filter.after_seq;
  f.ascending = filter.ascending ? 1 : 0;
  f.limit = filter.limit;
  ErrorText error;
  Rows rows{error};
  check(page(handle_, &f, &rows.sink, &error.sink), error, "read audit events");
  return std::move(rows.audit);
}

std::vector<AuditRow> Storage::audit_heads() {
  auto heads = MGW_STORAGE_HOOK(on_audit_heads, "keep an audit log");
  ErrorText error;
  Rows rows{error};
  check(heads(handle_, &rows.sink, &error.sink), error, "read audit chain heads");
  return std::move(rows.audit);
}

bool Storage::supports_restore() const {
  return hooks_.on_tenant_restore != nullptr && hooks_.on_api_key_restore != nullptr &&
         hooks_.on_budget_restore != nullptr && hooks_.on_ledger_list != nullptr &&
         hooks_.on_ledger_restore != nullptr;
}

void Storage::restore_tenant(const Tenant& tenant) {
  auto restore = MGW_STORAGE_HOOK(on_tenant_restore, "restore copied rows");
  mgw_tenant_record r{};
  r.struct_size = sizeof r;
  r.id = tenant.id;
  r.name = mgw::str(tenant.name);
  r.created_unix_ms = tenant.created_unix_ms;
  r.settings_json = mgw::str(tenant.settings_json);
  ErrorText error;
  check(restore(handle_, &r, &error.sink), error, "restore tenant");
}

void Storage::restore_api_key(const ApiKeyRow& key) {
  auto restore = MGW_STORAGE_HOOK(on_api_key_restore, "restore copied rows");
  mgw_api_key_record r{};
  r.struct_size = sizeof r;
  r.id = key.id;
  r.tenant_id = key.tenant_id;
  r.key_hash = mgw::str(key.key_hash);
  r.display_prefix = mgw::str(key.display_prefix);
  r.scopes = mgw::str(key.scopes);
  r.created_unix_ms = key.created_unix_ms;
  r.revoked_unix_ms = key.revoked_unix_ms;
  ErrorText error;
  check(restore(handle_, &r, &error.sink), error, "restore api key");
}

void Storage::restore_budget(const BudgetRow& budget) {
  auto restore = MGW_STORAGE_HOOK(on_budget_restore, "restore copied rows");
  mgw_budget_record r{};
  r.struct_size = sizeof r;
  r.id = budget.id;
  r.tenant_id = budget.tenant_id;
  r.scope = mgw::str(budget.scope);
  r.subject = mgw::str(budget.subject);
  r.name = mgw::str(budget.name);
  r.window = mgw::str(budget.window);
  r.limit_micros = budget.limit_micros;
  r.created_unix_ms = budget.created_unix_ms;
  ErrorText error;
  check(restore(handle_, &r, &error.sink), error, "restore budget");
}

std::vector<LedgerWindow> Storage::ledger_windows() {
  auto list = MGW_STORAGE_HOOK(on_ledger_list, "list ledger windows");
  ErrorText error;
  Rows rows{error};
  check(list(handle_, &rows.sink, &error.sink), error, "list ledger windows");
  return std::move(rows.ledger);
}

void Storage::restore_ledger_window(const LedgerWindow& window) {
  auto restore = MGW_STORAGE_HOOK(on_ledger_restore, "restore copied rows");
  mgw_ledger_window r{};
  r.struct_size = sizeof r;
  r.account = mgw::str(window.account);
  r.window_start_unix_ms = window.window_start_unix_ms;
  r.spent = window.spent;
  ErrorText error;
  check(restore(handle_, &r, &error.sink), error, "restore ledger window");
}

bool Storage::keeps_responses() const {
  return hooks_.on_response_put != nullptr && hooks_.on_response_get != nullptr &&
         hooks_.on_response_delete != nullptr && hooks_.on_response_purge != nullptr &&
         hooks_.on_response_page != nullptr;
}

void Storage::response_put(const StoredResponse& response) {
  auto put = MGW_STORAGE_HOOK(on_response_put, "keep responses");
  mgw_response_record r{};
  r.struct_size = sizeof r;
  r.tenant_id = response.tenant_id;
  r.id = mgw::str(response.id);
  r.previous_id = mgw::str(response.previous_id);
  r.created_unix_ms = response.created_unix_ms;
  r.expires_unix_ms = response.expires_unix_ms;
  r.input_json = mgw::str(response.input_json);
  r.response_json = mgw::str(response.response_json);
  ErrorText error;
  check(put(handle_, &r, &error.sink), error, "store response");
}

std::optional<StoredResponse> Storage::response_get(std::int64_t tenant_id, std::string_view id,
                                                    std::int64_t now_unix_ms) {
  auto get = MGW_STORAGE_HOOK(on_response_get, "keep responses");
  ErrorText error;
  Rows rows{error};
  const mgw_status st = get(handle_, tenant_id, mgw::str(id), now_unix_ms, &rows.sink, &error.sink);
  if (!error.rows.failed() && (st == MGW_NOT_FOUND || (st == MGW_OK && rows.responses.empty())))
    return std::nullopt;
  check(st, error, "read response");
  return std::move(rows.responses.front());
}

bool Storage::response_delete(std::int64_t tenant_id, std::string_view id) {
  auto remove = MGW_STORAGE_HOOK(on_response_delete, "keep responses");
  ErrorText error;
  const mgw_status st = remove(handle_, tenant_id, mgw::str(id), &error.sink);
  if (st == MGW_NOT_FOUND) return false;
  check(st, error, "delete response");
  return true;
}

std::int64_t Storage::response_purge(std::int64_t now_unix_ms, std::int64_t limit) {
  auto purge = MGW_STORAGE_HOOK(on_response_purge, "keep responses");
  ErrorText error;
  std::int64_t removed = 0;
  check(purge(handle_, now_unix_ms, limit, &removed, &error.sink), error, "purge responses");
  return removed;
}

std::vector<StoredResponse> Storage::response_page(std::int64_t after_tenant_id, std::string_view after_id,
                                                   std::int64_t limit) {
  auto page = MGW_STORAGE_HOOK(on_response_page, "keep responses");
  ErrorText error;
  Rows rows{error};
  check(page(handle_, after_tenant_id, mgw::str(after_id), limit, &rows.sink, &error.sink), error,
        "page responses");
  return std::move(rows.responses);
}

#undef MGW_STORAGE_HOOK

std::int64_t Storage::create_api_key(const ApiKeyRow& key) {
  mgw_api_key_record r{};
  r.struct_size = sizeof r;
  r.tenant_id = key.tenant_id;
  r.key_hash = mgw::str(key.key_hash);
  r.display_prefix = mgw::str(key.display_prefix);
  r.scopes = mgw::str(key.scopes);
  r.created_unix_ms = key.created_unix_ms;
  ErrorText error;
  std::int64_t id = 0;
  check(hooks_.on_api_key_create(handle_, &r, &id, &error.sink), error, "create api key");
  return id;
}

std::optional<ApiKeyRow> Storage::find_api_key(const std::string& key_hash) {
  ErrorText error;
  Rows rows{error};
  mgw_status st = hooks_.on_api_key_find_by_hash(handle_, mgw::str(key_hash), &rows.sink, &error.sink);
  if (!error.rows.failed() && (st == MGW_NOT_FOUND || (st == MGW_OK && rows.keys.empty())))
    return std::nullopt;
  check(st, error, "find api key");
  return std::move(rows.keys.front());
}

std::vector<ApiKeyRow> Storage::list_api_keys(std::int64_t tenant_id) {
  ErrorText error;
  Rows rows{error};
  check(hooks_.on_api_key_list(handle_, tenant_id, &rows.sink, &error.sink), error, "list api keys");
  return std::move(rows.keys);
}

bool Storage::revoke_api_key(std::int64_t key_id, std::int64_t now_unix_ms) {
  ErrorText error;
  mgw_status st = hooks_.on_api_key_revoke(handle_, key_id, now_unix_ms, &error.sink);
  if (st == MGW_NOT_FOUND) return false;
  check(st, error, "revoke api key");
  return true;
}

void Storage::insert_usage(const std::vector<UsageRow>& rows) {
  if (rows.empty()) return;
  std::vector<mgw_usage_record> records;
  records.reserve(rows.size());
  for (const auto& u : rows) records.push_back(to_record(u));
  ErrorText error;
  check(hooks_.on_usage_insert(handle_, records.data(), records.size(), &error.sink), error, "insert usage");
}

std::vector<UsageRow> Storage::query_usage(const UsageQuery& query) {
  mgw_usage_query q{};
  q.struct_size = sizeof q;
  q.tenant_id = query.tenant_id;
  q.request_id = mgw::str(query.request_id);
  q.since_unix_ms = query.since_unix_ms;
  q.until_unix_ms = query.until_unix_ms;
  q.limit = query.limit;
  ErrorText error;
  Rows rows{error};
  check(hooks_.on_usage_query(handle_, &q, &rows.sink, &error.sink), error, "query usage");
  return std::move(rows.usage);
}

}  // namespace modelgw::plugins
