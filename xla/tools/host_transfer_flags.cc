#include "xla/tools/host_transfer_flags.h"

#include <cstring>
#include <tuple>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/tools/stacked_literals.h"
#include "xla/types/npy.h"
#include "xla/types/random_literal.h"
#include "xla/util/status_macros.h"

namespace xla::cli {
namespace {

constexpr char kRecvFlag[] = "--host_recv=";
constexpr char kSendDirFlag[] = "--host_send_dir=";

// "CHANNEL=FILE" into `flags`; the error, or "".
std::string ParseRecv(const std::string& value, HostTransferFlags* flags) {
  const size_t eq = value.find('=');
  int64_t channel = -1;
  if (eq == std::string::npos || !absl::SimpleAtoi(value.substr(0, eq), &channel) || channel < 0) {
    return absl::StrCat("bad --host_recv value '", value, "' (CHANNEL=FILE.npy, CHANNEL >= 0)");
  }
  const std::string path = value.substr(eq + 1);
  if (path.empty()) return absl::StrCat("--host_recv=", channel, "= needs a .npy file");
  if (!flags->recv_files.emplace(channel, path).second) {
    return absl::StrCat("--host_recv gives channel ", channel, " twice");
  }
  return "";
}

std::string Describe(int64_t channel, absl::string_view rendezvous, const Shape& shape) {
  return absl::StrCat("channel ", channel, " rendezvous \"", rendezvous, "\" ",
                      shape.ToString(false));
}

// A literal of `shape` holding `data` (the device's bytes).
absl::StatusOr<Literal> FromDeviceBytes(const Shape& shape, absl::Span<const uint8_t> data) {
  Literal value(shape);
  if (value.data().size() != data.size()) {
    return absl::UnimplementedError(absl::StrCat("a host send of ", shape.ToString(false), " has ",
                                                 data.size(), " bytes on the device, expected ",
                                                 value.data().size()));
  }
  if (!data.empty()) std::memcpy(value.mutable_data().data(), data.data(), data.size());
  return value;
}

}  // namespace

bool ParseHostTransferFlag(const std::string& arg, HostTransferFlags* flags, std::string* error) {
  if (absl::StartsWith(arg, kRecvFlag)) {
    *error = ParseRecv(arg.substr(sizeof(kRecvFlag) - 1), flags);
    return true;
  }
  if (absl::StartsWith(arg, kSendDirFlag)) {
    flags->send_dir = arg.substr(sizeof(kSendDirFlag) - 1);
    if (flags->send_dir.empty()) *error = "--host_send_dir needs a directory";
    return true;
  }
  return false;
}

bool HasHostTransferFlags(const HostTransferFlags& flags) {
  return !flags.recv_files.empty() || !flags.send_dir.empty();
}

uint64_t HostRecvSeed(uint64_t seed, int64_t channel, int64_t n) {
  // Parameters use seed * 1000003 + i; an odd multiplier per channel and a
  // second per recv keep these apart from them and from each other.
  return (seed * 1000003 + 0x5EED0000ull) ^ (static_cast<uint64_t>(channel) * 0x9E3779B97F4A7C15ull) ^
         (static_cast<uint64_t>(n) * 0xC2B2AE3D27D4EB4Full);
}

HostTransferServer::HostTransferServer(HostTransferFlags flags, std::ostream* log,
                                       std::optional<HostParticipant> participant)
    : flags_(std::move(flags)), log_(log), participant_(participant) {
  callbacks_.send = [this](int64_t channel, absl::string_view rendezvous, const Shape& shape,
                           absl::Span<const uint8_t> data) -> absl::Status {
    ASSIGN_OR_RETURN(Literal value, FromDeviceBytes(shape, data));
    return RecordSend(channel, rendezvous, std::move(value));
  };
  callbacks_.recv = [this](int64_t channel, absl::string_view rendezvous, const Shape& shape,
                           absl::Span<uint8_t> data) -> absl::Status {
    ASSIGN_OR_RETURN(Literal value, RecvData(channel, rendezvous, shape));
    if (value.data().size() != data.size()) {
      return absl::UnimplementedError(absl::StrCat("cannot fill the host recv on ",
                                                   Describe(channel, rendezvous, shape), " (",
                                                   data.size(), " bytes on the device, ",
                                                   value.data().size(), " in its data)"));
    }
    if (!data.empty()) std::memcpy(data.data(), value.data().data(), data.size());
    return absl::OkStatus();
  };
  hook_.send = [this](int64_t channel, absl::string_view rendezvous, const Literal& data) {
    return RecordSend(channel, rendezvous, data);
  };
  hook_.recv = [this](int64_t channel, absl::string_view rendezvous, const Shape& shape) {
    return RecvData(channel, rendezvous, shape);
  };
}

std::vector<HostSend> HostTransferServer::sends() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sends_;
}

absl::Status HostTransferServer::RecordSend(int64_t channel, absl::string_view rendezvous,
                                            Literal data) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t n = 0;
  for (const HostSend& s : sends_) n += s.channel == channel;
  const int64_t participant = participant_.has_value() ? participant_->index : -1;
  if (log_ != nullptr) {
    *log_ << "host send: "
          << (participant >= 0 ? absl::StrCat("participant ", participant, " ") : "")
          << Describe(channel, rendezvous, data.shape()) << "\n";
  }
  // A replicated run's sends are written stacked, by the group, at the end.
  if (!flags_.send_dir.empty() && data.shape().IsArray() && participant < 0) {
    RETURN_IF_ERROR(
        WriteNpyFile(absl::StrCat(flags_.send_dir, "/send_", channel, "_", n, ".npy"), data));
  }
  sends_.push_back({participant, channel, n, std::string(rendezvous), std::move(data)});
  return absl::OkStatus();
}

absl::StatusOr<Literal> HostTransferServer::RecvData(int64_t channel, absl::string_view rendezvous,
                                                     const Shape& shape) {
  int64_t n = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    n = recvs_[channel]++;
  }
  if (!shape.IsArray()) return Literal(shape);  // (): a synchronization, no data
  auto it = flags_.recv_files.find(channel);
  if (it == flags_.recv_files.end() && flags_.random_seed.has_value()) {
    const uint64_t seed = participant_.has_value()
                              ? ParticipantSeed(*flags_.random_seed, participant_->index)
                              : *flags_.random_seed;
    absl::StatusOr<Literal> drawn = MakeRandomLiteral(shape, HostRecvSeed(seed, channel, n));
    if (!drawn.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("the host recv on ",
                                                     Describe(channel, rendezvous, shape), ": ",
                                                     drawn.status().message()));
    }
    return drawn;
  }
  if (it == flags_.recv_files.end()) {
    return absl::NotFoundError(absl::StrCat("no data for the host recv on ",
                                            Describe(channel, rendezvous, shape),
                                            ": pass --host_recv=", channel,
                                            "=FILE.npy (or --random_inputs)"));
  }
  const std::string what = absl::StrCat("the host recv on ", Describe(channel, rendezvous, shape),
                                        " from --host_recv=", channel, "=", it->second);
  ASSIGN_OR_RETURN(Literal file, ReadNpyFile(it->second));
  ASSIGN_OR_RETURN(Literal mine, ParticipantSlice(std::move(file), it->second, what));
  return ConvertNpyLiteral(mine, shape,
                           participant_.has_value()
                               ? absl::StrCat(what, " (slice ", participant_->index, ")")
                               : what);
}

absl::StatusOr<Literal> HostTransferServer::ParticipantSlice(Literal file, const std::string& path,
                                                             const std::string& what) const {
  if (!participant_.has_value()) return file;
  const int64_t n = participant_->count;
  if (!file.shape().IsArray() || file.shape().rank() == 0 || file.shape().dimensions(0) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, " has shape ", file.shape().ToString(false), ", but with ", n,
        " participants ", what, " needs a leading dimension of ", n,
        " (slice d for participant d)"));
  }
  return tools::LeadingSlice(file, participant_->index);
}

namespace {

// Participant, channel, index: how the two sides' sends are matched.
using SendKey = std::tuple<int64_t, int64_t, int64_t>;

// "send [participant d ]channel C #N SHAPE: " for one send.
std::string SendLine(const HostSend& s) {
  return absl::StrCat("send ",
                      s.participant >= 0 ? absl::StrCat("participant ", s.participant, " ") : "",
                      "channel ", s.channel, " #", s.index, " ", s.data.shape().ToString(false),
                      ": ");
}

}  // namespace

bool CompareHostSends(const std::vector<HostSend>& want, const std::vector<HostSend>& got,
                      double tolerance_scale, std::ostream& out) {
  std::map<SendKey, const HostSend*> wanted;
  for (const HostSend& s : want) wanted[{s.participant, s.channel, s.index}] = &s;
  std::map<SendKey, const HostSend*> seen;
  for (const HostSend& s : got) seen[{s.participant, s.channel, s.index}] = &s;
  bool all_pass = true;
  for (const auto& [key, w] : wanted) {
    const std::string what = SendLine(*w);
    auto it = seen.find(key);
    if (it == seen.end()) {
      all_pass = false;
      out << what << "FAIL (the reference sent it, the artifact did not)\n";
      continue;
    }
    const absl::Status same =
        w->data.shape().IsArray() ? CompareOutputLeaf(w->data, it->second->data, tolerance_scale)
        : w->data.shape() == it->second->data.shape()
            ? absl::OkStatus()
            : absl::InvalidArgumentError(absl::StrCat(
                  "the artifact sent ", it->second->data.shape().ToString(false)));
    all_pass &= same.ok();
    out << what << (same.ok() ? "PASS" : absl::StrCat("FAIL (", same.message(), ")")) << "\n";
  }
  for (const auto& [key, g] : seen) {
    if (wanted.count(key) > 0) continue;
    all_pass = false;
    out << SendLine(*g) << "FAIL (the artifact sent it, the reference did not)\n";
  }
  if (!want.empty() || !got.empty()) {
    out << (all_pass ? "PASS" : "FAIL") << ": " << got.size() << " host sends against the reference's "
        << want.size() << "\n";
  }
  return all_pass;
}

}  // namespace xla::cli
