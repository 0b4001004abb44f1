// modelgw/storage_plugin.hpp and modelgw/storage/: the exception fence, the
// argument checks and open_handle, as a storage plugin uses them.
#include <modelgw/storage_plugin.hpp>
#include <modelgw/testing/fake_host.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

struct mgw_storage {
  int opened = 1;
};

namespace {

using mgw::storage::Failure;
using mgw::testing::TextRecorder;

TEST(Guard, AFailureGivesItsStatusAndText) {
  TextRecorder error;
  EXPECT_EQ(mgw::storage::guarded(&error.sink, "tenant create",
                                  []() -> mgw_status { throw Failure(MGW_CONFLICT, "name: taken"); }),
            MGW_CONFLICT);
  EXPECT_EQ(error.text, "tenant create: name: taken");
}

TEST(Guard, NotFoundStaysSilent) {
  TextRecorder error;
  EXPECT_EQ(mgw::storage::guarded(&error.sink, "tenant find",
                                  []() -> mgw_status { throw Failure(MGW_NOT_FOUND, "no such tenant"); }),
            MGW_NOT_FOUND);
  EXPECT_EQ(error.text, "");
}

TEST(Guard, AnyOtherExceptionIsInternal) {
  TextRecorder error;
  EXPECT_EQ(mgw::storage::guarded(&error.sink, "", []() -> mgw_status { throw std::runtime_error("disk"); }),
            MGW_INTERNAL);
  EXPECT_EQ(error.text, "disk");
  TextRecorder oom;
  EXPECT_EQ(mgw::storage::guarded(&oom.sink, "h", []() -> mgw_status { throw std::bad_alloc(); }),
            MGW_INTERNAL);
  EXPECT_EQ(oom.text, "h: out of memory");
  TextRecorder odd;
  EXPECT_EQ(mgw::storage::guarded(&odd.sink, "h", []() -> mgw_status { throw 7; }), MGW_INTERNAL);
  EXPECT_EQ(odd.text, "h: unknown exception");
  // No sink at all is allowed.
  EXPECT_EQ(mgw::storage::guarded(nullptr, "h", []() -> mgw_status { throw 7; }), MGW_INTERNAL);
  EXPECT_EQ(mgw::storage::guarded(nullptr, "h", [] { return MGW_OK; }), MGW_OK);
}

TEST(Args, BytesAndText) {
  EXPECT_EQ(mgw::storage::bytes_arg(mgw_str{nullptr, 0}, "f"), "");
  const std::string with_nul("a\0b", 3);
  EXPECT_EQ(mgw::storage::bytes_arg(mgw::str(with_nul), "f"), with_nul);
  try {
    mgw::storage::bytes_arg(mgw_str{nullptr, 3}, "name");
    FAIL() << "a NULL pointer with a length must be refused";
  } catch (const Failure& e) {
    EXPECT_EQ(e.status(), MGW_INVALID_ARGUMENT);
    EXPECT_STREQ(e.what(), "name: NULL pointer with length 3");
  }
  try {
    mgw::storage::text_arg(mgw::str(with_nul), "name");
    FAIL() << "text_arg must refuse a NUL byte";
  } catch (const Failure& e) {
    EXPECT_STREQ(e.what(), "name: must not contain NUL bytes");
  }
  EXPECT_EQ(mgw::storage::text_arg(mgw::str("acme"), "name"), "acme");
}

TEST(Args, KeyHash) {
  EXPECT_NO_THROW(mgw::storage::check_key_hash(std::string(64, 'a')));
  EXPECT_THROW(mgw::storage::check_key_hash(std::string(64, 'A')), Failure);
  EXPECT_THROW(mgw::storage::check_key_hash(std::string(63, 'a')), Failure);
  EXPECT_THROW(mgw::storage::check_key_hash("sk-live-not-a-hash"), Failure);
}

TEST(Args, ReadGrowableZeroesWhatTheSenderLacks) {
  mgw_response_record sent{};
  sent.struct_size = offsetof(mgw_response_record, previous_id);
  sent.tenant_id = 4;
  sent.previous_id = mgw::str("beyond the sender's size");
  const mgw_response_record read = mgw::storage::read_growable(sent);
  EXPECT_EQ(read.struct_size, sizeof(mgw_response_record));
  EXPECT_EQ(read.tenant_id, 4);
  EXPECT_EQ(read.previous_id.len, 0u);
}

TEST(Args, RecordsStepByTheHostsStride) {
  // A host built against a newer minor: its records are larger than ours.
  struct Newer {
    mgw_usage_record record;
    int64_t added_later;
  };
  Newer batch[2]{};
  for (int i = 0; i < 2; ++i) {
    batch[i].record.struct_size = sizeof(Newer);
    batch[i].record.tenant_id = 10 + i;
  }
  const auto tenant = [](const mgw_usage_record& r) { return mgw::storage::read_growable(r).tenant_id; };
  const auto* records = &batch[0].record;
  EXPECT_EQ(mgw::storage::records_arg(records, 2, MGW_USAGE_RECORD_SIZE_1_0, tenant),
            (std::vector<int64_t>{10, 11}));
  EXPECT_THROW(mgw::storage::records_arg<mgw_usage_record>(nullptr, 1, MGW_USAGE_RECORD_SIZE_1_0, tenant),
               Failure);
  batch[1].record.struct_size = sizeof(mgw_usage_record);
  EXPECT_THROW(mgw::storage::records_arg(records, 2, MGW_USAGE_RECORD_SIZE_1_0, tenant), Failure);
  batch[0].record.struct_size = 8;
  EXPECT_THROW(mgw::storage::records_arg(records, 1, MGW_USAGE_RECORD_SIZE_1_0, tenant), Failure);
}

mgw_response_record response(const char* id) {
  mgw_response_record r{};
  r.struct_size = sizeof r;
  r.tenant_id = 1;
  r.id = mgw::str(id);
  r.created_unix_ms = 10;
  r.expires_unix_ms = 20;
  r.input_json = mgw::str("[]");
  r.response_json = mgw::str("{}");
  return r;
}

std::string refusal(const mgw_response_record* r) {
  try {
    mgw::storage::response_put_arg(r);
  } catch (const Failure& e) {
    EXPECT_EQ(e.status(), MGW_INVALID_ARGUMENT);
    return e.what();
  }
  return "";
}

TEST(Args, ResponsePut) {
  const auto good = response("resp_1");
  const auto r = mgw::storage::response_put_arg(&good);
  EXPECT_EQ(r.tenant_id, 1);
  EXPECT_EQ(r.id, "resp_1");
  EXPECT_EQ(r.previous_id, "");
  EXPECT_EQ(r.created_unix_ms, 10);
  EXPECT_EQ(r.expires_unix_ms, 20);
  EXPECT_EQ(r.input_json, "[]");
  EXPECT_EQ(r.response_json, "{}");

  EXPECT_EQ(refusal(nullptr), "record: NULL");
  auto small = good;
  small.struct_size = MGW_RESPONSE_RECORD_SIZE_1_9 - 1;
  EXPECT_EQ(refusal(&small),
            "record: struct_size " + std::to_string(small.struct_size) + " is below the ABI 1.9 size");
  auto negative = good;
  negative.tenant_id = -1;
  EXPECT_EQ(refusal(&negative), "tenant_id: must not be negative");
  const std::string long_id(129, 'x');
  const auto too_long = response(long_id.c_str());
  EXPECT_EQ(refusal(&too_long), "id: must be 1 to 128 bytes");
  const auto empty = response("");
  EXPECT_EQ(refusal(&empty), "id: must be 1 to 128 bytes");
  auto no_json = good;
  no_json.response_json = mgw_str{nullptr, 0};
  EXPECT_EQ(refusal(&no_json), "response_json: empty (must be JSON)");
}

TEST(Args, ResponseSinkAndLimit) {
  EXPECT_THROW(mgw::storage::response_sink_arg(nullptr), Failure);
  mgw_row_sink old{};
  old.struct_size = MGW_ROW_SINK_SIZE_1_9 - 1;
  EXPECT_THROW(mgw::storage::response_sink_arg(&old), Failure);
  EXPECT_THROW(mgw::storage::response_limit_arg(0), Failure);
  EXPECT_THROW(mgw::storage::response_limit_arg(1001), Failure);
  EXPECT_NO_THROW(mgw::storage::response_limit_arg(1000));
}

TEST(OpenHandle, HandsOverTheHandleOnlyOnSuccess) {
  mgw_storage* out = nullptr;
  TextRecorder error;
  ASSERT_EQ(mgw::storage::open_handle(&out, &error.sink, [] { return std::make_unique<mgw_storage>(); }),
            MGW_OK);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->opened, 1);
  delete out;

  out = reinterpret_cast<mgw_storage*>(&error);  // whatever was there is cleared
  EXPECT_EQ(mgw::storage::open_handle(&out, &error.sink,
                                      []() -> std::unique_ptr<mgw_storage> {
                                        throw Failure(MGW_INVALID_ARGUMENT, "storage.options.path: missing");
                                      }),
            MGW_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(error.text, "storage.options.path: missing");  // no hook name in front
  EXPECT_EQ(mgw::storage::open_handle(nullptr, nullptr, [] { return std::make_unique<mgw_storage>(); }),
            MGW_INVALID_ARGUMENT);
}

}  // namespace
