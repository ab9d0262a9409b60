// OffloadEmitter on its own, over modules that went through the middle end:
// which ops it owns, the async copy it emits (offload stream, slices), and
// where each async_done lands: never after an instruction that writes the
// bytes a copy reads or writes, or reads the bytes it writes (checked
// against the buffer assignment), and right before the first consumer of a
// MoveToDevice. The whole-artifact checks (host allocation, runs against the
// evaluator, the fake CUDA driver) are in xla/aot/offload_test.cc.
#include "xla/backends/gpu/compiler/offload_emitter.h"

#include <map>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/service/buffer_assignment/alias_analysis.h"
#include "xla/service/middle_end.h"

namespace xla::gpu {
namespace {

struct Compiled {
  std::unique_ptr<HloModule> module;
  MiddleEndResult middle;
};

std::unique_ptr<Compiled> MiddleEnd(absl::string_view hlo) {
  auto c = std::make_unique<Compiled>();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  c->module = std::move(*module);
  absl::StatusOr<MiddleEndResult> middle = RunMiddleEnd(c->module.get(), MiddleEndOptions());
  EXPECT_TRUE(middle.ok()) << middle.status();
  if (!middle.ok()) return nullptr;
  c->middle = std::move(*middle);
  return c;
}

// What driving the emitter over the entry gave: the thunks, and for each
// instruction the thunk count when its turn came (after JoinBefore).
struct Emitted {
  Thunks thunks;
  std::map<std::string, int> position;
  std::vector<const HloInstruction*> sequence;
};

Emitted EmitEntry(const Compiled& c) {
  Emitted e;
  int64_t next_id = 0;
  OffloadEmitter emitter(c.middle.schedule, *c.middle.assignment, [&] { return next_id++; });
  const HloComputation* entry = c.module->entry_computation();
  for (const HloInstruction* instr : c.middle.schedule.sequence(entry)) {
    emitter.JoinBefore(*instr, &e.thunks);
    e.position[instr->name()] = e.thunks.size();
    e.sequence.push_back(instr);
    if (OffloadEmitter::Handles(*instr)) {
      EXPECT_TRUE(emitter.Emit(*instr, &e.thunks).ok());
    }
  }
  emitter.JoinAll(*entry, &e.thunks);
  EXPECT_TRUE(emitter.UsedOffloadStream());
  return e;
}

constexpr char kForward[] = R"(
HloModule offload

ENTRY main {
  x = f32[7,5] parameter(0)
  w1 = f32[5,3] parameter(1)
  w2 = f32[3,5] parameter(2)
  h = f32[7,3] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[7,3] tanh(h)
  off = f32[7,3] custom-call(t), custom_call_target="MoveToHost"
  y = f32[7,5] dot(t, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[7,5] exponential(y)
  back = f32[7,3] custom-call(off), custom_call_target="MoveToDevice"
  g = f32[7,5] dot(back, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[7,5] multiply(z, g)
}
)";

TEST(OffloadEmitter, HandlesOnlyTheOffloadMarkers) {
  std::unique_ptr<Compiled> c = MiddleEnd(kForward);
  ASSERT_NE(c, nullptr);
  int handled = 0;
  for (const auto& instr : c->module->entry_computation()->instructions()) {
    handled += OffloadEmitter::Handles(*instr) ? 1 : 0;
  }
  EXPECT_EQ(handled, 2);
}

TEST(OffloadEmitter, EachMarkerIsAnAsyncCopyOnTheOffloadStream) {
  std::unique_ptr<Compiled> c = MiddleEnd(kForward);
  ASSERT_NE(c, nullptr);
  const Emitted e = EmitEntry(*c);
  const HloComputation* entry = c->module->entry_computation();
  int starts = 0, dones = 0;
  for (const ThunkProto& t : e.thunks) {
    if (t.has_async_done()) ++dones;
    if (!t.has_async_start()) continue;
    ++starts;
    EXPECT_EQ(t.async_start().stream_id(), kOffloadStream);
    ASSERT_EQ(t.async_start().thunks().thunks_size(), 1);
    const ThunkProto& copy = t.async_start().thunks().thunks(0);
    EXPECT_EQ(copy.execution_stream_id(), kOffloadStream);
    const HloInstruction* marker = entry->GetInstruction(t.profile_annotation());
    ASSERT_NE(marker, nullptr) << t.profile_annotation();
    const xla::BufferSlice src = *c->middle.assignment->GetSlice(marker->operand(0), {});
    const xla::BufferSlice dst = *c->middle.assignment->GetSlice(marker, {});
    EXPECT_EQ(copy.copy().source().allocation(), src.allocation);
    EXPECT_EQ(copy.copy().source().offset(), src.offset);
    EXPECT_EQ(copy.copy().destination().allocation(), dst.allocation);
    EXPECT_EQ(copy.copy().destination().size(), 7 * 3 * 4);
  }
  EXPECT_EQ(starts, 2);
  EXPECT_EQ(dones, 2);
}

// Safety against the buffer assignment: between a start and its done no
// instruction writes the copy's bytes or reads what it writes; and the
// MoveToDevice's done is right before its first consumer.
TEST(OffloadEmitter, DonesComeBeforeEveryRacingInstruction) {
  std::unique_ptr<Compiled> c = MiddleEnd(kForward);
  ASSERT_NE(c, nullptr);
  const Emitted e = EmitEntry(*c);
  const BufferAssignment& a = *c->middle.assignment;
  const HloComputation* entry = c->module->entry_computation();
  std::map<int64_t, int> start_at, done_at;
  std::map<int64_t, const HloInstruction*> marker_of;
  for (int i = 0; i < e.thunks.size(); ++i) {
    const ThunkProto& t = e.thunks[i];
    if (t.has_async_start()) {
      start_at[t.async_start().async_id()] = i;
      marker_of[t.async_start().async_id()] = entry->GetInstruction(t.profile_annotation());
    }
    if (t.has_async_done()) done_at[t.async_done().async_id()] = i;
  }
  ASSERT_EQ(start_at.size(), 2u);
  for (const auto& [id, start] : start_at) {
    const HloInstruction* marker = marker_of[id];
    const xla::BufferSlice src = *a.GetSlice(marker->operand(0), {});
    const xla::BufferSlice dst = *a.GetSlice(marker, {});
    ASSERT_TRUE(done_at.count(id));
    for (const HloInstruction* instr : e.sequence) {
      const int at = e.position.at(instr->name());
      if (at <= start || at > done_at[id] || OffloadEmitter::Handles(*instr)) continue;
      if (instr->opcode() == HloOpcode::kParameter) continue;
      // `instr` ran while the copy was in flight.
      for (const ShapeIndex& leaf : ArrayLeaves(instr->shape())) {
        const xla::BufferSlice w = *a.GetSlice(instr, leaf);
        bool forwarded = false;
        for (const HloInstruction* op : instr->operands()) {
          absl::StatusOr<xla::BufferSlice> r = a.GetSlice(op, {});
          forwarded |= IsForwardingInstruction(*instr) && r.ok() && *r == w;
        }
        if (forwarded) continue;
        EXPECT_FALSE(w.Overlaps(src) || w.Overlaps(dst))
            << instr->name() << " writes bytes of " << marker->name() << "'s copy in flight";
      }
      for (const HloInstruction* op : instr->operands()) {
        for (const ShapeIndex& leaf : ArrayLeaves(op->shape())) {
          EXPECT_FALSE(a.GetSlice(op, leaf)->Overlaps(dst))
              << instr->name() << " reads " << marker->name() << "'s result in flight";
        }
      }
    }
  }
  // back's done is the last thunk before g (its consumer) runs.
  const HloInstruction* back = entry->GetInstruction("back");
  ASSERT_NE(back, nullptr);
  const HloInstruction* consumer = back->users()[0];
  for (const auto& [id, marker] : marker_of) {
    if (marker == back) {
      EXPECT_EQ(done_at[id] + 1, e.position.at(consumer->name()));
    }
  }
}

}  // namespace
}  // namespace xla::gpu
