#include "xla/stream_executor/cuda/cuda_fft.h"

#include <algorithm>
#include <map>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace stream_executor::cuda {

// One grid-stride loop per precision; data[i] *= rcp(n) for i < count.
#define XLA_FFT_SCALE_ENTRY(NAME, T, BYTES_LOG2)             \
  ".visible .entry " NAME "(.param .u64 data, .param .u64 count, .param .u64 n)\n" \
  "{\n"                                                      \
  "  .reg .pred %p;\n"                                       \
  "  .reg .b64 %rd<8>;\n"                                    \
  "  .reg .b32 %r<4>;\n"                                     \
  "  .reg ." T " %v<4>;\n"                                   \
  "  ld.param.u64 %rd0, [data];\n"                           \
  "  ld.param.u64 %rd1, [count];\n"                          \
  "  ld.param.u64 %rd2, [n];\n"                              \
  "  cvta.to.global.u64 %rd0, %rd0;\n"                       \
  "  cvt.rn." T ".u64 %v0, %rd2;\n"                          \
  "  rcp.rn." T " %v1, %v0;\n"                               \
  "  mov.u32 %r0, %ctaid.x;\n"                               \
  "  mov.u32 %r1, %ntid.x;\n"                                \
  "  mov.u32 %r2, %tid.x;\n"                                 \
  "  mul.wide.u32 %rd3, %r0, %r1;\n"                         \
  "  cvt.u64.u32 %rd4, %r2;\n"                               \
  "  add.u64 %rd3, %rd3, %rd4;\n"                            \
  "  mov.u32 %r3, %nctaid.x;\n"                              \
  "  mul.wide.u32 %rd5, %r3, %r1;\n"                         \
  "LOOP:\n"                                                  \
  "  setp.ge.u64 %p, %rd3, %rd1;\n"                          \
  "  @%p bra DONE;\n"                                        \
  "  shl.b64 %rd6, %rd3, " BYTES_LOG2 ";\n"                  \
  "  add.u64 %rd6, %rd0, %rd6;\n"                            \
  "  ld.global." T " %v2, [%rd6];\n"                         \
  "  mul.rn." T " %v2, %v2, %v1;\n"                          \
  "  st.global." T " [%rd6], %v2;\n"                         \
  "  add.u64 %rd3, %rd3, %rd5;\n"                            \
  "  bra LOOP;\n"                                            \
  "DONE:\n"                                                  \
  "  ret;\n"                                                 \
  "}\n"

const char kFftScaleKernelPtx[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    "\n" XLA_FFT_SCALE_ENTRY("xla_fft_scale_f32", "f32", "2")
        XLA_FFT_SCALE_ENTRY("xla_fft_scale_f64", "f64", "3");

#undef XLA_FFT_SCALE_ENTRY

namespace {

constexpr unsigned kScaleBlock = 256;
constexpr uint64_t kScaleMaxBlocks = 1 << 16;

// The cuFFT transform of one FftType and precision.
struct CufftKind {
  FftType type;
  FftPrecision precision;
  cufftType cufft_type;
  int direction;  // CUFFT_FORWARD / CUFFT_INVERSE (C2C only)
  const char* exec_name;
};

constexpr CufftKind kKinds[] = {
    {FftType::kFft, FftPrecision::kF32, CUFFT_C2C, CUFFT_FORWARD, "cufftExecC2C"},
    {FftType::kIfft, FftPrecision::kF32, CUFFT_C2C, CUFFT_INVERSE, "cufftExecC2C"},
    {FftType::kRfft, FftPrecision::kF32, CUFFT_R2C, CUFFT_FORWARD, "cufftExecR2C"},
    {FftType::kIrfft, FftPrecision::kF32, CUFFT_C2R, CUFFT_INVERSE, "cufftExecC2R"},
    {FftType::kFft, FftPrecision::kF64, CUFFT_Z2Z, CUFFT_FORWARD, "cufftExecZ2Z"},
    {FftType::kIfft, FftPrecision::kF64, CUFFT_Z2Z, CUFFT_INVERSE, "cufftExecZ2Z"},
    {FftType::kRfft, FftPrecision::kF64, CUFFT_D2Z, CUFFT_FORWARD, "cufftExecD2Z"},
    {FftType::kIrfft, FftPrecision::kF64, CUFFT_Z2D, CUFFT_INVERSE, "cufftExecZ2D"},
};

const CufftKind& KindOf(const FftConfig& c) {
  for (const CufftKind& kind : kKinds) {
    if (kind.type == c.type && kind.precision == c.precision) return kind;
  }
  return kKinds[0];  // unreachable: the table covers every pair
}

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t product = 1;
  for (int64_t d : dims) product *= d;
  return product;
}

class CudaFftPlan : public FftPlan {
 public:
  CudaFftPlan(const CufftApi& cufft, const CudaDriverApi& driver, CUcontext context,
              const CudaFft* owner, FftConfig config)
      : cufft_(cufft), driver_(driver), context_(context), owner_(owner),
        config_(std::move(config)) {}
  ~CudaFftPlan() override {
    if (handle_valid_) (void)cufft_.cufftDestroy(handle_);
    if (scratch_.empty()) return;
    (void)CU_STATUS(driver_, cuCtxSetCurrent, context_);
    for (const auto& [stream, scratch] : scratch_) (void)CU_STATUS(driver_, cuMemFree_v2, scratch);
  }

  const FftConfig& config() const override { return config_; }

  // Creates the cuFFT plan and notes its work size.
  absl::Status Make() {
    RETURN_IF_ERROR(CufftStatus("cufftCreate", cufft_.cufftCreate(&handle_)));
    handle_valid_ = true;
    RETURN_IF_ERROR(
        CufftStatus("cufftSetAutoAllocation", cufft_.cufftSetAutoAllocation(handle_, 0)));
    std::vector<long long> n(config_.lengths.begin(), config_.lengths.end());
    const std::vector<int64_t> in_dims = FftInputDims(config_);
    const std::vector<int64_t> out_dims = FftOutputDims(config_);
    std::vector<long long> inembed(in_dims.begin(), in_dims.end());
    std::vector<long long> onembed(out_dims.begin(), out_dims.end());
    // cuFFT rejects a batch of 0; such a plan is made for 1 and never run.
    size_t work_size = 0;
    RETURN_IF_ERROR(CufftStatus(
        "cufftMakePlanMany64",
        cufft_.cufftMakePlanMany64(handle_, static_cast<int>(n.size()), n.data(), inembed.data(),
                                   1, Product(in_dims), onembed.data(), 1, Product(out_dims),
                                   KindOf(config_).cufft_type,
                                   std::max<int64_t>(config_.batch, 1), &work_size)));
    work_size_ = work_size;
    return absl::OkStatus();
  }

  const CudaFft* owner() const { return owner_; }
  cufftHandle handle() const { return handle_; }
  std::mutex& mu() const { return mu_; }

  // The scratch of runs on `stream` (allocated on the first one, with the
  // context current; 0 when the plan needs none). Call with mu() held.
  absl::StatusOr<CUdeviceptr> ScratchFor(CUstream stream) const {
    if (work_size_ == 0) return CUdeviceptr{0};
    auto it = scratch_.find(stream);
    if (it != scratch_.end()) return it->second;
    CUdeviceptr scratch = 0;
    RETURN_IF_ERROR(CU_STATUS(driver_, cuMemAlloc_v2, &scratch, work_size_));
    scratch_.emplace(stream, scratch);
    return scratch;
  }

 private:
  const CufftApi& cufft_;
  const CudaDriverApi& driver_;
  const CUcontext context_;
  const CudaFft* const owner_;
  const FftConfig config_;
  cufftHandle handle_ = 0;
  bool handle_valid_ = false;
  size_t work_size_ = 0;
  mutable std::mutex mu_;  // one SetStream + SetWorkArea + Exec at a time
  // One scratch per stream that ran the plan, so that runs on different
  // streams never share it on the device. Guarded by mu_.
  mutable std::map<CUstream, CUdeviceptr> scratch_;
};

// Runs the typed exec of `kind` from `in` to `out`.
cufftResult Exec(const CufftApi& api, const CufftKind& kind, cufftHandle plan, void* in,
                 void* out) {
  switch (kind.cufft_type) {
    case CUFFT_C2C:
      return api.cufftExecC2C(plan, static_cast<cufftComplex*>(in),
                              static_cast<cufftComplex*>(out), kind.direction);
    case CUFFT_Z2Z:
      return api.cufftExecZ2Z(plan, static_cast<cufftDoubleComplex*>(in),
                              static_cast<cufftDoubleComplex*>(out), kind.direction);
    case CUFFT_R2C:
      return api.cufftExecR2C(plan, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out));
    case CUFFT_D2Z:
      return api.cufftExecD2Z(plan, static_cast<cufftDoubleReal*>(in),
                              static_cast<cufftDoubleComplex*>(out));
    case CUFFT_C2R:
      return api.cufftExecC2R(plan, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out));
    case CUFFT_Z2D:
      return api.cufftExecZ2D(plan, static_cast<cufftDoubleComplex*>(in),
                              static_cast<cufftDoubleReal*>(out));
  }
  return CUFFT_INVALID_TYPE;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CudaFft>> CudaFft::Create(const CufftApi& cufft,
                                                         const CudaDriverApi& driver,
                                                         CUcontext context) {
  ASSIGN_OR_RETURN(std::unique_ptr<CudaKernelModule> module,
                   CudaKernelModule::Load(driver, context, "xla_fft_scale", kFftScaleKernelPtx));
  ASSIGN_OR_RETURN(std::unique_ptr<Kernel> f32, module->GetKernel(kFftScaleF32Kernel));
  ASSIGN_OR_RETURN(std::unique_ptr<Kernel> f64, module->GetKernel(kFftScaleF64Kernel));
  const CUfunction scale_f32 = static_cast<const CudaKernel&>(*f32).function();
  const CUfunction scale_f64 = static_cast<const CudaKernel&>(*f64).function();
  return std::unique_ptr<CudaFft>(
      new CudaFft(cufft, driver, context, std::move(module), scale_f32, scale_f64));
}

absl::StatusOr<std::unique_ptr<FftPlan>> CudaFft::Prepare(const FftConfig& config) {
  RETURN_IF_ERROR(CheckFftConfig(config));
  auto plan = std::make_unique<CudaFftPlan>(cufft_, driver_, context_, this, config);
  absl::Status made = plan->Make();
  if (!made.ok()) {
    return absl::Status(made.code(), absl::StrCat("cannot plan cuFFT ", FftConfigToString(config),
                                                  ": ", made.message()));
  }
  return std::unique_ptr<FftPlan>(std::move(plan));
}

absl::Status CudaFft::Fft(CudaStream& stream, const FftPlan& plan, const DeviceMemoryBase& input,
                          const DeviceMemoryBase& output, const DeviceMemoryBase& workspace) {
  const auto* cuda_plan = dynamic_cast<const CudaFftPlan*>(&plan);
  if (cuda_plan == nullptr || cuda_plan->owner() != this) {
    return stream.RejectAtEnqueue(
        "fft", absl::InvalidArgumentError(absl::StrCat(
                   "the plan for ", FftConfigToString(plan.config()),
                   " was not prepared by this CUDA device's PrepareFft")));
  }
  const FftConfig& c = cuda_plan->config();
  absl::Status valid = CheckFftBuffers(c, input, output, workspace);
  if (!valid.ok()) return stream.RejectAtEnqueue("fft", valid);
  if (c.batch == 0) return absl::OkStatus();
  const CufftKind& kind = KindOf(c);
  const bool irfft = c.type == FftType::kIrfft;
  const bool inverse = irfft || c.type == FftType::kIfft;
  const uint64_t input_bytes = FftInputElements(c) * FftInputElementBytes(c);
  // Reals in the output: complex elements count twice.
  const uint64_t output_reals =
      FftOutputElements(c) * (FftOutputElementBytes(c) / (c.precision == FftPrecision::kF32 ? 4 : 8));
  const uint64_t n = static_cast<uint64_t>(Product(c.lengths));
  const CUfunction scale = c.precision == FftPrecision::kF32 ? scale_f32_ : scale_f64_;
  return stream.EnqueueDriverWork(
      absl::StrCat("fft ", FftConfigToString(c)),
      [this, cuda_plan, &kind, irfft, inverse, input_bytes, output_reals, n, scale,
       in = input.opaque, out = output.opaque,
       ws = workspace.opaque](CUstream cu_stream) -> absl::Status {
        void* source = in;
        if (irfft) {
          RETURN_IF_ERROR(CU_STATUS(driver_, cuMemcpyDtoDAsync_v2,
                                    reinterpret_cast<CUdeviceptr>(ws),
                                    reinterpret_cast<CUdeviceptr>(in), input_bytes, cu_stream));
          source = ws;
        }
        {
          std::lock_guard<std::mutex> lock(cuda_plan->mu());
          const cufftHandle h = cuda_plan->handle();
          ASSIGN_OR_RETURN(const CUdeviceptr scratch, cuda_plan->ScratchFor(cu_stream));
          RETURN_IF_ERROR(CufftStatus(
              "cufftSetStream", cufft_.cufftSetStream(h, reinterpret_cast<cudaStream_t>(cu_stream))));
          RETURN_IF_ERROR(CufftStatus(
              "cufftSetWorkArea",
              cufft_.cufftSetWorkArea(h, reinterpret_cast<void*>(scratch))));
          RETURN_IF_ERROR(CufftStatus(kind.exec_name, Exec(cufft_, kind, h, source, out)));
        }
        if (!inverse) return absl::OkStatus();
        uint64_t data = reinterpret_cast<uint64_t>(out);
        uint64_t count = output_reals;
        uint64_t length = n;
        void* params[] = {&data, &count, &length};
        const uint64_t blocks =
            std::min<uint64_t>((count + kScaleBlock - 1) / kScaleBlock, kScaleMaxBlocks);
        return CU_STATUS(driver_, cuLaunchKernel, scale, static_cast<unsigned>(blocks), 1, 1,
                         kScaleBlock, 1, 1, 0, cu_stream, params, nullptr);
      });
}

}  // namespace stream_executor::cuda
