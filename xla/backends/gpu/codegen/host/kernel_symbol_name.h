// Kernel symbol names for host (and NVPTX) kernels: deterministic, derived
// from the HLO instruction's name, valid C identifiers, unique per module.
//
// Thread-safety: KernelSymbolName is a pure function of its arguments; the
// `used` set must not be shared between threads without a lock.
#ifndef XLA_BACKENDS_GPU_CODEGEN_HOST_KERNEL_SYMBOL_NAME_H_
#define XLA_BACKENDS_GPU_CODEGEN_HOST_KERNEL_SYMBOL_NAME_H_

#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"

namespace xla::gpu {

// "xla_" + `hlo_name` with every character outside [A-Za-z0-9_] replaced by
// '_' (the prefix keeps kernels apart from libc symbols such as "memcpy"
// and from names starting with a digit). When the result is already in
// `used`, "_1", "_2", ... is appended until it is not. The chosen name is
// inserted into `used`. Never fails; the same sequence of calls gives the
// same names.
std::string KernelSymbolName(absl::string_view hlo_name, absl::flat_hash_set<std::string>* used);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_HOST_KERNEL_SYMBOL_NAME_H_
