// What every mode must survive: texts that break the contract (refused without
// touching the sink or reading out of bounds), hosts of later minor versions
// (bigger findings, texts and sinks), a sink that drops everything, odd bytes,
// and nothing logged but metadata.
#include "pii_harness.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

using namespace std::string_literals;

namespace pii_test {
namespace {

class Robustness : public ::testing::TestWithParam<Mode> {
 protected:
  Instance instance_{GetParam()};

  // A fresh scope applies `spec`; expects a refusal that left the sink alone.
  void expect_refused(const TextSpec& spec, const char* why) {
    Scope scope(instance_);
    const auto a = scope.apply(spec);
    EXPECT_EQ(a->status, MGW_INVALID_ARGUMENT) << why;
    EXPECT_EQ(a->rec.calls(), 0u) << why << ": the sink must not be called";
  }

  static TextSpec two_emails() {
    TextSpec t;
    t.plain("a ").pii("email", "one@example.com").plain(" b ").pii("email", "two@example.com").plain(" c");
    return t;
  }
};

// A later minor version of mgw_pii_finding: fields added at the end.
struct FindingV1_5 {
  mgw_pii_finding v1_0;
  std::uint64_t confidence_ppm;
  const void* detector;
  std::int32_t severity;
};
static_assert(sizeof(FindingV1_5) > sizeof(mgw_pii_finding));

TEST_P(Robustness, RefusesAFindingPastTheEnd) {
  TextSpec t = two_emails();
  t.findings[1].length = t.text.size() - t.findings[1].offset + 1;
  expect_refused(t, "length one past the end");
  t = two_emails();
  t.findings.push_back(Finding{"email", t.text.size(), 1, false});
  expect_refused(t, "offset at the end");
  t = two_emails();
  t.findings.push_back(Finding{"email", t.text.size() + 100, 1, false});
  expect_refused(t, "offset past the end");
}

TEST_P(Robustness, RefusesOffsetsAndLengthsThatOverflow) {
  TextSpec t = two_emails();
  t.findings[1].length = std::numeric_limits<std::uint64_t>::max();
  expect_refused(t, "length that wraps offset + length");
  t = two_emails();
  t.findings[1].offset = std::numeric_limits<std::uint64_t>::max();
  t.findings[1].length = 2;
  expect_refused(t, "offset that wraps");
  t = two_emails();
  t.findings[0].offset = std::numeric_limits<std::uint64_t>::max() - 1;
  expect_refused(t, "huge offset");
}

TEST_P(Robustness, RefusesOverlappingFindings) {
  TextSpec t = two_emails();
  t.findings[1].offset = t.findings[0].offset + t.findings[0].length - 1;
  expect_refused(t, "overlap by one byte");
  t = two_emails();
  t.findings[1] = t.findings[0];
  expect_refused(t, "the same finding twice");
  t = two_emails();
  t.findings.insert(t.findings.begin() + 1, Finding{"phone", t.findings[0].offset + 2, 3, false});
  expect_refused(t, "a finding inside another");
}

TEST_P(Robustness, RefusesUnsortedFindings) {
  TextSpec t = two_emails();
  std::swap(t.findings[0], t.findings[1]);
  expect_refused(t, "descending offsets");
}

TEST_P(Robustness, RefusesAnEmptyFinding) {
  TextSpec t = two_emails();
  t.findings[0].length = 0;
  expect_refused(t, "zero length");
}

TEST_P(Robustness, RefusesFindingsInAnEmptyText) {
  TextSpec t;
  t.findings.push_back(Finding{"email", 0, 1, false});
  expect_refused(t, "empty text");
}

TEST_P(Robustness, RefusesAFindingSizeSmallerThanTheFinding) {
  TextSpec t = two_emails();
  t.finding_size = sizeof(mgw_pii_finding) - 8;
  expect_refused(t, "short stride");
  t.finding_size = 0;
  expect_refused(t, "zero stride");
}

TEST_P(Robustness, RefusesAMisalignedStride) {
  TextSpec t = two_emails();
  t.finding_size = sizeof(mgw_pii_finding) + 4;
  expect_refused(t, "stride breaking alignment");
}

TEST_P(Robustness, RefusesACountThatOverflowsTheArray) {
  TextSpec t = two_emails();
  Laid laid(t);
  laid.text.finding_count = std::numeric_limits<std::size_t>::max() / sizeof(mgw_pii_finding) + 1;
  Scope scope(instance_);
  PiiRecorder rec;
  EXPECT_EQ(raw_apply(GetParam(), scope.get(), &laid.text, &rec.sink), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(rec.calls(), 0u);
}

TEST_P(Robustness, RefusesNullPointersWithALength) {
  TextSpec t = two_emails();
  Scope scope(instance_);
  {
    Laid laid(t);
    laid.text.findings = nullptr;
    PiiRecorder rec;
    EXPECT_EQ(raw_apply(GetParam(), scope.get(), &laid.text, &rec.sink), MGW_INVALID_ARGUMENT);
    EXPECT_EQ(rec.calls(), 0u);
  }
  {
    Laid laid(t);
    laid.text.text.ptr = nullptr;
    PiiRecorder rec;
    EXPECT_EQ(raw_apply(GetParam(), scope.get(), &laid.text, &rec.sink), MGW_INVALID_ARGUMENT);
    EXPECT_EQ(rec.calls(), 0u);
  }
  {
    TextSpec bad = t;
    bad.findings[0].category.clear();
    Laid laid(bad);
    const_cast<mgw_pii_finding*>(laid.text.findings)->category = mgw_str{nullptr, 5};
    PiiRecorder rec;
    EXPECT_EQ(raw_apply(GetParam(), scope.get(), &laid.text, &rec.sink), MGW_INVALID_ARGUMENT);
    EXPECT_EQ(rec.calls(), 0u);
  }
}

TEST_P(Robustness, RefusesNullScopeTextOrSink) {
  TextSpec t = two_emails();
  Laid laid(t);
  Scope scope(instance_);
  PiiRecorder rec;
  EXPECT_EQ(raw_apply(GetParam(), nullptr, &laid.text, &rec.sink), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(raw_apply(GetParam(), scope.get(), nullptr, &rec.sink), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(raw_apply(GetParam(), scope.get(), &laid.text, nullptr), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(rec.calls(), 0u);
}

TEST_P(Robustness, ScopeNewRefusesNullArguments) {
  mgw_pii_scope* s = reinterpret_cast<mgw_pii_scope*>(0x1);
  EXPECT_EQ(hooks(GetParam()).on_pii_scope_new(nullptr, &s), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(hooks(GetParam()).on_pii_scope_new(instance_.get(), nullptr), MGW_INVALID_ARGUMENT);
}

TEST_P(Robustness, RefusesATextStructTooSmallForTheFindings) {
  TextSpec t = two_emails();
  t.struct_size = offsetof(mgw_pii_text, finding_size);
  expect_refused(t, "struct_size without finding_size");
  t.struct_size = 0;
  expect_refused(t, "struct_size 0");
}

TEST_P(Robustness, RefusesASinkTooSmallOrWithoutACallback) {
  TextSpec t = two_emails();
  Laid laid(t);
  Scope scope(instance_);
  {
    PiiRecorder rec;
    rec.sink.struct_size = offsetof(mgw_pii_sink, callback_record);
    EXPECT_EQ(raw_apply(GetParam(), scope.get(), &laid.text, &rec.sink), MGW_INVALID_ARGUMENT);
    EXPECT_EQ(rec.calls(), 0u);
  }
  {
    PiiRecorder rec;
    rec.sink.callback_record = nullptr;
    EXPECT_EQ(raw_apply(GetParam(), scope.get(), &laid.text, &rec.sink), MGW_INVALID_ARGUMENT);
    EXPECT_EQ(rec.calls(), 0u);
  }
}

TEST_P(Robustness, ReadsFindingsByTheHostsStride) {
  // A host of a later minor version lays out bigger findings; the bytes past
  // each 1.0 finding are a pattern that is no valid finding.
  TextSpec small = two_emails();
  small.findings[1].critical = true;
  TextSpec big = small;
  big.finding_size = sizeof(FindingV1_5);
  Scope one(instance_);
  Scope two(instance_);
  const auto a = one.apply(small);
  const auto b = two.apply(big);
  ASSERT_EQ(a->status, MGW_OK);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(a->rec.events, b->rec.events);
  EXPECT_EQ(a->rec.rejects, b->rec.rejects);
  EXPECT_EQ(a->rec.replaces, b->rec.replaces);
  ASSERT_EQ(b->rec.records.size(), 2u);
  EXPECT_EQ(b->rec.records[0].element, 0) << "record must pass the host's element, at the host's stride";
  EXPECT_EQ(b->rec.records[1].element, 1);
  EXPECT_EQ(b->rec.records[1].offset, big.findings[1].offset);
  EXPECT_TRUE(b->rec.records[1].critical);
}

TEST_P(Robustness, ReadsAnArrayOfALaterMinorVersionsFindings) {
  // The same, with the bigger struct written out as a host would declare it.
  const std::string text = "mail amy@example.com now";
  const std::string category = "email";
  FindingV1_5 findings[2]{};
  findings[0].v1_0 = mgw_pii_finding{mgw::str(category), 5, 15, 0};
  findings[0].confidence_ppm = 999999;
  findings[0].detector = &findings[1];
  findings[0].severity = 3;
  findings[1].v1_0 =
      mgw_pii_finding{mgw::str(category), 21, 3, 1};  // "now", to see it read the second element
  mgw_pii_text t{};
  t.struct_size = sizeof t;
  t.text = mgw::str(text);
  t.findings = &findings[0].v1_0;
  t.finding_count = 2;
  t.finding_size = sizeof(FindingV1_5);
  Scope scope(instance_);
  PiiRecorder rec;
  rec.base = reinterpret_cast<const char*>(findings);
  rec.stride = sizeof(FindingV1_5);
  rec.count = 2;
  ASSERT_EQ(raw_apply(GetParam(), scope.get(), &t, &rec.sink), MGW_OK);
  ASSERT_EQ(rec.records.size(), 2u);
  EXPECT_EQ(rec.records[1].element, 1);
  EXPECT_EQ(rec.records[1].offset, 21u);
  switch (GetParam()) {
    case Mode::block:
      EXPECT_EQ(rec.rejects, std::vector<std::string>{"email"});
      break;
    case Mode::mask:
      EXPECT_EQ(rec.replaces, std::vector<std::string>{"mail [EMAIL_1] [EMAIL_2]"});
      break;
    case Mode::flag:
      EXPECT_TRUE(rec.rejects.empty() && rec.replaces.empty());
      break;
  }
}

TEST_P(Robustness, TakesATextAndASinkOfALaterMinorVersion) {
  struct TextV1_5 {
    mgw_pii_text v1_0;
    std::uint64_t added;
  };
  struct SinkV1_5 {
    mgw_pii_sink v1_0;
    void (*callback_added)(void* host_data);
  };
  TextSpec spec = two_emails();
  Laid laid(spec);
  TextV1_5 text{laid.text, 0xDEADBEEF};
  text.v1_0.struct_size = sizeof text;
  PiiRecorder rec;
  rec.base = reinterpret_cast<const char*>(laid.text.findings);
  rec.stride = spec.finding_size;
  rec.count = spec.findings.size();
  SinkV1_5 sink{rec.sink, [](void*) { ADD_FAILURE() << "a callback unknown to 1.0 was called"; }};
  sink.v1_0.struct_size = sizeof sink;
  Scope scope(instance_);
  EXPECT_EQ(raw_apply(GetParam(), scope.get(), &text.v1_0, &sink.v1_0), MGW_OK);
  EXPECT_EQ(rec.records.size(), 2u);
}

TEST_P(Robustness, PassesATextWithoutFindings) {
  TextSpec t;
  t.plain("nothing to see");
  Scope scope(instance_);
  const auto a = scope.apply(t);
  EXPECT_EQ(a->status, MGW_OK);
  EXPECT_EQ(a->rec.calls(), 0u);
}

TEST_P(Robustness, HandlesInvalidUtf8AndNulBytes) {
  TextSpec t;
  t.plain("\0\xff\xc3"s)
      .pii("email", "\xc0\x80@\0.example"s)
      .plain("\xed\xa0\x80\0"s)
      .pii("phone", "\xff\xff"s, true);
  Scope scope(instance_);
  const auto a = scope.apply(t);
  ASSERT_EQ(a->status, MGW_OK);
  EXPECT_EQ(a->rec.records.size(), 2u);
  switch (GetParam()) {
    case Mode::block:
      EXPECT_EQ(a->rec.rejects, std::vector<std::string>{"phone"});
      break;
    case Mode::mask:
      EXPECT_EQ(a->sent, "\0\xff\xc3[EMAIL_1]\xed\xa0\x80\0[PHONE_1]"s);
      break;
    case Mode::flag:
      EXPECT_EQ(a->sent, t.text);
      break;
  }
}

TEST_P(Robustness, ARefusedTextLeavesTheScopeUsable) {
  Scope scope(instance_);
  TextSpec bad = two_emails();
  bad.findings[0].length = 0;
  EXPECT_EQ(scope.apply(bad)->status, MGW_INVALID_ARGUMENT);
  TextSpec good;
  good.pii("email", "one@example.com");
  const auto a = scope.apply(good);
  ASSERT_EQ(a->status, MGW_OK);
  if (GetParam() == Mode::mask) {
    EXPECT_EQ(a->sent, "[EMAIL_1]") << "a refused text numbers nothing";
  }
}

TEST_P(Robustness, HandlesAThousandFindings) {
  TextSpec t;
  for (int i = 0; i < 1000; ++i) {
    t.pii(i % 3 == 0 ? "email" : i % 3 == 1 ? "phone" : "ip_address", "value-" + std::to_string(i % 250));
    t.plain(" ");
  }
  Scope scope(instance_);
  const auto a = scope.apply(t);
  ASSERT_EQ(a->status, MGW_OK);
  ASSERT_EQ(a->rec.records.size(), 1000u);
  for (std::size_t i = 0; i < 1000; ++i) ASSERT_EQ(a->rec.records[i].element, static_cast<long long>(i));
}

TEST_P(Robustness, NeverLogsAValue) {
  const std::string value = "carol.secret@example.com";
  {
    Scope scope(instance_);
    TextSpec t;
    t.plain("x ").pii("email", value, true).plain(" y");
    (void)scope.apply(t);
    TextSpec overlapping = t;
    overlapping.findings.push_back(Finding{"email", 3, 4, false});
    (void)scope.apply(overlapping);
    TextSpec out_of_range = t;
    out_of_range.findings[0].length += 100;
    (void)scope.apply(out_of_range);
    PiiRecorder rec;
    (void)raw_apply(GetParam(), scope.get(), nullptr, &rec.sink);
  }
  const auto logs = instance_.host().logs();
  EXPECT_FALSE(logs.empty()) << "refusals are worth a line (without the value)";
  for (const auto& [level, line] : logs) {
    EXPECT_EQ(line.find("carol"), std::string::npos) << line;
    EXPECT_EQ(line.find("example"), std::string::npos) << line;
  }
}

// A sink that drops everything, as the host's sink behaves once one of its
// callbacks failed (the ABI: host callbacks never throw; a failed one turns
// the rest of that hook call into no-ops and the host reports the failure):
// the mode still returns a defined status, and never calls the sink after
// the call it was passed to returned.
TEST_P(Robustness, ASinkThatDropsEverythingStillGetsADefinedStatus) {
  struct Dropping {
    bool running = false;
    int calls = 0;
    int late_calls = 0;
    mgw_pii_sink sink{};
    static void note(void* self) {
      auto* d = static_cast<Dropping*>(self);
      ++d->calls;
      d->late_calls += d->running ? 0 : 1;
    }
  } dropped;
  dropped.sink.struct_size = sizeof dropped.sink;
  dropped.sink.host_data = &dropped;
  dropped.sink.callback_reject = [](void* self, mgw_str) { Dropping::note(self); };
  dropped.sink.callback_replace = [](void* self, mgw_str) { Dropping::note(self); };
  dropped.sink.callback_record = [](void* self, const mgw_pii_finding*) { Dropping::note(self); };

  Scope scope(instance_);
  TextSpec critical = two_emails();
  critical.findings[0].critical = true;
  for (const TextSpec& spec : {two_emails(), critical}) {
    Laid laid(spec);
    dropped.running = true;
    EXPECT_EQ(raw_apply(GetParam(), scope.get(), &laid.text, &dropped.sink), MGW_OK);
    dropped.running = false;
  }
  EXPECT_GT(dropped.calls, 0);  // every mode records its findings, and the sink dropped them
  // The scope goes on with the next text and its own sink.
  const auto next = scope.apply(two_emails());
  EXPECT_EQ(next->status, MGW_OK);
  EXPECT_GT(next->rec.calls(), 0u);
  EXPECT_EQ(dropped.late_calls, 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, Robustness, ::testing::ValuesIn(kAllModes), param_name);

}  // namespace
}  // namespace pii_test
