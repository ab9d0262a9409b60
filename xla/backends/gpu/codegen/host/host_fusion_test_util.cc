#include "xla/backends/gpu/codegen/host/host_fusion_test_util.h"

#include <cfenv>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/stream_executor/host/host_kernel_module.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// 256-byte aligned bytes, as the runtime provides.
struct AlignedBuffer {
  explicit AlignedBuffer(size_t size) : storage(new uint8_t[size + 256]) {
    const uintptr_t p = reinterpret_cast<uintptr_t>(storage.get());
    data = reinterpret_cast<uint8_t*>((p + 255) / 256 * 256);
  }
  std::unique_ptr<uint8_t[]> storage;
  uint8_t* data;
};

}  // namespace

absl::StatusOr<FusionRun> RunFusionOnHost(const HloModule& module,
                                          const FusionRunOptions& options) {
  const HloInstruction* fusion = module.entry_computation()->root_instruction();
  std::vector<Literal> inputs;
  if (options.inputs.empty()) {
    ASSIGN_OR_RETURN(inputs, MakeRandomInputs(module, options.seed));
  } else {
    inputs = options.inputs;
  }
  FusionRun run;
  if (options.evaluate) {
    ASSIGN_OR_RETURN(run.expected, HloEvaluator().Evaluate(module, inputs));
  }

  llvm::LLVMContext ctx;
  auto llvm_module = std::make_unique<llvm::Module>("fusion_test", ctx);
  ASSIGN_OR_RETURN(run.info, EmitHostFusionKernel(*fusion, "xla_test_kernel", options.emit,
                                                  llvm_module.get()));
  llvm::raw_string_ostream os(run.ir);
  llvm_module->print(os, nullptr);
  os.flush();
  ASSIGN_OR_RETURN(std::string so, CompileHostSharedObject(*llvm_module, options.compile));
  ASSIGN_OR_RETURN(auto loaded, stream_executor::host::HostKernelModule::Load("test", so));
  ASSIGN_OR_RETURN(auto kernel, loaded->GetKernel(run.info.symbol));
  auto* host = dynamic_cast<stream_executor::host::HostKernel*>(kernel.get());
  if (host == nullptr) return absl::InternalError("not a host kernel");

  std::vector<std::unique_ptr<AlignedBuffer>> storage;
  std::vector<void*> buffers;
  for (const HostKernelArg& arg : run.info.args) {
    const int64_t bytes = arg.shape.ByteSize().value_or(0);
    if (!arg.is_output) {
      const HloInstruction* op = fusion->operand(arg.index);
      if (op->opcode() != HloOpcode::kParameter && op->opcode() != HloOpcode::kConstant) {
        return absl::InvalidArgumentError("fusion operands must be entry parameters or constants");
      }
      const Literal& in =
          op->opcode() == HloOpcode::kConstant ? op->literal() : inputs[op->parameter_number()];
      storage.push_back(std::make_unique<AlignedBuffer>(bytes));
      std::memcpy(storage.back()->data, in.data().data(), in.data().size());
      buffers.push_back(storage.back()->data);
      continue;
    }
    const std::vector<int64_t>& alias = options.emit.output_aliases_operand;
    if (arg.index < static_cast<int64_t>(alias.size()) && alias[arg.index] >= 0) {
      buffers.push_back(buffers[alias[arg.index]]);
      continue;
    }
    storage.push_back(std::make_unique<AlignedBuffer>(bytes));
    std::memset(storage.back()->data, 0xA5, bytes);
    buffers.push_back(storage.back()->data);
  }

  // Uneven ranges 1, 2, 3, 5, 8, ... in reverse order.
  std::vector<std::pair<int64_t, int64_t>> ranges;
  int64_t begin = 0, a = 1, b = 2;
  while (begin < run.info.total_blocks) {
    const int64_t end = std::min(run.info.total_blocks, begin + a);
    ranges.push_back({begin, end});
    begin = end;
    const int64_t next = a + b;
    a = b;
    b = next;
  }
  std::feclearexcept(FE_ALL_EXCEPT);
  for (auto it = ranges.rbegin(); it != ranges.rend(); ++it) {
    host->function()(buffers.data(), static_cast<int64_t>(buffers.size()), it->first, it->second);
  }
  run.raised_fp_exceptions = std::fetestexcept(FE_ALL_EXCEPT);

  std::vector<Literal> leaves;
  for (size_t i = 0; i < run.info.args.size(); ++i) {
    const HostKernelArg& arg = run.info.args[i];
    if (!arg.is_output) continue;
    Literal out(Shape::Array(arg.shape.element_type(), arg.shape.dimensions()));
    std::memcpy(out.mutable_data().data(), buffers[i], out.mutable_data().size());
    leaves.push_back(std::move(out));
  }
  if (fusion->shape().IsTuple()) {
    std::vector<Shape> shapes;
    for (const Literal& l : leaves) shapes.push_back(l.shape());
    run.actual = Literal(Shape::Tuple(shapes));
    *run.actual.mutable_tuple_elements() = std::move(leaves);
  } else {
    run.actual = std::move(leaves[0]);
  }
  return run;
}

}  // namespace xla::gpu
