// ABI 1.10, native operations: a plugin that declares MGW_OPERATION_RESPONSES
// (on_provider_operations) gets calls of OpenAI's Responses API as they are,
// with mgw_call_context.operation "responses". Its fixture folder's
// responses_api/ holds requests/, responses/, streams/ and errors/ laid out
// as the chat ones, run with that operation; the envelope rules are the
// Responses API's (provider_session.cpp). A plugin that does not declare it
// never gets such a call, so it is not checked on them.
#include "checks.h"
#include "findings.h"

namespace mgw::testkit {
namespace {

constexpr const char* kFolder = "responses_api";

CallSpec responses_call(const RunContext& ctx) {
  CallSpec call = ctx.settings.call;
  call.operation = MGW_OPERATION_RESPONSES;
  return call;
}

// A provider that declares the operation, or nullopt (and a note) when the
// plugin does not: then there is nothing to check.
std::optional<Ready> declaring_provider(const RunContext& ctx) {
  auto ready = ready_provider(ctx);
  if (!ready) return std::nullopt;
  if (!ready->session->declares(ready->provider, MGW_OPERATION_RESPONSES)) {
    note("the configured provider does not declare \"" MGW_OPERATION_RESPONSES
         "\" (on_provider_operations): its responses_api/ fixtures are not checked");
    return std::nullopt;
  }
  return ready;
}

std::filesystem::path folder(const RunContext& ctx) {
  return ctx.fixtures / kFolder;
}

void requests(const RunContext& ctx) {
  auto ready = declaring_provider(ctx);
  if (!ready) return;
  const auto files = fixture_files(folder(ctx), "requests", ".json");
  if (files.empty()) note("no responses_api/requests/ fixtures");
  for (const auto& file : files) {
    const RequestCase c = load_request_case(file, responses_call(ctx));
    Step step("responses_api/requests/" + c.name);
    run_request_case(*ready->session, ready->provider, c, ctx.write_expected);
  }
}

void answers(const RunContext& ctx, const char* sub, bool error_case) {
  auto ready = declaring_provider(ctx);
  if (!ready) return;
  const auto files = fixture_files(folder(ctx), sub, ".json");
  if (files.empty()) note(std::string("no responses_api/") + sub + "/ fixtures");
  for (const auto& file : files) {
    const ResponseCase c = load_response_case(file, responses_call(ctx));
    Step step(std::string("responses_api/") + sub + "/" + c.name);
    run_response_case(*ready->session, ready->provider, c, error_case, ctx.write_expected);
  }
}

void stream(const RunContext& ctx, const std::filesystem::path& file) {
  if (!declaring_provider(ctx)) return;
  run_stream_fixture(ctx, file, responses_call(ctx));
}

}  // namespace

std::vector<Check> responses_checks(const RunContext& ctx) {
  std::vector<Check> out = {
      {"responses.requests", "responses_api/requests/ cases build (operation \"responses\") as expected",
       requests},
      {"responses.responses", "responses_api/responses/ cases map to the expected usage and response object",
       [](const RunContext& c) { answers(c, "responses", false); }},
      {"responses.errors", "responses_api/errors/ cases map to the expected error",
       [](const RunContext& c) { answers(c, "errors", true); }},
  };
  for (const auto& file : fixture_files(folder(ctx), "streams", ".sse")) {
    const std::string name = file.stem().string();
    out.push_back({"responses.stream." + name,
                   "responses_api/streams/" + name + ".sse gives its expected events, split at every byte",
                   [file](const RunContext& c) { stream(c, file); }});
  }
  return out;
}

}  // namespace mgw::testkit
