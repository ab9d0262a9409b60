// The tensor input/output flags `xla_aot eval` and `xla_aot run` share, and
// writing their results.
//
//   --input=PATH (repeatable)  --random_inputs  --seed=N
//   --output_dir=DIR           --print
//
// Thread-compatible: plain data and functions writing to the given streams.
#ifndef XLA_TOOLS_TENSOR_IO_H_
#define XLA_TOOLS_TENSOR_IO_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "xla/types/literal.h"

namespace xla::cli {

struct TensorIoFlags {
  std::vector<std::string> inputs;
  bool random_inputs = false;
  uint64_t seed = 0;
  std::string output_dir;
  bool print = false;
};

// Consumes `arg` when it is one of the flags above: returns true and leaves
// `*error` empty, or true with a usage error (e.g. a bad --seed). Returns
// false for any other argument.
bool ParseTensorIoFlag(const std::string& arg, TensorIoFlags* flags, std::string* error);

// A usage error for flag combinations (inputs and random inputs together),
// or "".
std::string CheckTensorIoFlags(const TensorIoFlags& flags);

// The array leaves of `value` in depth-first order (the order of the result's
// shape indices; `value` itself when it is an array). Tokens, which hold
// nothing, are left out, as an artifact's results leave them out. Pointers
// into `value`.
std::vector<const Literal*> FlattenLeaves(const Literal& value);

// Writes DIR/out0.npy, out1.npy, ... when --output_dir is set, and prints
// `outN: shape value` lines when --print is set or no directory was given.
absl::Status EmitResults(const TensorIoFlags& flags, const std::vector<const Literal*>& leaves,
                         std::ostream& out);

}  // namespace xla::cli

#endif  // XLA_TOOLS_TENSOR_IO_H_
