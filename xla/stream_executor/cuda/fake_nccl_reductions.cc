#include "xla/stream_executor/cuda/fake_nccl_reductions.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <type_traits>

#include "xla/types/float_format.h"

namespace stream_executor::cuda {
namespace {

template <typename T>
T LoadAt(const char* base, size_t index) {
  T value;
  std::memcpy(&value, base + index * sizeof(T), sizeof(T));
  return value;
}

// `op` on a and b; integer arithmetic wraps (it runs in the unsigned type).
template <typename T, typename Op>
T Wrapping(T a, T b, Op op) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(op(static_cast<U>(a), static_cast<U>(b))));
  } else {
    return op(a, b);
  }
}

// A 16-bit float element (f16 or bf16) as its encoding.
template <xla::FloatFormatId Format>
struct Narrow {
  uint16_t bits;
};

// How an element type computes: plain types in themselves; 16-bit floats
// as NCCL's kernels do, in f32 with the f32 result rounded to nearest even
// after every step.
template <typename T>
struct Arith {
  using Compute = T;
  static Compute Load(T v) { return v; }
  static T Store(Compute c) { return c; }
};

template <xla::FloatFormatId Format>
struct Arith<Narrow<Format>> {
  using Compute = float;
  static float Load(Narrow<Format> v) { return static_cast<float>(xla::DecodeFloat(Format, v.bits)); }
  static Narrow<Format> Store(float c) {
    return {static_cast<uint16_t>(xla::EncodeFloat(Format, static_cast<double>(c)))};
  }
};

template <typename T>
struct SumOp {
  static T Apply(T a, T b) {
    using A = Arith<T>;
    return A::Store(Wrapping(A::Load(a), A::Load(b), std::plus<>()));
  }
};

template <typename T>
struct ProdOp {
  static T Apply(T a, T b) {
    using A = Arith<T>;
    return A::Store(Wrapping(A::Load(a), A::Load(b), std::multiplies<>()));
  }
};

// max/min return one operand unchanged (its encoding, for 16-bit floats).
template <typename T>
struct MaxOp {
  static T Apply(T a, T b) { return Arith<T>::Load(a) < Arith<T>::Load(b) ? b : a; }
};

template <typename T>
struct MinOp {
  static T Apply(T a, T b) { return Arith<T>::Load(b) < Arith<T>::Load(a) ? b : a; }
};

template <typename T, template <typename> class Op>
void Fold(const std::vector<const char*>& inputs, size_t count, char* out) {
  for (size_t i = 0; i < count; ++i) {
    T acc = LoadAt<T>(inputs[0], i);
    for (size_t r = 1; r < inputs.size(); ++r) {
      acc = Op<T>::Apply(acc, LoadAt<T>(inputs[r], i));
    }
    std::memcpy(out + i * sizeof(T), &acc, sizeof(T));
  }
}

static_assert(ncclSum == 0 && ncclProd == 1 && ncclMax == 2 && ncclMin == 3,
              "FakeNcclType::fold is indexed by ncclRedOp_t");
constexpr const char* kOpNames[kFakeNcclNumOps] = {"sum", "prod", "max", "min"};

template <typename T>
constexpr FakeNcclType MakeType(ncclDataType_t type, const char* name) {
  return {
      type,
      name,
      sizeof(T),
      {&Fold<T, SumOp>, &Fold<T, ProdOp>, &Fold<T, MaxOp>, &Fold<T, MinOp>}};
}

const FakeNcclType kTypes[] = {
    MakeType<int8_t>(ncclInt8, "ncclInt8"),
    MakeType<uint8_t>(ncclUint8, "ncclUint8"),
    MakeType<int32_t>(ncclInt32, "ncclInt32"),
    MakeType<uint32_t>(ncclUint32, "ncclUint32"),
    MakeType<int64_t>(ncclInt64, "ncclInt64"),
    MakeType<uint64_t>(ncclUint64, "ncclUint64"),
    MakeType<float>(ncclFloat32, "ncclFloat32"),
    MakeType<double>(ncclFloat64, "ncclFloat64"),
    MakeType<Narrow<xla::FloatFormatId::kF16>>(ncclFloat16, "ncclFloat16"),
    MakeType<Narrow<xla::FloatFormatId::kBF16>>(ncclBfloat16, "ncclBfloat16"),
};

}  // namespace

const FakeNcclType* FindFakeNcclType(ncclDataType_t type) {
  for (const FakeNcclType& info : kTypes) {
    if (info.type == type) return &info;
  }
  return nullptr;
}

bool IsSupportedFakeNcclOp(ncclRedOp_t op) {
  return static_cast<int>(op) >= 0 && static_cast<int>(op) < kFakeNcclNumOps;
}

const char* FakeNcclOpName(ncclRedOp_t op) {
  return IsSupportedFakeNcclOp(op) ? kOpNames[static_cast<int>(op)] : "?";
}

}  // namespace stream_executor::cuda
