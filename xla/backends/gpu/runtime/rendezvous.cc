#include "xla/backends/gpu/runtime/rendezvous.h"

#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla::gpu {

absl::StatusOr<std::shared_ptr<const Rendezvous::Contributions>> Rendezvous::Arrive(
    int64_t run_id, int64_t sequence, absl::string_view op, int64_t rank, const void* data,
    int64_t bytes) {
  const std::string where = absl::StrCat(op, " #", sequence, " of run ", run_id, " on ", label_);
  if (rank < 0 || rank >= size_) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": rank ", rank, " is outside [0, ", size_, ")"));
  }
  std::unique_lock<std::mutex> lock(mu_);
  const auto key = std::make_pair(run_id, sequence);
  auto [it, created] = slots_.try_emplace(key);
  Slot& slot = it->second;
  if (created) {
    slot.op = std::string(op);
    slot.first_rank = rank;
    slot.arrived.assign(size_, false);
    slot.contributions = std::make_shared<Contributions>();
    slot.contributions->data.resize(size_);
  }
  if (slot.op != op) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": rank ", rank, " arrived for ", op, " but rank ", slot.first_rank, " for ",
        slot.op, "; every participant must run the same collectives in the same order"));
  }
  if (slot.arrived[rank]) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": rank ", rank, " arrived twice"));
  }
  if (slot.abandoned) {
    return absl::DeadlineExceededError(absl::StrCat(
        where, ": rank ", rank, " arrived after another participant timed out"));
  }
  slot.arrived[rank] = true;
  slot.contributions->data[rank].assign(static_cast<const char*>(data),
                                        static_cast<const char*>(data) + bytes);
  ++slot.count;
  if (slot.count == size_) cv_.notify_all();
  const auto deadline = std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(timeout_);
  const bool complete =
      cv_.wait_until(lock, deadline, [&] { return slots_.at(key).count == size_; });
  Slot& done = slots_.at(key);
  if (!complete) {
    done.abandoned = true;
    std::vector<int64_t> missing;
    for (int64_t r = 0; r < size_; ++r) {
      if (!done.arrived[r]) missing.push_back(r);
    }
    return absl::DeadlineExceededError(
        absl::StrCat(where, ": ranks [", absl::StrJoin(missing, ","), "] never arrived (waited ",
                     absl::FormatDuration(timeout_), "); rank ", rank, " gave up"));
  }
  std::shared_ptr<const Contributions> result = done.contributions;
  if (++done.departed == size_) slots_.erase(key);
  return result;
}

}  // namespace xla::gpu
