#include "stream_support.h"

#include <gtest/gtest.h>

#include <sstream>

namespace anthropic_test {

std::vector<Json> Outcome::parsed() const {
  std::vector<Json> out;
  for (const auto& c : chunks) {
    out.push_back(Json::parse(c));
  }
  return out;
}

Outcome stream(const std::vector<std::string_view>& pieces, const CallContext& call) {
  static const Provider provider;
  Recorder out;
  run_stream(provider, call, pieces, out);
  return Outcome{out.events, out.rec.chunks, out.rec.usage, out.rec.error};
}

namespace {

void expect_same(const Outcome& o, const Outcome& reference, const std::string& how) {
  EXPECT_EQ(o.events, reference.events) << how;
  EXPECT_EQ(o.chunks, reference.chunks) << how;
  ASSERT_EQ(o.error.has_value(), reference.error.has_value()) << how;
  if (o.error) {
    EXPECT_EQ(o.error->message, reference.error->message) << how;
    EXPECT_EQ(o.error->retryable, reference.error->retryable) << how;
  }
  ASSERT_EQ(o.usage.has_value(), reference.usage.has_value()) << how;
  if (o.usage) {
    EXPECT_EQ(o.usage->prompt_tokens, reference.usage->prompt_tokens) << how;
    EXPECT_EQ(o.usage->completion_tokens, reference.usage->completion_tokens) << how;
  }
}

}  // namespace

Outcome stream_every_way(const std::string& transcript, const CallContext& call) {
  const Outcome reference = stream(whole(transcript), call);
  expect_same(stream(byte_by_byte(transcript), call), reference, "byte by byte");
  const std::string_view t = transcript;
  for (std::size_t cut = 1; cut < t.size(); ++cut) {
    const Outcome o = stream({t.substr(0, cut), t.substr(cut)}, call);
    if (o.chunks != reference.chunks || o.events != reference.events) {
      ADD_FAILURE() << "differs when cut at byte " << cut;
      break;
    }
  }
  for (unsigned seed = 1; seed <= 30; ++seed) {
    expect_same(stream(random_pieces(transcript, seed), call), reference,
                "random split " + std::to_string(seed));
  }
  return reference;
}

std::string content_of(const std::vector<Json>& chunks) {
  std::string text;
  for (const auto& c : chunks) {
    for (const auto& choice : c["choices"]) {
      if (choice["delta"].contains("content")) {
        text += choice["delta"]["content"].get<std::string>();
      }
    }
  }
  return text;
}

std::string arguments_of(const std::vector<Json>& chunks, int index) {
  std::string args;
  for (const auto& c : chunks) {
    for (const auto& choice : c["choices"]) {
      if (!choice["delta"].contains("tool_calls")) {
        continue;
      }
      for (const auto& call : choice["delta"]["tool_calls"]) {
        if (call["index"] == index) {
          args += call["function"]["arguments"].get<std::string>();
        }
      }
    }
  }
  return args;
}

std::string without_event_names(const std::string& transcript) {
  std::istringstream in(transcript);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("event:", 0) != 0) {
      out += line + "\n";
    }
  }
  return out;
}

}  // namespace anthropic_test
