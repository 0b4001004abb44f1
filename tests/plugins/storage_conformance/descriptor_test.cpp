// The descriptor and hook table every storage plugin hands the host, and
// what stays when a database is opened again.
#include "fixture.h"

namespace storage_test {
namespace {

class DescriptorTest : public StorageTest {};

TEST_P(DescriptorTest, NamesAStoragePluginOfThisAbi) {
  const mgw_plugin_descriptor* d = backend().descriptor(host().api());
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->struct_size, sizeof(mgw_plugin_descriptor));
  EXPECT_EQ(d->abi_major, MGW_ABI_MAJOR);
  EXPECT_EQ(d->abi_minor, MGW_ABI_MINOR);
  EXPECT_EQ(d->kind, MGW_KIND_STORAGE);
  EXPECT_EQ(std::string(d->name), backend().name());
  ASSERT_NE(d->version, nullptr);
  EXPECT_GT(std::string(d->version).size(), 0u);
}

TEST_P(DescriptorTest, HookTableIsComplete) {
  // Every hook of this ABI: a shorter table would leave the host without
  // spend control, idempotency, the audit log, `modelgw storage copy` or
  // stored responses.
  const mgw_storage_hooks& t = h();
  EXPECT_EQ(t.struct_size, sizeof(mgw_storage_hooks));
  const void* hooks[] = {reinterpret_cast<const void*>(t.on_storage_open),
                         reinterpret_cast<const void*>(t.on_storage_close),
                         reinterpret_cast<const void*>(t.on_tenant_create),
                         reinterpret_cast<const void*>(t.on_tenant_find),
                         reinterpret_cast<const void*>(t.on_tenant_list),
                         reinterpret_cast<const void*>(t.on_api_key_create),
                         reinterpret_cast<const void*>(t.on_api_key_find_by_hash),
                         reinterpret_cast<const void*>(t.on_api_key_list),
                         reinterpret_cast<const void*>(t.on_api_key_revoke),
                         reinterpret_cast<const void*>(t.on_usage_insert),
                         reinterpret_cast<const void*>(t.on_usage_query),
                         reinterpret_cast<const void*>(t.on_tenant_settings_set),
                         reinterpret_cast<const void*>(t.on_prompt_version_create),
                         reinterpret_cast<const void*>(t.on_prompt_version_find),
                         reinterpret_cast<const void*>(t.on_prompt_version_list),
                         reinterpret_cast<const void*>(t.on_prompt_activate),
                         reinterpret_cast<const void*>(t.on_usage_page),
                         reinterpret_cast<const void*>(t.on_usage_totals),
                         reinterpret_cast<const void*>(t.on_budget_create),
                         reinterpret_cast<const void*>(t.on_budget_list),
                         reinterpret_cast<const void*>(t.on_budget_set_limit),
                         reinterpret_cast<const void*>(t.on_budget_delete),
                         reinterpret_cast<const void*>(t.on_lease_take),
                         reinterpret_cast<const void*>(t.on_lease_return),
                         reinterpret_cast<const void*>(t.on_lease_renew),
                         reinterpret_cast<const void*>(t.on_ledger_read),
                         reinterpret_cast<const void*>(t.on_idempotency_claim),
                         reinterpret_cast<const void*>(t.on_idempotency_complete),
                         reinterpret_cast<const void*>(t.on_idempotency_release),
                         reinterpret_cast<const void*>(t.on_idempotency_purge),
                         reinterpret_cast<const void*>(t.on_audit_append),
                         reinterpret_cast<const void*>(t.on_audit_page),
                         reinterpret_cast<const void*>(t.on_audit_heads),
                         reinterpret_cast<const void*>(t.on_tenant_restore),
                         reinterpret_cast<const void*>(t.on_api_key_restore),
                         reinterpret_cast<const void*>(t.on_budget_restore),
                         reinterpret_cast<const void*>(t.on_ledger_list),
                         reinterpret_cast<const void*>(t.on_ledger_restore),
                         reinterpret_cast<const void*>(t.on_response_put),
                         reinterpret_cast<const void*>(t.on_response_get),
                         reinterpret_cast<const void*>(t.on_response_delete),
                         reinterpret_cast<const void*>(t.on_response_purge),
                         reinterpret_cast<const void*>(t.on_response_page)};
  for (size_t i = 0; i < std::size(hooks); ++i) EXPECT_NE(hooks[i], nullptr) << "hook #" << i;
}

TEST_P(DescriptorTest, RefusesAHostOfAnotherMajorVersion) {
  mgw_host_api other = *host().api();
  other.abi_major = MGW_ABI_MAJOR + 1;
  EXPECT_EQ(backend().descriptor(&other), nullptr);
}

TEST_P(DescriptorTest, ReopeningKeepsEveryRow) {
  // The schema is brought up to date once; opening again migrates nothing and
  // finds what was stored (a step that ran twice would fail the open).
  const int64_t id = create_tenant(storage(), "acme");
  Usage kept;
  kept.request_id = "kept";
  kept.tenant_id = id;
  kept.created_unix_ms = 5;
  insert_usage(storage(), {kept});
  for (int i = 0; i < 2; ++i) {
    auto again = open();
    RowRecorder rows;
    ASSERT_EQ(h().on_tenant_find(again->get(), mgw::str("acme"), &rows.sink, nullptr), MGW_OK);
    ASSERT_EQ(rows.tenants.size(), 1u);
    EXPECT_EQ(rows.tenants[0].id, id);
    mgw_usage_query q{};
    q.struct_size = sizeof q;
    ASSERT_EQ(h().on_usage_query(again->get(), &q, &rows.sink, nullptr), MGW_OK);
    ASSERT_EQ(rows.usage.size(), 1u);
    EXPECT_EQ(rows.usage[0].request_id, "kept");
  }
}

TEST_P(DescriptorTest, CloseWithoutAnyCallAndOpenAfterClose) {
  // Open/close cycles leave nothing behind that a later open trips over.
  for (int i = 0; i < 3; ++i) {
    auto handle = open();
    EXPECT_NE(handle->get(), nullptr);
  }
  EXPECT_GT(create_tenant(storage(), "after"), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, DescriptorTest, MGW_STORAGE_BACKENDS);

}  // namespace
}  // namespace storage_test
