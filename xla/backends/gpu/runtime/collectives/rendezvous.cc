#include "xla/backends/gpu/runtime/collectives/rendezvous.h"

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
  const Key key = std::make_pair(run_id, sequence);
  if (slots_.count(key) == 0) {
    // A late arrival for an operation that timed out and was freed.
    for (const Abandoned& a : abandoned_) {
      if (a.key != key) continue;
      if (a.op != op) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": rank ", rank, " arrived for ", op, " but rank ", a.first_rank, " for ",
            a.op, "; every participant must run the same collectives in the same order"));
      }
      return absl::DeadlineExceededError(absl::StrCat(
          where, ": rank ", rank, " arrived after another participant timed out"));
    }
  }
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
  // `slot` stays valid while this participant waits: a slot is erased only
  // by the last of its arrivals to leave.
  const bool complete =
      cv_.wait_until(lock, deadline, [&] { return slot.count == size_ || slot.abandoned; }) &&
      slot.count == size_;
  absl::Status error;
  if (!complete) {
    const bool first_to_give_up = !slot.abandoned;
    if (first_to_give_up) {
      slot.abandoned = true;
      for (int64_t r = 0; r < size_; ++r) {
        if (!slot.arrived[r]) slot.missing.push_back(r);
      }
      abandoned_.push_back(Abandoned{key, slot.op, slot.first_rank});
      if (abandoned_.size() > kMaxAbandonedKeys) abandoned_.pop_front();
      cv_.notify_all();  // the others waiting here fail now, not at their deadlines
    }
    error = absl::DeadlineExceededError(absl::StrCat(
        where, ": ranks [", absl::StrJoin(slot.missing, ","), "] never arrived (",
        first_to_give_up ? "waited " : "another participant waited ",
        absl::FormatDuration(timeout_), "); rank ", rank,
        first_to_give_up ? " gave up" : " gave up with it"));
  }
  std::shared_ptr<const Contributions> result = slot.contributions;
  // The last arrival to leave frees the slot, completed or not.
  if (++slot.departed == slot.count) slots_.erase(key);
  if (!error.ok()) return error;
  return result;
}

int64_t Rendezvous::num_slots() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(slots_.size());
}

}  // namespace xla::gpu
