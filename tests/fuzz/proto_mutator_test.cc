#include "tests/fuzz/proto_mutator.h"

#include <set>
#include <string>

#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::fuzz {
namespace {

gpu::GpuExecutableProto Base() {
  return gpu::testing::MakeArtifact(R"pb(
payload {
  module_name: "m"
  program_shape { result { element_type: PRIMITIVE_TYPE_F32 dimensions: 4 } }
  allocations { index: 0 size: 16 is_output: true }
  outputs { slice { allocation: 0 size: 16 } }
  thunks { memset { destination { allocation: 0 size: 16 } pattern: 7 } }
}
)pb");
}

std::string Bytes(const gpu::GpuExecutableProto& a) {
  std::string s;
  a.SerializeToString(&s);
  return s;
}

TEST(ProtoMutator, EditsChangeTheMessageAndReachNestedFields) {
  const gpu::GpuExecutableProto base = Base();
  std::mt19937_64 rng(7);
  int changed = 0;
  std::set<std::string> top_paths;
  bool nested_thunk_field = false;
  for (int i = 0; i < 400; ++i) {
    gpu::GpuExecutableProto a = base;
    const std::string what = MutateMessage(&a, rng);
    ASSERT_FALSE(what.empty());
    if (Bytes(a) != Bytes(base)) ++changed;
    top_paths.insert(what.substr(0, what.find_first_of(".[ ")));
    if (what.rfind("payload.thunks[0].memset.destination.", 0) == 0) nested_thunk_field = true;
  }
  // Some edits are no-ops (swapping an element with itself, setting the
  // same value); most are not.
  EXPECT_GE(changed, 300);
  EXPECT_TRUE(top_paths.count("header"));
  EXPECT_TRUE(top_paths.count("payload"));
  EXPECT_TRUE(nested_thunk_field);
}

TEST(ProtoMutator, DeterministicForASeed) {
  std::mt19937_64 rng1(99), rng2(99);
  gpu::GpuExecutableProto a = Base(), b = Base();
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(MutateMessage(&a, rng1), MutateMessage(&b, rng2));
  }
  EXPECT_EQ(Bytes(a), Bytes(b));
}

TEST(ProtoMutator, EmptyMessageGetsFieldsCreated) {
  gpu::ThunkProto t;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20; ++i) EXPECT_FALSE(MutateMessage(&t, rng).empty());
  EXPECT_NE(t.ByteSizeLong(), 0u);
}

}  // namespace
}  // namespace xla::fuzz
