// Named prompt hooks: add a version, find one (or the active one), list,
// activate. The host validates templates and parameters; this file keeps them
// and guarantees the numbering (1, 2, 3... per prompt, no gaps, no reuse) and
// the one active version per prompt.
#include <string>

#include "args.h"
#include "rows.h"
#include "storage.h"

namespace mgw_pg {
namespace {

void emit_prompt_versions(const pqxx::result& rows, const mgw_row_sink* out) {
  if (out == nullptr || out->callback_prompt_version == nullptr) return;
  for (const auto& row : rows) {
    mgw_prompt_version_record record{};
    record.struct_size = sizeof record;
    record.tenant_id = int64_of(row[0]);
    record.name = str_of(row[1]);  // the strings are borrowed from the result
    record.version = int64_of(row[2]);
    record.active = row[3].as<bool>() ? 1 : 0;
    record.template_json = str_of(row[4]);
    record.model = str_of(row[5]);
    record.parameters_json = str_of(row[6]);
    record.created_unix_ms = int64_of(row[7]);
    out->callback_prompt_version(out->host_data, &record);
  }
}

std::string prompt_name_arg(mgw_str name) {
  std::string text(text_arg(name, "name"));
  if (text.empty()) throw Failure(MGW_INVALID_ARGUMENT, "name: must not be empty");
  return text;
}

}  // namespace

mgw_status prompt_version_create(mgw_storage* storage, const mgw_prompt_version_record* record,
                                 int32_t activate, int64_t* out_version,
                                 const mgw_text_sink* error) noexcept {
  return guarded(error, "prompt version create", [&] {
    auto& db = database_of(storage);
    if (record == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "record: NULL");
    const auto r = read_growable(*record);
    const auto name = prompt_name_arg(r.name);
    const std::string template_json(text_arg(r.template_json, "template_json"));
    const std::string model(text_arg(r.model, "model"));
    const std::string parameters_json(text_arg(r.parameters_json, "parameters_json"));
    auto version = db.write([&](pqxx::work& tx) {
      // The tenant's row, locked, makes read-then-insert safe across
      // processes: no other transaction can take the same number in between.
      // (NO KEY UPDATE: foreign-key checks on the tenant still go ahead.)
      if (tx.exec_prepared("tenant_lock", r.tenant_id).empty())
        throw Failure(MGW_INVALID_ARGUMENT, "tenant_id: no tenant " + std::to_string(r.tenant_id));
      const std::int64_t number = int64_of(tx.exec_prepared1("prompt_next_version", r.tenant_id, name)[0]);
      tx.exec_prepared("prompt_version_insert", r.tenant_id, name, number, template_json, model,
                       parameters_json, r.created_unix_ms);
      if (activate != 0 || number == 1) tx.exec_prepared("prompt_activate", r.tenant_id, name, number);
      return number;
    });
    if (out_version != nullptr) *out_version = version;
    return MGW_OK;
  });
}

mgw_status prompt_version_find(mgw_storage* storage, int64_t tenant_id, mgw_str name, int64_t version,
                               const mgw_row_sink* out, const mgw_text_sink* error) noexcept {
  return guarded(error, "prompt version find", [&] {
    auto& db = database_of(storage);
    const auto prompt = prompt_name_arg(name);
    if (version < 0) throw Failure(MGW_INVALID_ARGUMENT, "version: must not be negative");
    auto rows = db.read([&](pqxx::transaction_base& tx) {
      return version == 0 ? tx.exec_prepared("prompt_find_active", tenant_id, prompt)
                          : tx.exec_prepared("prompt_find_version", tenant_id, prompt, version);
    });
    if (rows.empty()) return MGW_NOT_FOUND;
    emit_prompt_versions(rows, out);
    return MGW_OK;
  });
}

mgw_status prompt_version_list(mgw_storage* storage, int64_t tenant_id, mgw_str name, const mgw_row_sink* out,
                               const mgw_text_sink* error) noexcept {
  return guarded(error, "prompt version list", [&] {
    auto& db = database_of(storage);
    const std::string prompt(text_arg(name, "name"));
    auto rows = db.read([&](pqxx::transaction_base& tx) {
      return prompt.empty() ? tx.exec_prepared("prompt_list_all", tenant_id)
                            : tx.exec_prepared("prompt_list_name", tenant_id, prompt);
    });
    emit_prompt_versions(rows, out);
    return MGW_OK;
  });
}

mgw_status prompt_activate(mgw_storage* storage, int64_t tenant_id, mgw_str name, int64_t version,
                           const mgw_text_sink* error) noexcept {
  return guarded(error, "prompt activate", [&] {
    auto& db = database_of(storage);
    const auto prompt = prompt_name_arg(name);
    return db.write([&](pqxx::work& tx) {
      // Versions are never deleted, so one seen here is still there when the
      // upsert below names it.
      if (tx.exec_prepared("prompt_version_exists", tenant_id, prompt, version).empty()) return MGW_NOT_FOUND;
      tx.exec_prepared("prompt_activate", tenant_id, prompt, version);
      return MGW_OK;
    });
  });
}

}  // namespace mgw_pg
