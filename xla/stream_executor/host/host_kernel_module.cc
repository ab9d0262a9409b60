#include "xla/stream_executor/host/host_kernel_module.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/stream_executor/host/host_object_check.h"
#include "xla/util/status_macros.h"

namespace stream_executor::host {

class LoadedLibrary {
 public:
  explicit LoadedLibrary(void* handle) : handle_(handle) {}
  ~LoadedLibrary() { dlclose(handle_); }
  LoadedLibrary(const LoadedLibrary&) = delete;
  LoadedLibrary& operator=(const LoadedLibrary&) = delete;

  void* handle() const { return handle_; }

 private:
  void* handle_;
};

namespace {

// Serializes loads so the path probing below cannot race with itself.
// (Constant-initialized, so usable from static initializers.)
std::mutex load_mu;

// Closes a file descriptor when it goes out of scope.
class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ~ScopedFd() {
    if (fd_ >= 0) close(fd_);
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string LastDlError() {
  const char* error = dlerror();
  return error != nullptr ? error : "unknown dlopen error";
}

absl::Status WriteAll(int fd, absl::string_view bytes, absl::string_view name) {
  while (!bytes.empty()) {
    ssize_t written = write(fd, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      return absl::InternalError(absl::StrCat(
          "writing kernel module '", name, "' to a memory file failed: ",
          std::strerror(errno)));
    }
    bytes.remove_prefix(static_cast<size_t>(written));
  }
  return absl::OkStatus();
}

// glibc reuses an already loaded library whose path name matches, and the
// number N in /proc/self/fd/N is reused once its file is closed, so a library
// loaded earlier through the same N may still be loaded under that name. Pick
// the first spelling /proc/self/fd/N, /proc/self/fd/./N, ... that no loaded
// library has; they all name the same file.
// Needs load_mu held.
std::string UnusedFdPath(int fd) {
  std::string dots;
  while (true) {
    std::string path = absl::StrCat("/proc/self/fd/", dots, fd);
    void* existing = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (existing == nullptr) {
      dlerror();  // clear the "not loaded" message
      return path;
    }
    dlclose(existing);  // RTLD_NOLOAD took a reference
    absl::StrAppend(&dots, "./");
  }
}

// Fallback for systems without memfd_create (old kernels, seccomp filters)
// or without /proc: a private temporary file under $TMPDIR (or /tmp),
// unlinked as soon as it is loaded. mkstemp names are unique, so glibc never
// mistakes it for an earlier module.
absl::StatusOr<void*> DlopenThroughTempFile(absl::string_view name, absl::string_view bytes,
                                            absl::string_view why) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string path = absl::StrCat(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp",
                                  "/xla_kernel_module_XXXXXX");
  ScopedFd fd(mkostemp(path.data(), O_CLOEXEC));
  if (fd.get() < 0) {
    return absl::InternalError(absl::StrCat(
        "cannot load host kernel module '", name, "': ", why,
        ", and creating a temporary file from ", path, " failed: ", std::strerror(errno),
        " (set TMPDIR to a writable directory)"));
  }
  absl::Status written = WriteAll(fd.get(), bytes, name);
  void* handle = written.ok() ? dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
  const std::string dl_error = written.ok() && handle == nullptr ? LastDlError() : "";
  unlink(path.c_str());
  RETURN_IF_ERROR(written);
  if (handle == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot load host kernel module '", name, "' (", bytes.size(), " bytes) from ", path,
        " (", why, "): ", dl_error, " (a directory mounted noexec cannot hold it: set TMPDIR)"));
  }
  return handle;
}

absl::StatusOr<void*> DlopenBytes(absl::string_view name,
                                  absl::string_view bytes) {
  std::string memfd_name = absl::StrCat("xla_kernel_module:", name);
  memfd_name.resize(std::min<size_t>(memfd_name.size(), 200));
  ScopedFd fd(memfd_create(memfd_name.c_str(), MFD_CLOEXEC));
  if (fd.get() < 0) {
    return DlopenThroughTempFile(
        name, bytes, absl::StrCat("memfd_create failed: ", std::strerror(errno)));
  }
  RETURN_IF_ERROR(WriteAll(fd.get(), bytes, name));
  std::lock_guard<std::mutex> lock(load_mu);
  std::string path = UnusedFdPath(fd.get());
  if (access(path.c_str(), R_OK) != 0) {
    return DlopenThroughTempFile(name, bytes,
                                 absl::StrCat(path, " is not readable (is /proc mounted?)"));
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot load host kernel module '", name, "' (", bytes.size(),
        " bytes): ", LastDlError()));
  }
  return handle;  // `fd` closes here; the mapping keeps the file alive
}

// True when `address` lies in the object loaded as `handle` itself rather
// than in one of its dependencies.
bool DefinedInLibrary(void* handle, void* address) {
  struct link_map* library_map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &library_map) != 0) return false;
  Dl_info info;
  struct link_map* symbol_map = nullptr;
  if (dladdr1(address, &info, reinterpret_cast<void**>(&symbol_map),
              RTLD_DL_LINKMAP) == 0) {
    return false;
  }
  return symbol_map == library_map;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HostKernelModule>> HostKernelModule::Load(
    absl::string_view name, absl::string_view bytes) {
  if (bytes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot load host kernel module '", name, "': it has no bytes"));
  }
  // Nothing in this process dlopens kernel bytes but through here: refuse
  // an object that would run code while loading before it is written
  // anywhere (the artifact's load has checked its exports already).
  RETURN_IF_ERROR(CheckHostSharedObject(bytes, absl::StrCat("host kernel module '", name, "'")));
  ASSIGN_OR_RETURN(void* handle, DlopenBytes(name, bytes));
  auto library = std::make_shared<const LoadedLibrary>(handle);
  return std::unique_ptr<HostKernelModule>(
      new HostKernelModule(std::string(name), std::move(library)));
}

absl::StatusOr<std::unique_ptr<Kernel>> HostKernelModule::GetKernel(
    absl::string_view symbol_name) const {
  std::string symbol(symbol_name);
  void* address = nullptr;
  // A name with an embedded NUL would be looked up truncated.
  if (!symbol.empty() && symbol.find('\0') == std::string::npos) {
    address = dlsym(library_->handle(), symbol.c_str());
    if (address == nullptr) dlerror();  // clear this thread's error state
  }
  if (address == nullptr || !DefinedInLibrary(library_->handle(), address)) {
    return absl::NotFoundError(absl::StrCat("kernel symbol '", symbol_name,
                                            "' not found in module '", name_,
                                            "'"));
  }
  return std::make_unique<HostKernel>(
      library_, std::move(symbol), name_,
      reinterpret_cast<XlaHostKernelFn>(address));
}

}  // namespace stream_executor::host
