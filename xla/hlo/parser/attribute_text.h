// Reading instruction attribute values (`dimensions={1,0}`, `window={...}`,
// ...) from HLO text, driven by the kind column of the attribute table.
// Not thread-safe (operates on the caller's cursor).
#ifndef XLA_HLO_PARSER_ATTRIBUTE_TEXT_H_
#define XLA_HLO_PARSER_ATTRIBUTE_TEXT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_attribute.h"
#include "xla/hlo/parser/text_cursor.h"

namespace xla {

struct ParsedAttribute {
  AttrValue value;
  // For kComputation / kComputationList / instruction-name lists: the names
  // to resolve once the whole module is read (value is left unset).
  std::vector<std::string> names;
};

// Reads the value of attribute `id` (the cursor is just after `name=`).
// Errors name the attribute and what was expected.
absl::StatusOr<ParsedAttribute> ParseAttributeValue(TextCursor& cursor, AttrId id);

// Reads `{1, 2, 3}` (possibly empty).
absl::StatusOr<std::vector<int64_t>> ParseIntList(TextCursor& cursor, absl::string_view what);

// Reads an attribute value that has no dedicated syntax: a balanced group, a
// quoted string, or a bare value up to the next top-level ',' or line end.
absl::StatusOr<std::string> ParseRawValue(TextCursor& cursor, absl::string_view what);

}  // namespace xla

#endif  // XLA_HLO_PARSER_ATTRIBUTE_TEXT_H_
