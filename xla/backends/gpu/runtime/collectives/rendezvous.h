// Rendezvous: the meeting point of the participants of one collective
// operation in one process. Each participant arrives with its contribution
// (bytes) and waits until all `size` have arrived; then every participant
// gets read-only access to all contributions, indexed by rank.
//
// An operation is keyed by (run id, sequence number): participants of the
// same run must perform their collectives in the same order. A participant
// that waits longer than the timeout gets DeadlineExceeded naming the op,
// the key and the ranks that never arrived; no wait is unbounded. The
// participants waiting with it are woken and fail the same way.
//
// Slots: an operation holds one slot from its first arrival until its last
// waiting participant leaves, completed or timed out; so num_slots() is the
// number of operations in flight and does not grow with timeouts. The keys
// of the kMaxAbandonedKeys newest timed-out operations are remembered so
// that a participant arriving late for one fails at once instead of waiting
// out a new timeout alone.
//
// Thread-safety: Arrive is called concurrently by the participants.
#ifndef XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_RENDEZVOUS_H_
#define XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_RENDEZVOUS_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace xla::gpu {

class Rendezvous {
 public:
  // The contributions of one completed operation, by rank. Immutable.
  struct Contributions {
    std::vector<std::vector<char>> data;
  };

  // `size` participants (ranks [0, size)); `label` names the group in
  // errors ("devices [0,1]").
  Rendezvous(int64_t size, std::string label, absl::Duration timeout)
      : size_(size), label_(std::move(label)), timeout_(timeout) {}

  // Copies `bytes` of `data` as `rank`'s contribution to operation
  // (run_id, sequence) and waits for the others. Errors:
  // DeadlineExceeded "<op> #<sequence> of run <run_id> on <label>: ranks
  // [...] never arrived (waited <timeout>)" (for participants woken by
  // another's timeout: "(another participant waited <timeout>)"), or
  // "... arrived after another participant timed out" for a late arrival;
  // InvalidArgument for a rank out of range or arriving twice;
  // InvalidArgument naming both ops and ranks when participants arrive for
  // different ops at the same key.
  absl::StatusOr<std::shared_ptr<const Contributions>> Arrive(int64_t run_id, int64_t sequence,
                                                              absl::string_view op, int64_t rank,
                                                              const void* data, int64_t bytes);

  int64_t size() const { return size_; }

  // Operations in flight: slots held by participants that arrived and have
  // not left yet (0 when idle, also after timeouts). For tests and leak
  // checks. Thread-safe.
  int64_t num_slots() const;

  // Timed-out operations whose keys are remembered for late arrivals.
  static constexpr size_t kMaxAbandonedKeys = 256;

 private:
  using Key = std::pair<int64_t, int64_t>;  // (run id, sequence)
  struct Slot {
    std::string op;
    int64_t first_rank = 0;
    std::vector<bool> arrived;
    int64_t count = 0;
    int64_t departed = 0;
    bool abandoned = false;  // a participant timed out
    std::vector<int64_t> missing;  // the ranks absent when it timed out
    std::shared_ptr<Contributions> contributions;
  };
  // A timed-out operation, remembered after its slot is freed.
  struct Abandoned {
    Key key;
    std::string op;
    int64_t first_rank = 0;
  };

  const int64_t size_;
  const std::string label_;
  const absl::Duration timeout_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<Key, Slot> slots_;        // guarded by mu_
  std::deque<Abandoned> abandoned_;  // newest last; guarded by mu_
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_RENDEZVOUS_H_
