#include "xla/stream_executor/cuda/fake_nccl.h"

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/stream_executor/cuda/fake_nccl_reductions.h"
#include "xla/util/logging.h"

namespace stream_executor::cuda {

namespace {

using Clock = std::chrono::steady_clock;


struct ResultText {
  ncclResult_t result;
  const char* text;
};

constexpr ResultText kResultTexts[] = {
    {ncclSuccess, "no error"},
    {ncclUnhandledCudaError, "unhandled cuda error"},
    {ncclSystemError,
     "unhandled system error (fake: a peer did not arrive "
     "in time)"},
    {ncclInternalError, "internal error"},
    {ncclInvalidArgument, "invalid argument"},
    {ncclInvalidUsage, "invalid usage"},
    {ncclRemoteError, "remote process exited or there was a network error"},
    {ncclInProgress, "NCCL operation in progress"},
};

// ---------------------------------------------------------------------------
// Communicators and the device-side exchange.

enum class Kind { kAllReduce, kAllGather, kReduceScatter, kBroadcast };

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kAllReduce:
      return "ncclAllReduce";
    case Kind::kAllGather:
      return "ncclAllGather";
    case Kind::kReduceScatter:
      return "ncclReduceScatter";
    case Kind::kBroadcast:
      return "ncclBroadcast";
  }
  return "?";
}

// One rank's arguments to one collective.
struct Post {
  Kind kind = Kind::kAllReduce;
  const char* send = nullptr;
  char* recv = nullptr;
  size_t count = 0;  // NCCL's count argument (per-rank block for RS / AG)
  const FakeNcclType* type = nullptr;
  ncclRedOp_t op = ncclSum;  // reductions only
  int root = 0;              // broadcast only
};

// Operation number k of a clique: where its ranks meet.
struct Rendezvous {
  std::vector<Post> posts;  // by rank
  int num_posted = 0;
  int num_read = 0;  // ranks done reading every rank's input
  int num_left = 0;
  bool failed = false;  // a rank gave up waiting
};

// The ranks created from one unique id.
struct Clique {
  int nranks = 0;
  std::vector<bool> joined;
  int num_joined = 0;
  bool failed = false;                        // ncclCommInitRank timed out
  bool aborted = false;                       // ncclCommAbort of a member
  std::map<uint64_t, Rendezvous> rendezvous;  // by operation number
  // Sent bytes not yet received, by (from rank, to rank).
  std::map<std::pair<int, int>, std::deque<std::vector<char>>> mailboxes;
};

struct Comm {
  std::shared_ptr<Clique> clique;
  int rank = 0;
  uint64_t next_op = 0;              // collectives enqueued so far
  ncclResult_t error = ncclSuccess;  // sticky device-side error
};

// A send or receive recorded inside a group.
struct P2p {
  bool is_send = false;
  char* buffer = nullptr;
  size_t bytes = 0;
  int peer = 0;
  std::shared_ptr<Comm> comm;
  CUstream stream = nullptr;
};

struct Group {
  int depth = 0;
  std::vector<P2p> ops;
};

std::string RankList(const std::vector<bool>& present, bool want) {
  std::vector<int> ranks;
  for (size_t r = 0; r < present.size(); ++r) {
    if (present[r] == want) ranks.push_back(static_cast<int>(r));
  }
  return absl::StrCat("[", absl::StrJoin(ranks, ", "), "]");
}

// Empty when every post agrees with rank 0's; otherwise what differs.
std::string Disagreement(const std::vector<Post>& posts) {
  const Post& first = posts[0];
  for (size_t r = 1; r < posts.size(); ++r) {
    const Post& p = posts[r];
    const std::string who = absl::StrCat(" but rank ", r, " has ");
    if (p.kind != first.kind) {
      return absl::StrCat("rank 0 called ", KindName(first.kind), who,
                          KindName(p.kind));
    }
    if (p.count != first.count) {
      return absl::StrCat("rank 0 has count ", first.count, who, "count ",
                          p.count);
    }
    if (p.type != first.type) {
      return absl::StrCat("rank 0 has type ", first.type->name, who,
                          p.type->name);
    }
    const bool reduces =
        first.kind == Kind::kAllReduce || first.kind == Kind::kReduceScatter;
    if (reduces && p.op != first.op) {
      return absl::StrCat("rank 0 has op ", FakeNcclOpName(first.op), who, "op ",
                          FakeNcclOpName(p.op));
    }
    if (first.kind == Kind::kBroadcast && p.root != first.root) {
      return absl::StrCat("rank 0 has root ", first.root, who, "root ", p.root);
    }
  }
  return "";
}

// Rank `rank`'s result of a collective whose posts all agree, read from
// every rank's send buffer.
std::vector<char> Compute(const std::vector<Post>& posts, int rank) {
  const Post& mine = posts[rank];
  const size_t block = mine.count * mine.type->size;
  std::vector<const char*> inputs;
  std::vector<char> out;
  switch (mine.kind) {
    case Kind::kAllReduce:
    case Kind::kReduceScatter: {
      const size_t offset =
          mine.kind == Kind::kReduceScatter ? rank * block : 0;
      for (const Post& p : posts) inputs.push_back(p.send + offset);
      out.resize(block);
      mine.type->fold[mine.op](inputs, mine.count, out.data());
      return out;
    }
    case Kind::kAllGather:
      out.resize(block * posts.size());
      for (size_t q = 0; q < posts.size() && block > 0; ++q) {
        std::memcpy(out.data() + q * block, posts[q].send, block);
      }
      return out;
    case Kind::kBroadcast:
      out.resize(block);
      if (block > 0) std::memcpy(out.data(), posts[mine.root].send, block);
      return out;
  }
  return out;
}

// The output bytes of a collective for one rank.
size_t OutputBytes(const Post& post, int nranks) {
  const size_t block = post.count * post.type->size;
  return post.kind == Kind::kAllGather ? block * nranks : block;
}

// The input bytes a rank must provide (broadcast: the root only).
size_t InputBytes(const Post& post, int nranks, int rank) {
  const size_t block = post.count * post.type->size;
  switch (post.kind) {
    case Kind::kAllReduce:
    case Kind::kAllGather:
      return block;
    case Kind::kReduceScatter:
      return block * nranks;
    case Kind::kBroadcast:
      return rank == post.root ? block : 0;
  }
  return block;
}

}  // namespace

struct FakeNccl::State {
  const CudaDriverApi* driver = nullptr;
  Options options;

  mutable std::mutex mu;
  std::condition_variable changed;  // any rank arrived, posted, sent or left
  std::map<std::string, int> calls;
  std::map<std::string, std::shared_ptr<Clique>> forming;  // by unique id
  std::map<Comm*, std::shared_ptr<Comm>> comms;
  std::map<std::thread::id, Group> groups;
  std::vector<std::string> errors;
  uint64_t next_unique_id = 0;

  void Count(const char* entry_point) {
    std::lock_guard<std::mutex> lock(mu);
    ++calls[entry_point];
  }

  Clock::time_point Deadline() const { return Clock::now() + options.timeout; }

  std::string TimeoutText() const {
    return absl::StrCat(options.timeout.count(), " ms");
  }

  // Needs mu held. Writes `message` to stderr, keeps it, and makes `result`
  // the sticky error of `comm` (when it is set).
  void ReportLocked(Comm* comm, ncclResult_t result, std::string message) {
    std::fprintf(stderr, "FakeNccl: %s\n", message.c_str());
    errors.push_back(std::move(message));
    if (comm != nullptr && comm->error == ncclSuccess) comm->error = result;
  }

  // Needs mu held. The live communicator behind `handle`, or null.
  std::shared_ptr<Comm> FindCommLocked(ncclComm_t handle) const {
    auto it = comms.find(reinterpret_cast<Comm*>(handle));
    return it == comms.end() ? nullptr : it->second;
  }

  // Needs mu held. ncclSuccess when `handle` is a live communicator without
  // a sticky error.
  ncclResult_t CheckCommLocked(ncclComm_t handle) const {
    std::shared_ptr<Comm> comm = FindCommLocked(handle);
    if (comm == nullptr) return ncclInvalidArgument;
    return comm->error;
  }

  ncclResult_t InitRank(ncclComm_t* out, int nranks, const ncclUniqueId& id,
                        int rank);
  ncclResult_t EnqueueCollective(ncclComm_t handle, cudaStream_t stream,
                                 Post post);
  ncclResult_t AddP2p(bool is_send, const void* buffer, size_t count,
                      ncclDataType_t type, int peer, ncclComm_t handle,
                      cudaStream_t stream);
  ncclResult_t GroupStart();
  ncclResult_t GroupEnd();
  // Enqueues one host function per stream for `ops`.
  ncclResult_t Flush(std::vector<P2p> ops);
};

namespace {

FakeNccl::State* g_state = nullptr;

#define FAKE_NCCL_ENTER(name)    \
  FakeNccl::State& s = *g_state; \
  s.Count(#name)

// What a collective's host function needs.
struct CollectiveTask {
  FakeNccl::State* state;
  std::shared_ptr<Comm> comm;
  uint64_t op_number;
  Post post;
};

// Needs mu held. Rank leaves rendezvous `op_number`; the last one removes it.
void LeaveLocked(Clique& clique, uint64_t op_number) {
  auto it = clique.rendezvous.find(op_number);
  if (++it->second.num_left == clique.nranks) clique.rendezvous.erase(it);
}

// The host function of one rank's collective (runs on its stream thread).
void RunCollective(void* data) {
  std::unique_ptr<CollectiveTask> task(static_cast<CollectiveTask*>(data));
  FakeNccl::State& s = *task->state;
  Comm& comm = *task->comm;
  Clique& clique = *comm.clique;
  const int n = clique.nranks;
  const int rank = comm.rank;
  const std::string what =
      absl::StrCat(KindName(task->post.kind), " #", task->op_number,
                   " on rank ", rank, " of ", n);

  std::unique_lock<std::mutex> lock(s.mu);
  if (comm.error != ncclSuccess) return;  // skipped: the comm failed before
  Rendezvous& rv = clique.rendezvous[task->op_number];
  if (rv.posts.empty()) rv.posts.resize(n);
  rv.posts[rank] = task->post;
  ++rv.num_posted;
  s.changed.notify_all();
  // Ends this rank's part of the operation with a device-side error; with
  // `release_peers`, ranks still waiting for the others give up too.
  auto fail = [&](ncclResult_t result, const std::string& why, bool release_peers) {
    if (release_peers) {
      rv.failed = true;
      s.changed.notify_all();
    }
    s.ReportLocked(&comm, result, absl::StrCat(what, ": ", why));
    LeaveLocked(clique, task->op_number);
  };
  const Clock::time_point deadline = s.Deadline();
  if (!s.changed.wait_until(lock, deadline, [&] {
        return rv.num_posted == n || rv.failed || clique.aborted;
      })) {
    return fail(ncclSystemError,
                absl::StrCat("timed out after ", s.TimeoutText(),
                             " waiting for the other ranks to reach it; the communicator is now "
                             "in error"),
                /*release_peers=*/true);
  }
  if (clique.aborted && rv.num_posted != n) {
    return fail(ncclSystemError, "the clique was aborted (ncclCommAbort)", true);
  }
  if (rv.failed) {
    return fail(ncclSystemError,
                "another rank gave up waiting; the communicator is now in error", false);
  }
  const std::string disagreement = Disagreement(rv.posts);
  if (!disagreement.empty()) {
    return fail(ncclInvalidUsage,
                absl::StrCat("ranks disagree: ", disagreement,
                             "; the communicator is now in error (ncclInvalidUsage)"),
                false);
  }
  // Every rank posted and none writes before all have read: read unlocked.
  lock.unlock();
  const std::vector<char> result = Compute(rv.posts, rank);
  lock.lock();
  ++rv.num_read;
  s.changed.notify_all();
  if (!s.changed.wait_until(lock, deadline + s.options.timeout,
                            [&] { return rv.num_read == n; })) {
    return fail(ncclSystemError, "timed out waiting for the other ranks to read their inputs",
                false);
  }
  lock.unlock();
  if (!result.empty()) {
    std::memcpy(task->post.recv, result.data(), result.size());
  }
  lock.lock();
  LeaveLocked(clique, task->op_number);
}

// What a group's host function for one stream needs.
struct P2pTask {
  FakeNccl::State* state;
  std::vector<P2p> ops;  // all on one stream, in call order
};

std::string P2pName(const P2p& op) {
  return absl::StrCat(op.is_send ? "ncclSend" : "ncclRecv", " on rank ",
                      op.comm->rank, op.is_send ? " to " : " from ", op.peer);
}

// The host function of one stream's part of a group: sends, then receives.
void RunP2p(void* data) {
  std::unique_ptr<P2pTask> task(static_cast<P2pTask*>(data));
  FakeNccl::State& s = *task->state;
  for (const P2p& op : task->ops) {
    if (!op.is_send) continue;
    std::vector<char> bytes(op.buffer, op.buffer + op.bytes);
    std::lock_guard<std::mutex> lock(s.mu);
    if (op.comm->error != ncclSuccess) continue;
    op.comm->clique->mailboxes[{op.comm->rank, op.peer}].push_back(
        std::move(bytes));
    s.changed.notify_all();
  }
  for (const P2p& op : task->ops) {
    if (op.is_send) continue;
    std::vector<char> bytes;
    {
      std::unique_lock<std::mutex> lock(s.mu);
      if (op.comm->error != ncclSuccess) continue;
      std::deque<std::vector<char>>& fifo =
          op.comm->clique->mailboxes[{op.peer, op.comm->rank}];
      if (!s.changed.wait_until(lock, s.Deadline(), [&] {
            return !fifo.empty() || op.comm->clique->aborted;
          }) || fifo.empty()) {
        s.ReportLocked(op.comm.get(), ncclSystemError,
                       op.comm->clique->aborted
                           ? absl::StrCat(P2pName(op), ": the clique was aborted (ncclCommAbort)")
                           : absl::StrCat(P2pName(op), ": no matching ncclSend within ",
                                          s.TimeoutText(), "; the communicator is now in error"));
        continue;
      }
      bytes = std::move(fifo.front());
      fifo.pop_front();
      if (bytes.size() != op.bytes) {
        s.ReportLocked(
            op.comm.get(), ncclInvalidUsage,
            absl::StrCat(P2pName(op), ": expects ", op.bytes,
                         " bytes but the matching ncclSend sent ", bytes.size(),
                         "; the communicator is now in error "
                         "(ncclInvalidUsage)"));
        continue;
      }
    }
    if (!bytes.empty()) std::memcpy(op.buffer, bytes.data(), bytes.size());
  }
}

}  // namespace

ncclResult_t FakeNccl::State::InitRank(ncclComm_t* out, int nranks,
                                       const ncclUniqueId& id, int rank) {
  if (out == nullptr || nranks < 1 || rank < 0 || rank >= nranks) {
    return ncclInvalidArgument;
  }
  const std::string key(id.internal, sizeof(id.internal));
  std::unique_lock<std::mutex> lock(mu);
  std::shared_ptr<Clique>& slot = forming[key];
  if (slot == nullptr) {
    slot = std::make_shared<Clique>();
    slot->nranks = nranks;
    slot->joined.resize(nranks);
  }
  std::shared_ptr<Clique> clique = slot;
  if (clique->nranks != nranks) {
    ReportLocked(nullptr, ncclInvalidUsage,
                 absl::StrCat("ncclCommInitRank rank ", rank, " of ", nranks,
                              ": the other ranks of this unique id said ",
                              clique->nranks, " ranks"));
    return ncclInvalidUsage;
  }
  if (clique->joined[rank]) {
    ReportLocked(nullptr, ncclInvalidUsage,
                 absl::StrCat("ncclCommInitRank rank ", rank, " of ", nranks,
                              ": that rank of this unique id is already "
                              "taken"));
    return ncclInvalidUsage;
  }
  clique->joined[rank] = true;
  ++clique->num_joined;
  changed.notify_all();
  const auto formed = [&] {
    return clique->num_joined == nranks || clique->failed;
  };
  if (!changed.wait_until(lock, Deadline(), formed)) {
    clique->failed = true;
    auto it = forming.find(key);
    if (it != forming.end() && it->second == clique) forming.erase(it);
    changed.notify_all();
    ReportLocked(
        nullptr, ncclSystemError,
        absl::StrCat("ncclCommInitRank rank ", rank, " of ", nranks,
                     ": timed out after ", TimeoutText(), "; ranks ",
                     RankList(clique->joined, false), " never arrived"));
    return ncclSystemError;
  }
  if (clique->failed) return ncclSystemError;
  auto it = forming.find(key);
  if (it != forming.end() && it->second == clique) forming.erase(it);
  auto comm = std::make_shared<Comm>();
  comm->clique = clique;
  comm->rank = rank;
  comms.emplace(comm.get(), comm);
  *out = reinterpret_cast<ncclComm_t>(comm.get());
  return ncclSuccess;
}

ncclResult_t FakeNccl::State::EnqueueCollective(ncclComm_t handle,
                                                cudaStream_t stream,
                                                Post post) {
  const bool reduces =
      post.kind == Kind::kAllReduce || post.kind == Kind::kReduceScatter;
  if (post.type == nullptr || (reduces && !IsSupportedFakeNcclOp(post.op))) {
    return ncclInvalidArgument;
  }
  std::lock_guard<std::mutex> lock(mu);
  if (ncclResult_t result = CheckCommLocked(handle); result != ncclSuccess) {
    return result;
  }
  std::shared_ptr<Comm> comm = FindCommLocked(handle);
  const int n = comm->clique->nranks;
  if (post.root < 0 || post.root >= n) return ncclInvalidArgument;
  if ((InputBytes(post, n, comm->rank) > 0 && post.send == nullptr) ||
      (OutputBytes(post, n) > 0 && post.recv == nullptr)) {
    return ncclInvalidArgument;
  }
  auto task = std::make_unique<CollectiveTask>(
      CollectiveTask{this, comm, comm->next_op, post});
  // mu is held across the launch so operation numbers follow stream order;
  // the driver never calls back into this object with its own lock held.
  const CUresult launched = driver->cuLaunchHostFunc(
      reinterpret_cast<CUstream>(stream), &RunCollective, task.get());
  if (launched != CUDA_SUCCESS) return ncclUnhandledCudaError;
  task.release();  // owned by the host function now
  ++comm->next_op;
  return ncclSuccess;
}

ncclResult_t FakeNccl::State::AddP2p(bool is_send, const void* buffer,
                                     size_t count, ncclDataType_t type,
                                     int peer, ncclComm_t handle,
                                     cudaStream_t stream) {
  const FakeNcclType* info = FindFakeNcclType(type);
  if (info == nullptr) return ncclInvalidArgument;
  std::vector<P2p> flush;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (ncclResult_t result = CheckCommLocked(handle); result != ncclSuccess) {
      return result;
    }
    std::shared_ptr<Comm> comm = FindCommLocked(handle);
    const size_t bytes = count * info->size;
    if (peer < 0 || peer >= comm->clique->nranks ||
        (bytes > 0 && buffer == nullptr)) {
      return ncclInvalidArgument;
    }
    Group& group = groups[std::this_thread::get_id()];
    group.ops.push_back(
        P2p{is_send, const_cast<char*>(static_cast<const char*>(buffer)), bytes,
            peer, std::move(comm), reinterpret_cast<CUstream>(stream)});
    if (group.depth > 0) return ncclSuccess;
    // Outside a group: a group of its own.
    flush = std::move(group.ops);
    groups.erase(std::this_thread::get_id());
  }
  return Flush(std::move(flush));
}

ncclResult_t FakeNccl::State::GroupStart() {
  std::lock_guard<std::mutex> lock(mu);
  ++groups[std::this_thread::get_id()].depth;
  return ncclSuccess;
}

ncclResult_t FakeNccl::State::GroupEnd() {
  std::vector<P2p> flush;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = groups.find(std::this_thread::get_id());
    if (it == groups.end() || it->second.depth == 0) return ncclInvalidUsage;
    if (--it->second.depth > 0) return ncclSuccess;
    flush = std::move(it->second.ops);
    groups.erase(it);
  }
  return Flush(std::move(flush));
}

ncclResult_t FakeNccl::State::Flush(std::vector<P2p> ops) {
  // One task per stream, streams in order of first use.
  std::vector<std::unique_ptr<P2pTask>> tasks;
  std::map<CUstream, P2pTask*> by_stream;
  for (P2p& op : ops) {
    P2pTask*& task = by_stream[op.stream];
    if (task == nullptr) {
      tasks.push_back(std::make_unique<P2pTask>(P2pTask{this, {}}));
      task = tasks.back().get();
    }
    task->ops.push_back(std::move(op));
  }
  ncclResult_t result = ncclSuccess;
  for (std::unique_ptr<P2pTask>& task : tasks) {
    const CUstream stream = task->ops.front().stream;
    if (driver->cuLaunchHostFunc(stream, &RunP2p, task.get()) != CUDA_SUCCESS) {
      result = ncclUnhandledCudaError;
      continue;
    }
    task.release();  // owned by the host function now
  }
  return result;
}

namespace {

ncclResult_t FakeGetVersion(int* version) {
  FAKE_NCCL_ENTER(ncclGetVersion);
  if (version == nullptr) return ncclInvalidArgument;
  *version = s.options.version;
  return ncclSuccess;
}

ncclResult_t FakeGetUniqueId(ncclUniqueId* id) {
  FAKE_NCCL_ENTER(ncclGetUniqueId);
  if (id == nullptr) return ncclInvalidArgument;
  uint64_t number;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    number = ++s.next_unique_id;
  }
  std::memset(id->internal, 0, sizeof(id->internal));
  constexpr char kMagic[] = "fakenccl";
  std::memcpy(id->internal, kMagic, sizeof(kMagic));
  std::memcpy(id->internal + sizeof(kMagic), &number, sizeof(number));
  return ncclSuccess;
}

ncclResult_t FakeCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id,
                              int rank) {
  FAKE_NCCL_ENTER(ncclCommInitRank);
  return s.InitRank(comm, nranks, id, rank);
}

ncclResult_t FakeCommDestroy(ncclComm_t comm) {
  FAKE_NCCL_ENTER(ncclCommDestroy);
  std::lock_guard<std::mutex> lock(s.mu);
  // Queued work keeps its own reference to the communicator.
  return s.comms.erase(reinterpret_cast<Comm*>(comm)) == 1
             ? ncclSuccess
             : ncclInvalidArgument;
}

// Wakes every operation of the clique waiting for peers (they fail) and
// frees the communicator, as NCCL's abort does.
ncclResult_t FakeCommAbort(ncclComm_t comm) {
  FAKE_NCCL_ENTER(ncclCommAbort);
  std::lock_guard<std::mutex> lock(s.mu);
  std::shared_ptr<Comm> c = s.FindCommLocked(comm);
  if (c == nullptr) return ncclInvalidArgument;
  c->clique->aborted = true;
  s.comms.erase(c.get());
  s.changed.notify_all();
  return ncclSuccess;
}

ncclResult_t FakeAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream) {
  FAKE_NCCL_ENTER(ncclAllReduce);
  return s.EnqueueCollective(
      comm, stream,
      Post{Kind::kAllReduce, static_cast<const char*>(sendbuff),
           static_cast<char*>(recvbuff), count, FindFakeNcclType(datatype), op, 0});
}

ncclResult_t FakeAllGather(const void* sendbuff, void* recvbuff,
                           size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream) {
  FAKE_NCCL_ENTER(ncclAllGather);
  return s.EnqueueCollective(
      comm, stream,
      Post{Kind::kAllGather, static_cast<const char*>(sendbuff),
           static_cast<char*>(recvbuff), sendcount, FindFakeNcclType(datatype), ncclSum,
           0});
}

ncclResult_t FakeReduceScatter(const void* sendbuff, void* recvbuff,
                               size_t recvcount, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t stream) {
  FAKE_NCCL_ENTER(ncclReduceScatter);
  return s.EnqueueCollective(
      comm, stream,
      Post{Kind::kReduceScatter, static_cast<const char*>(sendbuff),
           static_cast<char*>(recvbuff), recvcount, FindFakeNcclType(datatype), op, 0});
}

ncclResult_t FakeBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm,
                           cudaStream_t stream) {
  FAKE_NCCL_ENTER(ncclBroadcast);
  return s.EnqueueCollective(
      comm, stream,
      Post{Kind::kBroadcast, static_cast<const char*>(sendbuff),
           static_cast<char*>(recvbuff), count, FindFakeNcclType(datatype), ncclSum,
           root});
}

ncclResult_t FakeSend(const void* sendbuff, size_t count,
                      ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  FAKE_NCCL_ENTER(ncclSend);
  return s.AddP2p(/*is_send=*/true, sendbuff, count, datatype, peer, comm,
                  stream);
}

ncclResult_t FakeRecv(void* recvbuff, size_t count, ncclDataType_t datatype,
                      int peer, ncclComm_t comm, cudaStream_t stream) {
  FAKE_NCCL_ENTER(ncclRecv);
  return s.AddP2p(/*is_send=*/false, recvbuff, count, datatype, peer, comm,
                  stream);
}

ncclResult_t FakeGroupStart() {
  FAKE_NCCL_ENTER(ncclGroupStart);
  return s.GroupStart();
}

ncclResult_t FakeGroupEnd() {
  FAKE_NCCL_ENTER(ncclGroupEnd);
  return s.GroupEnd();
}

const char* FakeGetErrorString(ncclResult_t result) {
  if (g_state != nullptr) g_state->Count("ncclGetErrorString");
  for (const ResultText& text : kResultTexts) {
    if (text.result == result) return text.text;
  }
  return "unknown ncclResult_t";
}

}  // namespace

FakeNccl::FakeNccl(const CudaDriverApi& driver, Options options)
    : state_(std::make_unique<State>()) {
  XLA_CHECK(g_state == nullptr) << "only one FakeNccl may exist at a time";
  XLA_CHECK(driver.cuLaunchHostFunc != nullptr)
      << "FakeNccl needs a driver table with cuLaunchHostFunc";
  state_->driver = &driver;
  state_->options = std::move(options);
  g_state = state_.get();
  api_.ncclGetVersion = &FakeGetVersion;
  api_.ncclGetUniqueId = &FakeGetUniqueId;
  api_.ncclCommInitRank = &FakeCommInitRank;
  api_.ncclCommDestroy = &FakeCommDestroy;
  api_.ncclCommAbort = &FakeCommAbort;
  api_.ncclAllReduce = &FakeAllReduce;
  api_.ncclAllGather = &FakeAllGather;
  api_.ncclReduceScatter = &FakeReduceScatter;
  api_.ncclBroadcast = &FakeBroadcast;
  api_.ncclSend = &FakeSend;
  api_.ncclRecv = &FakeRecv;
  api_.ncclGroupStart = &FakeGroupStart;
  api_.ncclGroupEnd = &FakeGroupEnd;
  api_.ncclGetErrorString = &FakeGetErrorString;
  // Every entry of the table must be filled.
#define XLA_FAKE_NCCL_CHECK_FILLED(name) \
  XLA_CHECK(api_.name != nullptr) << "FakeNccl lacks " #name;
  XLA_NCCL_API(XLA_FAKE_NCCL_CHECK_FILLED)
#undef XLA_FAKE_NCCL_CHECK_FILLED
}

FakeNccl::~FakeNccl() { g_state = nullptr; }

int FakeNccl::calls(const std::string& entry_point) const {
  std::lock_guard<std::mutex> lock(state_->mu);
  auto it = state_->calls.find(entry_point);
  return it == state_->calls.end() ? 0 : it->second;
}

int FakeNccl::live_comms() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return static_cast<int>(state_->comms.size());
}

std::vector<std::string> FakeNccl::errors() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->errors;
}

}  // namespace stream_executor::cuda
