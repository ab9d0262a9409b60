// ParseFfiAttributes: the typed-FFI `backend_config` of a custom call (an
// MLIR attribute dictionary, as JAX and Transformer Engine print it) into
// typed FFI attributes, once, at compile time:
//
//   {attn_heads = 32 : i64, is_training = true, scale = 1.000000e+00 : f64,
//    name = "abc", dims = array<i64: 1, 2, 3>}
//
// Accepted values, and what they become (ffi::AttributeValue):
//   true, false                       bool
//   INT [: i8|i16|i32|i64|si*|ui*]    i64 (range-checked against the type;
//                                     no type means i64); hex 0x.. allowed
//   FLOAT [: f32|f64|f16|bf16]        f64 (no type means f64); an integer or
//                                     hex bit pattern (0x7FC00000 : f32, how
//                                     MLIR prints NaN and infinities) also
//   "string"                          str (escapes \\ \" \n \t and \XX hex)
//   array<i8..i64|ui*: INT, ...>      array<i64> (each element range-checked)
//   array<f32|f64: FLOAT, ...>        array<f64>; `array<T>` is empty
// The dictionary may be empty (`{}`); names are bare identifiers
// ([A-Za-z_][A-Za-z0-9_.$-]*) or quoted strings and must be unique. Nothing
// else (nested dictionaries, dense<...>, unit attributes) is accepted.
//
// Errors: InvalidArgument "custom-call '<instr>': backend_config offset
// <N>: <what>", naming the attribute once its name is read, e.g.
// "custom-call 'te.37': backend_config offset 14 (attribute 'heads'):
// value 300 does not fit i8".
//
// Thread-safety: a pure function.
#ifndef XLA_BACKENDS_GPU_FFI_FFI_ATTRIBUTE_PARSER_H_
#define XLA_BACKENDS_GPU_FFI_FFI_ATTRIBUTE_PARSER_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/ffi/ffi_registry.h"

namespace xla::gpu {

// Parses `text` (the whole backend_config, braces included; surrounding
// whitespace allowed). `instruction` names the call in errors.
absl::StatusOr<ffi::Attributes> ParseFfiAttributes(absl::string_view text,
                                                   absl::string_view instruction);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_FFI_FFI_ATTRIBUTE_PARSER_H_
