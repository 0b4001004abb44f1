#include "audit/audit_journal.h"

#include <stdexcept>
#include <string_view>

namespace modelgw::audit {
namespace {

std::string line_of(const Event& e) {
  const nlohmann::json j = {{"tenant_id", e.tenant_id}, {"actor", e.actor},           {"action", e.action},
                            {"target", e.target},       {"request_id", e.request_id}, {"details", e.details}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

bool event_of(std::string_view line, Event& out) {
  const auto j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object()) return false;
  try {
    out.tenant_id = j.at("tenant_id").get<std::int64_t>();
    out.actor = j.at("actor").get<std::string>();
    out.action = j.at("action").get<std::string>();
    out.target = j.at("target").get<std::string>();
    out.request_id = j.at("request_id").get<std::string>();
    out.details = j.at("details");
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  return true;
}

}  // namespace

AuditJournal::AuditJournal(std::string path) : file_(std::move(path), "audit journal", "audit.journal_path") {
  std::deque<Event> left;
  std::string why;
  if (!read_all(left, why)) throw std::runtime_error("audit journal " + file_.path() + ": " + why);
  events_ = left.size();
}

bool AuditJournal::append(const std::deque<Event>& events, std::string& why) {
  if (events.empty()) return true;
  std::string text;
  for (const Event& e : events) text += line_of(e);
  if (!file_.append(text, why)) return false;
  events_ += events.size();
  return true;
}

bool AuditJournal::read_all(std::deque<Event>& out, std::string& why) const {
  return file_.read_lines(
      [&](std::string_view line) {
        Event e;
        if (event_of(line, e)) out.push_back(std::move(e));
        return true;
      },
      why);
}

bool AuditJournal::clear(std::string& why) {
  if (!file_.clear(why)) return false;
  events_ = 0;
  return true;
}

}  // namespace modelgw::audit
