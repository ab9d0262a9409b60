// Shape inference and verification on HLO text: the parser infers omitted
// shapes with InferShape, and VerifyModule checks the rest.
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/verifier/hlo_verifier.h"

namespace xla {
namespace {

using ::testing::HasSubstr;

class TextVerifyTest : public ::testing::Test {
 protected:
  // Parses `text` and returns the status of VerifyModule (or the parse
  // error), as text.
  std::string Verify(const std::string& text) {
    absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
    if (!m.ok()) return absl::StrCat("parse: ", m.status().message());
    module_ = std::move(*m);
    absl::Status s = VerifyModule(*module_);
    return s.ok() ? "OK" : std::string(s.message());
  }

  std::string RootShape() const {
    return module_->entry_computation()->root_instruction()->shape().ToString(false);
  }

  std::unique_ptr<HloModule> module_;
};

// In cross-replica-and-partition mode (channel_id, no global ids) each
// listed replica brings all its partitions: with 2 partitions the group
// {1,0} gathers 4 operands. Flattened ids gather the listed devices only.
TEST_F(TextVerifyTest, AllGatherGroupSizeFollowsTheGroupMode) {
  const std::string head = R"(
    HloModule m, replica_count=2, num_partitions=2
    ENTRY e {
      x = f32[6] parameter(0)
  )";
  EXPECT_EQ(Verify(head + R"(
      ROOT g = f32[24] all-gather(x), channel_id=1, replica_groups={{1,0}}, dimensions={0}
    })"),
            "OK");
  EXPECT_THAT(Verify(head + R"(
      ROOT g = f32[12] all-gather(x), channel_id=1, replica_groups={{1,0}}, dimensions={0}
    })"),
              HasSubstr("inferred shape f32[24] but declared f32[12]"));
  EXPECT_EQ(Verify(head + R"(
      ROOT g = f32[12] all-gather(x), channel_id=1, replica_groups={{1,0},{2,3}},
               use_global_device_ids=true, dimensions={0}
    })"),
            "OK");
  // Without a channel id the groups are replicas of one partition.
  EXPECT_EQ(Verify(head + R"(
      ROOT g = f32[12] all-gather(x), replica_groups={{1,0}}, dimensions={0}
    })"),
            "OK");
}

TEST_F(TextVerifyTest, OmittedShapesAreInferred) {
  EXPECT_EQ(Verify(R"(
    HloModule m
    add {
      x = f32[] parameter(0)
      y = f32[] parameter(1)
      ROOT s = add(x, y)
    }
    ENTRY e {
      a = bf16[7,33,5] parameter(0)
      b = bf16[7,5,257] parameter(1)
      d = dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0},
          rhs_contracting_dims={1}
      c = f32[7,33,257] convert(d)
      z = f32[] constant(0)
      r = reduce(c, z), dimensions={0,2}, to_apply=add
      s = slice(r), slice={[1:33:2]}
      t = tuple(s, r)
      ROOT g = get-tuple-element(t), index=0
    })"),
            "OK");
  EXPECT_EQ(RootShape(), "f32[16]");
}

TEST_F(TextVerifyTest, InferenceFailureIsAParseError) {
  EXPECT_THAT(Verify(R"(
    HloModule m
    ENTRY e {
      a = f32[4] parameter(0)
      ROOT c = custom-call(a), custom_call_target="foo"
    })"),
              HasSubstr("cannot infer the shape of 'c': c: the result shape of custom-call cannot "
                        "be inferred; write it in the text"));
}

TEST_F(TextVerifyTest, MismatchesAreListed) {
  EXPECT_EQ(Verify(R"(
    HloModule m
    ENTRY e {
      a = f32[4,33] parameter(0)
      b = f32[33,257] parameter(1)
      d = f32[4,256] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
      n = s32[4,256] negate(d)
      ROOT t = (f32[4,256], s32[4,256]) tuple(d, n)
    })"),
            "<text>:6:7: instruction 'd' (dot): inferred shape f32[4,257] but declared f32[4,256]\n"
            "<text>:7:7: instruction 'n' (negate): inferred shape f32[4,256] but declared "
            "s32[4,256]");
}

TEST_F(TextVerifyTest, WhileAndConditional) {
  EXPECT_EQ(Verify(R"(
    HloModule m
    cond {
      p = (s32[], f32[3]) parameter(0)
      i = s32[] get-tuple-element(p), index=0
      n = s32[] constant(10)
      ROOT lt = pred[] compare(i, n), direction=LT
    }
    body {
      p = (s32[], f32[3]) parameter(0)
      i = s32[] get-tuple-element(p), index=0
      v = f32[3] get-tuple-element(p), index=1
      one = s32[] constant(1)
      j = s32[] add(i, one)
      w = f32[3] exponential(v)
      ROOT t = (s32[], f32[3]) tuple(j, w)
    }
    neg {
      x = f32[3] parameter(0)
      ROOT y = f32[3] negate(x)
    }
    ENTRY e {
      init = (s32[], f32[3]) parameter(0)
      pred = pred[] parameter(1)
      loop = (s32[], f32[3]) while(init), condition=cond, body=body
      v = f32[3] get-tuple-element(loop), index=1
      ROOT c = f32[3] conditional(pred, v, v), true_computation=neg, false_computation=neg
    })"),
            "OK");
}

TEST_F(TextVerifyTest, BadReducerIsReported) {
  EXPECT_EQ(Verify(R"(
    HloModule m
    max {
      x = s32[] parameter(0)
      y = s32[] parameter(1)
      ROOT m = s32[] maximum(x, y)
    }
    ENTRY e {
      a = f32[33,257] parameter(0)
      z = f32[] constant(0)
      ROOT r = f32[33] reduce(a, z), dimensions={1}, to_apply=max
    })"),
            "<text>:11:12: instruction 'r' (reduce): parameter 0 of reducer computation 'max' "
            "((x: s32[], y: s32[]) -> s32[]) must be a scalar f32");
}

// hlo_to_mhlo's import.hlo (the corpus's module with an RFFT) is rejected
// for three computations that XLA's shape inference rejects too, none of
// them the fft: a convolution window of 3x3 over a 2x2 kernel ("Window
// dimensions do not match RHS shape"), a map whose computation returns a
// tuple ("Mapped computation's result has to be a scalar"), and a reduce
// with an f32[4] init value and reducer (VerifyReducerShape: accumulators
// are scalars). Its RFFT, f32[3,9] with fft_length={9} giving c64[3,5],
// verifies.
TEST_F(TextVerifyTest, ImportModuleIsRejectedForXlasReasonsNotItsFft) {
  EXPECT_EQ(Verify(R"(
    HloModule m
    ENTRY e {
      x = f32[3,9] parameter(0)
      ROOT f = c64[3,5] fft(x), fft_type=RFFT, fft_length={9}
    })"),
            "OK");
  EXPECT_THAT(Verify(R"(
    HloModule m
    ENTRY e {
      x = f32[256,32,32,1] parameter(0)
      k = f32[2,2,1,1] parameter(1)
      ROOT c = f32[1,30,30,256] convolution(x, k), window={size=3x3 stride=4x5 pad=44_45x60_60 rhs_dilate=2x3}, dim_labels=b01f_01io->f01b
    })"),
              HasSubstr("window size 3 of spatial dimension 0 does not match kernel"));
  EXPECT_THAT(Verify(R"(
    HloModule m
    pair {
      a = f32[] parameter(0)
      b = f32[] parameter(1)
      s = f32[] add(a, b)
      ROOT t = (f32[]) tuple(s)
    }
    ENTRY e {
      x = f32[4] parameter(0)
      y = f32[4] parameter(1)
      ROOT m = f32[4] map(x, y), dimensions={0}, to_apply=pair
    })"),
              HasSubstr("must return a scalar, got (f32[])"));
  EXPECT_THAT(Verify(R"(
    HloModule m
    add4 {
      a = f32[4] parameter(0)
      b = f32[4] parameter(1)
      ROOT s = f32[4] add(a, b)
    }
    ENTRY e {
      x = f32[4,4] parameter(0)
      i = f32[4] parameter(1)
      ROOT r = f32[4] reduce(x, i), dimensions={0}, to_apply=add4
    })"),
              HasSubstr("operand 1 must be a scalar, got f32[4]"));
}

}  // namespace
}  // namespace xla
