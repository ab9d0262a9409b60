#include "xla/backends/gpu/runtime/collectives/mpi_communicator.h"

#include <sched.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "xla/backends/gpu/runtime/collectives/in_process_communicator.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// The tag of collective-permute's point-to-point messages.
constexpr int kPermuteTag = 7101;

// Polls spinning (yielding) this long before sleeping between polls.
constexpr absl::Duration kSpinTime = absl::Milliseconds(50);

}  // namespace

MpiCommunicator::MpiCommunicator(const MpiApi& api, MPI_Comm comm, int64_t rank, int64_t size,
                                 std::string name, absl::Duration timeout, std::mutex* mpi_mu)
    : api_(api),
      comm_(comm),
      rank_(rank),
      size_(size),
      name_(std::move(name)),
      timeout_(timeout),
      mpi_mu_(mpi_mu) {}

MpiCommunicator::~MpiCommunicator() {
  // After a timeout an operation may still be pending on comm_: leave it.
  if (!abandoned_.empty()) return;
  std::lock_guard<std::mutex> lock(*mpi_mu_);
  int finalized = 0;
  api_.MPI_Finalized(&finalized);
  if (!finalized) api_.MPI_Comm_free(&comm_);
}

absl::Status MpiCommunicator::CheckCount(absl::string_view op, int64_t bytes) const {
  if (bytes >= 0 && bytes * size_ <= INT_MAX) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      op, " on ", name_, ": ", bytes, " bytes per rank times ", size_,
      " ranks exceeds MPI's int count (2^31-1 bytes per exchange)"));
}

absl::Status MpiCommunicator::Wait(absl::string_view op, std::vector<MPI_Request>& requests,
                                   std::shared_ptr<std::vector<char>> keep_alive) {
  const absl::Time start = absl::Now();
  const absl::Time deadline = start + timeout_;
  while (true) {
    int done = 0;
    {
      std::lock_guard<std::mutex> lock(*mpi_mu_);
      MPI_RETURN_IF_ERROR(api_, MPI_Testall, static_cast<int>(requests.size()), requests.data(),
                          &done, MPI_STATUSES_IGNORE);
    }
    if (done) return absl::OkStatus();
    const absl::Time now = absl::Now();
    if (now > deadline) break;
    if (now - start < kSpinTime) {
      sched_yield();
    } else {
      absl::SleepFor(absl::Microseconds(200));
    }
  }
  abandoned_.push_back(std::move(keep_alive));
  return absl::DeadlineExceededError(absl::StrCat(
      op, " on the MPI clique of ", name_, " (rank ", rank_, " of ", size_,
      "): not every process arrived within ", absl::FormatDuration(timeout_),
      "; a process crashed or ran different collectives (every process must run the same "
      "collectives in the same order). The job must be aborted."));
}

absl::StatusOr<std::shared_ptr<std::vector<char>>> MpiCommunicator::Gather(
    absl::string_view op, const void* send, int64_t bytes) {
  RETURN_IF_ERROR(CheckCount(op, bytes));
  auto all = std::make_shared<std::vector<char>>(static_cast<size_t>(bytes * size_));
  std::vector<MPI_Request> requests(1);
  {
    std::lock_guard<std::mutex> lock(*mpi_mu_);
    MPI_RETURN_IF_ERROR(api_, MPI_Iallgather, send, static_cast<int>(bytes), api_.byte,
                        all->data(), static_cast<int>(bytes), api_.byte, comm_, &requests[0]);
  }
  RETURN_IF_ERROR(Wait(op, requests, all));
  return all;
}

absl::StatusOr<std::shared_ptr<std::vector<char>>> MpiCommunicator::Exchange(
    absl::string_view op, const void* send, int64_t bytes) {
  RETURN_IF_ERROR(CheckCount(op, bytes));
  auto all = std::make_shared<std::vector<char>>(static_cast<size_t>(bytes * size_));
  std::vector<MPI_Request> requests(1);
  {
    std::lock_guard<std::mutex> lock(*mpi_mu_);
    MPI_RETURN_IF_ERROR(api_, MPI_Ialltoall, send, static_cast<int>(bytes), api_.byte,
                        all->data(), static_cast<int>(bytes), api_.byte, comm_, &requests[0]);
  }
  RETURN_IF_ERROR(Wait(op, requests, all));
  return all;
}

absl::Status MpiCommunicator::AllReduce(int64_t /*run_id*/, ReductionKind kind,
                                        PrimitiveType type, const void* send, void* recv,
                                        int64_t count) {
  if (!IsSupportedReduction(kind, type)) return ReduceInto(kind, type, recv, send, 0);
  const int64_t bytes = count * ByteWidth(type);
  ASSIGN_OR_RETURN(std::shared_ptr<std::vector<char>> all, Gather("all-reduce", send, bytes));
  if (bytes == 0) return absl::OkStatus();
  // The fixed order: rank 0's value, then ranks 1, 2, ... folded in.
  std::memcpy(recv, all->data(), bytes);
  for (int64_t r = 1; r < size_; ++r) {
    RETURN_IF_ERROR(ReduceInto(kind, type, recv, all->data() + r * bytes, count));
  }
  return absl::OkStatus();
}

absl::Status MpiCommunicator::AllGather(int64_t /*run_id*/, const void* send, void* recv,
                                        int64_t bytes) {
  ASSIGN_OR_RETURN(std::shared_ptr<std::vector<char>> all, Gather("all-gather", send, bytes));
  if (bytes > 0) std::memcpy(recv, all->data(), all->size());
  return absl::OkStatus();
}

absl::Status MpiCommunicator::ReduceScatter(int64_t /*run_id*/, ReductionKind kind,
                                            PrimitiveType type, const void* send, void* recv,
                                            int64_t count) {
  if (!IsSupportedReduction(kind, type)) return ReduceInto(kind, type, recv, send, 0);
  const int64_t block = count * ByteWidth(type);
  // Block r of `mine` = rank r's block rank().
  ASSIGN_OR_RETURN(std::shared_ptr<std::vector<char>> mine,
                   Exchange("reduce-scatter", send, block));
  if (block == 0) return absl::OkStatus();
  std::memcpy(recv, mine->data(), block);
  for (int64_t r = 1; r < size_; ++r) {
    RETURN_IF_ERROR(ReduceInto(kind, type, recv, mine->data() + r * block, count));
  }
  return absl::OkStatus();
}

absl::Status MpiCommunicator::AllToAll(int64_t /*run_id*/, const void* send, void* recv,
                                       int64_t bytes) {
  ASSIGN_OR_RETURN(std::shared_ptr<std::vector<char>> got, Exchange("all-to-all", send, bytes));
  if (bytes > 0) std::memcpy(recv, got->data(), got->size());
  return absl::OkStatus();
}

absl::Status MpiCommunicator::CollectivePermute(int64_t /*run_id*/, const void* send, void* recv,
                                                int64_t bytes,
                                                std::optional<int64_t> source_rank) {
  if (source_rank.has_value() && (*source_rank < 0 || *source_rank >= size_)) {
    return absl::InvalidArgumentError(absl::StrCat("collective-permute: source rank ",
                                                   *source_rank, " is outside [0, ", size_, ")"));
  }
  RETURN_IF_ERROR(CheckCount("collective-permute", bytes));
  // Who receives from whom: every rank's source (-1: none).
  const int64_t mine = source_rank.has_value() ? *source_rank : -1;
  ASSIGN_OR_RETURN(std::shared_ptr<std::vector<char>> sources,
                   Gather("collective-permute", &mine, sizeof(int64_t)));
  auto received = std::make_shared<std::vector<char>>(static_cast<size_t>(bytes));
  std::vector<MPI_Request> requests;
  {
    std::lock_guard<std::mutex> lock(*mpi_mu_);
    for (int64_t r = 0; r < size_; ++r) {
      int64_t source = 0;
      std::memcpy(&source, sources->data() + r * sizeof(int64_t), sizeof(int64_t));
      if (source != rank_) continue;
      requests.emplace_back();
      MPI_RETURN_IF_ERROR(api_, MPI_Isend, send, static_cast<int>(bytes), api_.byte,
                          static_cast<int>(r), kPermuteTag, comm_, &requests.back());
    }
    if (source_rank.has_value()) {
      requests.emplace_back();
      MPI_RETURN_IF_ERROR(api_, MPI_Irecv, received->data(), static_cast<int>(bytes), api_.byte,
                          static_cast<int>(*source_rank), kPermuteTag, comm_, &requests.back());
    }
  }
  RETURN_IF_ERROR(Wait("collective-permute", requests, received));
  if (bytes == 0) return absl::OkStatus();
  if (!source_rank.has_value()) {
    std::memset(recv, 0, bytes);
    return absl::OkStatus();
  }
  std::memcpy(recv, received->data(), bytes);
  return absl::OkStatus();
}

absl::Status MpiCommunicator::Broadcast(int64_t /*run_id*/, const void* send, void* recv,
                                        int64_t bytes, int64_t root_rank) {
  if (root_rank < 0 || root_rank >= size_) {
    return absl::InvalidArgumentError(absl::StrCat("collective-broadcast: root rank ", root_rank,
                                                   " is outside [0, ", size_, ")"));
  }
  if (bytes < 0 || bytes > INT_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(
        "collective-broadcast on ", name_, ": ", bytes,
        " bytes exceeds MPI's int count (2^31-1 bytes per exchange)"));
  }
  // MPI writes into `buffer` until the request completes; a timed-out
  // request keeps it alive (see Wait).
  auto buffer = std::make_shared<std::vector<char>>(static_cast<size_t>(bytes));
  if (root_rank == rank_ && bytes > 0) std::memcpy(buffer->data(), send, bytes);
  std::vector<MPI_Request> requests(1);
  {
    std::lock_guard<std::mutex> lock(*mpi_mu_);
    MPI_RETURN_IF_ERROR(api_, MPI_Ibcast, buffer->data(), static_cast<int>(bytes), api_.byte,
                        static_cast<int>(root_rank), comm_, &requests[0]);
  }
  RETURN_IF_ERROR(Wait("collective-broadcast", requests, buffer));
  if (bytes > 0) std::memcpy(recv, buffer->data(), bytes);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<MpiCliques>> MpiCliques::Create(const MpiApi& api,
                                                               absl::Duration timeout) {
  std::unique_ptr<MpiCliques> cliques(new MpiCliques(api, timeout));
  int initialized = 0;
  MPI_RETURN_IF_ERROR(api, MPI_Initialized, &initialized);
  if (!initialized) {
    int provided = 0;
    MPI_RETURN_IF_ERROR(api, MPI_Init_thread, nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    cliques->finalize_ = true;
    if (provided < MPI_THREAD_SERIALIZED) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the MPI library ", api.library, " provides thread level ", provided,
          ", below MPI_THREAD_SERIALIZED (", MPI_THREAD_SERIALIZED,
          ") which the runtime needs (collectives run on the stream's thread)"));
    }
  }
  MPI_RETURN_IF_ERROR(api, MPI_Comm_set_errhandler, api.comm_world, api.errors_return);
  int rank = 0, size = 0;
  MPI_RETURN_IF_ERROR(api, MPI_Comm_rank, api.comm_world, &rank);
  MPI_RETURN_IF_ERROR(api, MPI_Comm_size, api.comm_world, &size);
  cliques->world_rank_ = rank;
  cliques->world_size_ = size;
  std::vector<int64_t> all(size);
  for (int i = 0; i < size; ++i) all[i] = i;
  ASSIGN_OR_RETURN(CliqueKey world_key, CliqueKey::Create(all));
  RETURN_IF_ERROR(cliques->Acquire({world_key}));
  {
    std::lock_guard<std::mutex> lock(cliques->mu_);
    cliques->world_ = cliques->cliques_[world_key].get();
  }
  return cliques;
}

MpiCliques::~MpiCliques() {
  cliques_.clear();
  if (!finalize_) return;
  int finalized = 0;
  api_.MPI_Finalized(&finalized);
  if (!finalized) api_.MPI_Finalize();
}

absl::Status MpiCliques::Acquire(absl::Span<const CliqueKey> keys) {
  for (const CliqueKey& key : keys) {
    if (key.devices().back() >= world_size_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the clique of ", key.ToString(), " names device ", key.devices().back(), " but mpirun "
          "started ", world_size_, " processes (one device each); run with mpirun -np ",
          key.devices().back() + 1, " or more, as the program was compiled for"));
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cliques_.count(key) > 0) continue;
    }
    const std::optional<int64_t> rank = key.RankOf(world_rank_);
    MPI_Comm comm = api_.comm_null;
    {
      std::lock_guard<std::mutex> lock(mpi_mu_);
      MPI_RETURN_IF_ERROR(api_, MPI_Comm_split, api_.comm_world,
                          rank.has_value() ? 0 : MPI_UNDEFINED, static_cast<int>(world_rank_),
                          &comm);
    }
    std::unique_ptr<MpiCommunicator> member;
    if (rank.has_value()) {
      member = std::make_unique<MpiCommunicator>(api_, comm, *rank, key.size(), key.ToString(),
                                                 timeout_, &mpi_mu_);
    }
    std::lock_guard<std::mutex> lock(mu_);
    cliques_[key] = std::move(member);
  }
  return absl::OkStatus();
}

absl::StatusOr<Communicator*> MpiCliques::Get(const CliqueKey& key, int64_t device_id) {
  if (device_id != world_rank_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device ", device_id, " is not this process' device: MPI process ", world_rank_,
        " runs device ", world_rank_, " only"));
  }
  if (!key.RankOf(device_id).has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", device_id, " is not a member of the clique of ", key.ToString()));
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cliques_.find(key);
  if (it == cliques_.end()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the MPI clique of ", key.ToString(), " was not created before the run: every process "
        "must create it together (MpiCliques::Acquire with the program's collective groups)"));
  }
  return it->second.get();
}

void MpiCliques::Abort(int exit_code) {
  api_.MPI_Abort(api_.comm_world, exit_code);
  std::_Exit(exit_code);  // MPI_Abort should not return
}

absl::StatusOr<DeviceCommunicator*> MpiCliques::GetForStream(const CliqueKey& key,
                                                                int64_t device_id) {
  ASSIGN_OR_RETURN(Communicator * host, Get(key, device_id));
  return on_stream_.For(host);
}

}  // namespace xla::gpu
