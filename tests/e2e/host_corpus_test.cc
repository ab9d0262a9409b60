// Every corpus module that the evaluator can run and the host target can
// compile gives the evaluator's results when compiled, loaded and executed
// on the host platform (same random inputs, fixed seed; CompareOutputLeaf,
// the compiled-program check of `xla_aot run --reference`: errors are
// relative to each output's scale, since GEMMs and convolutions lowered to
// GEMMs accumulate in the output type while the evaluator uses f64).
//
// Every module is compiled with --emit_fft (fft into fft thunks) and
// --emit_host_transfers: a host transfer's recv gets the same data on both
// sides (HostSide), and the sends of both are compared like results. Modules
// with collectives are compiled with --emit_collectives for the
// device counts their collectives need (DeviceCountsForCollectives, as
// corpus_coverage_test) and run on that many host devices
// (ReplicatedExecutor), each participant on its own random inputs, against
// the replicated evaluator (EvaluateReplicated).
//
// Modules are skipped, with reasons counted and printed, when they do not
// verify, have no random inputs, are too large, exceed the evaluator's time
// limit or use something the evaluator refuses, or contain a construct
// named in kNamedSkips (each with its reason: several RNG state reads,
// send/recv between programs, tiled entry layouts). Any
// other compile error (Unimplemented included), load or execution error,
// or mismatch fails the test, as does comparing fewer than kMinCompared
// modules.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/aot/replicated_execution.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/evaluator/replicated_evaluator.h"
#include "xla/hlo/ir/collective_device_counts.h"
#include "xla/hlo/ir/hlo_opcode.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/testing/corpus.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/types/random_literal.h"

namespace xla::gpu {
namespace {

// Raise as the host target grows.
constexpr int kMinCompared = 100;
// Wall-clock budget for the whole test; modules after it are skipped.
constexpr double kBudgetSeconds = 300;
// Modules with more parameter elements than this are skipped (random input
// generation and evaluation of model-sized modules take minutes).
constexpr int64_t kMaxParameterElements = int64_t{1} << 18;
constexpr int64_t kMaxInstructions = 400;
// Replicated runs on more host devices than this are skipped (one thread
// and one evaluator per participant).
constexpr int64_t kMaxParticipants = 16;

// A send or recv to another program (not the host): a channel this test
// has no peer for.
bool ChannelToAnotherProgram(const HloInstruction& instr) {
  return (instr.opcode() == HloOpcode::kSend || instr.opcode() == HloOpcode::kRecv) &&
         !instr.GetBool(AttrId::kIsHostTransfer);
}
bool HasTiles(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) {
      if (HasTiles(e)) return true;
    }
    return false;
  }
  return shape.has_layout() && shape.layout().suffix.find("T(") != std::string::npos;
}

bool AnyInstruction(const HloModule& module, bool (*matches)(const HloInstruction&)) {
  for (const auto& c : module.computations()) {
    for (const auto& instr : c->instructions()) {
      if (matches(*instr)) return true;
    }
  }
  return false;
}

// A module predicate from an instruction predicate: some instruction matches.
template <bool (*kMatches)(const HloInstruction&)>
bool AnyOf(const HloModule& module) {
  return AnyInstruction(module, kMatches);
}

// The entry computation layout has tiles (TPU's `T(2,128)`), which
// physical_layout.h does not lay out at the runtime's boundary.
bool TiledEntryLayout(const HloModule& module) {
  const std::optional<ProgramShape>& layout = module.config().entry_computation_layout;
  if (!layout.has_value()) return false;
  return HasTiles(layout->result) || absl::c_any_of(layout->parameters, HasTiles);
}

bool ReadsRngState(const HloInstruction& instr) {
  return instr.opcode() == HloOpcode::kRngGetAndUpdateState ||
         (instr.opcode() == HloOpcode::kCustomCall &&
          instr.GetString(AttrId::kCustomCallTarget) == "GetRngSeed");
}

// More than one instruction reads and advances XLA's RNG state: which reads
// first is the schedule's choice (in XLA too), and the evaluator's order
// need not be the compiled program's.
bool SeveralRngStateReads(const HloModule& module) {
  int reads = 0;
  for (const auto& c : module.computations()) {
    for (const auto& instr : c->instructions()) reads += ReadsRngState(*instr);
  }
  return reads > 1;
}

// Constructs this test does not run, each with the reason: values the
// schedule chooses, what needs a peer the test does not provide, and what
// the runtime does not lay out (docs/architecture.md "Corpus coverage");
// none is "unimplemented". A
// module in which any instruction matches is skipped under that reason
// before compiling; every other compile error is a failure.
struct NamedSkip {
  bool (*matches)(const HloModule&);
  const char* reason;
};
constexpr NamedSkip kNamedSkips[] = {
    {SeveralRngStateReads,
     "several reads of XLA's RNG state (rng-get-and-update-state, GetRngSeed): their order, and "
     "so their values, is the schedule's choice; xla/aot:replicated_execution_test and "
     "tests/e2e:rng_state_test check the state"},
    {AnyOf<ChannelToAnotherProgram>,
     "send/recv without is_host_transfer: a channel to another program (in the corpus, "
     "token-only channels of () data), which this test has no peer for"},
    {TiledEntryLayout, "entry layout with tiles (TPU's T(2,128)), which the runtime does not lay out"},
};

// Opcodes whose thunks need a collective context: modules with any of them
// run through the replicated executor (even on one device).
constexpr HloOpcode kCollectiveOpcodes[] = {
    HloOpcode::kAllReduce,         HloOpcode::kAllReduceStart,
    HloOpcode::kAllGather,         HloOpcode::kAllGatherStart,
    HloOpcode::kReduceScatter,     HloOpcode::kAllToAll,
    HloOpcode::kCollectivePermute, HloOpcode::kCollectivePermuteStart,
    HloOpcode::kCollectiveBroadcast, HloOpcode::kReplicaId,
    HloOpcode::kPartitionId,
};

bool IsCollective(const HloInstruction& instr) {
  return absl::c_linear_search(kCollectiveOpcodes, instr.opcode());
}

int64_t ParameterElements(const HloModule& module) {
  int64_t n = 0;
  for (const HloInstruction* p : module.entry_computation()->parameter_instructions()) {
    std::vector<const Shape*> stack = {&p->shape()};
    while (!stack.empty()) {
      const Shape* s = stack.back();
      stack.pop_back();
      if (s->IsTuple()) {
        for (const Shape& e : s->tuple_shapes()) stack.push_back(&e);
      } else if (s->IsArray()) {
        n += s->ElementCount().value_or(int64_t{1} << 40);
      }
    }
  }
  return n;
}

int64_t InstructionCount(const HloModule& module) {
  int64_t n = 0;
  for (const auto& c : module.computations()) n += c->instruction_count();
  return n;
}

// The result leaves, depth-first; tokens (which hold nothing) left out, as
// the compiled program's results leave them out.
void Flatten(const Literal& literal, std::vector<const Literal*>* out) {
  if (literal.shape().IsToken()) return;
  if (!literal.shape().IsTuple()) {
    out->push_back(&literal);
    return;
  }
  for (const Literal& e : literal.tuple_elements()) Flatten(e, out);
}

// The first line of a message, cut to `n` characters (for the histogram).
std::string Reason(absl::string_view message, size_t n = 110) {
  std::string s(message.substr(0, message.find('\n')));
  return s.size() > n ? s.substr(0, n) : s;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// What one module gives: per participant, its expected result (the
// evaluator's) and the compiled program's result leaves; and the host
// sends of both sides (one participant).
struct Outcome {
  std::vector<Literal> expected;
  std::vector<std::vector<Literal>> actual;
  std::vector<Literal> expected_sends;
  std::vector<Literal> actual_sends;
};

// The host side of a module's host transfers, for the evaluator and for the
// compiled program: the n-th recv on channel C gets values drawn from
// (C, n) on both sides; sends are recorded into an Outcome (which must
// outlive the runs).
class HostSide {
 public:
  explicit HostSide(Outcome* outcome) {
    hook_.send = [outcome](int64_t, absl::string_view, const Literal& data) {
      outcome->expected_sends.push_back(data);
      return absl::OkStatus();
    };
    hook_.recv = [this](int64_t channel, absl::string_view, const Shape& shape) {
      return Draw(evaluator_recvs_, channel, shape);
    };
    callbacks_.send = [outcome](int64_t, absl::string_view, const Shape& shape,
                                absl::Span<const uint8_t> data) {
      Literal value(shape);
      if (value.data().size() != data.size()) return absl::InternalError("send size");
      if (!data.empty()) std::memcpy(value.mutable_data().data(), data.data(), data.size());
      outcome->actual_sends.push_back(std::move(value));
      return absl::OkStatus();
    };
    callbacks_.recv = [this](int64_t channel, absl::string_view, const Shape& shape,
                             absl::Span<uint8_t> data) -> absl::Status {
      absl::StatusOr<Literal> value = Draw(device_recvs_, channel, shape);
      if (!value.ok()) return value.status();
      if (value->data().size() != data.size()) return absl::InternalError("recv size");
      if (!data.empty()) std::memcpy(data.data(), value->data().data(), data.size());
      return absl::OkStatus();
    };
  }
  const HostTransferHook* hook() const { return &hook_; }
  const HostTransferCallbacks* callbacks() const { return &callbacks_; }

 private:
  static absl::StatusOr<Literal> Draw(std::map<int64_t, int64_t>& counts, int64_t channel,
                                      const Shape& shape) {
    if (!shape.IsArray()) return Literal(shape);
    const int64_t n = counts[channel]++;
    return MakeRandomLiteral(shape, 1000 * static_cast<uint64_t>(channel) + n);
  }

  HostTransferHook hook_;
  HostTransferCallbacks callbacks_;
  std::map<int64_t, int64_t> evaluator_recvs_;  // recvs so far per channel
  std::map<int64_t, int64_t> device_recvs_;
};

// The evaluator's results for `args[d]` on each participant: the single
// evaluator for a module without collectives, EvaluateReplicated otherwise.
absl::StatusOr<std::vector<Literal>> Evaluate(const HloModule& module, const DeviceCounts& counts,
                                              bool collectives,
                                              const std::vector<std::vector<Literal>>& args,
                                              const HostSide& host) {
  EvaluatorOptions eval_options;
  eval_options.time_limit_seconds = 1;
  eval_options.host_transfers = host.hook();
  if (!collectives) {
    absl::StatusOr<Literal> expected = HloEvaluator(eval_options).Evaluate(module, args[0]);
    if (!expected.ok()) return expected.status();
    std::vector<Literal> out;
    out.push_back(*std::move(expected));
    return out;
  }
  ReplicatedEvaluatorOptions options;
  options.num_replicas = counts.num_replicas;
  options.num_partitions = counts.num_partitions;
  options.timeout_seconds = 10;
  options.evaluator = eval_options;
  return EvaluateReplicated(module, args, options);
}

// Runs the loaded program on each participant: ExecuteOnLiterals on one host
// device without collectives, a ReplicatedExecutor on the participants'
// host devices otherwise.
absl::StatusOr<std::vector<std::vector<Literal>>> RunCompiled(
    aot::Executable& exe, const DeviceCounts& counts, bool collectives,
    const std::vector<std::vector<Literal>>& args, const HostSide& host) {
  if (!collectives) {
    aot::ExecuteOptions options;
    options.host_transfers = host.callbacks();
    absl::StatusOr<std::vector<Literal>> actual =
        aot::ExecuteOnLiterals(exe, testing::HostExecutor(), args[0], options);
    if (!actual.ok()) return actual.status();
    std::vector<std::vector<Literal>> out;
    out.push_back(*std::move(actual));
    return out;
  }
  aot::ReplicatedExecutionOptions options;
  options.num_replicas = counts.num_replicas;
  options.collective_timeout = absl::Seconds(10);
  absl::StatusOr<std::unique_ptr<aot::ReplicatedExecutor>> executor =
      aot::ReplicatedExecutor::Create(exe, options);
  if (!executor.ok()) return executor.status();
  return (*executor)->RunOnLiterals(args);
}

// Compares every participant's leaves; the first mismatch, naming the
// participant and leaf.
absl::Status Compare(const Outcome& outcome) {
  if (outcome.expected.size() != outcome.actual.size()) {
    return absl::InternalError(absl::StrCat(outcome.actual.size(), " participants ran, expected ",
                                            outcome.expected.size()));
  }
  for (size_t d = 0; d < outcome.expected.size(); ++d) {
    std::vector<const Literal*> leaves;
    Flatten(outcome.expected[d], &leaves);
    const std::vector<Literal>& actual = outcome.actual[d];
    if (leaves.size() != actual.size()) {
      return absl::InternalError(absl::StrCat("participant ", d, ": ", actual.size(),
                                              " results, expected ", leaves.size()));
    }
    for (size_t i = 0; i < leaves.size(); ++i) {
      if (absl::Status s = CompareOutputLeaf(*leaves[i], actual[i]); !s.ok()) {
        return absl::InternalError(absl::StrCat("participant ", d, " leaf ", i, ": ", s.message()));
      }
    }
  }
  if (outcome.expected_sends.size() != outcome.actual_sends.size()) {
    return absl::InternalError(absl::StrCat(outcome.actual_sends.size(), " host sends, expected ",
                                            outcome.expected_sends.size()));
  }
  for (size_t i = 0; i < outcome.expected_sends.size(); ++i) {
    if (!outcome.expected_sends[i].shape().IsArray()) continue;
    if (absl::Status s = CompareOutputLeaf(outcome.expected_sends[i], outcome.actual_sends[i]);
        !s.ok()) {
      return absl::InternalError(absl::StrCat("host send ", i, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

TEST(HostCompilerCorpus, CompiledModulesMatchTheEvaluator) {
  absl::StatusOr<std::vector<std::string>> files = ListCorpusFiles();
  ASSERT_TRUE(files.ok()) << files.status();
  const auto start = std::chrono::steady_clock::now();
  std::map<std::string, int> skipped;
  std::vector<std::string> failures;
  int compared = 0;
  int compared_replicated = 0;
  for (const std::string& path : *files) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > kBudgetSeconds) {
      ++skipped["over the test's time budget"];
      continue;
    }
    auto module = ParseHloModuleFile(path);
    if (!module.ok() || !VerifyModule(**module).ok()) {
      ++skipped["does not parse or verify"];
      continue;
    }
    if (ParameterElements(**module) > kMaxParameterElements ||
        InstructionCount(**module) > kMaxInstructions) {
      ++skipped["too large for this test"];
      continue;
    }
    absl::StatusOr<DeviceCounts> counts = DeviceCountsForCollectives(**module);
    if (!counts.ok()) {
      failures.push_back(absl::StrCat(path, ": device counts: ", counts.status().message()));
      continue;
    }
    if (counts->participants() > kMaxParticipants) {
      ++skipped[absl::StrCat("collectives over more than ", kMaxParticipants, " devices")];
      continue;
    }
    (*module)->mutable_config()->replica_count = counts->num_replicas;
    (*module)->mutable_config()->num_partitions = counts->num_partitions;
    const bool collectives = AnyInstruction(**module, IsCollective);
    const NamedSkip* named = nullptr;
    for (const NamedSkip& skip : kNamedSkips) {
      if (named == nullptr && skip.matches(**module)) named = &skip;
    }
    if (named != nullptr) {
      ++skipped[named->reason];
      continue;
    }
    std::vector<std::vector<Literal>> args;
    bool have_inputs = true;
    for (int64_t d = 0; d < (collectives ? counts->participants() : 1) && have_inputs; ++d) {
      auto inputs = MakeRandomInputs(**module, 42 + d);
      have_inputs = inputs.ok();
      if (have_inputs) args.push_back(*std::move(inputs));
    }
    if (!have_inputs) {
      ++skipped["no random inputs"];
      continue;
    }
    Outcome outcome;
    const HostSide host(&outcome);
    {
      absl::StatusOr<std::vector<Literal>> expected =
          Evaluate(**module, *counts, collectives, args, host);
      if (!expected.ok()) {
        ++skipped["evaluator: " + Reason(expected.status().message(), 60)];
        continue;
      }
      outcome.expected = *std::move(expected);
    }
    aot::CompileOptions options;
    options.target = "host";
    options.source_name = path;
    options.emit_collectives = true;
    options.emit_fft = true;
    options.emit_host_transfers = true;
    options.num_replicas = counts->num_replicas;
    options.num_partitions = counts->num_partitions;
    options.opt_level = 1;
    options.host_cpu_variants.clear();
    options.include_optimized_hlo = false;
    options.production_date = "2026-01-01T00:00:00Z";
    absl::StatusOr<aot::CompiledArtifact> compiled = aot::Compile(ReadFile(path), options);
    if (!compiled.ok()) {
      failures.push_back(absl::StrCat(path, ": compile: ", Reason(compiled.status().message(), 400)));
      continue;
    }
    auto exe = aot::Executable::LoadFromBytes(compiled->bytes);
    if (!exe.ok()) {
      failures.push_back(absl::StrCat(path, ": load: ", Reason(exe.status().message(), 400)));
      continue;
    }
    absl::StatusOr<std::vector<std::vector<Literal>>> actual =
        RunCompiled(**exe, *counts, collectives, args, host);
    if (!actual.ok()) {
      failures.push_back(absl::StrCat(path, ": execute: ", Reason(actual.status().message(), 400)));
      continue;
    }
    outcome.actual = *std::move(actual);
    if (absl::Status s = Compare(outcome); !s.ok()) {
      failures.push_back(absl::StrCat(path, ": ", Reason(s.message(), 400)));
      continue;
    }
    ++compared;
    compared_replicated += collectives;
  }
  std::printf("compared %d of %zu modules (%d on several devices or with collectives); %zu failures\n",
              compared, files->size(), compared_replicated, failures.size());
  for (const auto& [reason, count] : skipped) std::printf("  skipped %4d  %s\n", count, reason.c_str());
  for (const std::string& f : failures) std::printf("  FAILURE %s\n", f.c_str());
  EXPECT_TRUE(failures.empty()) << failures.size() << " modules failed (listed above)";
  EXPECT_GE(compared, kMinCompared);
}

}  // namespace
}  // namespace xla::gpu
