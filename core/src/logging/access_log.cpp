#include "logging/access_log.h"

#include "logging/log_line.h"

#include <spdlog/spdlog.h>

namespace modelgw::logging {
namespace {

std::shared_ptr<spdlog::logger> g_logger;  // written only before and after serving
AccessFormat g_format = AccessFormat::json;

std::string or_dash(const std::string& s) {
  return s.empty() ? "-" : s;
}

}  // namespace

void configure_access_log(std::shared_ptr<spdlog::logger> logger, AccessFormat format) {
  g_logger = std::move(logger);
  g_format = format;
}

bool access_log_enabled() {
  return g_logger != nullptr;
}

void write_access(const AccessRecord& r) {
  if (!g_logger) return;
  nlohmann::json fields{{"log", "access"}, {"request_id", r.request_id}};
  std::string message = "access";
  if (g_format == AccessFormat::combined) {
    // NCSA combined, as web servers write it, with the tenant as the user;
    // referer and user agent are not logged (clients put anything there).
    message = fmt::format("- {} [-] \"{} {} HTTP/1.1\" {} {} \"-\" \"-\" {}us {}", or_dash(r.tenant),
                          or_dash(r.method), or_dash(r.path), r.status, r.bytes, r.duration_us,
                          or_dash(r.error_code));
    if (!r.trace_id.empty()) fields["trace_id"] = r.trace_id;  // to join the line with its trace
  } else {
    fields["method"] = r.method;
    fields["path"] = r.path;
    fields["status"] = r.status;
    fields["error"] = r.error_code;
    fields["bytes"] = r.bytes;
    fields["duration_us"] = r.duration_us;
    fields["tenant"] = r.tenant;
    fields["alias"] = r.alias;
    fields["provider"] = r.provider;
    fields["streamed"] = r.streamed;
    fields["delivered"] = r.delivered;
    fields["trace_id"] = r.trace_id;
  }
  const std::string payload = with_fields(fields, message);
  g_logger->log(spdlog::level::info, spdlog::string_view_t(payload));
}

}  // namespace modelgw::logging
