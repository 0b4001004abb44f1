// Named prompt hooks: add a version, find one (or the active one), list,
// activate. The host validates templates and parameters; this file keeps them
// and guarantees the numbering (1, 2, 3... per prompt, no gaps, no reuse) and
// the one active version per prompt.
#include <string>

#include "args.h"
#include "storage.h"

namespace mgw_sqlite {
namespace {

// The active flag is read from prompt_active in the same statement, so a row
// never claims to be active when another version is.
#define MGW_PROMPT_SELECT                                                                        \
  "SELECT v.tenant_id, v.name, v.version, (a.version IS NOT NULL), v.template_json, v.model, "   \
  "v.parameters_json, v.created_unix_ms FROM prompt_versions AS v LEFT JOIN prompt_active AS a " \
  "ON a.tenant_id = v.tenant_id AND a.name = v.name AND a.version = v.version "

void emit_prompt_version(const Statement& row, const mgw_row_sink* out) {
  if (out == nullptr || out->callback_prompt_version == nullptr) {
    return;
  }
  mgw_prompt_version_record record{};
  record.struct_size = sizeof record;
  record.tenant_id = row.int64(0);
  record.name = row.str(1);  // the strings are borrowed from SQLite until the next step
  record.version = row.int64(2);
  record.active = static_cast<int32_t>(row.int64(3));
  record.template_json = row.str(4);
  record.model = row.str(5);
  record.parameters_json = row.str(6);
  record.created_unix_ms = row.int64(7);
  out->callback_prompt_version(out->host_data, &record);
}

std::string_view prompt_name_arg(mgw_str name) {
  auto text = bytes_arg(name, "name");
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
    auto name = prompt_name_arg(r.name);
    auto template_json = bytes_arg(r.template_json, "template_json");
    auto model = bytes_arg(r.model, "model");
    auto parameters_json = bytes_arg(r.parameters_json, "parameters_json");
    auto version = db.write([&](Connection& c) {
      // The writer lock and this transaction make read-then-insert safe: no
      // other writer can take the same number in between.
      auto next = c.statement(
          "SELECT COALESCE(MAX(version), 0) + 1 FROM prompt_versions WHERE tenant_id = ?1 AND name = ?2");
      next.bind(1, r.tenant_id);
      next.bind(2, name);
      next.step();
      const std::int64_t number = next.int64(0);
      next.reset();  // done reading before this transaction writes the same table
      // An unknown tenant_id fails the foreign key: INVALID_ARGUMENT.
      auto insert = c.statement(
          "INSERT INTO prompt_versions (tenant_id, name, version, template_json, model, parameters_json, "
          "created_unix_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
      insert.bind(1, r.tenant_id);
      insert.bind(2, name);
      insert.bind(3, number);
      insert.bind(4, template_json);
      insert.bind(5, model);
      insert.bind(6, parameters_json);
      insert.bind(7, r.created_unix_ms);
      insert.run();
      if (activate != 0 || number == 1) {
        auto active = c.statement(
            "INSERT INTO prompt_active (tenant_id, name, version) VALUES (?1, ?2, ?3) "
            "ON CONFLICT (tenant_id, name) DO UPDATE SET version = excluded.version");
        active.bind(1, r.tenant_id);
        active.bind(2, name);
        active.bind(3, number);
        active.run();
      }
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
    auto prompt = prompt_name_arg(name);
    if (version < 0) throw Failure(MGW_INVALID_ARGUMENT, "version: must not be negative");
    return db.read([&](Connection& c) {
      auto select =
          version == 0
              ? c.statement(MGW_PROMPT_SELECT
                            "WHERE v.tenant_id = ?1 AND v.name = ?2 AND a.version IS NOT NULL")
              : c.statement(MGW_PROMPT_SELECT "WHERE v.tenant_id = ?1 AND v.name = ?2 AND v.version = ?3");
      select.bind(1, tenant_id);
      select.bind(2, prompt);
      if (version != 0) select.bind(3, version);
      if (!select.step()) return MGW_NOT_FOUND;
      emit_prompt_version(select, out);
      return MGW_OK;
    });
  });
}

mgw_status prompt_version_list(mgw_storage* storage, int64_t tenant_id, mgw_str name, const mgw_row_sink* out,
                               const mgw_text_sink* error) noexcept {
  return guarded(error, "prompt version list", [&] {
    auto& db = database_of(storage);
    auto prompt = bytes_arg(name, "name");
    return db.read([&](Connection& c) {
      auto select =
          prompt.empty()
              ? c.statement(MGW_PROMPT_SELECT "WHERE v.tenant_id = ?1 ORDER BY v.name, v.version")
              : c.statement(MGW_PROMPT_SELECT "WHERE v.tenant_id = ?1 AND v.name = ?2 ORDER BY v.version");
      select.bind(1, tenant_id);
      if (!prompt.empty()) select.bind(2, prompt);
      while (select.step()) emit_prompt_version(select, out);
      return MGW_OK;
    });
  });
}

mgw_status prompt_activate(mgw_storage* storage, int64_t tenant_id, mgw_str name, int64_t version,
                           const mgw_text_sink* error) noexcept {
  return guarded(error, "prompt activate", [&] {
    auto& db = database_of(storage);
    auto prompt = prompt_name_arg(name);
    return db.write([&](Connection& c) {
      auto exists =
          c.statement("SELECT 1 FROM prompt_versions WHERE tenant_id = ?1 AND name = ?2 AND version = ?3");
      exists.bind(1, tenant_id);
      exists.bind(2, prompt);
      exists.bind(3, version);
      if (!exists.step()) return MGW_NOT_FOUND;
      exists.reset();
      auto active = c.statement(
          "INSERT INTO prompt_active (tenant_id, name, version) VALUES (?1, ?2, ?3) "
          "ON CONFLICT (tenant_id, name) DO UPDATE SET version = excluded.version");
      active.bind(1, tenant_id);
      active.bind(2, prompt);
      active.bind(3, version);
      active.run();
      return MGW_OK;
    });
  });
}

#undef MGW_PROMPT_SELECT

}  // namespace mgw_sqlite
