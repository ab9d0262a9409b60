#include "xla/service/buffer_assignment/buffer_assignment_checker.h"

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/service/buffer_assignment/copy_insertion.h"
#include "xla/service/schedule/list_scheduler.h"

namespace xla {

// Breaks assignments on purpose.
class BufferAssignmentTestPeer {
 public:
  static void SetSlice(BufferAssignment* a, const HloInstruction* instr, const ShapeIndex& index,
                       BufferSlice slice) {
    for (auto& [leaf, s] : a->slices_[instr]) {
      if (leaf == index) s = slice;
    }
  }
  static BufferAllocation* Allocation(BufferAssignment* a, int64_t i) {
    return &a->allocations_[i];
  }
};

namespace {

struct Broken {
  std::unique_ptr<HloModule> module;
  HloSchedule schedule;
  BufferAssignment assignment;
  const HloInstruction* Get(const std::string& name) const {
    return module->entry_computation()->GetInstruction(name);
  }
  BufferSlice Slice(const std::string& name) const {
    return assignment.GetSlice(Get(name), {}).value();
  }
  void Set(const std::string& name, BufferSlice s) {
    BufferAssignmentTestPeer::SetSlice(&assignment, Get(name), {}, s);
  }
  absl::Status Check() const { return CheckBufferAssignment(*module, schedule, assignment); }
};

Broken Make(const std::string& text) {
  auto module = ParseHloModule(text).value();
  EXPECT_TRUE(AddCopiesForWhileAndConditional(module.get()).ok());
  HloSchedule schedule = ScheduleModule(*module, SchedulerOptions()).value();
  BufferAssignment a = AssignBuffers(*module, schedule, {}).value();
  return {std::move(module), std::move(schedule), std::move(a)};
}

constexpr char kChain[] = R"(
HloModule m
ENTRY e {
  p = f32[10,10] parameter(0)
  a = f32[10,10] transpose(p), dimensions={1,0}
  b = f32[100] reshape(a)
  c = f32[10,10] reshape(b)
  ROOT d = f32[10,10] transpose(c), dimensions={1,0}
})";

void ExpectError(const absl::Status& s, const std::string& needle) {
  ASSERT_FALSE(s.ok()) << "expected an error containing: " << needle;
  EXPECT_NE(std::string(s.message()).find(needle), std::string::npos) << s;
}

TEST(BufferAssignmentChecker, AcceptsTheAssignersResult) {
  Broken s = Make(kChain);
  EXPECT_TRUE(s.Check().ok()) << s.Check();
}

TEST(BufferAssignmentChecker, RejectsOverlappingLiveBuffers) {
  Broken s = Make(kChain);
  // a and b are live together (b is written while a is read).
  BufferSlice b = s.Slice("b");
  b.offset = s.Slice("a").offset;
  s.Set("b", b);
  ExpectError(s.Check(), "cannot do in place");
  // c and b overlap in time too, through a shifted range.
  Broken t = Make(kChain);
  BufferSlice c = t.Slice("c");
  c.offset = t.Slice("b").offset;
  t.Set("c", c);
  ExpectError(t.Check(), "");
}

TEST(BufferAssignmentChecker, RejectsOverlapOfUnrelatedLiveBuffers) {
  Broken s = Make(R"(
HloModule m
ENTRY e {
  p = f32[10,10] parameter(0)
  a = f32[10,10] transpose(p), dimensions={1,0}
  b = f32[10,10] negate(p)
  c = f32[20,10] concatenate(a, b), dimensions={0}
  ROOT d = f32[10,20] transpose(c), dimensions={1,0}
})");
  ASSERT_TRUE(s.Check().ok()) << s.Check();
  BufferSlice b = s.Slice("b");
  ASSERT_EQ(b.allocation, s.Slice("a").allocation);
  b.offset = s.Slice("a").offset;
  s.Set("b", b);
  ExpectError(s.Check(), "are live at the same time in overlapping bytes");
}

TEST(BufferAssignmentChecker, RejectsAReadAfterTheBytesWereOverwritten) {
  Broken s = Make(R"(
HloModule m
ENTRY e {
  p0 = f32[16] parameter(0)
  u = f32[4] parameter(1)
  i = s32[] parameter(2)
  x = f32[16] exponential(p0)
  d = f32[16] dynamic-update-slice(x, u, i)
  ROOT s = f32[16] add(d, x)
})");
  ASSERT_TRUE(s.Check().ok()) << s.Check();
  s.Set("d", s.Slice("x"));  // in place although x is read afterwards
  ExpectError(s.Check(), "overwrote it first");
}

TEST(BufferAssignmentChecker, RejectsMisalignedAndOutOfBoundsSlices) {
  Broken s = Make(kChain);
  BufferSlice a = s.Slice("a");
  a.offset += 4;
  s.Set("a", a);
  ExpectError(s.Check(), "aligned");
  Broken t = Make(kChain);
  BufferSlice b = t.Slice("b");
  b.offset = 1 << 20;
  t.Set("b", b);
  ExpectError(t.Check(), "outside the allocation");
}

TEST(BufferAssignmentChecker, RejectsWrongAllocationKinds) {
  Broken s = Make(kChain);
  // The result placed in the temp allocation.
  s.Set("d", s.Slice("a"));
  ExpectError(s.Check(), "not marked as an output");
  // A temporary written into a parameter that is not donated.
  Broken t = Make(kChain);
  t.Set("a", t.Slice("p"));
  ExpectError(t.Check(), "neither donated nor aliased");
}

TEST(BufferAssignmentChecker, RejectsClobberingInsideALoop) {
  // y is computed before the loop and read in every iteration; the body's
  // temporary must not reuse its bytes.
  Broken s = Make(R"(
HloModule m
cond {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[64] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  r = f32[64] reverse(x), dimensions={0}
  x2 = f32[64] add(r, x)
  ROOT t = (s32[], f32[64]) tuple(i2, x2)
}
ENTRY e {
  x = f32[64] parameter(0)
  z = s32[] constant(0)
  xe = f32[64] exponential(x)
  t = (s32[], f32[64]) tuple(z, xe)
  w = (s32[], f32[64]) while(t), condition=cond, body=body
  ROOT g = f32[64] get-tuple-element(w), index=1
})");
  ASSERT_TRUE(s.Check().ok()) << s.Check();
  // Put the body temporary r on the loop-carried buffer: r is written
  // while x (the same bytes) is still needed by x2.
  const HloComputation* body = s.module->GetComputation("body");
  const HloInstruction* r = body->GetInstruction("r");
  BufferSlice loop = s.assignment.GetSlice(s.Get("w"), {1}).value();
  BufferAssignmentTestPeer::SetSlice(&s.assignment, r, {}, loop);
  ExpectError(s.Check(), "");
}

}  // namespace
}  // namespace xla
