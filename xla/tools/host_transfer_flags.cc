#include "xla/tools/host_transfer_flags.h"

#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "xla/types/npy.h"
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

HostTransferServer::HostTransferServer(HostTransferFlags flags, std::ostream* log)
    : flags_(std::move(flags)), log_(log) {
  callbacks_.send = [this](int64_t channel, absl::string_view rendezvous, const Shape& shape,
                           absl::Span<const uint8_t> data) {
    return Send(channel, rendezvous, shape, data);
  };
  callbacks_.recv = [this](int64_t channel, absl::string_view rendezvous, const Shape& shape,
                           absl::Span<uint8_t> data) {
    return Recv(channel, rendezvous, shape, data);
  };
}

absl::Status HostTransferServer::Send(int64_t channel, absl::string_view rendezvous,
                                      const Shape& shape, absl::Span<const uint8_t> data) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t n = sends_[channel]++;
  *log_ << "host send: " << Describe(channel, rendezvous, shape) << "\n";
  if (flags_.send_dir.empty() || !shape.IsArray()) return absl::OkStatus();
  Literal value(shape);
  if (value.data().size() != data.size()) {
    return absl::UnimplementedError(absl::StrCat("--host_send_dir cannot write ",
                                                 shape.ToString(false), " (", data.size(),
                                                 " bytes on the device)"));
  }
  std::memcpy(value.mutable_data().data(), data.data(), data.size());
  return WriteNpyFile(absl::StrCat(flags_.send_dir, "/send_", channel, "_", n, ".npy"), value);
}

absl::Status HostTransferServer::Recv(int64_t channel, absl::string_view rendezvous,
                                      const Shape& shape, absl::Span<uint8_t> data) const {
  if (data.empty()) return absl::OkStatus();  // (): nothing to read
  auto it = flags_.recv_files.find(channel);
  if (it == flags_.recv_files.end()) {
    return absl::NotFoundError(absl::StrCat("no data for the host recv on ",
                                            Describe(channel, rendezvous, shape),
                                            ": pass --host_recv=", channel, "=FILE.npy"));
  }
  ASSIGN_OR_RETURN(Literal file, ReadNpyFile(it->second));
  ASSIGN_OR_RETURN(Literal value,
                   ConvertNpyLiteral(file, shape,
                                     absl::StrCat("the host recv on ",
                                                  Describe(channel, rendezvous, shape))));
  if (value.data().size() != data.size()) {
    return absl::UnimplementedError(absl::StrCat("--host_recv cannot fill ", shape.ToString(false),
                                                 " (", data.size(), " bytes on the device)"));
  }
  std::memcpy(data.data(), value.data().data(), data.size());
  return absl::OkStatus();
}

}  // namespace xla::cli
