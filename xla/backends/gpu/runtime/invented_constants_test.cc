#include "xla/backends/gpu/runtime/invented_constants.h"

#include <string>

#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

GpuExecutablePayloadProto PayloadWith(InventedConstantsModeProto mode, int64_t count,
                                      int names) {
  GpuExecutablePayloadProto payload;
  InventedConstantsProto* r = payload.mutable_invented_constants();
  r->set_mode(mode);
  r->set_seed(7);
  r->set_count(count);
  for (int i = 0; i < names; ++i) r->add_names("constant." + std::to_string(i));
  return payload;
}

TEST(InventedConstantsTest, AbsentRecordIsValid) {
  EXPECT_TRUE(ValidateInventedConstants(GpuExecutablePayloadProto()).ok());
}

TEST(InventedConstantsTest, WellFormedRecordsAreValid) {
  EXPECT_TRUE(ValidateInventedConstants(PayloadWith(INVENTED_CONSTANTS_MODE_RANDOM, 3, 3)).ok());
  EXPECT_TRUE(ValidateInventedConstants(PayloadWith(INVENTED_CONSTANTS_MODE_ZEROS, 100, 64)).ok());
}

TEST(InventedConstantsTest, RefusesUnknownMode) {
  absl::Status s = ValidateInventedConstants(PayloadWith(INVENTED_CONSTANTS_MODE_UNSPECIFIED, 1, 1));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("invented_constants.mode: unknown mode 0"), std::string::npos) << s;
  s = ValidateInventedConstants(PayloadWith(static_cast<InventedConstantsModeProto>(9), 1, 1));
  EXPECT_NE(s.message().find("unknown mode 9"), std::string::npos) << s;
}

TEST(InventedConstantsTest, RefusesBadCounts) {
  EXPECT_FALSE(ValidateInventedConstants(PayloadWith(INVENTED_CONSTANTS_MODE_ZEROS, 0, 0)).ok());
  EXPECT_FALSE(ValidateInventedConstants(PayloadWith(INVENTED_CONSTANTS_MODE_ZEROS, -1, 0)).ok());
  EXPECT_FALSE(ValidateInventedConstants(
                   PayloadWith(INVENTED_CONSTANTS_MODE_ZEROS, kMaxInventedConstantCount + 1, 0))
                   .ok());
  absl::Status s = ValidateInventedConstants(PayloadWith(INVENTED_CONSTANTS_MODE_ZEROS, 2, 3));
  EXPECT_NE(s.message().find("3 names for a count of 2"), std::string::npos) << s;
}

TEST(InventedConstantsTest, RefusesOversizeNames) {
  absl::Status s = ValidateInventedConstants(
      PayloadWith(INVENTED_CONSTANTS_MODE_RANDOM, 1000, kMaxInventedConstantNames + 1));
  EXPECT_NE(s.message().find("invented_constants.names: 65 names"), std::string::npos) << s;
  GpuExecutablePayloadProto payload = PayloadWith(INVENTED_CONSTANTS_MODE_RANDOM, 2, 1);
  payload.mutable_invented_constants()->add_names(std::string(kMaxInventedConstantNameBytes + 1, 'c'));
  s = ValidateInventedConstants(payload);
  EXPECT_NE(s.message().find("invented_constants.names[1]: 257 bytes"), std::string::npos) << s;
  payload.mutable_invented_constants()->set_names(1, "");
  EXPECT_FALSE(ValidateInventedConstants(payload).ok());
}

TEST(InventedConstantsTest, Summary) {
  EXPECT_EQ(InventedConstantsSummary(PayloadWith(INVENTED_CONSTANTS_MODE_RANDOM, 2, 2).invented_constants()),
            "2 invented (random, seed 7): %constant.0, %constant.1");
  EXPECT_EQ(InventedConstantsSummary(PayloadWith(INVENTED_CONSTANTS_MODE_ZEROS, 5, 1).invented_constants()),
            "5 invented (zeros): %constant.0, ... (4 more)");
}

}  // namespace
}  // namespace xla::gpu
