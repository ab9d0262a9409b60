// ForEachThunkProto reaches every nested list, parents first, in order.
#include "xla/backends/gpu/runtime/thunk_proto_visit.h"

#include <string>
#include <vector>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

TEST(ThunkProtoVisit, ReachesEveryNestedListInOrder) {
  GpuExecutablePayloadProto payload;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    thunks { profile_annotation: "a" kernel {} }
    thunks {
      profile_annotation: "b"
      sequential { thunks { profile_annotation: "c" gemm {} } }
    }
    thunks {
      profile_annotation: "d"
      while {
        condition { thunks { profile_annotation: "e" kernel {} } }
        body { thunks { profile_annotation: "f" kernel {} } }
      }
    }
    thunks {
      profile_annotation: "g"
      conditional {
        branches { thunks { profile_annotation: "h" memset {} } }
        branches { thunks { profile_annotation: "i" kernel {} } }
      }
    }
    thunks {
      profile_annotation: "j"
      async_start { thunks { thunks { profile_annotation: "k" copy {} } } }
    }
  )pb", &payload));
  std::string order;
  int kernels = 0;
  ForEachThunkProto(payload.thunks(), [&](const ThunkProto& t) {
    order += t.profile_annotation();
    if (t.has_kernel()) ++kernels;
  });
  EXPECT_EQ(order, "abcdefghijk");
  EXPECT_EQ(kernels, 4);
}

}  // namespace
}  // namespace xla::gpu
