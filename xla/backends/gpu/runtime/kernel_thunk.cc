#include "xla/backends/gpu/runtime/kernel_thunk.h"

#include <mutex>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

namespace se = ::stream_executor;

namespace {

// Guards every KernelThunk's list of loaded kernels.
std::mutex& LoadedListMutex() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}

}  // namespace

absl::StatusOr<se::LaunchDimensions> LaunchDimensionsFromProto(const LaunchDimensionsProto& p,
                                                               const se::DeviceLimits& limits,
                                                               const ThunkContext& ctx) {
  se::LaunchDimensions dims;
  dims.grid = {p.grid_x(), p.grid_y(), p.grid_z()};
  dims.block = {p.block_x(), p.block_y(), p.block_z()};
  dims.shared_memory_bytes = p.shared_memory_bytes();
  absl::Status status = se::ValidateLaunchDimensions(dims, limits);
  if (!status.ok()) return ctx.Field("launch_dimensions").Error(status.message());
  return dims;
}

LaunchDimensionsProto LaunchDimensionsToProto(const se::LaunchDimensions& d) {
  LaunchDimensionsProto p;
  p.set_grid_x(d.grid.x);
  p.set_grid_y(d.grid.y);
  p.set_grid_z(d.grid.z);
  p.set_block_x(d.block.x);
  p.set_block_y(d.block.y);
  p.set_block_z(d.block.z);
  p.set_shared_memory_bytes(d.shared_memory_bytes);
  return p;
}

absl::StatusOr<std::unique_ptr<KernelThunk>> KernelThunk::FromProto(ThunkInfo info,
                                                                    const KernelThunkProto& proto,
                                                                    const ThunkContext& ctx) {
  const int64_t num_kernels = static_cast<int64_t>(ctx.tables().kernels.size());
  if (proto.kernel_index() < 0 || proto.kernel_index() >= num_kernels) {
    return ctx.Field("kernel_index").Error(absl::StrCat("kernel index ", proto.kernel_index(),
                                                        " is outside [0, ", num_kernels,
                                                        ") (the kernel table)"));
  }
  const KernelSpec* spec = &ctx.tables().kernels[proto.kernel_index()];
  RETURN_IF_ERROR(ctx.CheckCount(proto.args_size(), "args"));
  if (spec->registered != nullptr && spec->registered->num_args != proto.args_size()) {
    return ctx.Field("args").Error(absl::StrCat("registered kernel '", spec->entry, "' takes ",
                                                spec->registered->num_args, " arguments, got ",
                                                proto.args_size()));
  }
  std::vector<BufferSlice> args;
  args.reserve(proto.args_size());
  for (int i = 0; i < proto.args_size(); ++i) {
    ASSIGN_OR_RETURN(BufferSlice slice, ctx.Slice(proto.args(i), absl::StrCat("args[", i, "]")));
    args.push_back(std::move(slice));
  }
  ASSIGN_OR_RETURN(se::LaunchDimensions dims,
                   LaunchDimensionsFromProto(proto.launch_dimensions(), ctx.tables().target->limits, ctx));
  return std::make_unique<KernelThunk>(std::move(info), proto.kernel_index(), spec, std::move(args),
                                       dims);
}

absl::Status KernelThunk::Initialize(const InitializeParams& params) {
  absl::Status status = se::ValidateLaunchDimensions(dims_, params.executor->limits());
  if (!status.ok()) {
    return AnnotateError(*this, absl::InvalidArgumentError(absl::StrCat(
                                    "launch dimensions do not fit the device: ", status.message())));
  }
  RETURN_IF_ERROR(AnnotateError(*this, params.kernels->Load(kernel_index_)));
  const se::Kernel* kernel = params.kernels->Get(kernel_index_);
  if (kernel == nullptr) return absl::OkStatus();  // registered: not loaded
  auto entry = std::make_unique<LoadedKernel>();
  entry->kernels = params.kernels;
  entry->kernel = kernel;
  std::lock_guard<std::mutex> lock(LoadedListMutex());
  entry->next = std::move(loaded_);
  loaded_ = std::move(entry);
  last_loaded_.store(loaded_.get(), std::memory_order_release);
  return absl::OkStatus();
}

absl::Status KernelThunk::ExecuteOnStream(const ExecuteParams& params) const {
  if (spec_->registered != nullptr) {
    std::vector<se::DeviceMemoryBase> buffers;
    buffers.reserve(args_.size());
    for (const BufferSlice& slice : args_) buffers.push_back(params.buffers->GetDeviceAddress(slice));
    RegisteredKernelFn fn = spec_->registered->fn;
    se::LaunchDimensions dims = dims_;
    return AnnotateError(*this, stream(params)->DoHostCallback(
                                    [fn, dims, buffers = std::move(buffers)]() -> absl::Status {
                                      return fn(buffers, dims);
                                    }));
  }
  const LoadedKernel* last = last_loaded_.load(std::memory_order_acquire);
  const se::Kernel* kernel = last != nullptr && last->kernels == params.kernels
                                 ? last->kernel
                                 : params.kernels->Get(kernel_index_);
  if (kernel == nullptr) {
    return AnnotateError(*this, absl::FailedPreconditionError(
                                    "kernel not loaded: call Initialize for this device first"));
  }
  // On the stack: a launch of up to kInlineArgs arguments allocates nothing.
  absl::InlinedVector<se::DeviceMemoryBase, kInlineArgs> buffers;
  buffers.reserve(args_.size());
  for (const BufferSlice& slice : args_) buffers.push_back(params.buffers->GetDeviceAddress(slice));
  return AnnotateError(*this, stream(params)->Launch(*kernel, dims_, buffers));
}

absl::StatusOr<ThunkProto> KernelThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  KernelThunkProto* k = proto.mutable_kernel();
  k->set_kernel_index(kernel_index_);
  for (const BufferSlice& slice : args_) *k->add_args() = SliceToProto(slice);
  *k->mutable_launch_dimensions() = LaunchDimensionsToProto(dims_);
  return proto;
}

}  // namespace xla::gpu
