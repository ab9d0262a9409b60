#include "xla/hlo/parser/hlo_parser.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/hlo/parser/attribute_text.h"
#include "xla/hlo/parser/shape_text.h"
#include "xla/hlo/parser/text_cursor.h"
#include "xla/hlo/verifier/shape_inference.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

constexpr absl::string_view kDebugSectionNames[] = {"FileNames", "FunctionNames",
                                                    "FileLocations", "StackFrames"};

struct PendingOperand {
  std::string name;
  size_t pos;
  std::optional<Shape> declared_shape;
};

struct PendingRef {
  AttrId attr;
  std::vector<std::string> names;
  size_t pos;
};

struct PendingInstruction {
  HloInstruction* instr;
  size_t pos;
  bool shape_declared;
  std::vector<PendingOperand> operands;
  std::vector<PendingRef> refs;  // computations, control predecessors
};

struct PendingComputation {
  HloComputation* computation;
  size_t pos;
  std::vector<PendingInstruction> instructions;
  absl::flat_hash_map<std::string, HloInstruction*> by_name;
  // The signature as written; like XLA, the parser does not hold the body to
  // it (producers are known to write stale ones). The printer derives it.
  std::optional<ProgramShape> signature;
};

class Parser {
 public:
  Parser(absl::string_view text, absl::string_view filename)
      : c_(text, filename), filename_(filename) {}

  absl::StatusOr<std::unique_ptr<HloModule>> Run();

 private:
  absl::Status ParseHeader();
  absl::Status ParseModuleAttribute(const std::string& name, size_t pos);
  absl::StatusOr<ProgramShape> ParseProgramShape(bool with_names);
  absl::Status ParseDebugSection(const std::string& name);
  absl::Status ParseComputation();
  absl::Status ParseInstruction(PendingComputation& pc, bool* saw_root);
  // Reads `[shape] opcode(operands)[, attributes]` for an instruction named
  // `name`. `shape`, when given, was already read by the caller. Nested
  // instructions (an operand written as `shape opcode(...)`) take no
  // attributes.
  absl::StatusOr<HloInstruction*> ParseInstructionBody(PendingComputation& pc, std::string name,
                                                       size_t name_pos, std::optional<Shape> shape,
                                                       bool nested, int depth);
  absl::Status ParseOperands(PendingComputation& pc, PendingInstruction& pi, HloOpcode opcode,
                             const Shape* shape, bool shape_declared, int depth);
  absl::Status ParseAttributes(PendingInstruction& pi);

  absl::Status ResolveComputationRefs();
  absl::Status ResolveOperands(PendingComputation& pc);
  absl::Status CheckCallGraph();
  absl::Status CheckInstructionCycles(PendingComputation& pc);
  absl::Status InferShapes(PendingComputation& pc);

  bool AtDebugSection();
  // The instruction's source location for `pos` (saturated to int32).
  HloInstruction::SourceLocation InstructionLocation(size_t pos) const {
    const TextLocation loc = c_.LocationOf(pos);
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    return {static_cast<int32_t>(std::min(loc.line, kMax)),
            static_cast<int32_t>(std::min(loc.column, kMax))};
  }

  TextCursor c_;
  std::string filename_;
  std::unique_ptr<HloModule> module_;
  std::vector<std::unique_ptr<PendingComputation>> computations_;
  absl::flat_hash_map<std::string, PendingComputation*> computation_by_name_;
  PendingComputation* entry_ = nullptr;
  size_t entry_pos_ = 0;
};

bool Parser::AtDebugSection() {
  absl::string_view word = c_.PeekWord();
  if (c_.Peek() == '%') return false;
  for (absl::string_view s : kDebugSectionNames) {
    if (word == s) {
      // A computation with that name would be followed by '{' or '('.
      TextCursor probe = c_;
      probe.Advance(word.size());
      if (!probe.SkipWhitespace().ok()) return false;
      return probe.Peek() != '{' && probe.Peek() != '(';
    }
  }
  return false;
}

absl::StatusOr<std::unique_ptr<HloModule>> Parser::Run() {
  RETURN_IF_ERROR(c_.SkipWhitespace());
  module_ = std::make_unique<HloModule>("module");
  module_->set_source_file(filename_);
  if (c_.PeekWord() == "HloModule" && c_.Peek() != '%') RETURN_IF_ERROR(ParseHeader());
  while (true) {
    RETURN_IF_ERROR(c_.SkipWhitespace());
    if (c_.AtEnd()) break;
    if (AtDebugSection()) {
      ASSIGN_OR_RETURN(std::string name, c_.ParseWord("section name"));
      RETURN_IF_ERROR(ParseDebugSection(name));
      continue;
    }
    RETURN_IF_ERROR(ParseComputation());
  }
  if (computations_.empty()) return c_.Error("the module has no computations");
  if (entry_ == nullptr) entry_ = computations_.back().get();
  module_->set_entry_computation(entry_->computation);

  RETURN_IF_ERROR(ResolveComputationRefs());
  for (auto& pc : computations_) RETURN_IF_ERROR(ResolveOperands(*pc));
  RETURN_IF_ERROR(CheckCallGraph());
  for (auto& pc : computations_) RETURN_IF_ERROR(CheckInstructionCycles(*pc));
  // Callees first, so calls without a declared shape see their callee's root.
  absl::flat_hash_map<const HloComputation*, PendingComputation*> by_ptr;
  for (auto& pc : computations_) by_ptr[pc->computation] = pc.get();
  for (HloComputation* comp : module_->MakeComputationPostOrder()) {
    RETURN_IF_ERROR(InferShapes(*by_ptr[comp]));
  }
  return std::move(module_);
}

absl::Status Parser::ParseHeader() {
  c_.Advance(std::string("HloModule").size());
  ASSIGN_OR_RETURN(std::string name, c_.ParseName("a module name after HloModule"));
  module_->set_name(name);
  c_.TryConsume(':');  // some old producers end the name with ':'
  while (c_.TryConsume(',')) {
    RETURN_IF_ERROR(c_.SkipWhitespace());
    const size_t pos = c_.pos();
    ASSIGN_OR_RETURN(std::string attr, c_.ParseWord("a module attribute name"));
    RETURN_IF_ERROR(c_.Expect('=', absl::StrCat("after module attribute ", attr)));
    RETURN_IF_ERROR(ParseModuleAttribute(attr, pos));
  }
  return absl::OkStatus();
}

absl::StatusOr<ProgramShape> Parser::ParseProgramShape(bool with_names) {
  ProgramShape ps;
  RETURN_IF_ERROR(c_.Expect('(', "to start the parameter list"));
  if (!c_.TryConsume(')')) {
    while (true) {
      if (with_names) {
        ASSIGN_OR_RETURN(std::string pname, c_.ParseName("a parameter name"));
        RETURN_IF_ERROR(c_.Expect(':', "after the parameter name"));
        ps.parameter_names.push_back(pname);
      }
      ASSIGN_OR_RETURN(Shape s, ParseShape(c_));
      ps.parameters.push_back(std::move(s));
      if (c_.TryConsume(')')) break;
      RETURN_IF_ERROR(c_.Expect(',', "between parameters"));
    }
  }
  RETURN_IF_ERROR(c_.Expect("->", "before the result shape"));
  ASSIGN_OR_RETURN(ps.result, ParseShape(c_));
  return ps;
}

absl::Status Parser::ParseModuleAttribute(const std::string& name, size_t pos) {
  HloModuleConfig* config = module_->mutable_config();
  if (name == "entry_computation_layout") {
    RETURN_IF_ERROR(c_.Expect('{', "to start entry_computation_layout"));
    ASSIGN_OR_RETURN(ProgramShape ps, ParseProgramShape(false));
    RETURN_IF_ERROR(c_.Expect('}', "to close entry_computation_layout"));
    config->entry_computation_layout = std::move(ps);
  } else if (name == "input_output_alias") {
    RETURN_IF_ERROR(c_.Expect('{', "to start input_output_alias"));
    config->has_input_output_alias = true;
    while (!c_.TryConsume('}')) {
      if (!config->input_output_alias.empty()) RETURN_IF_ERROR(c_.Expect(',', "between aliases"));
      InputOutputAlias a;
      ASSIGN_OR_RETURN(a.output_index, ParseIntList(c_, "the output index"));
      RETURN_IF_ERROR(c_.Expect(':', "after the output index"));
      RETURN_IF_ERROR(c_.Expect('(', "to start the aliased parameter"));
      ASSIGN_OR_RETURN(a.parameter_number, c_.ParseInt("(parameter number)"));
      RETURN_IF_ERROR(c_.Expect(',', "after the parameter number"));
      ASSIGN_OR_RETURN(a.parameter_index, ParseIntList(c_, "the parameter index"));
      if (c_.TryConsume(',')) {
        ASSIGN_OR_RETURN(a.kind, c_.ParseWord("alias kind"));
        if (a.kind != "may-alias" && a.kind != "must-alias") {
          return c_.Error(absl::StrCat("alias kind must be may-alias or must-alias, not ", a.kind));
        }
      }
      RETURN_IF_ERROR(c_.Expect(')', "to close the aliased parameter"));
      config->input_output_alias.push_back(std::move(a));
    }
  } else if (name == "buffer_donor") {
    RETURN_IF_ERROR(c_.Expect('{', "to start buffer_donor"));
    config->has_buffer_donor = true;
    while (!c_.TryConsume('}')) {
      if (!config->buffer_donor.empty()) RETURN_IF_ERROR(c_.Expect(',', "between donors"));
      BufferDonor d;
      RETURN_IF_ERROR(c_.Expect('(', "to start a buffer donor"));
      ASSIGN_OR_RETURN(d.parameter_number, c_.ParseInt("(parameter number)"));
      RETURN_IF_ERROR(c_.Expect(',', "after the parameter number"));
      ASSIGN_OR_RETURN(d.parameter_index, ParseIntList(c_, "the parameter index"));
      RETURN_IF_ERROR(c_.Expect(')', "to close a buffer donor"));
      config->buffer_donor.push_back(std::move(d));
    }
  } else if (name == "replica_count" || name == "num_partitions") {
    const size_t vpos = c_.pos();
    ASSIGN_OR_RETURN(int64_t v, c_.ParseInt(absl::StrCat("for ", name)));
    if (v <= 0) return c_.ErrorAt(vpos, absl::StrCat(name, " must be positive"));
    (name == "replica_count" ? config->replica_count : config->num_partitions) = v;
  } else if (name == "is_scheduled") {
    absl::string_view w = c_.PeekWord();
    if (w != "true" && w != "false") return c_.Error("is_scheduled must be true or false");
    c_.Advance(w.size());
    config->is_scheduled = w == "true";
  } else {
    for (const auto& [existing, value] : config->other_attributes) {
      if (existing == name) return c_.ErrorAt(pos, absl::StrCat("duplicate module attribute ", name));
    }
    ASSIGN_OR_RETURN(std::string value, ParseRawValue(c_, absl::StrCat("module attribute ", name)));
    config->other_attributes.push_back({name, value});
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseDebugSection(const std::string& name) {
  DebugSection section;
  section.name = name;
  while (true) {
    RETURN_IF_ERROR(c_.SkipWhitespace());
    if (c_.Peek() < '0' || c_.Peek() > '9') break;
    DebugSectionEntry e;
    ASSIGN_OR_RETURN(e.id, c_.ParseInt("(section entry id)"));
    RETURN_IF_ERROR(c_.SkipWhitespace());
    if (c_.Peek() == '"') {
      ASSIGN_OR_RETURN(e.value, c_.ParseStringVerbatim("in a debug section"));
    } else {
      ASSIGN_OR_RETURN(e.value, c_.ParseBalancedVerbatim("a debug section entry"));
    }
    section.entries.push_back(std::move(e));
  }
  module_->mutable_debug_sections()->push_back(std::move(section));
  return absl::OkStatus();
}

absl::Status Parser::ParseComputation() {
  RETURN_IF_ERROR(c_.SkipWhitespace());
  const size_t pos = c_.pos();
  bool is_entry = false;
  if (c_.PeekWord() == "ENTRY" && c_.Peek() != '%') {
    c_.Advance(5);
    is_entry = true;
  }
  RETURN_IF_ERROR(c_.SkipWhitespace());
  const size_t name_pos = c_.pos();
  ASSIGN_OR_RETURN(std::string name, c_.ParseName("a computation name"));
  if (computation_by_name_.contains(name)) {
    return c_.ErrorAt(name_pos, absl::StrCat("computation '", name, "' is defined twice"));
  }
  auto pc = std::make_unique<PendingComputation>();
  pc->pos = name_pos;
  RETURN_IF_ERROR(c_.SkipWhitespace());
  if (c_.Peek() == '(') {
    ASSIGN_OR_RETURN(ProgramShape sig, ParseProgramShape(true));
    pc->signature = std::move(sig);
  }
  RETURN_IF_ERROR(c_.Expect('{', absl::StrCat("to start computation '", name, "'")));
  pc->computation = module_->AddComputation(std::make_unique<HloComputation>(name));
  pc->computation->set_has_printed_signature(pc->signature.has_value());
  bool saw_root = false;
  while (true) {
    RETURN_IF_ERROR(c_.SkipWhitespace());
    if (c_.AtEnd()) {
      return c_.ErrorAt(name_pos, absl::StrCat("computation '", name, "' is missing its closing '}'"));
    }
    if (c_.Peek() == '}') {
      c_.Advance();
      break;
    }
    RETURN_IF_ERROR(ParseInstruction(*pc, &saw_root));
  }
  if (c_.TryConsume(',')) {
    RETURN_IF_ERROR(c_.Expect("execution_thread", "after a computation's closing '}'"));
    RETURN_IF_ERROR(c_.Expect('=', "after execution_thread"));
    ASSIGN_OR_RETURN(std::string thread, c_.ParseString("for execution_thread"));
    pc->computation->set_execution_thread(std::move(thread));
  }
  if (pc->instructions.empty()) {
    return c_.ErrorAt(name_pos, absl::StrCat("computation '", name, "' has no instructions"));
  }
  if (!saw_root) pc->computation->set_root_instruction(pc->instructions.back().instr);
  if (is_entry) {
    if (entry_ != nullptr) {
      return c_.ErrorAt(pos, absl::StrCat("second ENTRY computation '", name, "' (the first is '",
                                          entry_->computation->name(), "')"));
    }
    entry_ = pc.get();
    entry_pos_ = pos;
  }
  computation_by_name_[name] = pc.get();
  computations_.push_back(std::move(pc));
  return absl::OkStatus();
}

absl::Status Parser::ParseInstruction(PendingComputation& pc, bool* saw_root) {
  const size_t start = c_.pos();
  bool is_root = false;
  if (c_.PeekWord() == "ROOT" && c_.Peek() != '%') {
    c_.Advance(4);
    is_root = true;
  }
  RETURN_IF_ERROR(c_.SkipWhitespace());
  const size_t name_pos = c_.pos();
  ASSIGN_OR_RETURN(std::string name, c_.ParseName("an instruction name"));
  RETURN_IF_ERROR(c_.Expect('=', absl::StrCat("after instruction name '", name, "'")));
  ASSIGN_OR_RETURN(HloInstruction * instr,
                   ParseInstructionBody(pc, name, name_pos, std::nullopt, /*nested=*/false, 0));
  if (is_root) {
    if (*saw_root) {
      return c_.ErrorAt(start, absl::StrCat("second ROOT in computation '", pc.computation->name(), "'"));
    }
    *saw_root = true;
    pc.computation->set_root_instruction(instr);
  }
  return absl::OkStatus();
}

absl::StatusOr<HloInstruction*> Parser::ParseInstructionBody(PendingComputation& pc,
                                                             std::string name, size_t name_pos,
                                                             std::optional<Shape> shape,
                                                             bool nested, int depth) {
  if (depth > TextCursor::kMaxDepth) return c_.Error("nested instructions too deep");
  if (pc.by_name.contains(name)) {
    return c_.ErrorAt(name_pos, absl::StrCat("instruction '", name, "' is defined twice in computation '",
                                             pc.computation->name(), "'"));
  }
  const bool shape_declared = shape.has_value() || LooksLikeShape(c_);
  if (!shape.has_value() && shape_declared) {
    ASSIGN_OR_RETURN(shape, ParseShape(c_));
  }
  RETURN_IF_ERROR(c_.SkipWhitespace());
  const size_t op_pos = c_.pos();
  ASSIGN_OR_RETURN(std::string opname, c_.ParseWord("an opcode"));
  if (c_.Peek() == '[') {
    return c_.ErrorAt(op_pos, absl::StrCat("unknown element type '", opname, "'"));
  }
  std::optional<HloOpcode> opcode = HloOpcodeFromName(opname);
  if (!opcode) return c_.ErrorAt(op_pos, absl::StrCat("unknown opcode '", opname, "'"));

  PendingInstruction pi;
  pi.pos = name_pos;
  pi.shape_declared = shape_declared;
  auto owned = std::make_unique<HloInstruction>(*opcode, name, shape.value_or(Shape()));
  owned->set_source_location(InstructionLocation(name_pos));
  pi.instr = owned.get();
  RETURN_IF_ERROR(ParseOperands(pc, pi, *opcode, shape ? &*shape : nullptr, shape_declared, depth));
  if (!nested) RETURN_IF_ERROR(ParseAttributes(pi));

  HloInstruction* instr = pc.computation->AddInstruction(std::move(owned));
  pc.by_name[name] = instr;
  pc.instructions.push_back(std::move(pi));
  return instr;
}

absl::Status Parser::ParseOperands(PendingComputation& pc, PendingInstruction& pi,
                                   HloOpcode opcode, const Shape* shape, bool shape_declared,
                                   int depth) {
  HloInstruction* instr = pi.instr;
  RETURN_IF_ERROR(c_.Expect('(', absl::StrCat("after opcode ", HloOpcodeName(opcode))));
  if (opcode == HloOpcode::kParameter) {
    if (!shape_declared) return c_.ErrorAt(pi.pos, "a parameter needs a shape");
    const size_t pos = c_.pos();
    ASSIGN_OR_RETURN(int64_t number, c_.ParseInt("(parameter number)"));
    if (number < 0) return c_.ErrorAt(pos, "parameter number must not be negative");
    instr->set_parameter_number(number);
    return c_.Expect(')', "after the parameter number");
  }
  if (opcode == HloOpcode::kConstant) {
    if (!shape_declared) return c_.ErrorAt(pi.pos, "a constant needs a shape");
    ASSIGN_OR_RETURN(Literal literal, ParseLiteral(c_, *shape));
    instr->set_literal(std::move(literal));
    return c_.Expect(')', "after the constant value");
  }
  if (!c_.TryConsume(')')) {
    while (true) {
      PendingOperand op;
      if (LooksLikeShape(c_)) {
        ASSIGN_OR_RETURN(Shape declared, ParseShape(c_));
        op.declared_shape = std::move(declared);
      }
      RETURN_IF_ERROR(c_.SkipWhitespace());
      op.pos = c_.pos();
      absl::string_view word = c_.PeekWord();
      const char after = c_.Peek(word.size() + (c_.Peek() == '%' ? 1 : 0));
      if (after == '[') return c_.Error(absl::StrCat("unknown element type '", word, "'"));
      if (op.declared_shape && after == '(' && HloOpcodeFromName(word).has_value()) {
        // An operand written as a nested instruction: `f32[4] parameter(0)`.
        std::string generated;
        for (int k = 0; generated.empty() || pc.by_name.contains(generated); ++k) {
          generated = absl::StrCat(word, ".nested.", pc.instructions.size(), k ? absl::StrCat(".", k) : "");
        }
        ASSIGN_OR_RETURN(HloInstruction * inner,
                         ParseInstructionBody(pc, generated, op.pos, op.declared_shape,
                                              /*nested=*/true, depth + 1));
        op.name = inner->name();
        op.declared_shape.reset();
      } else {
        ASSIGN_OR_RETURN(op.name, c_.ParseName("an operand name"));
      }
      pi.operands.push_back(std::move(op));
      if (c_.TryConsume(')')) break;
      RETURN_IF_ERROR(c_.Expect(',', "between operands"));
    }
  }
  const int arity = HloOpcodeArity(opcode);
  if (arity != kVariadic && static_cast<int>(pi.operands.size()) != arity) {
    return c_.ErrorAt(pi.pos, absl::StrCat(HloOpcodeName(opcode), " '", instr->name(), "' takes ",
                                           arity, " operand", arity == 1 ? "" : "s", " but has ",
                                           pi.operands.size()));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseAttributes(PendingInstruction& pi) {
  const int arity = HloOpcodeArity(pi.instr->opcode());
  if (arity == 0 && !pi.operands.empty()) {
    return c_.ErrorAt(pi.pos, absl::StrCat(HloOpcodeName(pi.instr->opcode()), " takes no operands"));
  }
  absl::flat_hash_set<AttrId> seen;
  while (c_.TryConsume(',')) {
    RETURN_IF_ERROR(c_.SkipWhitespace());
    const size_t pos = c_.pos();
    ASSIGN_OR_RETURN(std::string name, c_.ParseWord("an attribute name"));
    std::optional<AttrId> id = AttrFromName(name);
    if (!id) {
      return c_.ErrorAt(pos, absl::StrCat("unknown attribute '", name, "' on ",
                                          HloOpcodeName(pi.instr->opcode()), " '",
                                          pi.instr->name(), "'"));
    }
    if (!seen.insert(*id).second) {
      return c_.ErrorAt(pos, absl::StrCat("attribute '", name, "' given twice"));
    }
    RETURN_IF_ERROR(c_.Expect('=', absl::StrCat("after attribute name '", name, "'")));
    RETURN_IF_ERROR(c_.SkipWhitespace());
    const size_t value_pos = c_.pos();
    ASSIGN_OR_RETURN(ParsedAttribute parsed, ParseAttributeValue(c_, *id));
    if (!parsed.names.empty() || AttrKindOf(*id) == AttrKind::kComputationList ||
        *id == AttrId::kControlPredecessors) {
      pi.refs.push_back({*id, std::move(parsed.names), value_pos});
    } else {
      pi.instr->SetAttr(*id, std::move(parsed.value));
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::ResolveComputationRefs() {
  for (auto& pc : computations_) {
    for (PendingInstruction& pi : pc->instructions) {
      for (PendingRef& ref : pi.refs) {
        if (ref.attr == AttrId::kControlPredecessors) continue;
        std::vector<HloComputation*> targets;
        for (const std::string& name : ref.names) {
          auto it = computation_by_name_.find(name);
          if (it == computation_by_name_.end()) {
            return c_.ErrorAt(ref.pos, absl::StrCat("unknown computation '", name, "' in ",
                                                    AttrName(ref.attr), " of '", pi.instr->name(), "'"));
          }
          targets.push_back(it->second->computation);
        }
        if (AttrKindOf(ref.attr) == AttrKind::kComputation) {
          pi.instr->SetAttr(ref.attr, targets.front());
        } else {
          pi.instr->SetAttr(ref.attr, std::move(targets));
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::ResolveOperands(PendingComputation& pc) {
  absl::flat_hash_map<int64_t, const PendingInstruction*> params;
  for (PendingInstruction& pi : pc.instructions) {
    for (const PendingOperand& op : pi.operands) {
      auto it = pc.by_name.find(op.name);
      if (it == pc.by_name.end()) {
        return c_.ErrorAt(op.pos, absl::StrCat("operand '", op.name, "' of '", pi.instr->name(),
                                               "' is not defined in computation '",
                                               pc.computation->name(), "'"));
      }
      pi.instr->AppendOperand(it->second);
    }
    for (const PendingRef& ref : pi.refs) {
      if (ref.attr != AttrId::kControlPredecessors) continue;
      for (const std::string& name : ref.names) {
        auto it = pc.by_name.find(name);
        if (it == pc.by_name.end()) {
          return c_.ErrorAt(ref.pos, absl::StrCat("control predecessor '", name, "' of '",
                                                  pi.instr->name(), "' is not defined"));
        }
        pi.instr->AddControlPredecessor(it->second);
      }
    }
    if (pi.instr->opcode() == HloOpcode::kParameter) {
      const int64_t n = pi.instr->parameter_number();
      auto [it, inserted] = params.emplace(n, &pi);
      if (!inserted) {
        return c_.ErrorAt(pi.pos, absl::StrCat("parameter number ", n, " is used twice in '",
                                               pc.computation->name(), "' (also by '",
                                               it->second->instr->name(), "')"));
      }
    }
  }
  for (const auto& [n, pi] : params) {
    if (n >= static_cast<int64_t>(params.size())) {
      return c_.ErrorAt(pi->pos, absl::StrCat("parameter number ", n, " is out of range: '",
                                              pc.computation->name(), "' has ", params.size(),
                                              " parameters, numbered from 0"));
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::CheckCallGraph() {
  // Three-colour DFS over computations; a back edge is recursion.
  absl::flat_hash_map<const HloComputation*, int> colour;
  std::vector<const HloComputation*> path;
  std::function<absl::Status(const HloComputation*)> visit =
      [&](const HloComputation* comp) -> absl::Status {
    colour[comp] = 1;
    path.push_back(comp);
    if (path.size() > 10000) return c_.Error("computation call chain too deep");
    for (const auto& instr : comp->instructions()) {
      for (const HloComputation* callee : instr->called_computations()) {
        int col = colour[callee];
        if (col == 1) {
          std::vector<std::string> names;
          auto start = std::find(path.begin(), path.end(), callee);
          for (auto it = start; it != path.end(); ++it) names.push_back((*it)->name());
          names.push_back(callee->name());
          return c_.ErrorAt(computation_by_name_[callee->name()]->pos,
                            absl::StrCat("computation '", callee->name(),
                                         "' calls itself: ", absl::StrJoin(names, " -> ")));
        }
        if (col == 0) RETURN_IF_ERROR(visit(callee));
      }
    }
    path.pop_back();
    colour[comp] = 2;
    return absl::OkStatus();
  };
  for (auto& pc : computations_) {
    if (colour[pc->computation] == 0) RETURN_IF_ERROR(visit(pc->computation));
  }
  return absl::OkStatus();
}

absl::Status Parser::CheckInstructionCycles(PendingComputation& pc) {
  absl::flat_hash_map<const HloInstruction*, int> colour;
  absl::flat_hash_map<const HloInstruction*, size_t> pos;
  for (const PendingInstruction& pi : pc.instructions) pos[pi.instr] = pi.pos;
  // Iterative DFS to survive long chains.
  for (const PendingInstruction& root : pc.instructions) {
    if (colour[root.instr] != 0) continue;
    std::vector<std::pair<const HloInstruction*, size_t>> stack = {{root.instr, 0}};
    colour[root.instr] = 1;
    while (!stack.empty()) {
      auto& [h, next] = stack.back();
      const size_t n_ops = h->operands().size();
      const size_t total = n_ops + h->control_predecessors().size();
      if (next == total) {
        colour[h] = 2;
        stack.pop_back();
        continue;
      }
      const HloInstruction* input =
          next < n_ops ? h->operand(next) : h->control_predecessors()[next - n_ops];
      ++next;
      int& col = colour[input];
      if (col == 1) {
        std::vector<std::string> names;
        bool on_cycle = false;
        for (const auto& [s, unused] : stack) {
          on_cycle |= s == input;
          if (on_cycle) names.push_back(s->name());
        }
        names.push_back(input->name());
        return c_.ErrorAt(pos[input], absl::StrCat("cycle in computation '", pc.computation->name(),
                                                   "': ", absl::StrJoin(names, " -> ")));
      }
      if (col == 0) {
        col = 1;
        stack.push_back({input, 0});
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::InferShapes(PendingComputation& pc) {
  absl::flat_hash_map<const HloInstruction*, PendingInstruction*> pending;
  for (PendingInstruction& pi : pc.instructions) pending[pi.instr] = &pi;
  for (HloInstruction* instr : pc.computation->MakePostOrder()) {
    PendingInstruction& pi = *pending[instr];
    if (!pi.shape_declared) {
      absl::StatusOr<Shape> inferred = InferShape(*instr, /*shape_declared=*/false);
      if (!inferred.ok()) {
        return c_.ErrorAt(pi.pos, absl::StrCat("cannot infer the shape of '", instr->name(),
                                               "': ", inferred.status().message()));
      }
      *instr->mutable_shape() = *inferred;
    }
    for (size_t i = 0; i < pi.operands.size(); ++i) {
      const PendingOperand& op = pi.operands[i];
      if (!op.declared_shape) continue;
      const Shape& actual = instr->operand(i)->shape();
      if (!ShapesCompatible(*op.declared_shape, actual)) {
        return c_.ErrorAt(op.pos, absl::StrCat("operand '", op.name, "' of '", instr->name(),
                                               "' is written as ", op.declared_shape->ToString(),
                                               " but '", op.name, "' has shape ", actual.ToString()));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(absl::string_view text,
                                                          absl::string_view filename) {
  Parser parser(text, filename);
  return parser.Run();
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open file"));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return ParseHloModule(buffer.str(), path);
}

}  // namespace xla
