#include "xla/hlo/transforms/elided_constant_filler.h"

#include <array>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/types/random_literal.h"

namespace xla {
namespace {

constexpr std::array<std::pair<ElidedConstantsMode, absl::string_view>, 3> kModeNames = {{
    {ElidedConstantsMode::kError, "error"},
    {ElidedConstantsMode::kZeros, "zeros"},
    {ElidedConstantsMode::kRandom, "random"},
}};

// How many names kError's message lists besides the first.
constexpr size_t kMaxListedNames = 4;

uint64_t Fnv1a(uint64_t h, absl::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t SplitMix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

bool IsElidedConstant(const HloInstruction& instr) {
  return instr.opcode() == HloOpcode::kConstant && instr.has_literal() && instr.literal().elided();
}

absl::Status ElidedError(const std::vector<const HloInstruction*>& elided,
                         const ElidedConstantsOptions& options) {
  const HloInstruction& first = *elided.front();
  // The line the parser recorded (HloInstruction::source_location).
  std::string where = options.source_name;
  if (first.source_location().known()) absl::StrAppend(&where, ":", first.source_location().line);
  std::string message = absl::StrCat(where, ": constant %", first.name(), " (",
                                     first.shape().ToString(false),
                                     ") has an elided value ({...})");
  if (elided.size() > 1) {
    absl::StrAppend(&message, ", and so do ", elided.size() - 1, " more (");
    for (size_t i = 1; i < elided.size() && i <= kMaxListedNames; ++i) {
      absl::StrAppend(&message, i == 1 ? "%" : ", %", elided[i]->name());
    }
    absl::StrAppend(&message, elided.size() - 1 > kMaxListedNames ? ", ...)" : ")");
  }
  absl::StrAppend(&message,
                  "; the values are needed to compile or evaluate the module: pass "
                  "--elided_constants=random (or =zeros) to invent them, knowing that the results "
                  "are then not the real model's");
  return absl::InvalidArgumentError(message);
}

}  // namespace

absl::string_view ElidedConstantsModeName(ElidedConstantsMode mode) {
  for (const auto& [m, name] : kModeNames) {
    if (m == mode) return name;
  }
  return "unknown";
}

std::optional<ElidedConstantsMode> ParseElidedConstantsMode(absl::string_view text) {
  for (const auto& [m, name] : kModeNames) {
    if (name == text) return m;
  }
  return std::nullopt;
}

uint64_t InventedConstantSeed(absl::string_view name, const Shape& shape, uint64_t seed) {
  uint64_t h = 0xcbf29ce484222325ull;
  h = Fnv1a(h, name);
  h = Fnv1a(h, absl::string_view("\0", 1));
  h = Fnv1a(h, shape.ToString(false));
  h = Fnv1a(h, absl::string_view("\0", 1));
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((seed >> (8 * i)) & 0xff);
  h = Fnv1a(h, absl::string_view(bytes, 8));
  return SplitMix64(h);
}

absl::StatusOr<Literal> InventConstant(absl::string_view name, const Shape& shape,
                                       ElidedConstantsMode mode, uint64_t seed) {
  if (mode == ElidedConstantsMode::kRandom) {
    return MakeRandomLiteral(shape, InventedConstantSeed(name, shape, seed));
  }
  if (mode != ElidedConstantsMode::kZeros) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot invent constant %", name, " in mode ", ElidedConstantsModeName(mode)));
  }
  for (int64_t i = 0; shape.IsArray() && i < shape.rank(); ++i) {
    if (shape.is_unbounded_dimension(i)) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot invent values for ", shape.ToString(false), " (unbounded dimension)"));
    }
  }
  if (absl::Status fits = CheckLiteralFitsInMemory(shape, "an invented constant"); !fits.ok()) {
    return fits;
  }
  return Literal(shape);
}

absl::StatusOr<std::vector<std::string>> FillElidedConstants(HloModule* module,
                                                             const ElidedConstantsOptions& options) {
  std::vector<HloInstruction*> elided;
  for (const auto& computation : module->computations()) {
    for (const auto& instr : computation->instructions()) {
      if (IsElidedConstant(*instr)) elided.push_back(instr.get());
    }
  }
  std::vector<std::string> names;
  if (elided.empty()) return names;
  if (options.mode == ElidedConstantsMode::kError) {
    return ElidedError({elided.begin(), elided.end()}, options);
  }
  for (HloInstruction* instr : elided) {
    absl::StatusOr<Literal> value = InventConstant(instr->name(), instr->shape(), options.mode, options.seed);
    if (!value.ok()) {
      return absl::Status(value.status().code(),
                          absl::StrCat(options.source_name, ": constant %", instr->name(), ": ",
                                       value.status().message()));
    }
    instr->set_literal(*std::move(value));
    names.push_back(instr->name());
  }
  return names;
}

}  // namespace xla
