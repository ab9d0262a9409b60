// The HLO text printer: the canonical text of a module.
//
// The output reads back with ParseHloModule to an equivalent module, and
// printing that module again gives the same bytes (the fixed point the
// corpus test checks). Names print without `%`, operands untyped, attributes
// in the attribute table's order, verbatim attributes byte for byte.
// Thread-compatible: the module must not change while it is printed.
#ifndef XLA_HLO_PARSER_HLO_PRINTER_H_
#define XLA_HLO_PARSER_HLO_PRINTER_H_

#include <string>

#include "xla/hlo/ir/hlo_module.h"

namespace xla {

std::string PrintModule(const HloModule& module);
std::string PrintComputation(const HloComputation& computation);

}  // namespace xla

#endif  // XLA_HLO_PARSER_HLO_PRINTER_H_
