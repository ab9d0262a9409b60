#include "xla/service/buffer_assignment/buffer_assignment.h"

#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/service/buffer_assignment/buffer_assignment_checker.h"
#include "xla/service/buffer_assignment/copy_insertion.h"
#include "xla/service/schedule/list_scheduler.h"

namespace xla {
namespace {

struct Assigned {
  std::unique_ptr<HloModule> module;
  HloSchedule schedule;
  BufferAssignment assignment;

  const HloInstruction* Get(const std::string& computation, const std::string& name) const {
    const HloComputation* c = computation.empty() ? module->entry_computation()
                                                  : module->GetComputation(computation);
    return c->GetInstruction(name);
  }
  BufferSlice Slice(const std::string& name, const ShapeIndex& index = {},
                    const std::string& computation = "") const {
    const HloInstruction* instr = Get(computation, name);
    EXPECT_NE(instr, nullptr) << name;
    absl::StatusOr<BufferSlice> s = assignment.GetSlice(instr, index);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.value_or(BufferSlice{-1, -1, -1});
  }
  const BufferAllocation& Allocation(const std::string& name, const ShapeIndex& index = {},
                                     const std::string& computation = "") const {
    return assignment.allocations()[Slice(name, index, computation).allocation];
  }
};

// Parses, inserts copies, schedules, assigns and checks (the checker must
// accept every assignment these tests make).
Assigned Assign(const std::string& text, BufferAssignmentOptions options = {}) {
  auto module = ParseHloModule(text).value();
  EXPECT_TRUE(AddCopiesForWhileAndConditional(module.get()).ok());
  HloSchedule schedule = ScheduleModule(*module, SchedulerOptions()).value();
  absl::StatusOr<BufferAssignment> a = AssignBuffers(*module, schedule, options);
  EXPECT_TRUE(a.ok()) << a.status();
  absl::Status checked = CheckBufferAssignment(*module, schedule, *a);
  EXPECT_TRUE(checked.ok()) << checked << "\n" << a->ToString();
  return {std::move(module), std::move(schedule), *std::move(a)};
}

TEST(BufferSlice, OverlapsWhenTheyShareAByte) {
  const BufferSlice a{3, 16, 8};  // bytes 16..23
  EXPECT_TRUE(a.Overlaps(BufferSlice{3, 23, 5}));
  EXPECT_TRUE(a.Overlaps(BufferSlice{3, 0, 17}));
  EXPECT_TRUE(a.Overlaps(a));
  EXPECT_FALSE(a.Overlaps(BufferSlice{3, 24, 4}));  // adjacent
  EXPECT_FALSE(a.Overlaps(BufferSlice{3, 8, 8}));
  EXPECT_FALSE(a.Overlaps(BufferSlice{4, 16, 8}));  // another allocation
  EXPECT_FALSE(a.Overlaps(BufferSlice{3, 18, 0}));  // empty
}

TEST(BufferAssignment, PacksTemporariesWithReuseAtExactOffsets) {
  // f32[10,10] is 400 bytes, 512 aligned. Lifetimes: a [1,2], b [2,3],
  // c [3,4]: b cannot reuse a (a is read while b is written), c can.
  Assigned r = Assign(R"(
HloModule m
ENTRY e {
  p = f32[10,10] parameter(0)
  a = f32[10,10] transpose(p), dimensions={1,0}
  b = f32[100] reshape(a)
  c = f32[10,10] reshape(b)
  ROOT d = f32[10,10] transpose(c), dimensions={1,0}
})");
  EXPECT_EQ(r.Slice("a").offset, 0);
  EXPECT_EQ(r.Slice("b").offset, 512);
  EXPECT_EQ(r.Slice("c").offset, 0);
  EXPECT_EQ(r.Slice("a").size, 400);
  EXPECT_EQ(r.Slice("a").allocation, r.Slice("c").allocation);
  EXPECT_TRUE(r.Allocation("a").is_temp);
  EXPECT_EQ(r.assignment.total_temp_bytes(), 1024);
  EXPECT_EQ(r.assignment.naive_temp_bytes(), 1536);
  EXPECT_EQ(r.assignment.peak_live_temp_bytes(), 1024);
  const BufferAllocation& p = r.Allocation("p");
  EXPECT_TRUE(p.is_parameter);
  EXPECT_EQ(p.parameter_number, 0);
  EXPECT_EQ(p.size, 400);
  EXPECT_TRUE(r.Allocation("d").is_output);
  EXPECT_FALSE(r.Allocation("d").is_temp);
  EXPECT_EQ(r.assignment.allocations().size(), 3u);
  // No HLO needed downstream: the result leaves are listed with slices.
  ASSERT_EQ(r.assignment.output_slices().size(), 1u);
  EXPECT_EQ(r.assignment.output_slices()[0].second, r.Slice("d"));
}

TEST(BufferAssignment, DynamicUpdateSliceAndElementwiseRunInPlaceWhenTheOperandDies) {
  Assigned r = Assign(R"(
HloModule m
ENTRY e {
  p0 = f32[16] parameter(0)
  u = f32[4] parameter(1)
  i = s32[] parameter(2)
  x = f32[16] exponential(p0)
  d = f32[16] dynamic-update-slice(x, u, i)
  ROOT n = f32[16] negate(d)
})");
  // p0 is not donated: exponential gets its own buffer.
  EXPECT_NE(r.Slice("x").allocation, r.Slice("p0").allocation);
  EXPECT_EQ(r.Slice("d"), r.Slice("x"));
  EXPECT_EQ(r.Slice("n"), r.Slice("d"));
  EXPECT_TRUE(r.Allocation("n").is_output);
  EXPECT_EQ(r.assignment.total_temp_bytes(), 0);
}

TEST(BufferAssignment, NoInPlaceWhenTheOperandIsReadLater) {
  Assigned r = Assign(R"(
HloModule m
ENTRY e {
  p0 = f32[16] parameter(0)
  u = f32[4] parameter(1)
  i = s32[] parameter(2)
  x = f32[16] exponential(p0)
  d = f32[16] dynamic-update-slice(x, u, i)
  ROOT s = f32[16] add(d, x)
})");
  EXPECT_NE(r.Slice("d"), r.Slice("x"));
  // add may reuse d (it dies at s) but that is the output.
  EXPECT_TRUE(r.Allocation("s").is_output);
}

TEST(BufferAssignment, InputOutputAliasPutsTheResultInTheParameter) {
  Assigned r = Assign(R"(
HloModule m, input_output_alias={ {}: (0, {}, must-alias) }
ENTRY e {
  p0 = f32[33] parameter(0)
  p1 = f32[33] parameter(1)
  ROOT s = f32[33] add(p0, p1)
})");
  EXPECT_EQ(r.Slice("s"), r.Slice("p0"));
  EXPECT_TRUE(r.Allocation("s").is_parameter);
  EXPECT_TRUE(r.Allocation("s").is_output);
  EXPECT_NE(r.Slice("s"), r.Slice("p1"));
  // Without the alias the result has its own allocation.
  Assigned plain = Assign(R"(
HloModule m
ENTRY e {
  p0 = f32[33] parameter(0)
  p1 = f32[33] parameter(1)
  ROOT s = f32[33] add(p0, p1)
})");
  EXPECT_FALSE(plain.Allocation("s").is_parameter);
  EXPECT_TRUE(plain.Allocation("s").is_output);
}

TEST(BufferAssignment, WhileReusesLoopCarriedBuffers) {
  Assigned r = Assign(R"(
HloModule m
cond {
  p = (s32[], f32[33]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[33]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[33] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  x2 = f32[33] multiply(x, x)
  ROOT t = (s32[], f32[33]) tuple(i2, x2)
}
ENTRY e {
  x = f32[33] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[33]) tuple(z, x)
  w = (s32[], f32[33]) while(t), condition=cond, body=body
  ROOT r = f32[33] get-tuple-element(w), index=1
})");
  // One buffer per leaf for init, parameters, body root and result.
  for (int64_t leaf : {0, 1}) {
    const BufferSlice s = r.Slice("w", {leaf});
    EXPECT_EQ(r.Slice("p", {leaf}, "body"), s);
    EXPECT_EQ(r.Slice("p", {leaf}, "cond"), s);
    EXPECT_EQ(r.Slice("t", {leaf}, "body"), s);
    EXPECT_EQ(r.Slice(r.Get("", "w")->operand(0)->name(), {leaf}), s);
  }
  EXPECT_EQ(r.Slice("x2", {}, "body"), r.Slice("w", {1}));
  EXPECT_EQ(r.Slice("i2", {}, "body"), r.Slice("w", {0}));
  // The parameter and the constant were copied into the loop buffers.
  EXPECT_NE(r.Slice("w", {1}).allocation, r.Slice("x").allocation);
  EXPECT_NE(r.Slice("w", {0}).allocation, r.Slice("z").allocation);
  EXPECT_TRUE(r.Allocation("r").is_output);
  EXPECT_TRUE(r.Allocation("n", {}, "cond").is_constant);
}

TEST(BufferAssignment, ConditionalBranchRootsShareTheResult) {
  Assigned r = Assign(R"(
HloModule m
b0 {
  a = f32[9] parameter(0)
  ROOT e = f32[9] exponential(a)
}
b1 {
  a = f32[9] parameter(0)
  ROOT n = f32[9] negate(a)
}
ENTRY e {
  k = s32[] parameter(0)
  x = f32[9] parameter(1)
  y = f32[9] parameter(2)
  c = f32[9] conditional(k, x, y), branch_computations={b0, b1}
  ROOT s = f32[9] sine(c)
})");
  EXPECT_EQ(r.Slice("e", {}, "b0"), r.Slice("c"));
  EXPECT_EQ(r.Slice("n", {}, "b1"), r.Slice("c"));
  EXPECT_EQ(r.Slice("a", {}, "b0"), r.Slice("x"));
  EXPECT_EQ(r.Slice("a", {}, "b1"), r.Slice("y"));
  EXPECT_TRUE(r.Allocation("c").is_temp || r.Allocation("c").is_output);
}

TEST(BufferAssignment, TuplesAndMultiOutputFusions) {
  Assigned r = Assign(R"(
HloModule m
fused {
  a = f32[8] parameter(0)
  e = f32[8] exponential(a)
  n = f32[8] negate(a)
  ROOT t = (f32[8], f32[8]) tuple(e, n)
}
ENTRY e {
  p = f32[8] parameter(0)
  f = (f32[8], f32[8]) fusion(p), kind=kLoop, calls=fused
  g0 = f32[8] get-tuple-element(f), index=0
  g1 = f32[8] get-tuple-element(f), index=1
  s = f32[8] add(g0, g1)
  ROOT t = (f32[8], f32[8]) tuple(s, g0)
})");
  EXPECT_EQ(r.Slice("g0"), r.Slice("f", {0}));
  EXPECT_EQ(r.Slice("g1"), r.Slice("f", {1}));
  EXPECT_NE(r.Slice("f", {0}), r.Slice("f", {1}));
  EXPECT_EQ(r.Slice("t", {1}), r.Slice("f", {0}));
  EXPECT_TRUE(r.Allocation("t", {1}).is_output);
  EXPECT_TRUE(r.Allocation("t", {0}).is_output);
  // g1 dies at s, but s is a result: it takes g1's temp buffer? No: a result
  // has its own allocation unless in place; in place is allowed (temp joins
  // the output allocation).
  EXPECT_EQ(r.Slice("s"), r.Slice("f", {1}));
  // Fused computations get no buffers.
  const HloInstruction* fused_root = r.module->GetComputation("fused")->root_instruction();
  EXPECT_FALSE(r.assignment.GetSlice(fused_root, {0}).ok());
}

TEST(BufferAssignment, MultiOutputOptimizerFusionWritesOverItsDonatedParameters) {
  // An optimizer step: parameter and moment updated in one multi-output
  // fusion, each result aliased (may-alias) to its parameter. Both results
  // take their parameters' allocations, so no output allocation is needed.
  const std::string body = R"(
step {
  p = f32[9,5] parameter(0)
  mo = f32[9,5] parameter(1)
  g = f32[9,5] parameter(2)
  nm = f32[9,5] add(mo, g)
  np = f32[9,5] subtract(p, nm)
  ROOT t = (f32[9,5], f32[9,5]) tuple(nm, np)
}
ENTRY e {
  p = f32[9,5] parameter(0)
  mo = f32[9,5] parameter(1)
  g = f32[9,5] parameter(2)
  f = (f32[9,5], f32[9,5]) fusion(p, mo, g), kind=kLoop, calls=step
  np = f32[9,5] get-tuple-element(f), index=1
  nm = f32[9,5] get-tuple-element(f), index=0
  ROOT t = (f32[9,5], f32[9,5]) tuple(np, nm)
})";
  Assigned r = Assign(
      "HloModule m, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias) }" +
      body);
  EXPECT_EQ(r.Slice("f", {1}), r.Slice("p"));
  EXPECT_EQ(r.Slice("f", {0}), r.Slice("mo"));
  EXPECT_TRUE(r.Allocation("t", {0}).is_parameter);
  EXPECT_TRUE(r.Allocation("t", {1}).is_parameter);
  int64_t outputs_only = 0;
  for (const BufferAllocation& a : r.assignment.allocations()) {
    outputs_only += a.is_output && !a.is_parameter;
  }
  EXPECT_EQ(outputs_only, 0);
  // Not donated: the results get their own allocations.
  Assigned plain = Assign("HloModule m" + body);
  EXPECT_FALSE(plain.Allocation("t", {0}).is_parameter);
  EXPECT_NE(plain.Slice("f", {1}), plain.Slice("p"));
}

TEST(BufferAssignment, LoopFusionRunsInPlaceOnlyWhenElementwise) {
  Assigned r = Assign(R"(
HloModule m
elementwise {
  a = f32[4,5] parameter(0)
  e = f32[4,5] exponential(a)
  ROOT n = f32[4,5] negate(e)
}
transposing {
  a = f32[5,5] parameter(0)
  t = f32[5,5] transpose(a), dimensions={1,0}
  ROOT n = f32[5,5] negate(t)
}
ENTRY e {
  p = f32[4,5] parameter(0)
  q = f32[5,5] parameter(1)
  x = f32[4,5] sine(p)
  f = f32[4,5] fusion(x), kind=kLoop, calls=elementwise
  y = f32[5,5] sine(q)
  g = f32[5,5] fusion(y), kind=kLoop, calls=transposing
  ROOT t = (f32[4,5], f32[5,5]) tuple(f, g)
})");
  EXPECT_EQ(r.Slice("f"), r.Slice("x"));
  EXPECT_NE(r.Slice("g"), r.Slice("y"));
}

TEST(BufferAssignment, ReportsMissingCopies) {
  auto module = ParseHloModule(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT t = (f32[4], f32[4]) tuple(p, p)
})").value();
  HloSchedule schedule = ScheduleModule(*module, SchedulerOptions()).value();
  absl::StatusOr<BufferAssignment> a = AssignBuffers(*module, schedule, {});
  ASSERT_FALSE(a.ok());
  EXPECT_NE(std::string(a.status().message()).find("AddCopiesForWhileAndConditional"),
            std::string::npos)
      << a.status();
}

TEST(BufferAssignment, ToStringListsAllocationsSlicesAndStats) {
  Assigned r = Assign(R"(
HloModule m
ENTRY e {
  p = f32[10,10] parameter(0)
  a = f32[10,10] transpose(p), dimensions={1,0}
  ROOT d = f32[100] reshape(a)
})");
  const std::string text = r.assignment.ToString();
  EXPECT_NE(text.find("allocation 0: size=400 parameter=0{}"), std::string::npos) << text;
  EXPECT_NE(text.find("a{} -> allocation 2 [0, 400)"), std::string::npos) << text;
  EXPECT_NE(text.find("stats: temp_bytes=512 naive_temp_bytes=512"), std::string::npos) << text;
  EXPECT_EQ(text, r.assignment.ToString());
}

}  // namespace
}  // namespace xla

namespace xla {
namespace {

// Offloaded activations (MoveToHost results) live in a host-memory temp
// allocation of their own; nothing else does.
TEST(BufferAssignment, MoveToHostResultsGetTheHostTempAllocation) {
  Assigned a = Assign(R"(
HloModule m
ENTRY e {
  p = f32[5,3] parameter(0)
  x = f32[5,3] exponential(p)
  off = f32[5,3] custom-call(x), custom_call_target="MoveToHost"
  y = f32[5,3] negate(x)
  back = f32[5,3] custom-call(off), custom_call_target="MoveToDevice"
  ROOT r = f32[5,3] add(y, back)
})");
  const BufferAllocation& host = a.Allocation("off");
  EXPECT_TRUE(host.is_temp);
  EXPECT_EQ(host.memory_space, kHostMemorySpace);
  EXPECT_EQ(host.size, 256);  // 60 bytes, aligned
  EXPECT_EQ(a.assignment.host_temp_bytes(), 256);
  int host_allocations = 0;
  for (const BufferAllocation& alloc : a.assignment.allocations()) {
    host_allocations += alloc.memory_space == kHostMemorySpace ? 1 : 0;
  }
  EXPECT_EQ(host_allocations, 1);
  for (const char* device : {"x", "y", "back", "r", "p"}) {
    EXPECT_EQ(a.Allocation(device).memory_space, kDeviceMemorySpace) << device;
    EXPECT_NE(a.Slice(device).allocation, a.Slice("off").allocation) << device;
  }
  EXPECT_TRUE(absl::StrContains(a.assignment.ToString(), "temp memory_space=5"));
}

// An elementwise op whose operand dies at it may write in place, but never
// over an offloaded buffer: the two spaces never share bytes.
TEST(BufferAssignment, NoInPlaceAcrossMemorySpaces) {
  Assigned a = Assign(R"(
HloModule m
ENTRY e {
  p = f32[5,3] parameter(0)
  x = f32[5,3] exponential(p)
  off = f32[5,3] custom-call(x), custom_call_target="MoveToHost"
  n = f32[5,3] negate(off)
  ROOT r = f32[5,3] multiply(n, x)
})");
  EXPECT_EQ(a.Allocation("off").memory_space, kHostMemorySpace);
  EXPECT_EQ(a.Allocation("n").memory_space, kDeviceMemorySpace);
  EXPECT_NE(a.Slice("n").allocation, a.Slice("off").allocation);
}

// A MoveToHost result that is the entry's result is an output: device
// memory, as the caller receives it.
TEST(BufferAssignment, AnOffloadedResultStaysInDeviceMemory) {
  Assigned a = Assign(R"(
HloModule m
ENTRY e {
  p = f32[7] parameter(0)
  x = f32[7] exponential(p)
  ROOT off = f32[7] custom-call(x), custom_call_target="MoveToHost"
})");
  const BufferAllocation& out = a.Allocation("off");
  EXPECT_TRUE(out.is_output);
  EXPECT_EQ(out.memory_space, kDeviceMemorySpace);
  EXPECT_EQ(a.assignment.host_temp_bytes(), 0);
}

}  // namespace
}  // namespace xla
