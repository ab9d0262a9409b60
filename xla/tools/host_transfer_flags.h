// --host_recv=CHANNEL=FILE.npy and --host_send_dir=DIR, for `xla_aot run`
// and `xla_aot eval`: the host side of a program's host transfers
// (send/recv with is_host_transfer=true; docs/host_transfers.md) from the
// command line. Each recv of CHANNEL reads FILE.npy (converted to the
// recv's shape as --input files are); with --random_inputs a recv whose
// channel has no file gets values drawn from the seed, the channel and the
// recv's count on that channel (HostRecvSeed), so the device and the
// evaluator see the same data. Each send is reported as one line and, with
// --host_send_dir, written to DIR/send_CHANNEL_N.npy (N counts the sends of
// that channel from 0).
//
// In a replicated run (--replicas) each participant has its own server
// (HostParticipant; replicated_host_transfers.h holds them): a --host_recv
// file carries a leading dimension of N participants and participant d
// reads slice d; draws use ParticipantSeed(seed, d) in place of the seed;
// sends are printed naming the participant and written by the group,
// stacked over the participants.
//
// Thread-safety: the parse function is pure; a HostTransferServer's
// callbacks may be called from any thread (the runtime calls them from one
// stream's host-callback thread at a time) and guard their state with a
// mutex.
#ifndef XLA_TOOLS_HOST_TRANSFER_FLAGS_H_
#define XLA_TOOLS_HOST_TRANSFER_FLAGS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "xla/backends/gpu/runtime/execute_options.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/types/literal.h"

namespace xla::cli {

#define XLA_AOT_HOST_TRANSFER_FLAGS_HELP                                            \
  "  --host_recv=CHANNEL=FILE.npy  the data of each host recv on CHANNEL\n"         \
  "                        (repeatable, one file per channel; with\n"               \
  "                        --random_inputs, channels without a file draw theirs;\n" \
  "                        with --replicas the file has a leading dimension of\n"  \
  "                        the participants, slice d for participant d, and\n"    \
  "                        draws use each participant's own seed)\n"              \
  "  --host_send_dir=DIR   write each host send to DIR/send_CHANNEL_N.npy (each\n"  \
  "                        send is printed either way); with --replicas, once\n"  \
  "                        all participants are done, stacked over them (leading\n" \
  "                        dimension N, slice d from participant d)\n"

struct HostTransferFlags {
  std::map<int64_t, std::string> recv_files;  // channel -> .npy path
  std::string send_dir;                       // "" : sends are only printed
  // Set by the subcommand from --random_inputs --seed=N: recvs on channels
  // without a file draw their data (HostRecvSeed); unset: they fail.
  std::optional<uint64_t> random_seed;
};

// When `arg` is one of the flags above, records it in `*flags` and returns
// true (`*error` says what is wrong: a bad channel, an empty path, a
// channel given twice; else stays empty); false for any other argument.
bool ParseHostTransferFlag(const std::string& arg, HostTransferFlags* flags, std::string* error);

// True when `flags` asks for something (a --host_recv or --host_send_dir).
bool HasHostTransferFlags(const HostTransferFlags& flags);

// The seed of the `n`-th recv (from 0) on `channel` under --random_inputs
// --seed=`seed`: distinct per channel and recv, and distinct from the
// parameters' seeds. Pure.
uint64_t HostRecvSeed(uint64_t seed, int64_t channel, int64_t n);

// One send a HostTransferServer saw: its channel, its count on that channel
// (from 0), the rendezvous name and the data (an array, or the () it sent);
// in a replicated run, the participant that made it (-1: a one-device run).
struct HostSend {
  int64_t participant = -1;
  int64_t channel = 0;
  int64_t index = 0;
  std::string rendezvous;
  Literal data;
};

// The participant a HostTransferServer serves in a replicated run: `index`
// d of `count` N (0 <= d < N).
struct HostParticipant {
  int64_t index = 0;
  int64_t count = 1;
};

// Serves one run's host transfers from HostTransferFlags, to the runtime
// (callbacks()) or to the evaluator (evaluator_hook()); one server per run
// and side, since it counts recvs and records sends. A recv on a channel
// with no file (and no random seed) fails with NotFound naming the
// channel, the rendezvous name and the flag to add; a file that does not
// hold the recv's shape fails naming both. A recv of () needs no data.
// Sends print "host send: channel C rendezvous "R" SHAPE" to `log` (when
// not null; it must outlive the server), are written as above, and are
// kept for sends().
// With `participant` set, the server is participant d's of N: a recv file
// must have a leading dimension of N (else InvalidArgument naming the
// file, the channel and N) and gives slice d; draws use
// HostRecvSeed(ParticipantSeed(seed, d), C, n); sends print "host send:
// participant d channel C ...", carry d, and are not written (the group
// writes them stacked: ReplicatedHostTransfers::WriteSends).
class HostTransferServer {
 public:
  HostTransferServer(HostTransferFlags flags, std::ostream* log,
                     std::optional<HostParticipant> participant = std::nullopt);
  HostTransferServer(const HostTransferServer&) = delete;
  HostTransferServer& operator=(const HostTransferServer&) = delete;

  // Callbacks bound to this server (valid while it lives).
  const gpu::HostTransferCallbacks& callbacks() const { return callbacks_; }
  // The same host side for the evaluator (valid while the server lives).
  const HostTransferHook& evaluator_hook() const { return hook_; }

  // Every send so far, in the order they came.
  std::vector<HostSend> sends() const;

 private:
  absl::Status RecordSend(int64_t channel, absl::string_view rendezvous, Literal data);
  absl::StatusOr<Literal> RecvData(int64_t channel, absl::string_view rendezvous,
                                   const Shape& shape);

  // The array `file` (read from `path`) holds for this server's recv on
  // `what`: the file itself, or this participant's slice of it.
  absl::StatusOr<Literal> ParticipantSlice(Literal file, const std::string& path,
                                           const std::string& what) const;

  const HostTransferFlags flags_;
  std::ostream* const log_;
  const std::optional<HostParticipant> participant_;
  gpu::HostTransferCallbacks callbacks_;
  HostTransferHook hook_;
  mutable std::mutex mu_;
  std::map<int64_t, int64_t> recvs_;  // per channel; guarded by mu_
  std::vector<HostSend> sends_;       // guarded by mu_
};

// Compares the sends of a run (`got`) with the reference's (`want`), as
// outputs are compared (CompareOutputLeaf with `tolerance_scale`), matched
// by participant, channel and index: writes one line per send ("send
// channel C #N SHAPE: PASS" or "FAIL (why)", "send participant d channel C
// ..." for a replicated run's; a send only one side made included) and a
// verdict line, and returns whether all match. Nothing is written when
// neither side sent.
bool CompareHostSends(const std::vector<HostSend>& want, const std::vector<HostSend>& got,
                      double tolerance_scale, std::ostream& out);

}  // namespace xla::cli

#endif  // XLA_TOOLS_HOST_TRANSFER_FLAGS_H_
