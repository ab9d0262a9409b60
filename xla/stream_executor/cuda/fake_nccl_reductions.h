// The element types and reductions of the fake NCCL (fake_nccl.h), as one
// table: each supported ncclDataType_t with its size and one fold per
// ncclRedOp_t. Test-only.
//
// Thread-safety: immutable tables and pure functions.
#ifndef XLA_STREAM_EXECUTOR_CUDA_FAKE_NCCL_REDUCTIONS_H_
#define XLA_STREAM_EXECUTOR_CUDA_FAKE_NCCL_REDUCTIONS_H_

#include <nccl.h>

#include <cstddef>
#include <vector>

namespace stream_executor::cuda {

// out[i] = ((inputs[0][i] op inputs[1][i]) op inputs[2][i]) ...: rank
// order, so results equal a sequential fold bit for bit. Integer sums and
// products wrap. ncclFloat16 and ncclBfloat16 compute each step in f32 and
// round the f32 result to the type (nearest even), as NCCL's kernels do, so
// a value read as the wrong 16-bit type gives a different result. Max and
// min return one of the operands unchanged.
using FakeNcclFoldFn = void (*)(const std::vector<const char*>& inputs, size_t count, char* out);

// The reductions the fake supports: ncclSum, ncclProd, ncclMax, ncclMin
// (ncclRedOp_t values 0 to 3).
inline constexpr int kFakeNcclNumOps = 4;

struct FakeNcclType {
  ncclDataType_t type;
  const char* name;  // "ncclFloat32"
  size_t size;       // bytes per element
  FakeNcclFoldFn fold[kFakeNcclNumOps];  // indexed by ncclRedOp_t
};

// The entry of `type`, or nullptr when the fake does not support it (the
// 8-, 32- and 64-bit integers, f16, bf16, f32 and f64 are supported; the
// f8 types are not).
const FakeNcclType* FindFakeNcclType(ncclDataType_t type);

// Whether `op` is one of the supported reductions.
bool IsSupportedFakeNcclOp(ncclRedOp_t op);

// "sum", "prod", "max", "min"; "?" for an unsupported op.
const char* FakeNcclOpName(ncclRedOp_t op);

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_FAKE_NCCL_REDUCTIONS_H_
