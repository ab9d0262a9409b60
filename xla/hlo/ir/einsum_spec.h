// The equation of XLA's `xla_builder.matrix.Einsum` custom call (its
// backend_config, e.g. "ij,jk->ik", "ii,ii->i", "i,ij->ii"): one label
// string per operand, "->", the output's labels. Labels are single
// letters; a label repeated within an operand takes that operand's
// diagonal, a label repeated in the output writes the diagonal (zeros
// elsewhere), and labels missing from the output are summed over.
// Ellipses ("...") are not supported.
//
// Pure functions; thread-safe.
#ifndef XLA_HLO_IR_EINSUM_SPEC_H_
#define XLA_HLO_IR_EINSUM_SPEC_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla {

struct EinsumSpec {
  std::vector<std::string> operands;  // labels per operand, one per dimension
  std::string output;                 // labels per output dimension
  std::map<char, int64_t> sizes;      // every label's size
};

// The name of the einsum custom-call target.
inline constexpr char kEinsumTarget[] = "xla_builder.matrix.Einsum";

// Reads `instr` (an einsum custom call). InvalidArgument naming the
// instruction and the equation when the backend_config is not
// "<labels>[,<labels>]-><labels>" of letters, a label string's length is not
// its operand's rank, a label has two sizes, an output label is in no
// operand, or the output's dimensions differ from the labels' sizes;
// Unimplemented for an ellipsis.
absl::StatusOr<EinsumSpec> ReadEinsumSpec(const HloInstruction& instr);

}  // namespace xla

#endif  // XLA_HLO_IR_EINSUM_SPEC_H_
