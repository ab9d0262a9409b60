#include "xla/stream_executor/cuda/fake_cufft.h"

#include <atomic>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>

#include "xla/stream_executor/cuda/cuda_fft.h"
#include "xla/util/logging.h"

namespace stream_executor::cuda {
namespace {

std::atomic<FakeCufft*> active{nullptr};

FakeCufft& Active() {
  FakeCufft* fake = active.load();
  XLA_CHECK(fake != nullptr) << "a fake cuFFT entry point ran with no FakeCufft alive";
  return *fake;
}

bool IsDouble(cufftType t) { return t == CUFFT_Z2Z || t == CUFFT_D2Z || t == CUFFT_Z2D; }
bool RealInput(cufftType t) { return t == CUFFT_R2C || t == CUFFT_D2Z; }
bool RealOutput(cufftType t) { return t == CUFFT_C2R || t == CUFFT_Z2D; }

// The dims of the stored input / output of one transform: n, with the last
// one n/2 + 1 on the complex side of a real transform.
std::vector<long long> StoredDims(const FakeCufftPlan& p, bool input) {
  std::vector<long long> dims = p.n;
  const bool half = input ? RealOutput(p.type) : RealInput(p.type);
  if (half) dims.back() = dims.back() / 2 + 1;
  return dims;
}

// Offset (in elements) of multi-index `index` in one transform of the
// advanced layout: row-major over `embed` times `stride`.
long long Offset(const std::vector<long long>& index, const std::vector<long long>& embed,
                 long long stride) {
  long long offset = 0;
  for (size_t d = 0; d < index.size(); ++d) offset = offset * embed[d] + index[d];
  return offset * stride;
}

// Steps `index` through the row-major grid `dims`; false after the last.
bool Next(std::vector<long long>& index, const std::vector<long long>& dims) {
  for (size_t d = dims.size(); d-- > 0;) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

std::complex<double> Load(const void* base, long long offset, bool real, bool dbl) {
  if (real) {
    return dbl ? static_cast<const double*>(base)[offset] : static_cast<const float*>(base)[offset];
  }
  if (dbl) {
    const double* p = static_cast<const double*>(base) + 2 * offset;
    return {p[0], p[1]};
  }
  const float* p = static_cast<const float*>(base) + 2 * offset;
  return {p[0], p[1]};
}

void Store(void* base, long long offset, bool real, bool dbl, std::complex<double> v) {
  if (real) {
    if (dbl) {
      static_cast<double*>(base)[offset] = v.real();
    } else {
      static_cast<float*>(base)[offset] = static_cast<float>(v.real());
    }
    return;
  }
  if (dbl) {
    double* p = static_cast<double*>(base) + 2 * offset;
    p[0] = v.real();
    p[1] = v.imag();
  } else {
    float* p = static_cast<float*>(base) + 2 * offset;
    p[0] = static_cast<float>(v.real());
    p[1] = static_cast<float>(v.imag());
  }
}

// The full-grid input value at `j` of batch member `in` (C2R: from the
// stored half spectrum by Hermitian symmetry).
std::complex<double> InputAt(const FakeCufftPlan& p, const void* in, std::vector<long long> j) {
  const bool dbl = IsDouble(p.type);
  const bool real = RealInput(p.type);
  if (!RealOutput(p.type)) return Load(in, Offset(j, p.inembed, p.istride), real, dbl);
  const long long last = p.n.back();
  if (j.back() <= last / 2) return Load(in, Offset(j, p.inembed, p.istride), false, dbl);
  for (size_t d = 0; d < j.size(); ++d) j[d] = (p.n[d] - j[d]) % p.n[d];
  return std::conj(Load(in, Offset(j, p.inembed, p.istride), false, dbl));
}

// The unscaled DFT of every batch member, as cuFFT defines it.
void RunDft(const FakeCufftExec& e) {
  const FakeCufftPlan& p = e.plan;
  const bool dbl = IsDouble(p.type);
  const size_t real_bytes = dbl ? 8 : 4;
  const std::vector<long long> out_dims = StoredDims(p, /*input=*/false);
  const double sign = e.direction == CUFFT_FORWARD ? -1.0 : 1.0;
  for (long long b = 0; b < p.batch; ++b) {
    const size_t in_scalars = RealInput(p.type) ? 1 : 2;
    const void* in = static_cast<const char*>(e.input) + b * p.idist * in_scalars * real_bytes;
    void* out = static_cast<char*>(e.output) +
                b * p.odist * (RealOutput(p.type) ? 1 : 2) * real_bytes;
    // Read the whole input first (cuFFT may run in place).
    std::vector<std::complex<double>> values;
    std::vector<long long> j(p.rank, 0);
    do {
      values.push_back(InputAt(p, in, j));
    } while (Next(j, p.n));
    std::vector<long long> k(p.rank, 0);
    do {
      std::complex<double> sum = 0;
      std::fill(j.begin(), j.end(), 0);
      size_t index = 0;
      do {
        double phase = 0;
        for (int d = 0; d < p.rank; ++d) {
          phase += static_cast<double>((j[d] * k[d]) % p.n[d]) / static_cast<double>(p.n[d]);
        }
        const double angle = sign * 2.0 * M_PI * phase;
        sum += values[index++] * std::complex<double>(std::cos(angle), std::sin(angle));
      } while (Next(j, p.n));
      Store(out, Offset(k, p.onembed, p.ostride), RealOutput(p.type), dbl, sum);
    } while (Next(k, out_dims));
  }
  if (RealOutput(p.type)) {
    // cuFFT's C2R may destroy its input: make a caller that relied on it see.
    std::memset(e.input, 0x7f, static_cast<size_t>(p.batch * p.idist) * 2 * real_bytes);
  }
  if (p.work_area != nullptr) std::memset(p.work_area, 0x5a, p.work_size);
}

template <typename T>
void ScaleKernel(const FakeLaunch& launch) {
  T* data = launch.arg<T>(0);
  const uint64_t count = launch.args.at(1);
  const T reciprocal = T{1} / static_cast<T>(launch.args.at(2));
  for (uint64_t i = 0; i < count; ++i) data[i] *= reciprocal;
}

}  // namespace

// The C entry points; a friend so they reach the fake's state.
struct FakeCufftEntryPoints {
  static cufftResult Create(cufftHandle* handle) {
    FakeCufft& fake = Active();
    std::lock_guard<std::mutex> lock(fake.mu_);
    *handle = fake.next_handle_++;
    fake.plans_[*handle] = FakeCufftPlan();
    return CUFFT_SUCCESS;
  }
  static cufftResult Destroy(cufftHandle handle) {
    FakeCufft& fake = Active();
    std::lock_guard<std::mutex> lock(fake.mu_);
    return fake.plans_.erase(handle) == 1 ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
  }
  // Runs `edit` on the plan `handle` under the lock.
  template <typename Edit>
  static cufftResult WithPlan(cufftHandle handle, Edit edit) {
    FakeCufft& fake = Active();
    std::lock_guard<std::mutex> lock(fake.mu_);
    auto it = fake.plans_.find(handle);
    if (it == fake.plans_.end()) return CUFFT_INVALID_PLAN;
    return edit(it->second);
  }
  static cufftResult SetStream(cufftHandle handle, cudaStream_t stream) {
    return WithPlan(handle, [&](FakeCufftPlan& p) {
      p.stream = stream;
      return CUFFT_SUCCESS;
    });
  }
  static cufftResult SetAutoAllocation(cufftHandle handle, int automatic) {
    return WithPlan(handle, [&](FakeCufftPlan& p) {
      p.auto_allocate = automatic != 0;
      return CUFFT_SUCCESS;
    });
  }
  static cufftResult SetWorkArea(cufftHandle handle, void* area) {
    return WithPlan(handle, [&](FakeCufftPlan& p) {
      p.work_area = area;
      return CUFFT_SUCCESS;
    });
  }
  static cufftResult MakePlanMany64(cufftHandle handle, int rank, long long* n,
                                    long long* inembed, long long istride, long long idist,
                                    long long* onembed, long long ostride, long long odist,
                                    cufftType type, long long batch, size_t* work_size) {
    {
      FakeCufft& fake = Active();
      std::lock_guard<std::mutex> lock(fake.mu_);
      if (fake.next_plan_result_ != CUFFT_SUCCESS) {
        const cufftResult result = fake.next_plan_result_;
        fake.next_plan_result_ = CUFFT_SUCCESS;
        return result;
      }
    }
    if (rank < 1 || rank > 3 || batch < 1) return CUFFT_INVALID_VALUE;
    for (int d = 0; d < rank; ++d) {
      if (n[d] < 1) return CUFFT_INVALID_SIZE;
    }
    return WithPlan(handle, [&](FakeCufftPlan& p) {
      p.rank = rank;
      p.n.assign(n, n + rank);
      p.type = type;
      // A null embed means the packed layout, where strides and distances
      // are ignored.
      const bool packed = inembed == nullptr || onembed == nullptr;
      p.inembed = packed ? StoredDims(p, true) : std::vector<long long>(inembed, inembed + rank);
      p.onembed = packed ? StoredDims(p, false) : std::vector<long long>(onembed, onembed + rank);
      p.istride = packed ? 1 : istride;
      p.ostride = packed ? 1 : ostride;
      long long in_size = 1, out_size = 1;
      for (int d = 0; d < rank; ++d) {
        in_size *= p.inembed[d];
        out_size *= p.onembed[d];
      }
      p.idist = packed ? in_size : idist;
      p.odist = packed ? out_size : odist;
      p.batch = batch;
      p.work_size = static_cast<size_t>(in_size) * 16;
      *work_size = p.work_size;
      return CUFFT_SUCCESS;
    });
  }
  static cufftResult Exec(cufftHandle handle, void* in, void* out, int direction,
                          cufftType expected) {
    FakeCufft& fake = Active();
    auto* exec = new FakeCufftExec();
    {
      std::lock_guard<std::mutex> lock(fake.mu_);
      auto it = fake.plans_.find(handle);
      cufftResult refusal = CUFFT_SUCCESS;
      if (it == fake.plans_.end() || it->second.rank == 0) {
        refusal = CUFFT_INVALID_PLAN;
      } else if (it->second.type != expected) {
        refusal = CUFFT_INVALID_TYPE;
      } else if (!it->second.auto_allocate && it->second.work_area == nullptr) {
        refusal = CUFFT_NO_WORKSPACE;
      }
      if (refusal != CUFFT_SUCCESS) {
        delete exec;
        return refusal;
      }
      exec->plan = it->second;
      exec->direction = direction;
      exec->input = in;
      exec->output = out;
      fake.executions_.push_back(*exec);
    }
    const CUresult result = fake.driver_.api().cuLaunchHostFunc(
        reinterpret_cast<CUstream>(exec->plan.stream),
        [](void* data) {
          auto* e = static_cast<FakeCufftExec*>(data);
          RunDft(*e);
        },
        exec);
    if (result != CUDA_SUCCESS) {
      delete exec;
      return CUFFT_EXEC_FAILED;
    }
    std::lock_guard<std::mutex> lock(fake.mu_);
    fake.enqueued_.emplace_back(exec);
    return CUFFT_SUCCESS;
  }
  static cufftResult ExecC2C(cufftHandle h, cufftComplex* in, cufftComplex* out, int dir) {
    return Exec(h, in, out, dir, CUFFT_C2C);
  }
  static cufftResult ExecZ2Z(cufftHandle h, cufftDoubleComplex* in, cufftDoubleComplex* out,
                             int dir) {
    return Exec(h, in, out, dir, CUFFT_Z2Z);
  }
  static cufftResult ExecR2C(cufftHandle h, cufftReal* in, cufftComplex* out) {
    return Exec(h, in, out, CUFFT_FORWARD, CUFFT_R2C);
  }
  static cufftResult ExecD2Z(cufftHandle h, cufftDoubleReal* in, cufftDoubleComplex* out) {
    return Exec(h, in, out, CUFFT_FORWARD, CUFFT_D2Z);
  }
  static cufftResult ExecC2R(cufftHandle h, cufftComplex* in, cufftReal* out) {
    return Exec(h, in, out, CUFFT_INVERSE, CUFFT_C2R);
  }
  static cufftResult ExecZ2D(cufftHandle h, cufftDoubleComplex* in, cufftDoubleReal* out) {
    return Exec(h, in, out, CUFFT_INVERSE, CUFFT_Z2D);
  }
  static cufftResult GetVersion(int* version) {
    *version = 11300;
    return CUFFT_SUCCESS;
  }
};

FakeCufft::FakeCufft(FakeCudaDriver& driver) : driver_(driver) {
  FakeCufft* expected = nullptr;
  XLA_CHECK(active.compare_exchange_strong(expected, this))
      << "only one FakeCufft may exist at a time";
  api_.cufftCreate = &FakeCufftEntryPoints::Create;
  api_.cufftDestroy = &FakeCufftEntryPoints::Destroy;
  api_.cufftSetStream = &FakeCufftEntryPoints::SetStream;
  api_.cufftSetAutoAllocation = &FakeCufftEntryPoints::SetAutoAllocation;
  api_.cufftSetWorkArea = &FakeCufftEntryPoints::SetWorkArea;
  api_.cufftMakePlanMany64 = &FakeCufftEntryPoints::MakePlanMany64;
  api_.cufftExecC2C = &FakeCufftEntryPoints::ExecC2C;
  api_.cufftExecZ2Z = &FakeCufftEntryPoints::ExecZ2Z;
  api_.cufftExecR2C = &FakeCufftEntryPoints::ExecR2C;
  api_.cufftExecD2Z = &FakeCufftEntryPoints::ExecD2Z;
  api_.cufftExecC2R = &FakeCufftEntryPoints::ExecC2R;
  api_.cufftExecZ2D = &FakeCufftEntryPoints::ExecZ2D;
  api_.cufftGetVersion = &FakeCufftEntryPoints::GetVersion;
  driver_.RegisterKernel(kFftScaleF32Kernel, &ScaleKernel<float>);
  driver_.RegisterKernel(kFftScaleF64Kernel, &ScaleKernel<double>);
}

FakeCufft::~FakeCufft() { active.store(nullptr); }

std::vector<FakeCufftExec> FakeCufft::executions() const {
  std::lock_guard<std::mutex> lock(mu_);
  return executions_;
}

int FakeCufft::live_plans() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(plans_.size());
}

void FakeCufft::FailNextPlan(cufftResult result) {
  std::lock_guard<std::mutex> lock(mu_);
  next_plan_result_ = result;
}

}  // namespace stream_executor::cuda
