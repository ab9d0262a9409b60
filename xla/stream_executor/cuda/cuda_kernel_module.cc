#include "xla/stream_executor/cuda/cuda_kernel_module.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace stream_executor::cuda {
namespace {

// Size of the buffer the JIT writes its error log into.
constexpr size_t kJitLogBytes = 16 * 1024;

// The fatbinary header magic (little-endian 0xBA55ED50).
constexpr unsigned char kFatbinMagic[] = {0x50, 0xED, 0x55, 0xBA};
constexpr unsigned char kElfMagic[] = {0x7F, 'E', 'L', 'F'};

bool StartsWith(absl::string_view bytes, const unsigned char (&magic)[4]) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), magic, 4) == 0;
}

}  // namespace

absl::string_view CudaModuleFormatName(CudaModuleFormat format) {
  switch (format) {
    case CudaModuleFormat::kCubin:
      return "cubin";
    case CudaModuleFormat::kFatbin:
      return "fatbin";
    case CudaModuleFormat::kPtx:
      return "PTX";
  }
  return "unknown";
}

CudaModuleFormat DetectCudaModuleFormat(absl::string_view bytes) {
  if (StartsWith(bytes, kElfMagic)) return CudaModuleFormat::kCubin;
  if (StartsWith(bytes, kFatbinMagic)) return CudaModuleFormat::kFatbin;
  return CudaModuleFormat::kPtx;
}

CudaModuleHandle::~CudaModuleHandle() {
  (void)CU_STATUS(api_, cuCtxSetCurrent, context_);
  (void)CU_STATUS(api_, cuModuleUnload, module_);
}

absl::StatusOr<std::unique_ptr<CudaKernelModule>> CudaKernelModule::Load(
    const CudaDriverApi& api, CUcontext context, absl::string_view name,
    absl::string_view bytes) {
  const CudaModuleFormat format = DetectCudaModuleFormat(bytes);
  const std::string what =
      absl::StrCat("cannot load CUDA module '", name, "' (",
                   CudaModuleFormatName(format), ", ", bytes.size(), " bytes)");
  if (bytes.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the module is empty"));
  }
  // The driver reads PTX up to a NUL and wants images suitably aligned: a
  // std::string copy gives both.
  const std::string image(bytes);
  std::vector<char> log(kJitLogBytes, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* option_values[] = {log.data(),
                           reinterpret_cast<void*>(uintptr_t{kJitLogBytes})};
  absl::Status status = CU_STATUS(api, cuCtxSetCurrent, context);
  CUmodule module = nullptr;
  if (status.ok()) {
    status = CU_STATUS(api, cuModuleLoadDataEx, &module, image.data(), 2,
                       options, option_values);
  }
  if (!status.ok()) {
    // On return the size option holds the bytes written (NUL included).
    const size_t written = std::min<size_t>(
        reinterpret_cast<uintptr_t>(option_values[1]), kJitLogBytes);
    std::string jit_log(log.data(), strnlen(log.data(), written));
    const absl::StatusCode code =
        status.code() == absl::StatusCode::kResourceExhausted
            ? status.code()
            : absl::StatusCode::kInvalidArgument;
    return absl::Status(
        code, absl::StrCat(what, ": ", status.message(),
                           jit_log.empty() ? "" : "; JIT log: ", jit_log));
  }
  return std::unique_ptr<CudaKernelModule>(new CudaKernelModule(
      api, context, std::string(name),
      std::make_shared<const CudaModuleHandle>(api, context, module)));
}

absl::StatusOr<std::unique_ptr<Kernel>> CudaKernelModule::GetKernel(
    absl::string_view symbol_name) const {
  const std::string symbol(symbol_name);
  // The driver answers an empty name with CUDA_ERROR_INVALID_VALUE, not
  // NOT_FOUND (seen with driver 580.159.04 on an H200): no kernel has that
  // name, so it is a missing symbol like any other.
  if (symbol.empty()) {
    return absl::NotFoundError(
        absl::StrCat("CUDA module '", name_, "' has no kernel '' (the kernel name is empty)"));
  }
  CU_RETURN_IF_ERROR(api_, cuCtxSetCurrent, context_);
  CUfunction function = nullptr;
  const CUresult result =
      api_.cuModuleGetFunction(&function, module_->get(), symbol.c_str());
  if (result == CUDA_ERROR_NOT_FOUND) {
    return absl::NotFoundError(absl::StrCat("CUDA module '", name_,
                                            "' has no kernel '", symbol, "'"));
  }
  absl::Status status = CudaStatus(api_, "cuModuleGetFunction", result);
  if (!status.ok()) {
    return absl::Status(status.code(),
                        absl::StrCat("cannot look up kernel '", symbol,
                                     "' in CUDA module '", name_, "': ",
                                     status.message()));
  }
  return std::unique_ptr<Kernel>(
      std::make_unique<CudaKernel>(symbol, name_, module_, function));
}

}  // namespace stream_executor::cuda
