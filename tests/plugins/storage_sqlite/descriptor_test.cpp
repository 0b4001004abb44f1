// The descriptor the entry symbol returns, and its hook table.
#include "test_support.h"

namespace sqlite_test {
namespace {

TEST(Descriptor, NamesAStoragePluginOfThisAbi) {
  const mgw_plugin_descriptor* d = plugin().entry(host().api());
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->struct_size, sizeof(mgw_plugin_descriptor));
  EXPECT_EQ(d->abi_major, MGW_ABI_MAJOR);
  EXPECT_EQ(d->abi_minor, MGW_ABI_MINOR);
  EXPECT_EQ(d->kind, MGW_KIND_STORAGE);
  EXPECT_STREQ(d->name, "sqlite");
  ASSERT_NE(d->version, nullptr);
  EXPECT_GT(std::string(d->version).size(), 0u);
}

TEST(Descriptor, HookTableIsComplete) {
  const auto* table = static_cast<const mgw_storage_hooks*>(plugin().entry(host().api())->hooks);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->struct_size, sizeof(mgw_storage_hooks));
  EXPECT_NE(table->on_storage_open, nullptr);
  EXPECT_NE(table->on_storage_close, nullptr);
  EXPECT_NE(table->on_tenant_create, nullptr);
  EXPECT_NE(table->on_tenant_find, nullptr);
  EXPECT_NE(table->on_tenant_list, nullptr);
  EXPECT_NE(table->on_api_key_create, nullptr);
  EXPECT_NE(table->on_api_key_find_by_hash, nullptr);
  EXPECT_NE(table->on_api_key_list, nullptr);
  EXPECT_NE(table->on_api_key_revoke, nullptr);
  EXPECT_NE(table->on_usage_insert, nullptr);
  EXPECT_NE(table->on_usage_query, nullptr);
  EXPECT_NE(table->on_ledger_read, nullptr);
  EXPECT_NE(table->on_idempotency_claim, nullptr);
  EXPECT_NE(table->on_idempotency_complete, nullptr);
  EXPECT_NE(table->on_idempotency_release, nullptr);
  EXPECT_NE(table->on_idempotency_purge, nullptr);
  EXPECT_NE(table->on_audit_append, nullptr);
  EXPECT_NE(table->on_audit_page, nullptr);
  EXPECT_NE(table->on_audit_heads, nullptr);
  EXPECT_NE(table->on_response_put, nullptr);
  EXPECT_NE(table->on_response_get, nullptr);
  EXPECT_NE(table->on_response_delete, nullptr);
  EXPECT_NE(table->on_response_purge, nullptr);
  EXPECT_NE(table->on_response_page, nullptr);
}

TEST(Descriptor, RefusesAHostOfAnotherMajorVersion) {
  mgw_host_api other = *host().api();
  other.abi_major = MGW_ABI_MAJOR + 1;
  EXPECT_EQ(plugin().entry(&other), nullptr);
}

}  // namespace
}  // namespace sqlite_test
