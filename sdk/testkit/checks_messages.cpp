// ABI 1.11, native operations: a plugin that declares MGW_OPERATION_MESSAGES
// (on_provider_operations) gets calls of Anthropic's Messages API as they
// are, with mgw_call_context.operation "messages"; its fixture folder's
// messages_api/ holds requests/, responses/, streams/ and errors/ laid out as
// the chat ones. The envelope rules are plugin.h's (provider_session.cpp). A
// plugin that does not declare the operation never gets such a call, so it is
// not checked on them. Token counts are checks_count_tokens.cpp's.
#include "checks.h"
#include "findings.h"

namespace mgw::testkit {
namespace {

struct NativeOperation {
  const char* name;    // MGW_OPERATION_*
  const char* folder;  // under the fixture folder
};

constexpr NativeOperation kMessagesOperation = {MGW_OPERATION_MESSAGES, "messages_api"};

CallSpec native_call(const RunContext& ctx, const NativeOperation& op) {
  CallSpec call = ctx.settings.call;
  call.operation = op.name;
  return call;
}

// A provider that declares the operation, or nullopt (and a note) when the
// plugin does not: then there is nothing to check.
std::optional<Ready> provider_declaring(const RunContext& ctx, const NativeOperation& op) {
  auto ready = ready_provider(ctx);
  if (!ready) return std::nullopt;
  if (!ready->session->declares(ready->provider, op.name)) {
    note(std::string("the configured provider does not declare \"") + op.name +
         "\" (on_provider_operations): its " + op.folder + "/ fixtures are not checked");
    return std::nullopt;
  }
  return ready;
}

void native_requests(const RunContext& ctx, const NativeOperation& op) {
  auto ready = provider_declaring(ctx, op);
  if (!ready) return;
  const auto files = fixture_files(ctx.fixtures / op.folder, "requests", ".json");
  if (files.empty()) note(std::string("no ") + op.folder + "/requests/ fixtures");
  for (const auto& file : files) {
    const RequestCase c = load_request_case(file, native_call(ctx, op));
    Step step(std::string(op.folder) + "/requests/" + c.name);
    run_request_case(*ready->session, ready->provider, c, ctx.write_expected);
  }
}

void native_answers(const RunContext& ctx, const NativeOperation& op, const char* sub, bool error_case) {
  auto ready = provider_declaring(ctx, op);
  if (!ready) return;
  const auto files = fixture_files(ctx.fixtures / op.folder, sub, ".json");
  if (files.empty()) note(std::string("no ") + op.folder + "/" + sub + "/ fixtures");
  for (const auto& file : files) {
    const ResponseCase c = load_response_case(file, native_call(ctx, op));
    Step step(std::string(op.folder) + "/" + sub + "/" + c.name);
    run_response_case(*ready->session, ready->provider, c, error_case, ctx.write_expected);
  }
}

// requests, responses and errors of `op`, as checks named <prefix>.<kind>.
void add_answer_checks(std::vector<Check>& out, const std::string& prefix, const NativeOperation& op,
                       const std::string& what) {
  const std::string folder = op.folder;
  out.push_back({prefix + ".requests",
                 folder + "/requests/ cases build (operation \"" + op.name + "\") as expected",
                 [op](const RunContext& c) { native_requests(c, op); }});
  out.push_back({prefix + ".responses", folder + "/responses/ cases map to " + what,
                 [op](const RunContext& c) { native_answers(c, op, "responses", false); }});
  out.push_back({prefix + ".errors", folder + "/errors/ cases map to the expected error",
                 [op](const RunContext& c) { native_answers(c, op, "errors", true); }});
}

}  // namespace

std::vector<Check> messages_checks(const RunContext& ctx) {
  std::vector<Check> out;
  add_answer_checks(out, "messages", kMessagesOperation, "the expected usage and message");
  for (const auto& file : fixture_files(ctx.fixtures / kMessagesOperation.folder, "streams", ".sse")) {
    const std::string name = file.stem().string();
    out.push_back({"messages.stream." + name,
                   "messages_api/streams/" + name + ".sse gives its expected events, split at every byte",
                   [file](const RunContext& c) {
                     if (!provider_declaring(c, kMessagesOperation)) return;
                     run_stream_fixture(c, file, native_call(c, kMessagesOperation));
                   }});
  }
  return out;
}

}  // namespace mgw::testkit
