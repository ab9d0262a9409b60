// Structure-aware mutation of protobuf messages through reflection, for the
// artifact structure fuzzer and the hostile-artifact test: the edit keeps
// the bytes a valid message, so it reaches the validation and the thunk
// deserializer instead of stopping in the wire-format parser.
//
// Thread-compatible: pure functions of the message and the generator.
#ifndef TESTS_FUZZ_PROTO_MUTATOR_H_
#define TESTS_FUZZ_PROTO_MUTATOR_H_

#include <random>
#include <string>

#include "google/protobuf/message.h"

namespace xla::fuzz {

// Applies one random edit to a field somewhere in `message` (nested messages
// included, down to 64 levels): a scalar set to an interesting value (0,
// +-1, powers of two, INT64_MAX/MIN, off-by-one of the current value, NaN
// and inf for floating point), a bool flipped, an enum set to any number,
// a string/bytes truncated, extended, emptied or with a byte changed, an
// unset singular message created, a repeated element removed, duplicated
// or swapped with another. Returns a short description of the edit
// ("payload.thunks[1].kernel.args[0].size = 9223372036854775807"), or ""
// when the message has no field to edit. Never fails.
std::string MutateMessage(google::protobuf::Message* message, std::mt19937_64& rng);

}  // namespace xla::fuzz

#endif  // TESTS_FUZZ_PROTO_MUTATOR_H_
