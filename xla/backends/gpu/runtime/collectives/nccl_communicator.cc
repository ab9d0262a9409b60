#include "xla/backends/gpu/runtime/collectives/nccl_communicator.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "xla/stream_executor/cuda/cuda_stream.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

namespace se = ::stream_executor;
namespace cuda = ::stream_executor::cuda;

struct TypeRow {
  PrimitiveType type;
  ncclDataType_t nccl;
};

constexpr TypeRow kTypes[] = {
    {PrimitiveType::S8, ncclInt8},       {PrimitiveType::U8, ncclUint8},
    {PrimitiveType::PRED, ncclUint8},    {PrimitiveType::S32, ncclInt32},
    {PrimitiveType::U32, ncclUint32},    {PrimitiveType::S64, ncclInt64},
    {PrimitiveType::U64, ncclUint64},    {PrimitiveType::F16, ncclFloat16},
    {PrimitiveType::F32, ncclFloat32},   {PrimitiveType::F64, ncclFloat64},
    {PrimitiveType::BF16, ncclBfloat16},
};

struct OpRow {
  ReductionKind kind;
  ncclRedOp_t nccl;
  bool pred_only;  // and/or: min/max over 0/1 values only
};

constexpr OpRow kOps[] = {
    {ReductionKind::kSum, ncclSum, false}, {ReductionKind::kProd, ncclProd, false},
    {ReductionKind::kMin, ncclMin, false}, {ReductionKind::kMax, ncclMax, false},
    {ReductionKind::kAnd, ncclMin, true},  {ReductionKind::kOr, ncclMax, true},
};

void* Ptr(se::DeviceMemoryBase m) { return m.opaque; }

absl::Status AbortedError(absl::string_view op, absl::string_view label) {
  return absl::FailedPreconditionError(absl::StrCat(
      op, " on ", label, ": the communicator was aborted after a participant failed"));
}

// `status` with `where` in front of its message.
absl::Status Prefixed(absl::string_view where, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(where, ": ", status.message()));
}

}  // namespace

absl::StatusOr<std::pair<ncclDataType_t, ncclRedOp_t>> NcclReduction(ReductionKind kind,
                                                                     PrimitiveType type) {
  const TypeRow* t = nullptr;
  for (const TypeRow& row : kTypes) {
    if (row.type == type) t = &row;
  }
  const OpRow* o = nullptr;
  for (const OpRow& row : kOps) {
    if (row.kind == kind) o = &row;
  }
  if (t == nullptr || o == nullptr || (o->pred_only && type != PrimitiveType::PRED)) {
    return absl::UnimplementedError(absl::StrCat(
        "NCCL cannot compute a ", ReductionKindName(kind), " reduction of ",
        PrimitiveTypeName(type), " (it reduces s8/u8/s32/u32/s64/u64/f16/f32/f64/bf16 with "
        "sum, prod, min and max, and pred and/or); run this module on the host target"));
  }
  return std::make_pair(t->nccl, o->nccl);
}

NcclCommunicator::NcclCommunicator(const cuda::NcclApi& api, ncclComm_t comm, int64_t rank,
                                   int64_t size, cuda::CudaExecutor& executor, std::string label)
    : api_(api),
      comm_(comm),
      rank_(rank),
      size_(size),
      executor_(executor),
      label_(std::move(label)) {}

NcclCommunicator::~NcclCommunicator() {
  if (!aborted_.load()) api_.ncclCommDestroy(comm_);
  for (se::DeviceMemoryBase m : scratch_) (void)executor_.Deallocate(m);
}

void NcclCommunicator::Abort() {
  if (aborted_.exchange(true)) return;
  api_.ncclCommAbort(comm_);
}

absl::Status NcclCommunicator::Enqueue(se::Stream& stream, const char* op,
                                       std::function<ncclResult_t(cudaStream_t)> call) {
  if (aborted_.load()) return AbortedError(op, label_);
  auto* cuda_stream = dynamic_cast<cuda::CudaStream*>(&stream);
  if (cuda_stream == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, " on ", label_, ": NCCL needs a CUDA stream of the communicator's device"));
  }
  return cuda_stream->EnqueueDriverWork(
      op, [this, op, call = std::move(call)](CUstream s) -> absl::Status {
        if (aborted_.load()) return AbortedError(op, label_);
        const absl::Status status =
            cuda::NcclStatus(api_, op, call(reinterpret_cast<cudaStream_t>(s)));
        if (status.ok()) return status;
        return absl::Status(status.code(), absl::StrCat(status.message(), " (", label_, ", rank ",
                                                        rank_, " of ", size_, ")"));
      });
}

absl::Status NcclCommunicator::AllReduce(int64_t /*run_id*/, ReductionKind kind, PrimitiveType type,
                                         se::DeviceMemoryBase send, se::DeviceMemoryBase recv,
                                         int64_t count, se::Stream& stream) {
  ASSIGN_OR_RETURN(auto nccl, NcclReduction(kind, type));
  return Enqueue(stream, "ncclAllReduce", [=](cudaStream_t s) {
    return api_.ncclAllReduce(Ptr(send), Ptr(recv), count, nccl.first, nccl.second, comm_, s);
  });
}

absl::Status NcclCommunicator::AllGather(int64_t /*run_id*/, se::DeviceMemoryBase send, se::DeviceMemoryBase recv,
                                         int64_t bytes, se::Stream& stream) {
  return Enqueue(stream, "ncclAllGather", [=](cudaStream_t s) {
    return api_.ncclAllGather(Ptr(send), Ptr(recv), bytes, ncclInt8, comm_, s);
  });
}

absl::Status NcclCommunicator::ReduceScatter(int64_t /*run_id*/, ReductionKind kind, PrimitiveType type,
                                             se::DeviceMemoryBase send, se::DeviceMemoryBase recv,
                                             int64_t count, se::Stream& stream) {
  ASSIGN_OR_RETURN(auto nccl, NcclReduction(kind, type));
  return Enqueue(stream, "ncclReduceScatter", [=](cudaStream_t s) {
    return api_.ncclReduceScatter(Ptr(send), Ptr(recv), count, nccl.first, nccl.second, comm_,
                                  s);
  });
}

absl::Status NcclCommunicator::AllToAll(int64_t /*run_id*/, se::DeviceMemoryBase send, se::DeviceMemoryBase recv,
                                        int64_t bytes, se::Stream& stream) {
  return Enqueue(stream, "ncclSend/ncclRecv (all-to-all)", [=](cudaStream_t s) {
    ncclResult_t r = api_.ncclGroupStart();
    for (int64_t peer = 0; peer < size_ && r == ncclSuccess; ++peer) {
      r = api_.ncclSend(static_cast<char*>(Ptr(send)) + peer * bytes, bytes, ncclInt8, peer,
                        comm_, s);
      if (r == ncclSuccess) {
        r = api_.ncclRecv(static_cast<char*>(Ptr(recv)) + peer * bytes, bytes, ncclInt8, peer,
                          comm_, s);
      }
    }
    const ncclResult_t end = api_.ncclGroupEnd();
    return r != ncclSuccess ? r : end;
  });
}

absl::Status NcclCommunicator::CollectivePermute(int64_t /*run_id*/, se::DeviceMemoryBase send,
                                                 se::DeviceMemoryBase recv, int64_t bytes,
                                                 std::optional<int64_t> source_rank,
                                                 absl::Span<const int64_t> target_ranks,
                                                 se::Stream& stream) {
  if (!source_rank.has_value()) RETURN_IF_ERROR(stream.MemZero(&recv, bytes));
  if (target_ranks.empty() && !source_rank.has_value()) return absl::OkStatus();
  std::vector<int64_t> targets(target_ranks.begin(), target_ranks.end());
  return Enqueue(stream, "ncclSend/ncclRecv (collective-permute)", [=](cudaStream_t s) {
    ncclResult_t r = api_.ncclGroupStart();
    for (int64_t peer : targets) {
      if (r == ncclSuccess) r = api_.ncclSend(Ptr(send), bytes, ncclInt8, peer, comm_, s);
    }
    if (r == ncclSuccess && source_rank.has_value()) {
      r = api_.ncclRecv(Ptr(recv), bytes, ncclInt8, *source_rank, comm_, s);
    }
    const ncclResult_t end = api_.ncclGroupEnd();
    return r != ncclSuccess ? r : end;
  });
}

absl::Status NcclCommunicator::Broadcast(int64_t /*run_id*/, se::DeviceMemoryBase send, se::DeviceMemoryBase recv,
                                         int64_t bytes, int64_t root_rank, se::Stream& stream) {
  if (root_rank < 0 || root_rank >= size_) {
    return absl::InvalidArgumentError(absl::StrCat("broadcast root rank ", root_rank,
                                                   " is outside [0, ", size_, ") on ", label_));
  }
  return Enqueue(stream, "ncclBroadcast", [=](cudaStream_t s) {
    return api_.ncclBroadcast(Ptr(send), Ptr(recv), bytes, ncclInt8, root_rank, comm_, s);
  });
}

absl::StatusOr<se::DeviceMemoryBase> NcclCommunicator::Scratch(int64_t bytes, se::Stream& /*stream*/) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!scratch_.empty() && scratch_.back().size >= static_cast<uint64_t>(bytes)) {
    return scratch_.back();
  }
  absl::StatusOr<se::DeviceMemoryBase> memory = executor_.Allocate(bytes);
  if (!memory.ok()) {
    return absl::Status(memory.status().code(),
                        absl::StrCat("scratch memory of ", bytes, " bytes for collectives on ",
                                     label_, ": ", memory.status().message()));
  }
  scratch_.push_back(*memory);
  return *memory;
}

absl::StatusOr<ncclUniqueId> InProcessNcclBootstrap::ExchangeId(
    const CliqueKey& key, int64_t device_id,
    const std::function<absl::StatusOr<ncclUniqueId>()>& make_id) {
  const std::optional<int64_t> rank = key.RankOf(device_id);
  if (!rank.has_value()) return ncclUniqueId{};
  std::shared_ptr<Rendezvous> rendezvous;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::shared_ptr<Rendezvous>& r = rendezvous_[key];
    if (r == nullptr) r = std::make_shared<Rendezvous>(key.size(), key.ToString(), timeout_);
    rendezvous = r;
  }
  ncclUniqueId id{};
  if (*rank == 0) {
    absl::StatusOr<ncclUniqueId> made = make_id();
    // Arrive anyway (with nothing) so the others fail fast on the size
    // check instead of waiting out the timeout.
    if (!made.ok()) {
      (void)rendezvous->Arrive(0, 0, "NCCL unique id", 0, nullptr, 0);
      return made.status();
    }
    id = *made;
  }
  ASSIGN_OR_RETURN(auto contributions,
                   rendezvous->Arrive(0, 0, "NCCL unique id", *rank, &id,
                                      *rank == 0 ? sizeof(id) : 0));
  const std::vector<char>& root = contributions->data[0];
  if (root.size() != sizeof(id)) {
    return absl::UnavailableError(absl::StrCat("NCCL unique id of ", key.ToString(),
                                               ": its rank 0 failed to make one"));
  }
  std::memcpy(&id, root.data(), sizeof(id));
  return id;
}

absl::StatusOr<ncclUniqueId> HostNcclBootstrap::ExchangeId(
    const CliqueKey& key, int64_t device_id,
    const std::function<absl::StatusOr<ncclUniqueId>()>& make_id) {
  const int64_t root = key.devices()[0];
  if (root >= world_->size() || device_id != world_->rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "NCCL bootstrap of ", key.ToString(), " over a world of ", world_->size(),
        " processes: device ", device_id, " must be this process' rank ", world_->rank(),
        " and every device must have a process (start one process per GPU)"));
  }
  ncclUniqueId id{};
  if (device_id == root) {
    ASSIGN_OR_RETURN(id, make_id());
  }
  RETURN_IF_ERROR(world_->Broadcast(/*run_id=*/0, &id, &id, sizeof(id), root));
  return id;
}

absl::Status NcclCliques::Acquire(absl::Span<const CliqueKey> keys, int64_t device_id,
                                  cuda::CudaExecutor& executor) {
  for (const CliqueKey& key : keys) {
    RETURN_IF_ERROR(
        Prefixed(absl::StrCat("NCCL clique ", key.ToString(), ", device ", device_id),
                 AcquireOne(key, device_id, executor)));
  }
  return absl::OkStatus();
}

absl::Status NcclCliques::AcquireOne(const CliqueKey& key, int64_t device_id,
                                     cuda::CudaExecutor& executor) {
  auto make_id = [this]() -> absl::StatusOr<ncclUniqueId> {
    ncclUniqueId id;
    RETURN_IF_ERROR(cuda::NcclStatus(api_, "ncclGetUniqueId", api_.ncclGetUniqueId(&id)));
    return id;
  };
  ASSIGN_OR_RETURN(const ncclUniqueId id, bootstrap_->ExchangeId(key, device_id, make_id));
  const std::optional<int64_t> rank = key.RankOf(device_id);
  if (!rank.has_value()) return absl::OkStatus();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (communicators_.count({key, device_id}) > 0) return absl::OkStatus();
  }
  CU_RETURN_IF_ERROR(executor.api(), cuCtxSetCurrent, executor.context());
  ncclComm_t comm = nullptr;
  RETURN_IF_ERROR(cuda::NcclStatus(
      api_, "ncclCommInitRank",
      api_.ncclCommInitRank(&comm, static_cast<int>(key.size()), id, static_cast<int>(*rank))));
  auto communicator = std::make_unique<NcclCommunicator>(api_, comm, *rank, key.size(), executor,
                                                         key.ToString());
  std::lock_guard<std::mutex> lock(mu_);
  communicators_[{key, device_id}] = std::move(communicator);
  return absl::OkStatus();
}

absl::StatusOr<DeviceCommunicator*> NcclCliques::Get(const CliqueKey& key, int64_t device_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = communicators_.find({key, device_id});
  if (it == communicators_.end()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no NCCL communicator for device ", device_id, " in ", key.ToString(),
        ": cliques are created up front by NcclCliques::Acquire from the program's declared "
        "groups; this collective's group was not declared"));
  }
  return it->second.get();
}

void NcclCliques::AbortAll() {
  aborted_.store(true);
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [key, communicator] : communicators_) communicator->Abort();
}

int64_t NcclCliques::num_communicators() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(communicators_.size());
}

}  // namespace xla::gpu
