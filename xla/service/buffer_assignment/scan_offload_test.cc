// Scan-stack recognition (scan_offload.h): the scan of the design (a
// 5-trip loop stacking f32[33] rows through MoveToHost, read back in
// reverse by a second loop) and one near miss per condition, each of which
// stays on the device; then buffer assignment with the option on and off.
#include "xla/service/buffer_assignment/scan_offload.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/while_loop_trip_count.h"
#include "xla/service/buffer_assignment/buffer_assignment.h"
#include "xla/service/buffer_assignment/buffer_assignment_checker.h"
#include "xla/service/buffer_assignment/copy_insertion.h"
#include "xla/service/schedule/list_scheduler.h"
#include "xla/util/subprocess.h"

namespace xla {
namespace {

// A 5-trip scan that stacks f32[33] rows through MoveToHost into
// f32[5,33], and a second loop that reads them back in reverse through
// MoveToDevice (shared with the other scan_offload_test).
const std::string& ScanText() {
  static const std::string* text = [] {
    absl::StatusOr<std::string> bytes =
        ReadFileBytes("xla/service/buffer_assignment/testdata/scan_offload.hlo");
    if (!bytes.ok()) ADD_FAILURE() << bytes.status() << " (a data dependency of this test)";
    return new std::string(bytes.value_or(""));
  }();
  return *text;
}

struct Matched {
  std::unique_ptr<HloModule> module;
  std::vector<ScanStack> stacks;
  absl::Status fw_leaf3;  // MatchScanStack(fw, 3)
};

Matched Match(const std::string& text) {
  Matched m;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return m;
  m.module = *std::move(module);
  absl::StatusOr<AliasAnalysis> aa = AliasAnalysis::Run(*m.module);
  EXPECT_TRUE(aa.ok()) << aa.status();
  if (!aa.ok()) return m;
  m.stacks = FindScanStacks(*m.module, *aa);
  const HloInstruction* fw = m.module->entry_computation()->GetInstruction("fw");
  m.fw_leaf3 = MatchScanStack(*aa, *fw, 3).status();
  return m;
}

// ScanText() with `from` replaced by `to` (which must occur).
std::string With(absl::string_view from, absl::string_view to) {
  const std::string text = ScanText();
  EXPECT_TRUE(absl::StrContains(text, from)) << from;
  return absl::StrReplaceAll(text, {{from, to}});
}

// The near miss is no stack, and the reason names `condition`.
void ExpectMiss(const std::string& text, int condition, absl::string_view why) {
  Matched m = Match(text);
  EXPECT_TRUE(m.stacks.empty());
  EXPECT_EQ(m.fw_leaf3.code(), absl::StatusCode::kNotFound) << m.fw_leaf3;
  EXPECT_TRUE(absl::StrContains(m.fw_leaf3.message(), absl::StrCat("(condition ", condition)))
      << m.fw_leaf3;
  EXPECT_TRUE(absl::StrContains(m.fw_leaf3.message(), why)) << m.fw_leaf3;
}

TEST(ScanOffload, RecognizesTheScanAndItsReverseRead) {
  Matched m = Match(ScanText());
  ASSERT_TRUE(m.fw_leaf3.ok()) << m.fw_leaf3;
  ASSERT_EQ(m.stacks.size(), 1u);
  const ScanStack& s = m.stacks[0];
  EXPECT_EQ(s.loop->name(), "fw");
  EXPECT_EQ(s.leaf, 3);
  EXPECT_EQ(s.update->name(), "stack2");
  EXPECT_EQ(s.move_to_host->name(), "off");
  EXPECT_EQ(s.init->name(), "init");
  EXPECT_EQ(s.rows, 5);
  EXPECT_EQ(s.row_bytes, 33 * 4);
  EXPECT_EQ(s.base, 0);
  EXPECT_EQ(s.stride, 1);
  ASSERT_EQ(s.reads.size(), 1u);
  EXPECT_EQ(s.reads[0].slice->name(), "srow");
  EXPECT_EQ(s.reads[0].move_to_device->name(), "h");
  EXPECT_EQ(s.reads[0].loop->name(), "bw");
  EXPECT_EQ(s.reads[0].base, 4);  // row 4 - i
  EXPECT_EQ(s.reads[0].stride, -1);
}

// The init's rows are dead only when the scan writes every row before any
// loop reads one.
TEST(ScanOffload, TheInitIsDeadOnlyWhenEveryRowIsWrittenBeforeAnyRead) {
  Matched full = Match(ScanText());
  ASSERT_EQ(full.stacks.size(), 1u);
  EXPECT_EQ(full.stacks[0].trips, 5);
  EXPECT_TRUE(full.stacks[0].init_dead);
  // Four trips write rows 0-3: the backward loop still reads row 4, the
  // init's.
  Matched partial = Match(With("  n = s32[] constant(5)", "  n = s32[] constant(4)"));
  ASSERT_EQ(partial.stacks.size(), 1u);
  EXPECT_EQ(partial.stacks[0].trips, 4);
  EXPECT_FALSE(partial.stacks[0].init_dead);
  // Three trips of stride 2 write rows 0, 2 and 4 only.
  Matched strided = Match(absl::StrReplaceAll(
      ScanText(), {{"  n = s32[] constant(5)", "  n = s32[] constant(3)"},
                   {"dynamic-update-slice(stack, row, i, zero)",
                    "dynamic-update-slice(stack, row, i2x, zero)"},
                   {"  row = f32[1,33] reshape(off)",
                    "  row = f32[1,33] reshape(off)\n  two = s32[] constant(2)\n"
                    "  i2x = s32[] multiply(i, two)"}}));
  ASSERT_EQ(strided.stacks.size(), 1u);
  EXPECT_EQ(strided.stacks[0].stride, 2);
  EXPECT_FALSE(strided.stacks[0].init_dead);
  // The scan's own body reads row 4 - i, before later iterations write it.
  Matched own = Match(With("  c2 = f32[33] add(th, c)",
                           "  four = s32[] constant(4)\n"
                           "  back = s32[] subtract(four, i)\n"
                           "  prow = f32[1,33] dynamic-slice(stack, back, zero), "
                           "dynamic_slice_sizes={1,33}\n"
                           "  pr = f32[33] reshape(prow)\n"
                           "  pd = f32[33] custom-call(pr), custom_call_target=\"MoveToDevice\"\n"
                           "  thp = f32[33] add(th, pd)\n"
                           "  c2 = f32[33] add(thp, c)"));
  ASSERT_EQ(own.stacks.size(), 1u) << own.fw_leaf3;
  EXPECT_EQ(own.stacks[0].reads.size(), 2u);
  EXPECT_FALSE(own.stacks[0].init_dead);
  // The backward loop takes the init itself, not the scan's result.
  Matched early = Match(With("tuple(zero, g0, ws, stack)", "tuple(zero, g0, ws, init)"));
  ASSERT_EQ(early.stacks.size(), 1u) << early.fw_leaf3;
  EXPECT_FALSE(early.stacks[0].init_dead);
}

// Rows are in iteration numbers i, not counter values v: a counter from 6
// to 10 writing row v - 6 writes row i.
TEST(ScanOffload, RowsFollowTheIterationNumberNotTheCounter) {
  const std::string text = absl::StrReplaceAll(ScanText(), {{"  n = s32[] constant(5)", "  n = s32[] constant(11)"},
                                    {"tuple(zero, x, ws, init)", "tuple(six, x, ws, init)"},
                                    {"  z = f32[] constant(0)", "  z = f32[] constant(0)\n  six = s32[] constant(6)"},
                                    {"dynamic-update-slice(stack, row, i, zero)",
                                     "dynamic-update-slice(stack, row, i6, zero)"},
                                    {"  row = f32[1,33] reshape(off)",
                                     "  row = f32[1,33] reshape(off)\n  sixb = s32[] constant(6)\n  i6 = s32[] subtract(i, sixb)"}});
  Matched m = Match(text);
  ASSERT_TRUE(m.fw_leaf3.ok()) << m.fw_leaf3;
  EXPECT_EQ(m.stacks[0].base, 0);
  EXPECT_EQ(m.stacks[0].stride, 1);
}

TEST(ScanOffload, Condition1TheUpdateMustBeAMoveToHostRow) {
  ExpectMiss(With("row = f32[1,33] reshape(off)", "row = f32[1,33] reshape(h)"), 1,
             "not a MoveToHost result");
  ExpectMiss(With("dynamic-update-slice(stack, row, i, zero)",
                  "dynamic-update-slice(stack, row, i, i)"),
             1, "past the first is not the constant 0");
}

TEST(ScanOffload, Condition2TheRowIsAffineInAKnownCount) {
  ExpectMiss(With("  stack2 = f32[5,33] dynamic-update-slice(stack, row, i, zero)",
                  "  ii = s32[] multiply(i, i)\n"
                  "  stack2 = f32[5,33] dynamic-update-slice(stack, row, ii, zero)"),
             2, "not affine");
  // Six trips over five rows: the last one would clamp.
  ExpectMiss(With("  n = s32[] constant(5)", "  n = s32[] constant(6)"), 2,
             "the row leaves [0, 5) within 6 iterations of fw");
}

TEST(ScanOffload, Condition3EveryOtherReadIsARowIntoMoveToDevice) {
  ExpectMiss(With("ch = f32[33] cosine(h)", "ch = f32[33] cosine(sq)"), 3,
             "only use is not one MoveToDevice");
  ExpectMiss(With("  ROOT out = (f32[33], f32[33]) tuple(c, g)",
                  "  sn = f32[5,33] negate(stack)\n"
                  "  ROOT out = (f32[33], f32[33], f32[5,33]) tuple(c, g, sn)"),
             3, "at sn): a reader of the stack is not a dynamic-slice");
}

TEST(ScanOffload, Condition4TheInitIsAConstantBroadcastAndTheStackIsInternal) {
  ExpectMiss(With("  init = f32[5,33] broadcast(z), dimensions={}",
                  "  zx = f32[1] slice(x), slice={[0:1]}\n"
                  "  zs = f32[] reshape(zx)\n"
                  "  init = f32[5,33] broadcast(zs), dimensions={}"),
             4, "the init is not a broadcast of a constant");
  ExpectMiss(With("  ROOT out = (f32[33], f32[33]) tuple(c, g)",
                  "  ROOT out = (f32[33], f32[33], f32[5,33]) tuple(c, g, stack)"),
             4, "a result of the entry computation");
}

struct Assigned {
  std::unique_ptr<HloModule> module;
  BufferAssignment assignment;
  BufferSlice Slice(const std::string& computation, const std::string& name) const {
    const HloInstruction* instr = module->GetComputation(computation)->GetInstruction(name);
    return assignment.GetSlice(instr, {}).value();
  }
  bool InHost(const BufferSlice& s) const {
    return assignment.allocations()[s.allocation].memory_space == kHostMemorySpace;
  }
};

Assigned Assign(bool offload) {
  auto module = ParseHloModule(ScanText()).value();
  // As the pipeline does before fusion: copies hide the counters' inits.
  EXPECT_TRUE(WhileLoopTripCountAnnotator().Run(module.get()).ok());
  EXPECT_TRUE(AddCopiesForWhileAndConditional(module.get()).ok());
  HloSchedule schedule = ScheduleModule(*module, SchedulerOptions()).value();
  BufferAssignmentOptions options;
  options.offload_scan_stacks = offload;
  absl::StatusOr<BufferAssignment> a = AssignBuffers(*module, schedule, options);
  EXPECT_TRUE(a.ok()) << a.status();
  absl::Status checked = CheckBufferAssignment(*module, schedule, *a);
  EXPECT_TRUE(checked.ok()) << checked << "\n" << a->ToString();
  return {std::move(module), *std::move(a)};
}

TEST(ScanOffload, BufferAssignmentPutsTheStackInHostMemoryOnlyWhenAsked) {
  Assigned on = Assign(true);
  ASSERT_EQ(on.assignment.scan_stacks().size(), 1u);
  EXPECT_TRUE(on.assignment.scan_stacks()[0].init_dead);  // also past copy insertion
  EXPECT_TRUE(on.InHost(on.Slice("fwd_body", "stack2")));
  EXPECT_TRUE(on.InHost(on.Slice("bwd_body", "stack")));
  // The MoveToHost shares its operand's device bytes; the read shares its
  // MoveToDevice's.
  EXPECT_FALSE(on.InHost(on.Slice("fwd_body", "off")));
  EXPECT_EQ(on.Slice("fwd_body", "off"), on.Slice("fwd_body", "h"));
  EXPECT_EQ(on.Slice("bwd_body", "srow"), on.Slice("bwd_body", "h"));
  EXPECT_TRUE(absl::StrContains(on.assignment.ToString(),
                                "scan stack in host memory: fw{3} 5 rows of 132 bytes"));
  EXPECT_TRUE(absl::StrContains(on.assignment.ToString(), "; init init dropped (never read)"));
  Assigned off = Assign(false);
  EXPECT_TRUE(off.assignment.scan_stacks().empty());
  EXPECT_FALSE(off.InHost(off.Slice("fwd_body", "stack2")));
  EXPECT_TRUE(off.InHost(off.Slice("fwd_body", "off")));  // the activation alone, as before
}

}  // namespace
}  // namespace xla
