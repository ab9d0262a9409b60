#include "xla/backends/gpu/runtime/kernel_thunk.h"

#include <array>
#include <mutex>
#include <vector>

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

// Validates KernelThunkProto.argument_table against the thunk's kernel and
// arguments (kernel_thunk.h).
absl::StatusOr<BufferSlice> ArgumentTableFromProto(const KernelThunkProto& proto,
                                                   const KernelSpec& spec,
                                                   const std::vector<BufferSlice>& args,
                                                   const ThunkContext& ctx) {
  const ThunkContext field = ctx.Field("argument_table");
  if (spec.kind != KernelSpec::Kind::kPtx && spec.kind != KernelSpec::Kind::kCubin) {
    return field.Error(absl::StrCat("kernel '", spec.name, "' is a ", KernelKindName(spec.kind),
                                    " kernel; only PTX and cubin kernels take an argument table"));
  }
  ASSIGN_OR_RETURN(BufferSlice table, ctx.Slice(proto.argument_table(), "argument_table"));
  if (!ctx.tables().allocations[table.allocation].is_temp) {
    return field.Error(absl::StrCat("the table ", table.ToString(),
                                    " is not in a temp allocation (the runtime writes it before "
                                    "each launch; only temp memory is per execution)"));
  }
  if (table.offset % KernelThunk::kArgumentTableEntryBytes != 0) {
    return field.Error(absl::StrCat("the table's offset ", table.offset, " is not a multiple of ",
                                    KernelThunk::kArgumentTableEntryBytes));
  }
  const int64_t needed = KernelThunk::kArgumentTableEntryBytes * static_cast<int64_t>(args.size());
  if (table.size < needed) {
    return field.Error(absl::StrCat("the table has ", table.size, " bytes; ", args.size(),
                                    " arguments need ", needed));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (SlicesOverlap(table, args[i])) {
      return field.Error(absl::StrCat("the table ", table.ToString(), " overlaps args[", i, "] ",
                                      args[i].ToString()));
    }
  }
  return table;
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
  std::optional<BufferSlice> table;
  if (proto.has_argument_table()) {
    ASSIGN_OR_RETURN(table, ArgumentTableFromProto(proto, *spec, args, ctx));
  }
  return std::make_unique<KernelThunk>(std::move(info), proto.kernel_index(), spec, std::move(args),
                                       dims, std::move(table));
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
  const se::Kernel* kernel = LoadedFor(params);
  if (kernel == nullptr) {
    return AnnotateError(*this, absl::FailedPreconditionError(
                                    "kernel not loaded: call Initialize for this device first"));
  }
  if (argument_table_ != nullptr) return LaunchThroughTable(params, stream(params), *kernel);
  if (args_.size() <= static_cast<size_t>(kInlineArgs)) {
    // On the stack, each address assigned in place (an InlinedVector's
    // push_back reloaded each 16-byte address just stored, a stall per
    // argument on every launch of a host while loop's body).
    std::array<se::DeviceMemoryBase, kInlineArgs> buffers;
    for (size_t i = 0; i < args_.size(); ++i) buffers[i] = params.buffers->GetDeviceAddress(args_[i]);
    return AnnotateError(*this, stream(params)->Launch(*kernel, dims_,
                                                       absl::MakeConstSpan(buffers.data(), args_.size())));
  }
  std::vector<se::DeviceMemoryBase> buffers;
  buffers.reserve(args_.size());
  for (const BufferSlice& slice : args_) buffers.push_back(params.buffers->GetDeviceAddress(slice));
  return AnnotateError(*this, stream(params)->Launch(*kernel, dims_, buffers));
}

const se::Kernel* KernelThunk::LoadedFor(const ExecuteParams& params) const {
  const LoadedKernel* last = last_loaded_.load(std::memory_order_acquire);
  return last != nullptr && last->kernels == params.kernels ? last->kernel
                                                            : params.kernels->Get(kernel_index_);
}

bool KernelThunk::IsCommand() const {
  return spec_->registered == nullptr && argument_table_ == nullptr &&
         (spec_->kind == KernelSpec::Kind::kPtx || spec_->kind == KernelSpec::Kind::kCubin);
}

absl::Status KernelThunk::ToCommand(const ExecuteParams& params, se::DeviceCommand* command) const {
  if (!IsCommand()) return Thunk::ToCommand(params, command);
  const se::Kernel* kernel = LoadedFor(params);
  if (kernel == nullptr) {
    return AnnotateError(*this, absl::FailedPreconditionError(
                                    "kernel not loaded: call Initialize for this device first"));
  }
  // Every field set: `command` may hold another kind's values.
  command->kind = se::DeviceCommand::Kind::kLaunch;
  command->kernel = kernel;
  command->dims = dims_;
  command->dst = se::DeviceMemoryBase();
  command->src = se::DeviceMemoryBase();
  command->size = 0;
  command->pattern = 0;
  command->args.clear();
  for (const BufferSlice& slice : args_) command->args.push_back(params.buffers->GetDeviceAddress(slice));
  return absl::OkStatus();
}

absl::Status KernelThunk::LaunchThroughTable(const ExecuteParams& params, se::Stream* stream,
                                             const se::Kernel& kernel) const {
  // The staging buffer must outlive the asynchronous copy: the callback
  // enqueued after it owns the buffer and frees it once the copy has run.
  auto staging = std::make_unique<uint64_t[]>(args_.size());
  for (size_t i = 0; i < args_.size(); ++i) {
    staging[i] = reinterpret_cast<uintptr_t>(params.buffers->GetDeviceAddress(args_[i]).opaque);
  }
  se::DeviceMemoryBase table = params.buffers->GetDeviceAddress(*argument_table_);
  const uint64_t bytes = args_.size() * sizeof(uint64_t);
  absl::Status copied = stream->Memcpy(&table, staging.get(), bytes);
  // Queued or not, the callback frees the buffer once earlier work is done
  // (a stream that failed skips the copy, and the buffer is freed when the
  // callback is dropped).
  absl::Status freed = stream->DoHostCallback(
      [staging = std::move(staging)]() mutable -> absl::Status {
        staging.reset();
        return absl::OkStatus();
      });
  RETURN_IF_ERROR(AnnotateError(*this, copied));
  RETURN_IF_ERROR(AnnotateError(*this, freed));
  const se::DeviceMemoryBase table_arg[] = {table};
  return AnnotateError(*this, stream->Launch(kernel, dims_, table_arg));
}

absl::StatusOr<ThunkProto> KernelThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  KernelThunkProto* k = proto.mutable_kernel();
  k->set_kernel_index(kernel_index_);
  for (const BufferSlice& slice : args_) *k->add_args() = SliceToProto(slice);
  *k->mutable_launch_dimensions() = LaunchDimensionsToProto(dims_);
  if (argument_table_ != nullptr) *k->mutable_argument_table() = SliceToProto(*argument_table_);
  return proto;
}

}  // namespace xla::gpu
