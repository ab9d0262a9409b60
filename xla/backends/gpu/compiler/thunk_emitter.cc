#include "xla/backends/gpu/compiler/thunk_emitter.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "xla/backends/gpu/codegen/host/kernel_symbol_name.h"
#include "xla/backends/gpu/compiler/collective_emitter.h"
#include "xla/backends/gpu/compiler/cudnn_convolution_emitter.h"
#include "xla/backends/gpu/compiler/fft_emitter.h"
#include "xla/backends/gpu/ffi/ffi_attribute_parser.h"
#include "xla/backends/gpu/compiler/host_kernel_backend.h"
#include "xla/backends/gpu/compiler/kernel_reuse.h"
#include "xla/backends/gpu/compiler/offload_emitter.h"
#include "xla/hlo/transforms/while_loop_trip_count.h"
#include "xla/backends/gpu/compiler/rng_state_emitter.h"
#include "xla/backends/gpu/compiler/send_recv_emitter.h"
#include "xla/backends/gpu/compiler/thunk_emission_util.h"
#include "xla/backends/gpu/ffi/ffi_registry.h"
#include "xla/backends/gpu/ffi/te_fused_attention.h"
#include "xla/backends/gpu/runtime/ffi_attribute_proto.h"
#include "xla/backends/gpu/codegen/host/single_op_fusion.h"
#include "xla/hlo/ir/backend_config_text.h"
#include "xla/hlo/transforms/sharding_annotation_remover.h"
#include "xla/service/canonicalize/cudnn_convolution_rewriter.h"
#include "xla/service/canonicalize/gemm_config.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/logging.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// A kernel's KernelArgAliasing from its operand and output slices: an
// output that is exactly an operand's slice is reached through that
// operand; every other argument is `noalias` when it overlaps no other.
KernelArgAliasing ArgAliasing(const std::vector<BufferSlice>& operands,
                              const std::vector<BufferSlice>& outputs) {
  KernelArgAliasing aliasing;
  std::vector<BufferSlice> all = operands;
  all.insert(all.end(), outputs.begin(), outputs.end());
  // reached_through[k]: the argument whose pointer reaches argument k.
  std::vector<size_t> reached_through(all.size());
  for (size_t k = 0; k < all.size(); ++k) reached_through[k] = k;
  for (size_t i = 0; i < outputs.size(); ++i) {
    int64_t aliased = -1;
    for (size_t j = 0; j < operands.size(); ++j) {
      if (operands[j] == outputs[i]) aliased = static_cast<int64_t>(j);
    }
    aliasing.output_aliases_operand.push_back(aliased);
    if (aliased >= 0) reached_through[operands.size() + i] = static_cast<size_t>(aliased);
  }
  for (size_t k = 0; k < all.size(); ++k) {
    bool alone = reached_through[k] == k;
    for (size_t m = 0; m < all.size() && alone; ++m) {
      if (m != k && reached_through[m] != k && all[k].Overlaps(all[m])) alone = false;
    }
    aliasing.noalias.push_back(alone);
  }
  return aliasing;
}

absl::Status Annotate(const HloInstruction& instr, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat("thunk emission of '", instr.name(), "' (",
                                                  HloOpcodeName(instr.opcode()),
                                                  "): ", status.message()));
}

bool HasComplexLeaf(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      if (HasComplexLeaf(s)) return true;
    }
    return false;
  }
  return shape.IsArray() && IsComplex(shape.element_type());
}

// The complex-typed value that makes `instr` unsupported, or nullptr: the
// innermost one (an op inside a fusion or a called computation, so the
// error names the op with no real form rather than the fusion around it),
// else `instr` itself or one of its operands. The host kernel emitters do
// not handle complex numbers (they CHECK-fail on them), so emission
// refuses them first.
const HloInstruction* FindComplexValue(const HloInstruction& instr, bool check_operands = true) {
  for (const HloComputation* called : instr.called_computations()) {
    for (const auto& inner : called->instructions()) {
      if (inner->opcode() == HloOpcode::kParameter) continue;
      if (const HloInstruction* found = FindComplexValue(*inner, /*check_operands=*/false)) {
        return found;
      }
    }
  }
  if (HasComplexLeaf(instr.shape())) return &instr;
  if (!check_operands) return nullptr;
  for (const HloInstruction* operand : instr.operands()) {
    if (HasComplexLeaf(operand->shape())) return operand;
  }
  return nullptr;
}

// Argument tables (EmittedKernel::argument_table): 8-byte entries, each
// table at a 256-byte boundary of the temp allocation (as buffer assignment
// aligns its buffers).
constexpr int64_t kArgumentTableEntryBytes = 8;
constexpr int64_t kArgumentTableAlignment = 256;

// Checks a te_fused_attn_* call against what the built-in handlers
// support (te_fused_attention.h): its attributes, and its operand and
// result shapes as the HLO gives them.
absl::Status CheckTeFusedAttentionCall(const HloInstruction& call, absl::string_view target,
                                       const ffi::Attributes& attributes) {
  absl::StatusOr<ffi::TeAttentionConfig> config = ffi::ParseTeAttentionConfig(target, attributes);
  if (!config.ok()) return config.status();
  std::vector<const Shape*> operands, results;
  for (const HloInstruction* operand : call.operands()) operands.push_back(&operand->shape());
  if (call.shape().IsTuple()) {
    for (const Shape& s : call.shape().tuple_shapes()) results.push_back(&s);
  } else {
    results.push_back(&call.shape());
  }
  return ffi::CheckTeAttentionShapes(target, *config,
                                     target == ffi::kTeFusedAttnBackwardTarget, operands,
                                     results);
}

// HLO's api_version (absent means API_VERSION_ORIGINAL, as in XLA).
CustomCallApiVersionProto ApiVersionOf(const HloInstruction& call) {
  static constexpr std::pair<absl::string_view, CustomCallApiVersionProto> kVersions[] = {
      {"API_VERSION_ORIGINAL", CUSTOM_CALL_API_VERSION_ORIGINAL},
      {"API_VERSION_STATUS_RETURNING", CUSTOM_CALL_API_VERSION_STATUS_RETURNING},
      {"API_VERSION_STATUS_RETURNING_UNIFIED", CUSTOM_CALL_API_VERSION_STATUS_RETURNING_UNIFIED},
      {"API_VERSION_TYPED_FFI", CUSTOM_CALL_API_VERSION_TYPED_FFI},
  };
  const std::string& written = call.GetString(AttrId::kApiVersion);
  for (const auto& [name, version] : kVersions) {
    if (written == name) return version;
  }
  return CUSTOM_CALL_API_VERSION_ORIGINAL;
}

class Emitter {
 public:
  Emitter(const HloModule& module, const HloSchedule& schedule,
          const BufferAssignment& assignment, KernelBackend* backend,
          GpuExecutablePayloadProto* payload, const ThunkEmitterOptions& options)
      : collectives_(module, schedule, assignment, options.emit_collectives),
        offload_(schedule, assignment, [this] { return collectives_.NewAsyncId(); }),
        module_(module),
        schedule_(schedule),
        assignment_(assignment),
        backend_(backend),
        payload_(payload),
        allowed_custom_calls_(options.allowed_custom_calls.begin(),
                              options.allowed_custom_calls.end()),
        reuse_kernels_(options.reuse_kernels),
        tf32_gemms_(options.tf32_gemms),
        emit_fft_(options.emit_fft),
        emit_host_transfers_(options.emit_host_transfers),
        f32_dot_default_precision_(options.f32_dot_default_precision),
        kernel_observer_(options.kernel_observer) {}

  absl::Status Run() {
    const HloComputation* entry = module_.entry_computation();
    if (entry == nullptr) return absl::InvalidArgumentError("thunk emission: module has no entry");
    payload_->set_module_name(module_.name());
    *payload_->mutable_program_shape() = ProgramShapeToProto(entry->ComputeProgramShape());
    payload_->set_num_streams(1);
    if (module_.config().replica_count.value_or(1) > 1) payload_->set_num_replicas(*module_.config().replica_count);
    if (module_.config().num_partitions.value_or(1) > 1) {
      payload_->set_num_partitions(*module_.config().num_partitions);
    }
    RETURN_IF_ERROR(EmitAllocations());
    RETURN_IF_ERROR(EmitOutputsAndAliases());
    RETURN_IF_ERROR(EmitComputation(*entry, payload_->mutable_thunks()));
    if (collectives_.UsedCollectiveStream()) payload_->set_num_streams(kCollectiveStream + 1);
    if (offload_.UsedOffloadStream()) payload_->set_num_streams(kOffloadStream + 1);
    return absl::OkStatus();
  }

 private:
  absl::Status EmitAllocations() {
    std::map<std::string, int64_t> constant_by_content;
    for (const BufferAllocation& a : assignment_.allocations()) {
      BufferAllocationProto* p = payload_->add_allocations();
      p->set_index(a.index);
      p->set_size(a.size);
      p->set_is_output(a.is_output);
      p->set_is_temp(a.is_temp);
      if (a.memory_space != kDeviceMemorySpace) p->set_memory_space(a.memory_space);
      if (a.is_parameter) {
        if (!a.parameter_shape_index.empty()) {
          return absl::UnimplementedError(absl::StrCat(
              "thunk emission: parameter ", a.parameter_number,
              " is a tuple; the runtime supports only array parameters (flatten the entry "
              "signature)"));
        }
        p->set_is_parameter(true);
        p->set_parameter_number(a.parameter_number);
      }
      if (a.is_constant) {
        XLA_CHECK(a.constant != nullptr) << "constant allocation without instruction";
        if (!a.constant->has_literal() || a.constant->literal().elided()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "constant '", a.constant->name(),
              "' has no value (the HLO text elides it as {...}); the compiler needs every "
              "constant's value: print the module with full constants"));
        }
        const Literal* literal = &a.constant->literal();
        for (int64_t i : a.constant_shape_index) literal = &literal->tuple_elements()[i];
        std::string content(reinterpret_cast<const char*>(literal->data().data()),
                            literal->data().size());
        auto [it, inserted] =
            constant_by_content.emplace(content, payload_->constants_size());
        if (inserted) {
          ConstantProto* c = payload_->add_constants();
          c->set_content(content);
          *c->mutable_shape() = ShapeToProto(literal->shape());
        }
        p->set_is_constant(true);
        p->set_constant_index(it->second);
      }
    }
    return EmitEmptyParameterAllocations();
  }

  // A zero-byte allocation for each entry parameter the assignment gave
  // none (a token or an empty tuple: nothing to store), so that the
  // runtime's table has one per parameter and the caller passes an empty
  // buffer for it.
  absl::Status EmitEmptyParameterAllocations() {
    std::set<int64_t> assigned;
    for (const BufferAllocation& a : assignment_.allocations()) {
      if (a.is_parameter) assigned.insert(a.parameter_number);
    }
    const HloComputation* entry = module_.entry_computation();
    for (int64_t i = 0; i < entry->num_parameters(); ++i) {
      if (assigned.count(i) > 0) continue;
      const Shape& shape = entry->parameter_instruction(i)->shape();
      if (!shape.IsToken() && !(shape.IsTuple() && shape.tuple_shapes().empty())) {
        return absl::InternalError(absl::StrCat("thunk emission: parameter ", i, " (",
                                                shape.ToString(false), ") has no allocation"));
      }
      BufferAllocationProto* p = payload_->add_allocations();
      p->set_index(payload_->allocations_size() - 1);
      p->set_is_parameter(true);
      p->set_parameter_number(i);
    }
    return absl::OkStatus();
  }

  absl::Status EmitOutputsAndAliases() {
    const auto& aliases = module_.config().input_output_alias;
    for (const auto& [index, slice] : assignment_.output_slices()) {
      OutputProto* o = payload_->add_outputs();
      for (int64_t i : index) o->add_shape_index(i);
      *o->mutable_slice() = SliceToProto(slice);
      const BufferAllocation& a = assignment_.allocations()[slice.allocation];
      if (!a.is_parameter) continue;
      InputOutputAliasProto* alias = payload_->add_input_output_aliases();
      for (int64_t i : index) alias->add_output_shape_index(i);
      alias->set_parameter_number(a.parameter_number);
      alias->set_kind(ALIAS_KIND_MAY_ALIAS);
      for (const InputOutputAlias& declared : aliases) {
        if (declared.output_index == index && declared.parameter_number == a.parameter_number &&
            declared.kind == "must-alias") {
          alias->set_kind(ALIAS_KIND_MUST_ALIAS);
        }
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<BufferSlice> Slice(const HloInstruction* instr, const ShapeIndex& index) const {
    return assignment_.GetSlice(instr, index);
  }

  absl::StatusOr<BufferSliceProto> SliceProto(const HloInstruction* instr,
                                              const ShapeIndex& index) const {
    ASSIGN_OR_RETURN(BufferSlice s, Slice(instr, index));
    return SliceToProto(s);
  }

  // AliasOrCopy (thunk_emission_util.h) over this module's assignment.
  absl::Status AliasOrCopy(const HloInstruction& annotate, const HloInstruction* src,
                           const ShapeIndex& src_index, const HloInstruction* dst,
                           const ShapeIndex& dst_index, Thunks* out) {
    return gpu::AliasOrCopy(assignment_, annotate, src, src_index, dst, dst_index, out);
  }

  absl::Status EmitComputation(const HloComputation& computation, Thunks* out) {
    if (!schedule_.has_sequence(&computation)) {
      return absl::InvalidArgumentError(absl::StrCat("thunk emission: computation '",
                                                     computation.name(), "' has no schedule"));
    }
    for (const HloInstruction* instr : schedule_.sequence(&computation)) {
      offload_.JoinBefore(*instr, out);
      RETURN_IF_ERROR(Annotate(*instr, EmitInstruction(*instr, out)));
    }
    offload_.JoinAll(computation, out);
    return absl::OkStatus();
  }

  absl::Status EmitInstruction(const HloInstruction& instr, Thunks* out) {
    const HloOpcode op = instr.opcode();
    if (op == HloOpcode::kParameter || op == HloOpcode::kConstant) return absl::OkStatus();
    if (op == HloOpcode::kTuple) {
      for (int64_t i = 0; i < instr.operand_count(); ++i) {
        RETURN_IF_ERROR(AliasOrCopy(instr, instr.operand(i), {}, &instr, {i}, out));
      }
      return absl::OkStatus();
    }
    if (op == HloOpcode::kGetTupleElement) {
      return AliasOrCopy(instr, instr.operand(0), {instr.tuple_index()}, &instr, {}, out);
    }
    // Pass-throughs: the result is operand 0's value (tokens have no bytes).
    if (op == HloOpcode::kBitcast || op == HloOpcode::kOptimizationBarrier ||
        op == HloOpcode::kAddDependency) {
      return AliasOrCopy(instr, instr.operand(0), {}, &instr, {}, out);
    }
    if (op == HloOpcode::kAfterAll) return absl::OkStatus();
    if (op == HloOpcode::kCopy && instr.shape().IsArray() &&
        instr.operand(0)->shape().has_layout() == instr.shape().has_layout() &&
        (!instr.shape().has_layout() ||
         instr.operand(0)->shape().layout() == instr.shape().layout())) {
      return AliasOrCopy(instr, instr.operand(0), {}, &instr, {}, out);
    }
    // Scan stacks in host memory: their update and reads become row copies.
    if (offload_.HandlesScanStack(instr)) return offload_.EmitScanStack(instr, out);
    if (op == HloOpcode::kFusion || CanWrapInFusion(instr)) {
      if (const HloInstruction* complex = FindComplexValue(instr)) {
        return Unimplemented(instr, absl::StrCat("the ", backend_->TargetName(),
                                                 " kernel emitters do not support complex "
                                                 "numbers (", complex->name(), ", a ",
                                                 HloOpcodeName(complex->opcode()), ", is ",
                                                 complex->shape().ToString(), ")"));
      }
    }
    if (op == HloOpcode::kFusion) return EmitKernel(instr, instr, instr.operands(), out);
    if (op == HloOpcode::kDot) return EmitGemm(instr, out);
    if (op == HloOpcode::kFft) return EmitFft(instr, out);
    if (op == HloOpcode::kWhile) return EmitWhile(instr, out);
    if (op == HloOpcode::kConditional) return EmitConditional(instr, out);
    // Offloading markers become async copies before the generic custom-call
    // path sees them.
    if (OffloadEmitter::Handles(instr)) return offload_.Emit(instr, out);
    if (IsScaledFp8GemmCall(instr)) return EmitGemm(instr, out);
    if (IsCudnnConvolutionCall(instr)) return EmitCudnnConvolution(instr, out);
    if (op == HloOpcode::kCustomCall) return EmitCustomCall(instr, out);
    if (CollectiveEmitter::IsCollective(op)) return collectives_.Emit(instr, out);
    if (CanWrapInFusion(instr)) return EmitWrapped(instr, out);
    if (op == HloOpcode::kRngGetAndUpdateState) return EmitRngState(instr, out);
    if (IsSendOrRecv(op)) return EmitSendOrRecv(instr, assignment_, emit_host_transfers_, out);
    if (op == HloOpcode::kRngBitGenerator) {
      // RngBitGeneratorExpander expands every supported form before this.
      return Unimplemented(instr, "unsupported rng-bit-generator form: the state must be "
                                  "u64[2] (or u64[3] for rng_philox/rng_default) and the bits an "
                                  "integer or float array of at most 64-bit elements");
    }
    return Unimplemented(instr, absl::StrCat("no thunk emission for this opcode on the ",
                                             backend_->TargetName(), " target"));
  }

  // Emits `fusion`'s kernel; `owner` is the instruction whose buffers the
  // kernel writes and `operands` are the instructions whose buffers it
  // reads, in the fusion's operand order (they differ from the fusion's own
  // for a scratch-wrapped op).
  absl::Status EmitKernel(const HloInstruction& owner, const HloInstruction& fusion,
                          const std::vector<HloInstruction*>& operands, Thunks* out) {
    std::vector<BufferSlice> operand_slices;
    for (const HloInstruction* operand : operands) {
      if (!operand->shape().IsArray()) {
        return Unimplemented(owner, absl::StrCat("operand '", operand->name(),
                                                 "' is not an array"));
      }
      ASSIGN_OR_RETURN(BufferSlice s, Slice(operand, {}));
      operand_slices.push_back(s);
    }
    return EmitKernelOnSlices(owner, fusion, operand_slices, out);
  }

  // EmitKernel with the operands' slices given.
  absl::Status EmitKernelOnSlices(const HloInstruction& owner, const HloInstruction& fusion,
                                  const std::vector<BufferSlice>& operand_slices, Thunks* out) {
    const std::vector<ShapeIndex> leaves = ArrayLeaves(owner.shape());
    std::vector<BufferSlice> output_slices;
    for (const ShapeIndex& leaf : leaves) {
      ASSIGN_OR_RETURN(BufferSlice s, Slice(&owner, leaf));
      output_slices.push_back(s);
    }
    const KernelArgAliasing aliasing = ArgAliasing(operand_slices, output_slices);
    std::string reuse_key;
    std::optional<ReusableKernel> reused;
    if (reuse_kernels_) {
      reuse_key = KernelReuseKey(fusion, aliasing);
      reused = reuse_.Find(reuse_key);
    }
    if (!reused.has_value()) {
      const std::string symbol = KernelSymbolName(owner.name(), &used_symbols_);
      ReusableKernel emitted;
      ASSIGN_OR_RETURN(emitted.kernel,
                       TimedEmission(owner.name(), FusedInstructionCount(fusion), [&] {
                         return backend_->EmitFusionKernel(fusion, symbol, aliasing);
                       }));
      if (emitted.kernel.launch.grid_x() != 0) {
        emitted.kernel_index = payload_->kernels_size();
        KernelProto* kernel = payload_->add_kernels();
        kernel->set_name(emitted.kernel.symbol);
        RETURN_IF_ERROR(backend_->DescribeKernel(emitted.kernel, kernel));
      }
      if (reuse_kernels_) reuse_.Add(std::move(reuse_key), emitted);
      reused = std::move(emitted);
    }
    return AddKernelThunk(owner, *reused, operand_slices, output_slices, out);
  }

  // `emit()`'s kernel; with a kernel observer, also reports it with the
  // wall time `emit` took, as the kernel of instruction `owner` made of
  // `instructions` HLO instructions.
  template <typename Emit>
  absl::StatusOr<EmittedKernel> TimedEmission(absl::string_view owner, int64_t instructions,
                                              Emit emit) {
    if (!kernel_observer_) return emit();
    const absl::Time start = absl::Now();
    absl::StatusOr<EmittedKernel> kernel = emit();
    const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
    if (kernel.ok()) {
      kernel_observer_({kernel->symbol, std::string(owner), kernel->kind, instructions, seconds});
    }
    return kernel;
  }

  static int64_t FusedInstructionCount(const HloInstruction& fusion) {
    const std::vector<HloComputation*> called = fusion.called_computations();
    return called.empty() ? 1 : called.front()->instruction_count();
  }

  // A kernel thunk launching `kernel` (nothing when it has no kernel-table
  // entry) with its args resolved against `operand_slices` and
  // `output_slices`.
  absl::Status AddKernelThunk(const HloInstruction& owner, const ReusableKernel& kernel,
                              const std::vector<BufferSlice>& operand_slices,
                              const std::vector<BufferSlice>& output_slices, Thunks* out) {
    const EmittedKernel& info = kernel.kernel;
    const int64_t kernel_index = kernel.kernel_index;
    if (kernel_index < 0) return absl::OkStatus();
    KernelThunkProto* thunk = AddThunk(owner, out)->mutable_kernel();
    thunk->set_kernel_index(kernel_index);
    for (const KernelArgRef& arg : info.args) {
      const std::vector<BufferSlice>& table = arg.is_output ? output_slices : operand_slices;
      if (arg.index < 0 || arg.index >= static_cast<int64_t>(table.size())) {
        return absl::InternalError(absl::StrCat("kernel argument ", arg.index, " out of range"));
      }
      *thunk->add_args() = SliceToProto(table[arg.index]);
    }
    *thunk->mutable_launch_dimensions() = info.launch;
    if (info.argument_table) {
      *thunk->mutable_argument_table() = ReserveArgumentTable(thunk->args_size());
    }
    return absl::OkStatus();
  }

  // A slice of `num_args` 8-byte entries at the end of the temp allocation
  // (added when the module has none), for one kernel's argument table. Each
  // table has its own bytes: the runtime rewrites it before every launch,
  // and a table shared by kernels on different streams would race.
  BufferSliceProto ReserveArgumentTable(int64_t num_args) {
    BufferAllocationProto* temp = TempAllocation();
    BufferSliceProto slice;
    slice.set_allocation(temp->index());
    slice.set_offset(RoundUp(temp->size(), kArgumentTableAlignment));
    slice.set_size(kArgumentTableEntryBytes * num_args);
    temp->set_size(slice.offset() + slice.size());
    return slice;
  }

  // The temp allocation, added when the module has none.
  BufferAllocationProto* TempAllocation() {
    for (BufferAllocationProto& a : *payload_->mutable_allocations()) {
      if (a.is_temp()) return &a;
    }
    BufferAllocationProto* temp = payload_->add_allocations();
    temp->set_index(payload_->allocations_size() - 1);
    temp->set_is_temp(true);
    return temp;
  }

  // The cuDNN workspace every convolution thunk shares (they all run on the
  // compute stream): CudnnWorkspaceBound's largest value over the module's
  // cuDNN convolutions, reserved at the end of the temp allocation on first
  // use (cudnn_convolution_emitter.h).
  BufferSliceProto CudnnWorkspace() {
    if (cudnn_workspace_.has_value()) return *cudnn_workspace_;
    int64_t bytes = 0;
    for (const auto& computation : module_.computations()) {
      for (const auto& instr : computation->instructions()) {
        if (IsCudnnConvolutionCall(*instr)) bytes = std::max(bytes, CudnnWorkspaceBound(*instr));
      }
    }
    BufferAllocationProto* temp = TempAllocation();
    BufferSliceProto slice;
    slice.set_allocation(temp->index());
    slice.set_offset(RoundUp(temp->size(), kArgumentTableAlignment));
    slice.set_size(bytes);
    temp->set_size(slice.offset() + slice.size());
    cudnn_workspace_ = slice;
    return slice;
  }

  // A convolution custom call of CudnnConvolutionRewriter: a convolution
  // thunk.
  absl::Status EmitCudnnConvolution(const HloInstruction& call, Thunks* out) {
    const bool tf32 = tf32_gemms_ && DotAllowsTf32(call, f32_dot_default_precision_);
    ASSIGN_OR_RETURN(ConvolutionThunkProto config, CudnnConvolutionThunkConfig(call, tf32));
    ASSIGN_OR_RETURN(BufferSliceProto operand, SliceProto(call.operand(0), {}));
    ASSIGN_OR_RETURN(BufferSliceProto filter, SliceProto(call.operand(1), {}));
    ASSIGN_OR_RETURN(BufferSliceProto result, SliceProto(&call, {}));
    // Forward: (x, w) -> y; backward data: (dy, w) -> dx; backward filter:
    // (x, dy) -> dw.
    const bool data = config.kind() == CONVOLUTION_KIND_BACKWARD_DATA;
    const bool weights = config.kind() == CONVOLUTION_KIND_BACKWARD_FILTER;
    *config.mutable_input() = data ? result : operand;
    *config.mutable_filter() = weights ? result : filter;
    *config.mutable_output() = data ? operand : weights ? filter : result;
    *config.mutable_workspace() = CudnnWorkspace();
    if (IsFusedEpilogue(call)) {
      ASSIGN_OR_RETURN(BufferSliceProto bias, SliceProto(call.operand(2), {}));
      *config.mutable_bias() = std::move(bias);
    }
    *AddThunk(call, out)->mutable_convolution() = std::move(config);
    return absl::OkStatus();
  }

  // An fft: an fft thunk (fft_emitter.h) with its own workspace at the end
  // of the temp allocation when it needs one (IRFFT), or Unimplemented
  // naming --emit_fft while the rollout is at stage 1.
  absl::Status EmitFft(const HloInstruction& fft, Thunks* out) {
    if (!emit_fft_) {
      return Unimplemented(fft, "fft runs through an FFT library thunk, a staged rollout: compile "
                                "with --emit_fft (runtimes from 2026-12-02 read it)");
    }
    ASSIGN_OR_RETURN(FftThunkProto config, FftThunkConfig(fft));
    ASSIGN_OR_RETURN(*config.mutable_input(), SliceProto(fft.operand(0), {}));
    ASSIGN_OR_RETURN(*config.mutable_output(), SliceProto(&fft, {}));
    if (const int64_t bytes = FftWorkspaceBound(config); bytes > 0) {
      BufferAllocationProto* temp = TempAllocation();
      BufferSliceProto* ws = config.mutable_workspace();
      ws->set_allocation(temp->index());
      ws->set_offset(RoundUp(temp->size(), kArgumentTableAlignment));
      ws->set_size(bytes);
      temp->set_size(ws->offset() + ws->size());
    }
    *AddThunk(fft, out)->mutable_fft() = std::move(config);
    return absl::OkStatus();
  }

  // A lone op: cloned into a scratch module over fresh parameters (one per
  // distinct operand, first-use order, as WrapInFusion orders the fusion's
  // operands), wrapped into a fusion there, and emitted against the
  // original instruction's buffers.
  absl::Status EmitWrapped(const HloInstruction& instr, Thunks* out) {
    std::vector<HloInstruction*> distinct;
    for (HloInstruction* operand : instr.operands()) {
      bool seen = false;
      for (HloInstruction* d : distinct) seen |= d == operand;
      if (!seen) distinct.push_back(operand);
    }
    HloModule scratch(absl::StrCat("scratch_", instr.name()));
    auto computation = std::make_unique<HloComputation>(absl::StrCat("scratch_", instr.name()));
    std::vector<HloInstruction*> params;
    for (size_t i = 0; i < distinct.size(); ++i) {
      params.push_back(computation->AddInstruction(HloInstruction::CreateParameter(
          static_cast<int64_t>(i), distinct[i]->shape(), absl::StrCat("p", i))));
    }
    std::vector<HloInstruction*> new_operands;
    for (HloInstruction* operand : instr.operands()) {
      for (size_t i = 0; i < distinct.size(); ++i) {
        if (distinct[i] == operand) new_operands.push_back(params[i]);
      }
    }
    HloInstruction* clone = computation->AddInstruction(
        instr.CloneWithNewOperands(instr.shape(), new_operands, instr.name()));
    computation->set_root_instruction(clone);
    HloComputation* added = scratch.AddComputation(std::move(computation));
    scratch.set_entry_computation(added);
    ASSIGN_OR_RETURN(HloInstruction * fusion, WrapInFusion(clone));
    if (fusion->operand_count() != static_cast<int64_t>(distinct.size())) {
      return absl::InternalError("wrapped fusion has an unexpected operand count");
    }
    for (int64_t i = 0; i < fusion->operand_count(); ++i) {
      if (fusion->operand(i) != params[i]) {
        return absl::InternalError("wrapped fusion's operands are not in first-use order");
      }
    }
    return EmitKernel(instr, *fusion, distinct, out);
  }

  // rng-get-and-update-state: a kernel on the program's state constant
  // (rng_state_emitter.h), added with the first such instruction.
  absl::Status EmitRngState(const HloInstruction& instr, Thunks* out) {
    if (!rng_state_.has_value()) rng_state_ = AddRngStateAllocation(payload_);
    ASSIGN_OR_RETURN(RngStateFusion scratch, MakeRngStateFusion(instr));
    return EmitKernelOnSlices(instr, *scratch.fusion, {*rng_state_}, out);
  }

  // A dot, or an FP8 GEMM call with its scales (IsScaledFp8GemmCall).
  absl::Status EmitGemm(const HloInstruction& dot, Thunks* out) {
    ASSIGN_OR_RETURN(GemmConfig config, GetGemmConfig(dot));
    // An fp8 dot the middle end kept (sm_90, --fp8_gemm=cublaslt) runs in
    // cuBLASLt with per-operand types (runtime feature "gemm.fp8"), and the
    // scales fp8-gemm-scale-folder gave it as cuBLASLt's A/B scales.
    const bool fp8 = IsCublasLtFp8Gemm(config);
    const bool scaled = dot.opcode() == HloOpcode::kCustomCall;
    if (scaled && !fp8) {
      return Unimplemented(dot, "an FP8 GEMM call needs fp8 operands in cuBLASLt's TN form with m, "
                                "n, k multiples of 16 (fp8-gemm-scale-folder makes only such calls)");
    }
    if (!fp8 && (config.lhs_type != config.output_type || config.rhs_type != config.output_type ||
                 !IsGemmElementType(config.output_type))) {
      return Unimplemented(dot, absl::StrCat("the GEMM thunk (the host's GEMM, cuBLAS) supports f16, "
                                             "bf16, f32 and f64 with equal operand and result "
                                             "types (narrower operands that convert exactly are "
                                             "widened before), got ",
                                             PrimitiveTypeName(config.lhs_type), " x ",
                                             PrimitiveTypeName(config.rhs_type), " -> ",
                                             PrimitiveTypeName(config.output_type)));
    }
    ASSIGN_OR_RETURN(BufferSliceProto lhs, SliceProto(dot.operand(0), {}));
    ASSIGN_OR_RETURN(BufferSliceProto rhs, SliceProto(dot.operand(1), {}));
    ASSIGN_OR_RETURN(BufferSliceProto output, SliceProto(&dot, {}));
    if (output.size() == 0) return absl::OkStatus();
    GemmThunkProto* gemm = AddThunk(dot, out)->mutable_gemm();
    *gemm->mutable_lhs() = lhs;
    *gemm->mutable_rhs() = rhs;
    *gemm->mutable_output() = output;
    gemm->set_element_type(PrimitiveTypeToProto(config.output_type));
    if (fp8) {
      gemm->set_lhs_type(PrimitiveTypeToProto(config.lhs_type));
      gemm->set_rhs_type(PrimitiveTypeToProto(config.rhs_type));
    }
    if (scaled) {
      ASSIGN_OR_RETURN(*gemm->mutable_lhs_scale(), SliceProto(dot.operand(2), {}));
      ASSIGN_OR_RETURN(*gemm->mutable_rhs_scale(), SliceProto(dot.operand(3), {}));
    }
    if (tf32_gemms_ && config.output_type == PrimitiveType::F32 &&
        config.lhs_type == PrimitiveType::F32 && config.rhs_type == PrimitiveType::F32 &&
        DotAllowsTf32(dot, f32_dot_default_precision_)) {
      gemm->set_allow_tf32(true);
    }
    gemm->set_m(config.m);
    gemm->set_n(config.n);
    gemm->set_k(config.k);
    gemm->set_transpose_lhs(config.transpose_lhs);
    gemm->set_transpose_rhs(config.transpose_rhs);
    gemm->set_batch_size(config.batch);
    gemm->set_lhs_batch_stride(config.lhs_batch_stride);
    gemm->set_rhs_batch_stride(config.rhs_batch_stride);
    gemm->set_output_batch_stride(config.output_batch_stride);
    gemm->set_alpha(1.0);
    gemm->set_beta(0.0);
    return absl::OkStatus();
  }

  // A custom call: a custom-call thunk when the target is an FFI handler
  // of the compiler's registry for the backend's platform, or is in
  // allowed_custom_calls (resolved by the runtime that loads the artifact).
  // Array operands and results become flat slice lists with their shapes
  // (layouts included); a typed-FFI backend_config becomes typed
  // attributes, any other is passed as opaque bytes.
  absl::Status EmitCustomCall(const HloInstruction& call, Thunks* out) {
    const std::string& target = call.GetString(AttrId::kCustomCallTarget);
    if (IsShardingAnnotationTarget(target)) {
      // ShardingAnnotationRemover dropped every one that is an identity.
      return Unimplemented(
          call, absl::StrCat("custom-call ", target, " changes the shape from ",
                             call.operand_count() == 1 ? call.operand(0)->shape().ToString(false)
                                                       : "?",
                             " to ", call.shape().ToString(false),
                             ": a marker for the SPMD partitioner of XLA (where shards split or join), "
                             "and this compiler has no SPMD partitioner (on one partition it is "
                             "an identity only when both shapes agree). Compile the program as "
                             "dumped after XLA's SPMD partitioner, which has none"));
    }
    if (ffi::IsTeFusedAttentionTarget(target) &&
        backend_->FusedAttentionKernels(target == ffi::kTeFusedAttnBackwardTarget) > 0) {
      absl::Status status = EmitFusedAttention(call, target, out);
      // A call the kernels refuse stays a custom call only when the user
      // says the runtime has a handler for it.
      if (status.ok() || status.code() != absl::StatusCode::kUnimplemented ||
          allowed_custom_calls_.count(target) == 0) {
        return status;
      }
    }
    absl::StatusOr<const ffi::HandlerEntry*> handler =
        ffi::FfiRegistry::Global().Lookup(target, backend_->FfiPlatform());
    if (!handler.ok() && allowed_custom_calls_.count(target) == 0) {
      return Unimplemented(
          call, absl::StrCat("custom-call target '", target,
                             "' is not an FFI handler this compiler knows for the ",
                             backend_->FfiPlatform(), " platform (known: ",
                             absl::StrJoin(ffi::FfiRegistry::Global().HandlerNames(), ", "),
                             "); pass --allow_custom_calls=", target,
                             " to compile it for a handler the runtime registers"));
    }
    std::vector<BufferSliceProto> operands, results;
    for (const HloInstruction* operand : call.operands()) {
      for (const ShapeIndex& leaf : ArrayLeaves(operand->shape())) {
        ASSIGN_OR_RETURN(BufferSliceProto s, ShapedSliceProto(operand, leaf));
        operands.push_back(std::move(s));
      }
    }
    for (const ShapeIndex& leaf : ArrayLeaves(call.shape())) {
      ASSIGN_OR_RETURN(BufferSliceProto s, ShapedSliceProto(&call, leaf));
      results.push_back(std::move(s));
    }
    const CustomCallApiVersionProto api_version = ApiVersionOf(call);
    std::string opaque;
    ffi::Attributes attributes;
    const std::string config = BackendConfigText(call);
    if (api_version == CUSTOM_CALL_API_VERSION_TYPED_FFI) {
      if (!config.empty()) {
        ASSIGN_OR_RETURN(attributes, ParseFfiAttributes(config, call.name()));
      }
    } else {
      opaque = config;
    }
    if (handler.ok() && ffi::IsTeFusedAttentionTarget(target)) {
      // The built-in fused attention handles a subset of Transformer
      // Engine's attributes: refuse the others here, naming them, rather
      // than at run time.
      if (absl::Status s = CheckTeFusedAttentionCall(call, target, attributes); !s.ok()) {
        return Unimplemented(call, s.message());
      }
    }
    if (handler.ok()) {
      absl::Status signature =
          ffi::CheckSignature(**handler, static_cast<int64_t>(operands.size()),
                              static_cast<int64_t>(results.size()), attributes, "custom call");
      if (!signature.ok()) {
        return Unimplemented(call, absl::StrCat("custom-call target '", target,
                                                "' does not match its FFI handler: ",
                                                signature.message()));
      }
    }
    CustomCallThunkProto* proto = AddThunk(call, out)->mutable_custom_call();
    proto->set_target_name(target);
    for (BufferSliceProto& s : operands) *proto->add_operands() = std::move(s);
    for (BufferSliceProto& s : results) *proto->add_results() = std::move(s);
    proto->set_opaque(opaque);
    AttributesToProto(attributes, proto->mutable_attributes());
    proto->set_api_version(api_version);
    return absl::OkStatus();
  }

  // A te_fused_attn_* call as the backend's own kernels
  // (KernelBackend::FusedAttentionKernels), one kernel thunk each, in
  // order; the forward's rng_state result is zeroed (a memset thunk), as
  // the host handler does. Identical calls share their kernels. Errors:
  // Unimplemented naming what the call or the kernels do not support.
  absl::Status EmitFusedAttention(const HloInstruction& call, const std::string& target,
                                  Thunks* out) {
    ffi::Attributes attributes;
    if (ApiVersionOf(call) != CUSTOM_CALL_API_VERSION_TYPED_FFI) {
      return Unimplemented(call, absl::StrCat(target, ": needs api_version=API_VERSION_TYPED_FFI"));
    }
    const std::string config_text = BackendConfigText(call);
    if (!config_text.empty()) {
      ASSIGN_OR_RETURN(attributes, ParseFfiAttributes(config_text, call.name()));
    }
    if (absl::Status s = CheckTeFusedAttentionCall(call, target, attributes); !s.ok()) {
      return Unimplemented(call, s.message());
    }
    ASSIGN_OR_RETURN(ffi::TeAttentionConfig config,
                     ffi::ParseTeAttentionConfig(target, attributes));
    const bool backward = target == ffi::kTeFusedAttnBackwardTarget;
    const PrimitiveType type = call.operand(0)->shape().element_type();
    std::vector<BufferSlice> operand_slices, output_slices;
    for (const HloInstruction* operand : call.operands()) {
      ASSIGN_OR_RETURN(BufferSlice s, Slice(operand, {}));
      operand_slices.push_back(s);
    }
    for (const ShapeIndex& leaf : ArrayLeaves(call.shape())) {
      ASSIGN_OR_RETURN(BufferSlice s, Slice(&call, leaf));
      output_slices.push_back(s);
    }
    const int parts = backend_->FusedAttentionKernels(backward);
    std::vector<ReusableKernel> kernels;
    for (int part = 0; part < parts; ++part) {
      const std::string key = absl::StrCat(target, "|", part, "|", PrimitiveTypeName(type), "|",
                                           config_text);
      auto it = attention_kernels_.find(key);
      if (it == attention_kernels_.end()) {
        ReusableKernel emitted;
        const std::string symbol = KernelSymbolName(
            absl::StrCat(call.name(), parts > 1 ? absl::StrCat("_", part) : ""), &used_symbols_);
        absl::StatusOr<EmittedKernel> kernel = TimedEmission(call.name(), 1, [&] {
          return backend_->EmitFusedAttentionKernel(config, type, backward, part, symbol, target);
        });
        if (!kernel.ok()) return kernel.status();
        emitted.kernel = *std::move(kernel);
        if (emitted.kernel.launch.grid_x() != 0) {
          emitted.kernel_index = payload_->kernels_size();
          KernelProto* proto = payload_->add_kernels();
          proto->set_name(emitted.kernel.symbol);
          RETURN_IF_ERROR(backend_->DescribeKernel(emitted.kernel, proto));
        }
        it = attention_kernels_.emplace(key, std::move(emitted)).first;
      }
      kernels.push_back(it->second);
    }
    for (const ReusableKernel& kernel : kernels) {
      RETURN_IF_ERROR(AddKernelThunk(call, kernel, operand_slices, output_slices, out));
    }
    if (!backward && output_slices[ffi::kFwdRngState].size > 0) {
      MemsetThunkProto* memset = AddThunk(call, out)->mutable_memset();
      *memset->mutable_destination() = SliceToProto(output_slices[ffi::kFwdRngState]);
      memset->set_pattern(0);
    }
    return absl::OkStatus();
  }

  // The slice of leaf `index` of `instr` with the leaf's shape; a shape
  // without a layout gets the default (descending) one.
  absl::StatusOr<BufferSliceProto> ShapedSliceProto(const HloInstruction* instr,
                                                    const ShapeIndex& index) const {
    ASSIGN_OR_RETURN(BufferSliceProto proto, SliceProto(instr, index));
    const Shape* shape = &instr->shape();
    for (int64_t i : index) shape = &shape->tuple_shapes(i);
    Shape leaf = *shape;
    if (!leaf.has_layout()) {
      Layout layout;
      for (int64_t d = leaf.rank() - 1; d >= 0; --d) layout.minor_to_major.push_back(d);
      leaf.set_layout(std::move(layout));
    }
    *proto.mutable_shape() = ShapeToProto(leaf);
    return proto;
  }

  absl::Status EmitWhile(const HloInstruction& loop, Thunks* out) {
    const HloComputation* condition = loop.GetComputation(AttrId::kCondition);
    const HloComputation* body = loop.GetComputation(AttrId::kBody);
    if (condition == nullptr || body == nullptr) return Unimplemented(loop, "missing computation");
    // The loop state starts in the while's own buffers.
    RETURN_IF_ERROR(AliasOrCopy(loop, loop.operand(0), {}, &loop, {}, out));
    ThunkProto* thunk = AddThunk(loop, out);
    WhileThunkProto* proto = thunk->mutable_while_();
    Thunks* cond_thunks = proto->mutable_condition()->mutable_thunks();
    RETURN_IF_ERROR(AliasOrCopy(loop, &loop, {}, condition->parameter_instruction(0), {},
                                cond_thunks));
    RETURN_IF_ERROR(EmitComputation(*condition, cond_thunks));
    const HloInstruction* predicate = condition->root_instruction();
    if (predicate->shape().element_type() != PrimitiveType::PRED || !predicate->shape().IsScalar()) {
      return Unimplemented(loop, "the condition's root is not a PRED scalar");
    }
    ASSIGN_OR_RETURN(*proto->mutable_predicate(), SliceProto(predicate, {}));
    Thunks* body_thunks = proto->mutable_body()->mutable_thunks();
    RETURN_IF_ERROR(AliasOrCopy(loop, &loop, {}, body->parameter_instruction(0), {}, body_thunks));
    RETURN_IF_ERROR(EmitComputation(*body, body_thunks));
    RETURN_IF_ERROR(AliasOrCopy(loop, body->root_instruction(), {}, &loop, {}, body_thunks));
    if (std::optional<int64_t> n = RecordedTripCount(loop); n.has_value()) {
      proto->set_known_trip_count(*n);
    }
    return absl::OkStatus();
  }

  absl::Status EmitConditional(const HloInstruction& cond, Thunks* out) {
    std::vector<HloComputation*> branches;
    if (cond.has_attr(AttrId::kBranchComputations)) {
      branches = std::get<std::vector<HloComputation*>>(*cond.FindAttr(AttrId::kBranchComputations));
    } else {
      branches = {cond.GetComputation(AttrId::kTrueComputation),
                  cond.GetComputation(AttrId::kFalseComputation)};
    }
    for (const HloComputation* b : branches) {
      if (b == nullptr) return Unimplemented(cond, "missing branch computation");
    }
    const PrimitiveType index_type = cond.operand(0)->shape().element_type();
    if (index_type != PrimitiveType::PRED && index_type != PrimitiveType::S32) {
      return Unimplemented(cond, "the branch index is neither PRED nor S32");
    }
    ConditionalThunkProto* proto = AddThunk(cond, out)->mutable_conditional();
    ASSIGN_OR_RETURN(*proto->mutable_branch_index(), SliceProto(cond.operand(0), {}));
    proto->set_branch_index_type(PrimitiveTypeToProto(index_type));
    for (size_t b = 0; b < branches.size(); ++b) {
      Thunks* thunks = proto->add_branches()->mutable_thunks();
      const HloComputation& branch = *branches[b];
      if (branch.num_parameters() == 1) {
        RETURN_IF_ERROR(AliasOrCopy(cond, cond.operand(static_cast<int64_t>(b) + 1), {},
                                    branch.parameter_instruction(0), {}, thunks));
      }
      RETURN_IF_ERROR(EmitComputation(branch, thunks));
      RETURN_IF_ERROR(AliasOrCopy(cond, branch.root_instruction(), {}, &cond, {}, thunks));
    }
    return absl::OkStatus();
  }

  CollectiveEmitter collectives_;
  OffloadEmitter offload_;
  const HloModule& module_;
  const HloSchedule& schedule_;
  const BufferAssignment& assignment_;
  KernelBackend* backend_;
  GpuExecutablePayloadProto* payload_;
  absl::flat_hash_set<std::string> used_symbols_;
  KernelReuseCache reuse_;
  std::set<std::string> allowed_custom_calls_;
  bool reuse_kernels_;
  bool tf32_gemms_;
  bool emit_fft_;
  bool emit_host_transfers_;
  DotPrecision f32_dot_default_precision_;
  const std::function<void(const KernelEmissionTiming&)>& kernel_observer_;
  std::optional<BufferSliceProto> cudnn_workspace_;
  // Fused-attention kernels by call (target, part, type, attributes).
  std::map<std::string, ReusableKernel> attention_kernels_;
  // The RNG state's constant allocation, once a rng-get-and-update-state
  // needed it.
  std::optional<BufferSlice> rng_state_;
};

}  // namespace

absl::Status EmitThunksWithBackend(const HloModule& module, const HloSchedule& schedule,
                                   const BufferAssignment& assignment, KernelBackend* backend,
                                   GpuExecutablePayloadProto* payload,
                                   const ThunkEmitterOptions& options) {
  return Emitter(module, schedule, assignment, backend, payload, options).Run();
}

absl::Status EmitThunks(const HloModule& module, const HloSchedule& schedule,
                        const BufferAssignment& assignment, const ThunkEmitterOptions& options,
                        llvm::Module* kernels, GpuExecutablePayloadProto* payload) {
  HostKernelBackend backend(options.kernel, kernels);
  return Emitter(module, schedule, assignment, &backend, payload, options).Run();
}

}  // namespace xla::gpu
