#include "xla/stream_executor/cuda/cuda_command_buffer.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xla/stream_executor/cuda/cuda_kernel_module.h"
#include "xla/stream_executor/cuda/cuda_stream.h"
#include "xla/util/status_macros.h"

namespace stream_executor::cuda {
namespace {

CUdeviceptr Pointer(const DeviceMemoryBase& memory) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(memory.opaque));
}

// The driver's description of one node, with the storage its pointers
// reach (kernel parameters are read through kernelParams).
struct NodeParams {
  DeviceCommand::Kind kind = DeviceCommand::Kind::kLaunch;
  std::vector<CUdeviceptr> values;
  std::vector<void*> value_pointers;
  CUDA_KERNEL_NODE_PARAMS kernel{};
  CUDA_MEMSET_NODE_PARAMS memset{};
  CUDA_MEMCPY3D copy{};

  NodeParams() = default;
  NodeParams(const NodeParams&) = delete;
  NodeParams& operator=(const NodeParams&) = delete;
};

// Fills `p` for `command`; InvalidArgument when it cannot be a node.
absl::Status ToNodeParams(const DeviceCommand& command, NodeParams& p) {
  p.kind = command.kind;
  switch (command.kind) {
    case DeviceCommand::Kind::kLaunch: {
      const auto* kernel = dynamic_cast<const CudaKernel*>(command.kernel);
      if (kernel == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            DescribeCommand(command), ": the kernel was not loaded by the CUDA platform"));
      }
      p.values.clear();
      for (const DeviceMemoryBase& arg : command.args) p.values.push_back(Pointer(arg));
      p.value_pointers.clear();
      for (CUdeviceptr& value : p.values) p.value_pointers.push_back(&value);
      p.kernel.func = kernel->function();
      p.kernel.gridDimX = static_cast<unsigned>(command.dims.grid.x);
      p.kernel.gridDimY = static_cast<unsigned>(command.dims.grid.y);
      p.kernel.gridDimZ = static_cast<unsigned>(command.dims.grid.z);
      p.kernel.blockDimX = static_cast<unsigned>(command.dims.block.x);
      p.kernel.blockDimY = static_cast<unsigned>(command.dims.block.y);
      p.kernel.blockDimZ = static_cast<unsigned>(command.dims.block.z);
      p.kernel.sharedMemBytes = static_cast<unsigned>(command.dims.shared_memory_bytes);
      p.kernel.kernelParams = p.value_pointers.empty() ? nullptr : p.value_pointers.data();
      p.kernel.extra = nullptr;
      return absl::OkStatus();
    }
    case DeviceCommand::Kind::kMemset32:
    case DeviceCommand::Kind::kMemZero: {
      // 4-byte elements for a pattern, and for a zero fill whose size and
      // address allow them (a slice's offset, hence its alignment, is the
      // same in every run, so an update never changes the element size).
      const bool words = command.kind == DeviceCommand::Kind::kMemset32 ||
                         (command.size % 4 == 0 && Pointer(command.dst) % 4 == 0);
      if (command.size == 0 || (command.kind == DeviceCommand::Kind::kMemset32 && command.size % 4 != 0)) {
        return absl::InvalidArgumentError(absl::StrCat(
            DescribeCommand(command), ": a memset node needs a non-zero size, a multiple of 4 for a pattern"));
      }
      p.memset.dst = Pointer(command.dst);
      p.memset.elementSize = words ? 4 : 1;
      p.memset.width = command.size / p.memset.elementSize;
      p.memset.pitch = command.size;
      p.memset.height = 1;
      p.memset.value = command.kind == DeviceCommand::Kind::kMemset32 ? command.pattern : 0;
      return absl::OkStatus();
    }
    case DeviceCommand::Kind::kGemm:
    case DeviceCommand::Kind::kConvolution:
      return absl::OkStatus();  // a captured child graph: nothing to describe
    case DeviceCommand::Kind::kCopy:
      if (command.size == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(DescribeCommand(command), ": a copy node needs a non-zero size"));
      }
      p.copy = CUDA_MEMCPY3D{};
      p.copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
      p.copy.srcDevice = Pointer(command.src);
      p.copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
      p.copy.dstDevice = Pointer(command.dst);
      p.copy.WidthInBytes = command.size;
      p.copy.Height = 1;
      p.copy.Depth = 1;
      return absl::OkStatus();
  }
  return absl::InvalidArgumentError("unknown command kind");
}

// Issues the exec update of one node from `p` (a library call: `captured`, its
// newly captured graph).
absl::Status UpdateNode(const CudaDriverApi& api, CUcontext context, CUgraphExec exec,
                        CUgraphNode node, const NodeParams& p, CUgraph captured) {
  switch (p.kind) {
    case DeviceCommand::Kind::kGemm:
    case DeviceCommand::Kind::kConvolution:
      return CU_STATUS(api, cuGraphExecChildGraphNodeSetParams, exec, node, captured);
    case DeviceCommand::Kind::kLaunch:
      return CU_STATUS(api, cuGraphExecKernelNodeSetParams_v2, exec, node, &p.kernel);
    case DeviceCommand::Kind::kMemset32:
    case DeviceCommand::Kind::kMemZero:
      return CU_STATUS(api, cuGraphExecMemsetNodeSetParams, exec, node, &p.memset, context);
    case DeviceCommand::Kind::kCopy:
      return CU_STATUS(api, cuGraphExecMemcpyNodeSetParams, exec, node, &p.copy, context);
  }
  return absl::InvalidArgumentError("unknown command kind");
}

}  // namespace

absl::StatusOr<std::unique_ptr<CudaCommandBuffer>> CudaCommandBuffer::Create(
    const CudaDriverApi& api, CUcontext context, CudaCallCapturer* capturer,
    Stream* submit_stream) {
  const std::string missing = MissingCudaGraphEntryPoint(api);
  if (!missing.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the CUDA driver has no graph API (no '", missing,
        "'); CUDA graphs are off and kernels are launched one by one (update the NVIDIA "
        "driver to 12.0 or later for graphs)"));
  }
  CU_RETURN_IF_ERROR(api, cuCtxSetCurrent, context);
  CUgraph graph = nullptr;
  CU_RETURN_IF_ERROR(api, cuGraphCreate, &graph, 0);
  return std::unique_ptr<CudaCommandBuffer>(
      new CudaCommandBuffer(api, context, graph, capturer, submit_stream));
}

absl::StatusOr<CudaCommandBuffer::CapturedGraph> CudaCommandBuffer::Capture(
    const DeviceCommand& command) {
  if (capturer_ == nullptr || !HasCudaGraphCaptureApi(api_)) {
    return absl::InvalidArgumentError(absl::StrCat(
        DescribeCommand(command), ": this command buffer cannot capture library calls (",
        capturer_ == nullptr ? "no capturer" : "the CUDA driver has no stream-capture API",
        "); run it as a plain call"));
  }
  ASSIGN_OR_RETURN(CUgraph graph, capturer_->CaptureCall(command, submit_stream_));
  const CudaDriverApi* api = &api_;
  return CapturedGraph(graph, [api](CUgraph g) { (void)CU_STATUS(*api, cuGraphDestroy, g); });
}

CudaCommandBuffer::~CudaCommandBuffer() {
  (void)CU_STATUS(api_, cuCtxSetCurrent, context_);
  if (exec_ != nullptr) (void)CU_STATUS(api_, cuGraphExecDestroy, exec_);
  (void)CU_STATUS(api_, cuGraphDestroy, graph_);
}

absl::StatusOr<int> CudaCommandBuffer::Append(const DeviceCommand& command) {
  if (exec_ != nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(DescribeCommand(command), ": the command buffer is finalized"));
  }
  NodeParams p;
  RETURN_IF_ERROR(ToNodeParams(command, p));
  CapturedGraph captured;
  if (command.IsLibraryCall()) {
    ASSIGN_OR_RETURN(captured, Capture(command));
  }
  RETURN_IF_ERROR(CU_STATUS(api_, cuCtxSetCurrent, context_));
  CUgraphNode node = nullptr;
  const CUgraphNode* dependency = nodes_.empty() ? nullptr : &nodes_.back().handle;
  const size_t num_dependencies = nodes_.empty() ? 0 : 1;
  switch (command.kind) {
    case DeviceCommand::Kind::kLaunch:
      CU_RETURN_IF_ERROR(api_, cuGraphAddKernelNode_v2, &node, graph_, dependency,
                         num_dependencies, &p.kernel);
      break;
    case DeviceCommand::Kind::kMemset32:
    case DeviceCommand::Kind::kMemZero:
      CU_RETURN_IF_ERROR(api_, cuGraphAddMemsetNode, &node, graph_, dependency, num_dependencies,
                         &p.memset, context_);
      break;
    case DeviceCommand::Kind::kCopy:
      CU_RETURN_IF_ERROR(api_, cuGraphAddMemcpyNode, &node, graph_, dependency, num_dependencies,
                         &p.copy, context_);
      break;
    case DeviceCommand::Kind::kGemm:
    case DeviceCommand::Kind::kConvolution:
      // The node keeps a copy; `captured` is destroyed on return.
      CU_RETURN_IF_ERROR(api_, cuGraphAddChildGraphNode, &node, graph_, dependency,
                         num_dependencies, captured.get());
      break;
  }
  nodes_.push_back(Node{node, command, nullptr});
  has_library_calls_ = has_library_calls_ || command.IsLibraryCall();
  is_pending_.push_back(false);
  return static_cast<int>(nodes_.size()) - 1;
}

absl::Status CudaCommandBuffer::Finalize() {
  if (exec_ != nullptr) return absl::FailedPreconditionError("the command buffer is already finalized");
  if (nodes_.empty()) return absl::InvalidArgumentError("the command buffer has no commands");
  RETURN_IF_ERROR(CU_STATUS(api_, cuCtxSetCurrent, context_));
  CU_RETURN_IF_ERROR(api_, cuGraphInstantiateWithFlags, &exec_, graph_, 0);
  return absl::OkStatus();
}

absl::Status CudaCommandBuffer::Update(int node, const DeviceCommand& command) {
  if (exec_ == nullptr) return absl::FailedPreconditionError("update before Finalize");
  if (node < 0 || node >= num_nodes()) {
    return absl::InvalidArgumentError(
        absl::StrCat("node ", node, " is outside [0, ", num_nodes(), ")"));
  }
  Node& n = nodes_[node];
  if (!n.command.SameShape(command)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "node ", node, " (", DescribeCommand(n.command), ") cannot become ", DescribeCommand(command),
        ": only buffer addresses may change"));
  }
  NodeParams check;
  RETURN_IF_ERROR(ToNodeParams(command, check));
  if (command.IsLibraryCall()) {
    // Captured now, on the host: the capture records and runs nothing.
    ASSIGN_OR_RETURN(n.captured, Capture(command));
  }
  n.command = command;
  if (!is_pending_[node]) {
    is_pending_[node] = true;
    pending_.push_back(node);
  }
  return absl::OkStatus();
}

absl::Status CudaCommandBuffer::Submit(Stream* stream) {
  auto* cuda_stream = dynamic_cast<CudaStream*>(stream);
  if (cuda_stream == nullptr) {
    return absl::InvalidArgumentError("graph launch: the stream is not a CUDA stream");
  }
  if (exec_ == nullptr) return absl::FailedPreconditionError("graph launch before Finalize");
  if (has_library_calls_ && submit_stream_ != nullptr && stream != submit_stream_) {
    return absl::InvalidArgumentError(
        "graph launch: a graph with captured library calls must be submitted on the stream it "
        "was made for (their workspaces belong to it)");
  }
  // The updates travel with the launch, by value: later Updates belong to
  // later submissions.
  struct Pending {
    CUgraphNode handle;
    DeviceCommand command;
    CapturedGraph captured;  // a library call's new capture
  };
  std::vector<Pending> updates;
  updates.reserve(pending_.size());
  for (int node : pending_) {
    updates.push_back(
        Pending{nodes_[node].handle, nodes_[node].command, std::move(nodes_[node].captured)});
    nodes_[node].captured = nullptr;
    is_pending_[node] = false;
  }
  pending_.clear();
  return cuda_stream->EnqueueDriverWork(
      absl::StrCat("graph launch (", num_nodes(), " nodes)"),
      [api = &api_, context = context_, exec = exec_,
       updates = std::move(updates)](CUstream s) -> absl::Status {
        for (const Pending& u : updates) {
          NodeParams p;
          RETURN_IF_ERROR(ToNodeParams(u.command, p));
          RETURN_IF_ERROR(UpdateNode(*api, context, exec, u.handle, p, u.captured.get()));
        }
        return CU_STATUS(*api, cuGraphLaunch, exec, s);
      });
}

}  // namespace stream_executor::cuda
