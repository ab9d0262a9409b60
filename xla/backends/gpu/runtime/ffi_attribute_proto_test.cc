// AttributesToProto / AttributesFromProto: every kind round-trips with its
// value, and what the reader refuses.
#include "xla/backends/gpu/runtime/ffi_attribute_proto.h"

#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

TEST(FfiAttributeProto, EveryKindRoundTrips) {
  const ffi::Attributes in = {{"i", int64_t{-7}},
                              {"f", 2.75},
                              {"s", std::string("odd")},
                              {"b", true},
                              {"ia", std::vector<int64_t>{3, -1, 4}},
                              {"fa", std::vector<double>{0.5, -9.25}},
                              {"empty", std::vector<int64_t>{}}};
  google::protobuf::RepeatedPtrField<FfiAttributeProto> protos;
  AttributesToProto(in, &protos);
  ASSERT_EQ(protos.size(), 7);
  EXPECT_EQ(protos[0].name(), "b");  // name order
  EXPECT_TRUE(protos[0].b());
  EXPECT_TRUE(protos[1].has_i64_array());  // "empty", kept an array
  absl::StatusOr<ffi::Attributes> out = AttributesFromProto(protos, "p");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, in);
}

TEST(FfiAttributeProto, RefusesWhatItCannotRead) {
  google::protobuf::RepeatedPtrField<FfiAttributeProto> protos;
  protos.Add()->set_name("x");
  EXPECT_EQ(AttributesFromProto(protos, "p").status().message(),
            "p.attributes[0]: attribute 'x' has no value of a known type (artifact newer than runtime?)");
  protos[0].set_b(false);
  FfiAttributeProto* dup = protos.Add();
  dup->set_name("x");
  dup->set_i64(1);
  EXPECT_EQ(AttributesFromProto(protos, "p").status().message(),
            "p.attributes[1]: attribute 'x' appears twice");
  dup->set_name("");
  EXPECT_EQ(AttributesFromProto(protos, "").status().message(),
            "attributes[1]: attribute name is empty");
  dup->set_name("big");
  dup->mutable_i64_array()->mutable_values()->Resize(ffi::kMaxAttributeArrayElements + 1, 0);
  EXPECT_EQ(AttributesFromProto(protos, "p").status().code(), absl::StatusCode::kInvalidArgument);
  dup->mutable_i64_array()->mutable_values()->Resize(ffi::kMaxAttributeArrayElements, 0);
  EXPECT_TRUE(AttributesFromProto(protos, "p").ok());
}

}  // namespace
}  // namespace xla::gpu
