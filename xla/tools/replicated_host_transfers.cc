#include "xla/tools/replicated_host_transfers.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xla/tools/stacked_literals.h"
#include "xla/types/npy.h"
#include "xla/util/status_macros.h"

namespace xla::cli {

ReplicatedHostTransfers::ReplicatedHostTransfers(const HostTransferFlags& flags,
                                                 int64_t participants, std::ostream* log)
    : send_dir_(flags.send_dir) {
  for (int64_t d = 0; d < participants; ++d) {
    servers_.push_back(std::make_unique<HostTransferServer>(
        flags, log, HostParticipant{/*index=*/d, /*count=*/participants}));
  }
}

std::vector<const gpu::HostTransferCallbacks*> ReplicatedHostTransfers::callbacks() const {
  std::vector<const gpu::HostTransferCallbacks*> out;
  for (const auto& s : servers_) out.push_back(&s->callbacks());
  return out;
}

std::vector<const HostTransferHook*> ReplicatedHostTransfers::evaluator_hooks() const {
  std::vector<const HostTransferHook*> out;
  for (const auto& s : servers_) out.push_back(&s->evaluator_hook());
  return out;
}

std::vector<HostSend> ReplicatedHostTransfers::sends() const {
  std::vector<HostSend> out;
  for (const auto& s : servers_) {
    for (HostSend& send : s->sends()) out.push_back(std::move(send));
  }
  return out;
}

absl::Status ReplicatedHostTransfers::WriteSends() const {
  if (send_dir_.empty()) return absl::OkStatus();
  const std::vector<HostSend> all = sends();
  const int64_t n = static_cast<int64_t>(servers_.size());
  // (channel, index) -> each participant's send, nullptr where it made none.
  std::map<std::pair<int64_t, int64_t>, std::vector<const HostSend*>> by_send;
  for (const HostSend& s : all) {
    std::vector<const HostSend*>& row = by_send[{s.channel, s.index}];
    row.resize(n, nullptr);
    row[s.participant] = &s;
  }
  for (const auto& [key, row] : by_send) {
    const auto [channel, index] = key;
    const std::string path = absl::StrCat(send_dir_, "/send_", channel, "_", index, ".npy");
    std::vector<const Literal*> parts;
    for (int64_t d = 0; d < n; ++d) {
      if (row[d] == nullptr) {
        return absl::FailedPreconditionError(absl::StrCat(
            "cannot write ", path, ": participant ", d, " made no send #", index, " on channel ",
            channel, " while another did, so the participants' sends do not stack (drop "
            "--host_send_dir; the sends are printed above)"));
      }
      parts.push_back(&row[d]->data);
    }
    if (!parts[0]->shape().IsArray()) continue;  // (): a synchronization, no data
    absl::StatusOr<Literal> stacked =
        tools::StackLeading(parts, absl::StrCat("host send #", index, " on channel ", channel));
    if (!stacked.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot write ", path, ": ", stacked.status().message()));
    }
    RETURN_IF_ERROR(WriteNpyFile(path, *stacked));
  }
  return absl::OkStatus();
}

}  // namespace xla::cli
