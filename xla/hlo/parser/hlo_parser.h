// The HLO text parser.
//
// Reads a module as XLA prints it: an optional `HloModule name, attrs...`
// header, debug-info sections, and computations (`ENTRY` marks the entry;
// without it the last computation is the entry; without `ROOT` the last
// instruction is the root). Names may carry a `%` prefix; operands may be
// typed (`add(f32[4] %a, ...)`); instructions may omit their shape, which is
// then inferred; attributes may continue on the next line. Operands may refer
// to instructions defined later in the same computation.
//
// Errors are InvalidArgumentError with `file:line:col: message`. The parser
// never crashes, hangs or reads out of bounds on malformed input: it rejects
// unknown opcodes, attributes and element types, wrong operand counts,
// undefined and duplicate names, operand type mismatches, bad attribute
// values, int64 overflow, instruction cycles and recursive computations.
//
// Thread-safe: each call is independent.
#ifndef XLA_HLO_PARSER_HLO_PARSER_H_
#define XLA_HLO_PARSER_HLO_PARSER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_module.h"

namespace xla {

// Parses `text`. `filename` is only used in error messages.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(absl::string_view text,
                                                          absl::string_view filename = "<text>");

// Reads and parses a file. Errors: unreadable file (NotFound/PermissionDenied
// style messages naming the path) or any parse error.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleFile(const std::string& path);

}  // namespace xla

#endif  // XLA_HLO_PARSER_HLO_PARSER_H_
