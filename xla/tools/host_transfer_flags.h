// --host_recv=CHANNEL=FILE.npy and --host_send_dir=DIR, for `xla_aot run`:
// the host side of an artifact's host transfers (send/recv with
// is_host_transfer=true; docs/host_transfers.md) from the command line.
// Each recv of CHANNEL reads FILE.npy (converted to the recv's shape as
// --input files are); each send is reported as one line and, with
// --host_send_dir, written to DIR/send_CHANNEL_N.npy (N counts the sends of
// that channel from 0).
//
// Thread-safety: the parse function is pure; a HostTransferServer's
// callbacks are called from one stream's host-callback thread at a time
// (the runtime's contract) and guard their state with a mutex.
#ifndef XLA_TOOLS_HOST_TRANSFER_FLAGS_H_
#define XLA_TOOLS_HOST_TRANSFER_FLAGS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <ostream>
#include <string>

#include "xla/backends/gpu/runtime/execute_options.h"

namespace xla::cli {

#define XLA_AOT_HOST_TRANSFER_FLAGS_HELP                                            \
  "  --host_recv=CHANNEL=FILE.npy  the data of each host recv on CHANNEL\n"         \
  "                        (repeatable, one file per channel)\n"                    \
  "  --host_send_dir=DIR   write each host send to DIR/send_CHANNEL_N.npy (each\n"  \
  "                        send is printed either way)\n"

struct HostTransferFlags {
  std::map<int64_t, std::string> recv_files;  // channel -> .npy path
  std::string send_dir;                       // "" : sends are only printed
};

// When `arg` is one of the flags above, records it in `*flags` and returns
// true (`*error` says what is wrong: a bad channel, an empty path, a
// channel given twice; else stays empty); false for any other argument.
bool ParseHostTransferFlag(const std::string& arg, HostTransferFlags* flags, std::string* error);

// Serves host transfers from HostTransferFlags. A recv on a channel with
// no file fails with NotFound naming the channel, the rendezvous name and
// the flag to add; a file that does not hold the recv's shape fails
// naming both. Sends print "host send: channel C rendezvous "R" SHAPE" to
// `log` (which must outlive the server) and are written as above.
class HostTransferServer {
 public:
  HostTransferServer(HostTransferFlags flags, std::ostream* log);
  HostTransferServer(const HostTransferServer&) = delete;
  HostTransferServer& operator=(const HostTransferServer&) = delete;

  // Callbacks bound to this server (valid while it lives).
  const gpu::HostTransferCallbacks& callbacks() const { return callbacks_; }

 private:
  absl::Status Send(int64_t channel, absl::string_view rendezvous, const Shape& shape,
                    absl::Span<const uint8_t> data);
  absl::Status Recv(int64_t channel, absl::string_view rendezvous, const Shape& shape,
                    absl::Span<uint8_t> data) const;

  const HostTransferFlags flags_;
  std::ostream* const log_;
  gpu::HostTransferCallbacks callbacks_;
  std::mutex mu_;
  std::map<int64_t, int64_t> sends_;  // per channel; guarded by mu_
};

}  // namespace xla::cli

#endif  // XLA_TOOLS_HOST_TRANSFER_FLAGS_H_
