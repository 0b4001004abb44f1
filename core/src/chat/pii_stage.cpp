// The PII stage (pii/ does the scanning and the modes): every string the
// upstream will see, against the tenant's policy; a block answers, a mask
// edits the body in place, a flag goes on the record and the audit log.
#include "chat/chat_endpoint.h"

#include "audit/pii_events.h"
#include "chat/body_members.h"
#include "logging/request_log.h"

namespace modelgw::chat {

net::Task<bool> ChatEndpoint::apply_pii_policy(http::ServerCall& call, ChatRequest& request,
                                               std::string_view source, std::string& body, Outcome& outcome) {
  auto policy = deps_.pii_policy_cached(*outcome.principal);
  if (!policy) {
    policy = co_await net::offload(deps_.blocking, [&] { return deps_.pii_policy(*outcome.principal); });
  }
  pii::Verdict verdict;
  bool failed = false;
  try {
    verdict = deps_.pii->inspect(request.doc, *policy);
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
  if (!verdict.any()) co_return true;
  outcome.row.pii_action = verdict.action;
  outcome.row.pii_findings = verdict.findings_json();
  if (verdict.action != "masked") {
    const std::string actor = outcome.principal->describe();
    audit::record_pii_event(
        deps_.audit, {verdict.rejection ? "pii.blocked" : "pii.flagged", call.request_id(),
                      outcome.row.tenant_id, outcome.row.key_id, actor,
                      verdict.rejection ? std::string_view(verdict.rejection->param) : std::string_view(),
                      outcome.row.pii_findings});
  }
  if (verdict.rejection) {
    answer_error(call, std::move(*verdict.rejection), outcome);
    co_return false;
  }
  // Masked text is written over the original where it stands in the body;
  // only a body that cannot be edited that way (a key written with escapes
  // or given twice on the way) is serialised again from the parsed request.
  if (verdict.changed) {
    auto edited = replace_strings(body.empty() ? source : std::string_view(body), verdict.replacements);
    body = edited ? std::move(*edited) : request.doc.dump();
  }
  co_return true;
}

}  // namespace modelgw::chat
