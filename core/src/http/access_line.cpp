#include "http/access_line.h"

#include "logging/access_log.h"

namespace modelgw::http {

void log_access(const ServerCall& call, bool delivered) {
  if (!logging::access_log_enabled()) return;
  const AccessNote& note = call.access_note();
  logging::AccessRecord r;
  r.request_id = call.request_id();
  r.method = call.request().method;
  r.path = call.request().path();  // never the query: its values may be anything
  // 499 (as nginx logs it): the client left before the answer reached it.
  r.status = note.error_code == "client_disconnected" || (!delivered && call.status_sent() == 0)
                 ? 499
                 : call.status_sent();
  r.error_code = note.error_code;
  r.bytes = call.bytes_written();
  r.duration_us = call.elapsed_us();
  r.tenant = note.tenant;
  r.alias = note.alias;
  r.provider = note.provider;
  r.trace_id = note.trace_id;
  r.streamed = call.streaming();
  r.delivered = delivered;
  r.tokens = note.tokens;
  r.attempts = note.attempts;
  r.pii = note.pii;
  logging::write_access(r);
}

}  // namespace modelgw::http
