#include "xla/backends/gpu/runtime/collectives/in_process_communicator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "xla/types/float_format.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// The evaluator's maximum/minimum: whether the result is `a` (the left,
// accumulated operand). A NaN wins (the left one first); equal values pick
// +0 over -0 for max and -0 over +0 for min.
bool MaxPicksLeft(double a, double b) {
  if (std::isnan(a)) return true;
  if (std::isnan(b)) return false;
  if (a == b) return !std::signbit(a) || std::signbit(b);
  return a > b;
}
bool MinPicksLeft(double a, double b) {
  if (std::isnan(a)) return true;
  if (std::isnan(b)) return false;
  if (a == b) return std::signbit(a) || !std::signbit(b);
  return a < b;
}

template <typename T>
T Combine(ReductionKind kind, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return kind == ReductionKind::kAnd ? (a && b) : (a || b);
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;  // sums and products wrap around
    switch (kind) {
      case ReductionKind::kSum: return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
      case ReductionKind::kProd: return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
      case ReductionKind::kMin: return std::min(a, b);
      case ReductionKind::kMax: return std::max(a, b);
      case ReductionKind::kAnd: return static_cast<T>(a & b);
      case ReductionKind::kOr: return static_cast<T>(a | b);
    }
    return a;
  } else {
    switch (kind) {
      case ReductionKind::kSum: return a + b;
      case ReductionKind::kProd: return a * b;
      case ReductionKind::kMin: return MinPicksLeft(a, b) ? a : b;
      case ReductionKind::kMax: return MaxPicksLeft(a, b) ? a : b;
      case ReductionKind::kAnd:
      case ReductionKind::kOr: return a;  // rejected by IsSupportedReduction
    }
    return a;
  }
}

template <typename T>
void ReduceTyped(ReductionKind kind, void* acc, const void* src, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    T a, b;
    std::memcpy(&a, static_cast<const char*>(acc) + i * sizeof(T), sizeof(T));
    std::memcpy(&b, static_cast<const char*>(src) + i * sizeof(T), sizeof(T));
    const T c = Combine<T>(kind, a, b);
    std::memcpy(static_cast<char*>(acc) + i * sizeof(T), &c, sizeof(T));
  }
}

// One step of a 16-bit float reduction on encodings: sum and prod are
// computed exactly (in double: the operands have at most 11 significant
// bits), rounded to f32 and then to `Format` (what XLA's f32-computed
// f16/bf16 arithmetic gives); max/min pick an operand's encoding.
template <FloatFormatId Format>
uint16_t CombineNarrow(ReductionKind kind, uint16_t a, uint16_t b) {
  const double x = DecodeFloat(Format, a);
  const double y = DecodeFloat(Format, b);
  switch (kind) {
    case ReductionKind::kMin: return MinPicksLeft(x, y) ? a : b;
    case ReductionKind::kMax: return MaxPicksLeft(x, y) ? a : b;
    case ReductionKind::kSum:
    case ReductionKind::kProd: {
      const double exact = kind == ReductionKind::kSum ? x + y : x * y;
      return static_cast<uint16_t>(
          EncodeFloat(Format, static_cast<double>(static_cast<float>(exact))));
    }
    case ReductionKind::kAnd:
    case ReductionKind::kOr: return a;  // rejected by IsSupportedReduction
  }
  return a;
}

template <FloatFormatId Format>
void ReduceNarrow(ReductionKind kind, void* acc, const void* src, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    uint16_t a, b;
    std::memcpy(&a, static_cast<const char*>(acc) + i * 2, 2);
    std::memcpy(&b, static_cast<const char*>(src) + i * 2, 2);
    const uint16_t c = CombineNarrow<Format>(kind, a, b);
    std::memcpy(static_cast<char*>(acc) + i * 2, &c, 2);
  }
}

using ReduceFn = void (*)(ReductionKind, void*, const void*, int64_t);

// Runs whose op sequence numbers a communicator remembers.
constexpr size_t kMaxTrackedRuns = 1024;

struct TypeRow {
  PrimitiveType type;
  ReduceFn fn;
};

constexpr TypeRow kTypes[] = {
    {PrimitiveType::PRED, ReduceTyped<bool>},     {PrimitiveType::S8, ReduceTyped<int8_t>},
    {PrimitiveType::S16, ReduceTyped<int16_t>},   {PrimitiveType::S32, ReduceTyped<int32_t>},
    {PrimitiveType::S64, ReduceTyped<int64_t>},   {PrimitiveType::U8, ReduceTyped<uint8_t>},
    {PrimitiveType::U16, ReduceTyped<uint16_t>},  {PrimitiveType::U32, ReduceTyped<uint32_t>},
    {PrimitiveType::U64, ReduceTyped<uint64_t>},  {PrimitiveType::F32, ReduceTyped<float>},
    {PrimitiveType::F64, ReduceTyped<double>},
    {PrimitiveType::F16, ReduceNarrow<FloatFormatId::kF16>},
    {PrimitiveType::BF16, ReduceNarrow<FloatFormatId::kBF16>},
};

}  // namespace

absl::Status ReduceInto(ReductionKind kind, PrimitiveType type, void* acc, const void* src,
                        int64_t count) {
  if (IsSupportedReduction(kind, type)) {
    for (const TypeRow& row : kTypes) {
      if (row.type != type) continue;
      row.fn(kind, acc, src, count);
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError(UnsupportedReductionMessage(kind, type));
}

int64_t InProcessCommunicator::NextSequence(int64_t run_id) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t sequence = next_sequence_[run_id]++;
  // Forget the oldest run once many are tracked: run ids grow, and far
  // fewer than kMaxTrackedRuns runs are ever in flight at once.
  if (next_sequence_.size() > kMaxTrackedRuns) next_sequence_.erase(next_sequence_.begin());
  return sequence;
}

absl::StatusOr<std::shared_ptr<const Rendezvous::Contributions>> InProcessCommunicator::Exchange(
    int64_t run_id, absl::string_view op, const void* send, int64_t bytes) {
  const int64_t sequence = NextSequence(run_id);
  absl::StatusOr<std::shared_ptr<const Rendezvous::Contributions>> all =
      rendezvous_->Arrive(run_id, sequence, op, rank_, send, bytes);
  if (!all.ok()) return all.status();
  for (int64_t r = 0; r < size(); ++r) {
    const int64_t got = static_cast<int64_t>((*all)->data[r].size());
    if (got != bytes) {
      return absl::InvalidArgumentError(absl::StrCat(op, " #", sequence, " of run ", run_id,
                                                     ": rank ", r, " contributed ", got,
                                                     " bytes but rank ", rank_, " ", bytes));
    }
  }
  return all;
}

absl::Status InProcessCommunicator::AllReduce(int64_t run_id, ReductionKind kind,
                                              PrimitiveType type, const void* send, void* recv,
                                              int64_t count) {
  if (!IsSupportedReduction(kind, type)) return ReduceInto(kind, type, recv, send, 0);
  const int64_t bytes = count * ByteWidth(type);
  absl::StatusOr<std::shared_ptr<const Rendezvous::Contributions>> all =
      Exchange(run_id, "all-reduce", send, bytes);
  if (!all.ok()) return all.status();
  if (bytes == 0) return absl::OkStatus();
  std::memcpy(recv, (*all)->data[0].data(), bytes);
  for (int64_t r = 1; r < size(); ++r) {
    absl::Status s = ReduceInto(kind, type, recv, (*all)->data[r].data(), count);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status InProcessCommunicator::AllGather(int64_t run_id, const void* send, void* recv,
                                              int64_t bytes) {
  absl::StatusOr<std::shared_ptr<const Rendezvous::Contributions>> all =
      Exchange(run_id, "all-gather", send, bytes);
  if (!all.ok()) return all.status();
  for (int64_t r = 0; r < size() && bytes > 0; ++r) {
    std::memcpy(static_cast<char*>(recv) + r * bytes, (*all)->data[r].data(), bytes);
  }
  return absl::OkStatus();
}

absl::Status InProcessCommunicator::ReduceScatter(int64_t run_id, ReductionKind kind,
                                                  PrimitiveType type, const void* send,
                                                  void* recv, int64_t count) {
  if (!IsSupportedReduction(kind, type)) return ReduceInto(kind, type, recv, send, 0);
  const int64_t block = count * ByteWidth(type);
  absl::StatusOr<std::shared_ptr<const Rendezvous::Contributions>> all =
      Exchange(run_id, "reduce-scatter", send, block * size());
  if (!all.ok()) return all.status();
  if (block == 0) return absl::OkStatus();
  std::memcpy(recv, (*all)->data[0].data() + rank_ * block, block);
  for (int64_t r = 1; r < size(); ++r) {
    absl::Status s = ReduceInto(kind, type, recv, (*all)->data[r].data() + rank_ * block, count);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status InProcessCommunicator::AllToAll(int64_t run_id, const void* send, void* recv,
                                             int64_t bytes) {
  absl::StatusOr<std::shared_ptr<const Rendezvous::Contributions>> all =
      Exchange(run_id, "all-to-all", send, bytes * size());
  if (!all.ok()) return all.status();
  for (int64_t r = 0; r < size() && bytes > 0; ++r) {
    std::memcpy(static_cast<char*>(recv) + r * bytes, (*all)->data[r].data() + rank_ * bytes,
                bytes);
  }
  return absl::OkStatus();
}

absl::Status InProcessCommunicator::CollectivePermute(int64_t run_id, const void* send,
                                                      void* recv, int64_t bytes,
                                                      std::optional<int64_t> source_rank) {
  if (source_rank.has_value() && (*source_rank < 0 || *source_rank >= size())) {
    return absl::InvalidArgumentError(absl::StrCat("collective-permute: source rank ",
                                                   *source_rank, " is outside [0, ", size(), ")"));
  }
  absl::StatusOr<std::shared_ptr<const Rendezvous::Contributions>> all =
      Exchange(run_id, "collective-permute", send, bytes);
  if (!all.ok()) return all.status();
  if (bytes == 0) return absl::OkStatus();
  if (!source_rank.has_value()) {
    std::memset(recv, 0, bytes);
    return absl::OkStatus();
  }
  std::memcpy(recv, (*all)->data[*source_rank].data(), bytes);
  return absl::OkStatus();
}

absl::Status InProcessCommunicator::Broadcast(int64_t run_id, const void* send, void* recv,
                                              int64_t bytes, int64_t root_rank) {
  if (root_rank < 0 || root_rank >= size()) {
    return absl::InvalidArgumentError(absl::StrCat("collective-broadcast: root rank ", root_rank,
                                                   " is outside [0, ", size(), ")"));
  }
  const int64_t sequence = NextSequence(run_id);
  const bool root = root_rank == rank_;
  absl::StatusOr<std::shared_ptr<const Rendezvous::Contributions>> all = rendezvous_->Arrive(
      run_id, sequence, "collective-broadcast", rank_, send, root ? bytes : 0);
  if (!all.ok()) return all.status();
  const std::vector<char>& data = (*all)->data[root_rank];
  if (static_cast<int64_t>(data.size()) != bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "collective-broadcast #", sequence, " of run ", run_id, ": root rank ", root_rank,
        " contributed ", data.size(), " bytes but rank ", rank_, " expects ", bytes,
        " (participants disagree on the size or the root)"));
  }
  if (bytes > 0 && recv != data.data()) std::memcpy(recv, data.data(), bytes);
  return absl::OkStatus();
}

absl::StatusOr<Communicator*> InProcessCliques::Get(const CliqueKey& key, int64_t device_id) {
  const std::optional<int64_t> rank = key.RankOf(device_id);
  if (!rank.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", device_id, " is not a member of the clique of ", key.ToString()));
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, created] = cliques_.try_emplace(key);
  if (created) {
    it->second.rendezvous = std::make_shared<Rendezvous>(key.size(), key.ToString(), timeout_);
    for (int64_t r = 0; r < key.size(); ++r) {
      it->second.members.push_back(
          std::make_unique<InProcessCommunicator>(it->second.rendezvous, r));
    }
  }
  return it->second.members[*rank].get();
}

int64_t InProcessCliques::num_cliques() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(cliques_.size());
}

absl::StatusOr<DeviceCommunicator*> InProcessCliques::GetForStream(const CliqueKey& key,
                                                                int64_t device_id) {
  ASSIGN_OR_RETURN(Communicator * host, Get(key, device_id));
  return on_stream_.For(host);
}

}  // namespace xla::gpu
