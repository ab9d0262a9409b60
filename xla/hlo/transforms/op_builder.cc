#include "xla/hlo/transforms/op_builder.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"

namespace xla {

OpBuilder::OpBuilder(HloComputation* computation) : computation_(computation), names_(*computation) {}

HloInstruction* OpBuilder::Op(HloOpcode opcode, Shape shape, std::vector<HloInstruction*> operands,
                              const std::string& name) {
  return computation_->AddInstruction(
      HloInstruction::Create(opcode, std::move(shape), std::move(operands), names_.Unique(name)));
}

HloInstruction* OpBuilder::Parameter(int64_t number, Shape shape, const std::string& name) {
  return computation_->AddInstruction(
      HloInstruction::CreateParameter(number, std::move(shape), names_.Unique(name)));
}

HloInstruction* OpBuilder::Scalar(PrimitiveType type, double value, const std::string& name) {
  return computation_->AddInstruction(MakeScalarConstant(type, value, names_.Unique(name)));
}

HloInstruction* OpBuilder::Unary(HloOpcode opcode, HloInstruction* a, const std::string& name) {
  return Op(opcode, a->shape(), {a}, name);
}

HloInstruction* OpBuilder::Binary(HloOpcode opcode, HloInstruction* a, HloInstruction* b,
                                  const std::string& name) {
  return Op(opcode, a->shape(), {a, b}, name);
}

HloInstruction* OpBuilder::Compare(HloInstruction* a, HloInstruction* b,
                                   const std::string& direction, const std::string& name) {
  HloInstruction* c =
      Op(HloOpcode::kCompare, Shape::Array(PrimitiveType::PRED, a->shape().dimensions()), {a, b}, name);
  c->SetAttr(AttrId::kDirection, direction);
  return c;
}

HloInstruction* OpBuilder::Select(HloInstruction* pred, HloInstruction* on_true,
                                  HloInstruction* on_false, const std::string& name) {
  return Op(HloOpcode::kSelect, on_true->shape(), {pred, on_true, on_false}, name);
}

HloInstruction* OpBuilder::Convert(HloInstruction* a, PrimitiveType type, const std::string& name) {
  if (a->shape().element_type() == type) return a;
  return Op(HloOpcode::kConvert, Shape::Array(type, a->shape().dimensions()), {a}, name);
}

HloInstruction* OpBuilder::Reshape(HloInstruction* a, std::vector<int64_t> dims,
                                   const std::string& name) {
  return Op(HloOpcode::kReshape, Shape::Array(a->shape().element_type(), dims), {a}, name);
}

HloInstruction* OpBuilder::Transpose(HloInstruction* a, std::vector<int64_t> perm,
                                     const std::string& name) {
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(a->shape().dimensions(p));
  HloInstruction* t =
      Op(HloOpcode::kTranspose, Shape::Array(a->shape().element_type(), dims), {a}, name);
  t->SetAttr(AttrId::kDimensions, std::move(perm));
  return t;
}

HloInstruction* OpBuilder::Broadcast(HloInstruction* a, std::vector<int64_t> dims,
                                     std::vector<int64_t> mapping, const std::string& name) {
  HloInstruction* b =
      Op(HloOpcode::kBroadcast, Shape::Array(a->shape().element_type(), dims), {a}, name);
  b->SetAttr(AttrId::kDimensions, std::move(mapping));
  return b;
}

HloInstruction* OpBuilder::Iota(std::vector<int64_t> dims, int64_t dimension,
                                const std::string& name) {
  HloInstruction* i = Op(HloOpcode::kIota, Shape::Array(PrimitiveType::S32, dims), {}, name);
  i->SetAttr(AttrId::kIotaDimension, dimension);
  return i;
}

HloInstruction* OpBuilder::DynamicSlice(HloInstruction* a, std::vector<HloInstruction*> starts,
                                        std::vector<int64_t> sizes, const std::string& name) {
  std::vector<HloInstruction*> operands = {a};
  operands.insert(operands.end(), starts.begin(), starts.end());
  HloInstruction* s = Op(HloOpcode::kDynamicSlice, Shape::Array(a->shape().element_type(), sizes),
                         std::move(operands), name);
  s->SetAttr(AttrId::kDynamicSliceSizes, std::move(sizes));
  return s;
}

HloInstruction* OpBuilder::DynamicUpdateSlice(HloInstruction* a, HloInstruction* update,
                                              std::vector<HloInstruction*> starts,
                                              const std::string& name) {
  std::vector<HloInstruction*> operands = {a, update};
  operands.insert(operands.end(), starts.begin(), starts.end());
  return Op(HloOpcode::kDynamicUpdateSlice, a->shape(), std::move(operands), name);
}

HloInstruction* OpBuilder::RealPart(HloInstruction* a, const std::string& name) {
  const Shape& s = a->shape();
  if (!IsComplex(s.element_type())) return a;
  return Op(HloOpcode::kReal, Shape::Array(ComplexComponentType(s.element_type()), s.dimensions()),
            {a}, name);
}

HloInstruction* OpBuilder::Conjugate(HloInstruction* a, const std::string& name) {
  const Shape& s = a->shape();
  if (!IsComplex(s.element_type())) return a;
  const Shape part = Shape::Array(ComplexComponentType(s.element_type()), s.dimensions());
  HloInstruction* im = Op(HloOpcode::kImag, part, {a}, name + "_im");
  return Op(HloOpcode::kComplex, s,
            {RealPart(a, name + "_re"), Unary(HloOpcode::kNegate, im, name + "_neg_im")}, name);
}

HloInstruction* OpBuilder::BatchMatVec(HloInstruction* m, HloInstruction* v,
                                       const std::string& name) {
  const Shape& ms = m->shape();
  HloInstruction* d = Op(HloOpcode::kDot,
                         Shape::Array(ms.element_type(), {ms.dimensions(0), ms.dimensions(1)}),
                         {m, v}, name);
  d->SetAttr(AttrId::kLhsBatchDims, std::vector<int64_t>{0});
  d->SetAttr(AttrId::kLhsContractingDims, std::vector<int64_t>{2});
  d->SetAttr(AttrId::kRhsBatchDims, std::vector<int64_t>{0});
  d->SetAttr(AttrId::kRhsContractingDims, std::vector<int64_t>{1});
  return d;
}

HloInstruction* OpBuilder::BatchVecMat(HloInstruction* v, HloInstruction* m,
                                       const std::string& name) {
  const Shape& ms = m->shape();
  HloInstruction* d = Op(HloOpcode::kDot,
                         Shape::Array(ms.element_type(), {ms.dimensions(0), ms.dimensions(2)}),
                         {v, m}, name);
  d->SetAttr(AttrId::kLhsBatchDims, std::vector<int64_t>{0});
  d->SetAttr(AttrId::kLhsContractingDims, std::vector<int64_t>{1});
  d->SetAttr(AttrId::kRhsBatchDims, std::vector<int64_t>{0});
  d->SetAttr(AttrId::kRhsContractingDims, std::vector<int64_t>{1});
  return d;
}

HloInstruction* OpBuilder::Reverse(HloInstruction* a, std::vector<int64_t> dims,
                                   const std::string& name) {
  HloInstruction* r = Op(HloOpcode::kReverse, a->shape(), {a}, name);
  r->SetAttr(AttrId::kDimensions, std::move(dims));
  return r;
}

HloInstruction* OpBuilder::Tuple(std::vector<HloInstruction*> elements, const std::string& name) {
  std::vector<Shape> shapes;
  for (HloInstruction* e : elements) shapes.push_back(e->shape());
  return Op(HloOpcode::kTuple, Shape::Tuple(std::move(shapes)), std::move(elements), name);
}

HloInstruction* OpBuilder::GetTupleElement(HloInstruction* tuple, int64_t index,
                                           const std::string& name) {
  HloInstruction* g =
      Op(HloOpcode::kGetTupleElement, tuple->shape().tuple_shapes(index), {tuple}, name);
  g->SetAttr(AttrId::kIndex, index);
  return g;
}

HloComputation* ScalarReducers::Get(HloOpcode opcode, PrimitiveType type) {
  auto [it, inserted] = cache_.try_emplace({opcode, type}, nullptr);
  if (!inserted) return it->second;
  auto comp = std::make_unique<HloComputation>(module_->UniqueComputationName(
      absl::StrCat(prefix_, "_", HloOpcodeName(opcode), "_",
                   PrimitiveTypeName(type))));
  OpBuilder b(comp.get());
  HloInstruction* x = b.Parameter(0, Shape::Scalar(type), "x");
  HloInstruction* y = b.Parameter(1, Shape::Scalar(type), "y");
  comp->set_root_instruction(b.Binary(opcode, x, y, "r"));
  it->second = module_->AddComputation(std::move(comp));
  return it->second;
}

}  // namespace xla
