// The PII stage (pii/ does the scanning and the modes): every string the
// upstream will see, against the tenant's policy; a block answers, a mask
// edits the body in place, a flag goes on the record and the audit log. A
// door's native request (the same conversation in its own API, for a
// provider that serves that API) gets the same policy: whichever of the two
// goes upstream, nothing unchecked does.
#include "chat/chat_endpoint.h"

#include "audit/pii_events.h"
#include "chat/body_members.h"
#include "logging/request_log.h"
#include "util/json_write.h"

namespace modelgw::chat {
namespace {

// A block or a flag goes on the audit log (a mask is on the record alone).
void audit_verdict(audit::AuditLog* log, const pii::Verdict& verdict, const http::ServerCall& call,
                   const Outcome& outcome) {
  if (verdict.action == "masked") return;
  const std::string actor = outcome.principal->describe();
  audit::record_pii_event(
      log, {verdict.rejection ? "pii.blocked" : "pii.flagged", call.request_id(), outcome.row.tenant_id,
            outcome.row.key_id, actor,
            verdict.rejection ? std::string_view(verdict.rejection->param) : std::string_view(),
            outcome.row.pii_findings});
}

}  // namespace

net::Task<bool> ChatEndpoint::apply_pii_policy(http::ServerCall& call, Flow& flow, Outcome& outcome) {
  auto policy = deps_.pii_policy_cached(*outcome.principal);
  if (!policy) {
    policy = co_await net::offload(deps_.blocking, [&] { return deps_.pii_policy(*outcome.principal); });
  }
  ChatRequest& request = *flow.request;
  pii::Verdict verdict;
  bool failed = false;
  // A door's native request repeats the chat request's texts: the ones
  // found clean here are not scanned again there.
  pii::CleanTexts clean;
  const pii::ScanMemory memory{outcome.row.tenant_id, flow.native_doc.is_null() ? nullptr : &clean};
  try {
    verdict = deps_.pii->inspect(request.doc, *policy, memory);
  } catch (const std::exception& e) {
    // The text must not go upstream unchecked: fail closed. The message names
    // the mode and the path, never the text.
    logging::for_request(call.request_id()).error("{}", e.what());
    failed = true;
  }
  if (failed) {
    answer_error(call, errors::internal_error("the PII policy could not be applied; report the request_id"),
                 outcome);
    co_return false;
  }
  if (verdict.any()) {
    outcome.row.pii_action = verdict.action;
    outcome.row.pii_findings = verdict.findings_json();
    audit_verdict(deps_.audit, verdict, call, outcome);
    if (verdict.rejection) {
      answer_error(call, std::move(*verdict.rejection), outcome);
      co_return false;
    }
    // Masked text is written over the original where it stands in the body;
    // only a body that cannot be edited that way (a key written with escapes
    // or given twice on the way) is serialised again from the parsed request.
    if (verdict.changed) {
      auto edited = replace_strings(flow.text, verdict.replacements);
      flow.edited = edited ? std::move(*edited) : util::json_text(request.doc, flow.text.size());
      flow.text = flow.edited;
    }
  }
  co_return flow.native_doc.is_null() || apply_pii_to_native(call, flow, *policy, clean, outcome);
}

net::Task<bool> ChatEndpoint::apply_pii_to_document(http::ServerCall& call, nlohmann::json& doc,
                                                    Outcome& outcome, pii::CleanTexts* clean) {
  auto policy = deps_.pii_policy_cached(*outcome.principal);
  if (!policy) {
    policy = co_await net::offload(deps_.blocking, [&] { return deps_.pii_policy(*outcome.principal); });
  }
  pii::Verdict verdict;
  try {
    verdict = deps_.pii->inspect(doc, *policy, {outcome.row.tenant_id, clean});  // masks in place
  } catch (const std::exception& e) {
    logging::for_request(call.request_id()).error("{}", e.what());
    answer_error(call, errors::internal_error("the PII policy could not be applied; report the request_id"),
                 outcome);
    co_return false;
  }
  if (!verdict.any()) co_return true;
  outcome.row.pii_action = verdict.action;
  outcome.row.pii_findings = verdict.findings_json();
  audit_verdict(deps_.audit, verdict, call, outcome);
  if (!verdict.rejection) co_return true;
  answer_error(call, std::move(*verdict.rejection), outcome);
  co_return false;
}

bool ChatEndpoint::apply_pii_to_native(http::ServerCall& call, Flow& flow, const pii::Policy& policy,
                                       pii::CleanTexts& clean, Outcome& outcome) const {
  pii::Verdict verdict;
  try {
    verdict = deps_.pii->inspect(flow.native_doc, policy, {outcome.row.tenant_id, &clean});  // masks in place
  } catch (const std::exception& e) {
    logging::for_request(call.request_id()).error("{}", e.what());
    answer_error(call, errors::internal_error("the PII policy could not be applied; report the request_id"),
                 outcome);
    return false;
  }
  // The door's text of it is the body as sent: a masked document is sent instead.
  if (verdict.changed) flow.native_text.clear();
  if (!verdict.rejection) return true;
  // The chat form holds the same text, so this is text only the native form
  // carries (an item the translation leaves out): blocked all the same.
  outcome.row.pii_action = verdict.action;
  outcome.row.pii_findings = verdict.findings_json();
  audit_verdict(deps_.audit, verdict, call, outcome);
  answer_error(call, std::move(*verdict.rejection), outcome);
  return false;
}

}  // namespace modelgw::chat
