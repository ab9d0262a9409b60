#include "xla/backends/gpu/codegen/nvptx/flash_attention_emitter.h"

#include <array>
#include <cmath>
#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "xla/util/math_util.h"

namespace xla::gpu {
namespace {

constexpr unsigned kGlobal = 1;
constexpr unsigned kShared = 3;

// An i32 IR value with the arithmetic flash_attention_plan.h's index
// templates use.
struct IrInt {
  llvm::IRBuilder<>* b;
  llvm::Value* v;
  llvm::Value* C(int64_t c) const { return b->getInt32(static_cast<int32_t>(c)); }
};
IrInt operator+(const IrInt& a, int64_t c) { return {a.b, a.b->CreateAdd(a.v, a.C(c))}; }
IrInt operator+(const IrInt& a, const IrInt& c) { return {a.b, a.b->CreateAdd(a.v, c.v)}; }
IrInt operator*(const IrInt& a, int64_t c) { return {a.b, a.b->CreateMul(a.v, a.C(c))}; }
IrInt operator/(const IrInt& a, int64_t c) { return {a.b, a.b->CreateUDiv(a.v, a.C(c))}; }
IrInt operator%(const IrInt& a, int64_t c) { return {a.b, a.b->CreateURem(a.v, a.C(c))}; }
IrInt Min(const IrInt& a, const IrInt& c) {
  return {a.b, a.b->CreateSelect(a.b->CreateICmpSLT(a.v, c.v), a.v, c.v)};
}

// Custom-call positions (te_fused_attention.h).
constexpr int kOpQ = 0, kOpK = 1, kOpV = 2;

// One buffer's role in a kernel's parameter list.
enum Param : int {
  kQ, kK, kV, kQCu, kKvCu, kOut, kStats,             // forward
  kBStats = kQCu, kBOut, kBDOut, kBQCu, kBKvCu, kDq, kDk, kDv  // backward
};

// The accumulators of one warp's 16 x (8 * n) product: acc[n_tile][e].
using Acc = std::vector<std::array<llvm::Value*, 4>>;

class FlashEmitter {
 public:
  FlashEmitter(const FlashAttentionPlan& plan, llvm::Module* module)
      : plan_(plan), c_(plan.config), module_(module), ctx_(module->getContext()), b_(ctx_) {}

  absl::StatusOr<NvptxKernelInfo> Run(const std::string& symbol);

 private:
  // --- setup and small helpers ---
  void CreateKernel(const std::string& symbol);
  IrInt I(int64_t c) { return {&b_, b_.getInt32(static_cast<int32_t>(c))}; }
  IrInt I(llvm::Value* v) { return {&b_, v}; }
  llvm::Value* Sreg(llvm::Intrinsic::ID id) { return b_.CreateIntrinsic(id, {}, {}); }
  llvm::Value* F(double v) { return llvm::ConstantFP::get(b_.getFloatTy(), v); }
  llvm::Value* Call(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args);
  llvm::Value* Ex2(llvm::Value* x) { return Call(llvm::Intrinsic::nvvm_ex2_approx_ftz_f, {x}); }
  llvm::Value* Max(llvm::Value* a, llvm::Value* c) {
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, a, c);
  }
  llvm::Value* ShuffleXor(llvm::Value* v, int mask) {
    return Call(llvm::Intrinsic::nvvm_shfl_sync_bfly_f32,
                {b_.getInt32(-1), v, b_.getInt32(mask), b_.getInt32(31)});
  }
  // Sum (or max) over the 4 lanes of a quad (the lanes sharing g).
  llvm::Value* QuadReduce(llvm::Value* v, bool max) {
    for (int mask : {1, 2}) {
      llvm::Value* other = ShuffleXor(v, mask);
      v = max ? Max(v, other) : b_.CreateFAdd(v, other);
    }
    return v;
  }
  void Barrier() { Call(llvm::Intrinsic::nvvm_barrier0, {}); }
  llvm::Value* SmemPtr(int64_t tile_offset, llvm::Value* elem) {
    llvm::Value* byte = b_.CreateAdd(b_.getInt32(static_cast<int32_t>(tile_offset)),
                                     b_.CreateMul(elem, b_.getInt32(2)));
    return b_.CreateGEP(b_.getInt8Ty(), smem_, b_.CreateZExt(byte, b_.getInt64Ty()));
  }
  llvm::Value* LoadSmem32(const SmemTile& tile, const IrInt& row, const IrInt& col) {
    return b_.CreateAlignedLoad(b_.getInt32Ty(), SmemPtr(tile.offset, tile.Element(row, col).v),
                                llvm::Align(4));
  }
  llvm::Value* F32SmemPtr(int64_t index_offset, llvm::Value* index) {
    llvm::Value* byte = b_.CreateAdd(b_.getInt32(static_cast<int32_t>(plan_.stats_offset)),
                                     b_.CreateMul(b_.CreateAdd(index, b_.getInt32(static_cast<int32_t>(index_offset))),
                                                  b_.getInt32(4)));
    return b_.CreateGEP(b_.getInt8Ty(), smem_, b_.CreateZExt(byte, b_.getInt64Ty()));
  }
  // Element index (i64) of (batch_, seq, head) in `view`.
  llvm::Value* GlobalIndex(const ffi::TeTensorView& view, llvm::Value* seq, llvm::Value* head);
  llvm::Value* GlobalPtr(Param p, llvm::Value* elem_index, int64_t elem_bytes) {
    return b_.CreateGEP(elem_bytes == 2 ? b_.getInt16Ty() : b_.getFloatTy(), args_[p], elem_index);
  }
  // Two f32 values rounded to the input type and packed (lo first).
  llvm::Value* Pack(llvm::Value* lo, llvm::Value* hi);
  // D += A * B for one m16n8k16 tile.
  std::array<llvm::Value*, 4> Mma(const std::array<llvm::Value*, 4>& a, llvm::Value* b0,
                                  llvm::Value* b1, const std::array<llvm::Value*, 4>& acc);
  // The A fragments (one per 16-column slice) of rows [row0, row0 + 16)
  // of `tile`, `cols` columns wide.
  std::vector<std::array<llvm::Value*, 4>> LoadA(const SmemTile& tile, const IrInt& row0,
                                                 int64_t cols);
  // acc += A * tile^T over `a.size()` k slices, for n tiles [0, n_tiles):
  // B(k, n) = tile[n_base + n][k].
  void MmaRowMajorB(const std::vector<std::array<llvm::Value*, 4>>& a, const SmemTile& tile,
                    Acc& acc);
  // The A fragments of a 16 x (8 * acc.size()) product's accumulators,
  // rounded to the input type (P for P*V).
  std::vector<std::array<llvm::Value*, 4>> AccToA(const Acc& acc);
  Acc ZeroAcc(int64_t n_tiles);
  // Copies rows [row0, row0 + rows) of `view` in buffer `p` (rows at or
  // beyond `limit` and columns at or beyond `dim` as zeros) into `tile`
  // (row-major) and/or `transposed` (column-major), either may be null.
  void LoadTile(Param p, const ffi::TeTensorView& view, llvm::Value* row0, llvm::Value* limit,
                llvm::Value* head, int64_t dim, int64_t pad, const SmemTile* tile,
                const SmemTile* transposed);
  // Emits `body` for i in [0, count) as a loop.
  void Loop(llvm::Value* count, const std::string& name,
            const std::function<void(llvm::Value*)>& body);
  // State that lives across loop iterations (promoted to registers by SROA).
  llvm::Value* Var(llvm::Value* init, const std::string& name);
  llvm::Value* Get(llvm::Value* var) { return b_.CreateLoad(b_.getFloatTy(), var); }
  void Set(llvm::Value* var, llvm::Value* v) { b_.CreateStore(v, var); }
  void If(llvm::Value* cond, const std::function<void()>& then);

  // Visible (i1) for query row `i` and key `j` (both i32, absolute).
  llvm::Value* Visible(llvm::Value* i, llvm::Value* j);

  // A 16-bit element (i16) of the input type as f32.
  llvm::Value* ToFloat(llvm::Value* bits);
  // D[row] = dout[row] . O[row] for the `tile.rows` rows of the dout tile
  // (rows at or beyond Sq give 0), into f32 shared memory at
  // stats_offset + 4 * (index_offset + row). 128 / rows threads per row.
  void RowDots(const SmemTile& dout, llvm::Value* row0, llvm::Value* head, int64_t index_offset);
  // Stores accumulator rows (rows at or beyond `limit` skipped, columns
  // below `dim`) times mul[half] into buffer `p` at `view`.
  void StoreRows(const std::vector<std::array<llvm::Value*, 4>>& vars,
                 const std::array<llvm::Value*, 2>& mul, Param p, const ffi::TeTensorView& view,
                 llvm::Value* row0, llvm::Value* head, int64_t limit, int64_t dim);
  std::vector<std::array<llvm::Value*, 4>> AccVars(int64_t n_tiles);
  void AddToVars(const std::vector<std::array<llvm::Value*, 4>>& vars,
                 const std::vector<std::array<llvm::Value*, 4>>& a, const SmemTile& b_tile);
  llvm::Value* LoadF32Smem(llvm::Value* index, int64_t index_offset) {
    return b_.CreateAlignedLoad(b_.getFloatTy(), F32SmemPtr(index_offset, index), llvm::Align(4));
  }

  // The statistic (softmax_aux) of query `row` at stats_row0 + row, times
  // log2(e); 0 for rows at or beyond `limit`.
  llvm::Value* LoadStat2(llvm::Value* stats_row0, llvm::Value* row, llvm::Value* limit);

  void EmitForward();
  void EmitBackwardDq();
  void EmitBackwardDkDv();

  const FlashAttentionPlan& plan_;
  const ffi::TeAttentionConfig& c_;
  llvm::Module* module_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  llvm::Function* kernel_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  llvm::GlobalVariable* smem_ = nullptr;
  std::vector<llvm::Value*> args_;
  // Per CTA.
  llvm::Value* tid_ = nullptr;
  IrInt warp_{nullptr, nullptr}, g_{nullptr, nullptr}, t_{nullptr, nullptr};
  llvm::Value* batch_ = nullptr;
  llvm::Value* q_len_ = nullptr;
  llvm::Value* kv_len_ = nullptr;
};

std::vector<int> ParamBuffers(FlashKernel kernel) {
  if (kernel == FlashKernel::kForward) return {kOpQ, kOpK, kOpV, 5, 6};
  return {kOpQ, kOpK, kOpV, 4, 6, 7, 8, 9};
}

llvm::Value* FlashEmitter::Call(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args) {
  llvm::Function* f = llvm::Intrinsic::getDeclaration(module_, id);
  llvm::FunctionType* type = f->getFunctionType();
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i]->getType() != type->getParamType(i)) {
      args[i] = b_.CreateBitCast(args[i], type->getParamType(i));
    }
  }
  return b_.CreateCall(f, args);
}

void FlashEmitter::CreateKernel(const std::string& symbol) {
  const std::vector<NvptxKernelArg> list = FlashKernelArgs(plan_.kernel);
  llvm::PointerType* ptr = llvm::PointerType::get(ctx_, kGlobal);
  std::vector<llvm::Type*> params(list.size(), ptr);
  kernel_ = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), params, false),
                                   llvm::Function::ExternalLinkage, symbol, module_);
  kernel_->setCallingConv(llvm::CallingConv::PTX_Kernel);
  kernel_->addFnAttr(llvm::Attribute::NoUnwind);
  for (size_t i = 0; i < list.size(); ++i) {
    kernel_->addParamAttr(static_cast<unsigned>(i),
                          llvm::Attribute::getWithAlignment(ctx_, llvm::Align(16)));
    args_.push_back(kernel_->getArg(static_cast<unsigned>(i)));
  }
  llvm::NamedMDNode* annotations = module_->getOrInsertNamedMetadata("nvvm.annotations");
  annotations->addOperand(llvm::MDNode::get(
      ctx_, {llvm::ValueAsMetadata::get(kernel_), llvm::MDString::get(ctx_, "maxntidx"),
             llvm::ValueAsMetadata::get(b_.getInt32(kFlashThreads))}));
  smem_ = new llvm::GlobalVariable(
      *module_, llvm::ArrayType::get(b_.getInt8Ty(), 0), false,
      llvm::GlobalValue::ExternalLinkage, nullptr, "flash_smem", nullptr,
      llvm::GlobalValue::NotThreadLocal, kShared);
  smem_->setAlignment(llvm::Align(16));
  entry_ = llvm::BasicBlock::Create(ctx_, "entry", kernel_);
  b_.SetInsertPoint(entry_);
  tid_ = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  IrInt tid = I(tid_);
  warp_ = tid / 32;
  IrInt lane = tid % 32;
  g_ = lane / 4;
  t_ = lane % 4;
  batch_ = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z);
  // Sequence lengths: cu_seqlens[b + 1] - cu_seqlens[b] with a padding
  // mask, the maximum lengths otherwise.
  q_len_ = b_.getInt32(static_cast<int32_t>(c_.q_seqlen));
  kv_len_ = b_.getInt32(static_cast<int32_t>(c_.kv_seqlen));
  if (!c_.padding) return;
  const bool fwd = plan_.kernel == FlashKernel::kForward;
  for (auto [param, out] : {std::pair{fwd ? kQCu : kBQCu, &q_len_},
                            std::pair{fwd ? kKvCu : kBKvCu, &kv_len_}}) {
    llvm::Value* base = b_.CreateGEP(b_.getInt32Ty(), args_[param], batch_);
    llvm::Value* lo = b_.CreateAlignedLoad(b_.getInt32Ty(), base, llvm::Align(4));
    llvm::Value* hi = b_.CreateAlignedLoad(
        b_.getInt32Ty(), b_.CreateGEP(b_.getInt32Ty(), base, b_.getInt32(1)), llvm::Align(4));
    // Clamped to [0, max] (the host handler reports other values; a
    // kernel cannot, so it stays in bounds).
    llvm::Value* len = b_.CreateSub(hi, lo);
    len = b_.CreateSelect(b_.CreateICmpSLT(len, b_.getInt32(0)), b_.getInt32(0), len);
    llvm::Value* max = *out;
    *out = b_.CreateSelect(b_.CreateICmpSGT(len, max), max, len);
  }
}

llvm::Value* FlashEmitter::GlobalIndex(const ffi::TeTensorView& view, llvm::Value* seq,
                                       llvm::Value* head) {
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Value* index = b_.getInt64(view.offset);
  for (auto [v, stride] : {std::pair{batch_, view.batch_stride}, std::pair{seq, view.seq_stride},
                           std::pair{head, view.head_stride}}) {
    index = b_.CreateAdd(index, b_.CreateMul(b_.CreateZExt(v, i64), b_.getInt64(stride)));
  }
  return index;
}

llvm::Value* FlashEmitter::Pack(llvm::Value* lo, llvm::Value* hi) {
  const bool bf16 = plan_.type == PrimitiveType::BF16;
  llvm::Value* packed =
      Call(bf16 ? llvm::Intrinsic::nvvm_ff2bf16x2_rn : llvm::Intrinsic::nvvm_ff2f16x2_rn, {hi, lo});
  return b_.CreateBitCast(packed, b_.getInt32Ty());
}

std::array<llvm::Value*, 4> FlashEmitter::Mma(const std::array<llvm::Value*, 4>& a,
                                              llvm::Value* b0, llvm::Value* b1,
                                              const std::array<llvm::Value*, 4>& acc) {
  const llvm::Intrinsic::ID id = plan_.type == PrimitiveType::BF16
                                     ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16
                                     : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32;
  llvm::Value* d = Call(id, {a[0], a[1], a[2], a[3], b0, b1, acc[0], acc[1], acc[2], acc[3]});
  std::array<llvm::Value*, 4> out;
  for (unsigned e = 0; e < 4; ++e) out[e] = b_.CreateExtractValue(d, {e});
  return out;
}

std::vector<std::array<llvm::Value*, 4>> FlashEmitter::LoadA(const SmemTile& tile,
                                                             const IrInt& row0, int64_t cols) {
  std::vector<std::array<llvm::Value*, 4>> a(cols / kMmaK);
  for (int64_t ks = 0; ks < cols / kMmaK; ++ks) {
    for (int r = 0; r < 4; ++r) {
      a[ks][r] = LoadSmem32(tile, row0 + MmaARow(g_, r), MmaACol(t_, r) + ks * kMmaK);
    }
  }
  return a;
}

void FlashEmitter::MmaRowMajorB(const std::vector<std::array<llvm::Value*, 4>>& a,
                                const SmemTile& tile, Acc& acc) {
  for (size_t nt = 0; nt < acc.size(); ++nt) {
    for (size_t ks = 0; ks < a.size(); ++ks) {
      const IrInt n = MmaBN(g_) + static_cast<int64_t>(nt) * kMmaN;
      const int64_t k0 = static_cast<int64_t>(ks) * kMmaK;
      llvm::Value* b0 = LoadSmem32(tile, n, MmaBK(t_, 0) + k0);
      llvm::Value* b1 = LoadSmem32(tile, n, MmaBK(t_, 1) + k0);
      acc[nt] = Mma(a[ks], b0, b1, acc[nt]);
    }
  }
}

std::vector<std::array<llvm::Value*, 4>> FlashEmitter::AccToA(const Acc& acc) {
  std::vector<std::array<llvm::Value*, 4>> a(acc.size() / 2);
  for (size_t ks = 0; ks < a.size(); ++ks) {
    for (int r = 0; r < 4; ++r) {
      const auto& tile = acc[2 * ks + MmaCTileOfA(r)];
      const int e = MmaCElemOfA(r);
      a[ks][r] = Pack(tile[e], tile[e + 1]);
    }
  }
  return a;
}

Acc FlashEmitter::ZeroAcc(int64_t n_tiles) {
  Acc acc(n_tiles);
  for (auto& tile : acc) tile.fill(F(0.0));
  return acc;
}

void FlashEmitter::If(llvm::Value* cond, const std::function<void()>& then) {
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "then", kernel_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "endif", kernel_);
  b_.CreateCondBr(cond, body, done);
  b_.SetInsertPoint(body);
  then();
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

void FlashEmitter::LoadTile(Param p, const ffi::TeTensorView& view, llvm::Value* row0,
                            llvm::Value* limit, llvm::Value* head, int64_t dim, int64_t pad,
                            const SmemTile* tile, const SmemTile* transposed) {
  const int64_t rows = tile != nullptr ? tile->rows : transposed->stride - kSmemRowPad;
  const int64_t chunks_per_row = pad / kChunkElems;
  const int64_t total = rows * chunks_per_row;
  llvm::Type* chunk_type = llvm::FixedVectorType::get(b_.getInt32Ty(), 4);
  for (int64_t base = 0; base < total; base += kFlashThreads) {
    IrInt idx = I(tid_) + base;
    auto body = [&] {
      IrInt row = idx / chunks_per_row;
      IrInt col = (idx % chunks_per_row) * kChunkElems;
      llvm::Value* seq = b_.CreateAdd(row0, row.v);
      llvm::Value* valid = b_.CreateAnd(b_.CreateICmpSLT(seq, limit),
                                        b_.CreateICmpULT(col.v, b_.getInt32(static_cast<int32_t>(dim))));
      // Loads from a clamped address when invalid, then selects zeros: no
      // branch around the load.
      llvm::Value* safe_seq = b_.CreateSelect(valid, seq, b_.getInt32(0));
      llvm::Value* safe_col = b_.CreateSelect(valid, col.v, b_.getInt32(0));
      llvm::Value* index = b_.CreateAdd(GlobalIndex(view, safe_seq, head),
                                        b_.CreateZExt(safe_col, b_.getInt64Ty()));
      llvm::Value* loaded =
          b_.CreateAlignedLoad(chunk_type, GlobalPtr(p, index, 2), llvm::Align(16));
      llvm::Value* chunk = b_.CreateSelect(valid, loaded, llvm::Constant::getNullValue(chunk_type));
      if (tile != nullptr) {
        b_.CreateAlignedStore(chunk, SmemPtr(tile->offset, tile->Element(row, col).v),
                              llvm::Align(16));
      }
      if (transposed != nullptr) {
        llvm::Value* halves =
            b_.CreateBitCast(chunk, llvm::FixedVectorType::get(b_.getInt16Ty(), kChunkElems));
        for (int64_t e = 0; e < kChunkElems; ++e) {
          b_.CreateAlignedStore(b_.CreateExtractElement(halves, e),
                                SmemPtr(transposed->offset, transposed->Element(col + e, row).v),
                                llvm::Align(2));
        }
      }
    };
    if (base + kFlashThreads <= total) {
      body();
    } else {
      If(b_.CreateICmpULT(idx.v, b_.getInt32(static_cast<int32_t>(total))), body);
    }
  }
}

void FlashEmitter::Loop(llvm::Value* count, const std::string& name,
                        const std::function<void(llvm::Value*)>& body) {
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, name + ".header", kernel_);
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, name + ".body", kernel_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, name + ".exit", kernel_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* i = b_.CreatePHI(b_.getInt32Ty(), 2, name);
  i->addIncoming(b_.getInt32(0), pre);
  b_.CreateCondBr(b_.CreateICmpSLT(i, count), loop, exit);
  b_.SetInsertPoint(loop);
  body(i);
  i->addIncoming(b_.CreateAdd(i, b_.getInt32(1)), b_.GetInsertBlock());
  b_.CreateBr(header);
  b_.SetInsertPoint(exit);
}

llvm::Value* FlashEmitter::Var(llvm::Value* init, const std::string& name) {
  llvm::IRBuilder<> at_entry(entry_, entry_->begin());
  llvm::AllocaInst* var = at_entry.CreateAlloca(init->getType(), nullptr, name);
  b_.CreateStore(init, var);
  return var;
}

llvm::Value* FlashEmitter::Visible(llvm::Value* i, llvm::Value* j) {
  llvm::Value* visible = b_.CreateAnd(b_.CreateICmpSLT(j, kv_len_), b_.CreateICmpSLT(i, q_len_));
  if (c_.causal) visible = b_.CreateAnd(visible, b_.CreateICmpSLE(j, i));
  return visible;
}

void FlashEmitter::EmitForward() {
  const int64_t R = plan_.block_rows, C = plan_.block_cols;
  llvm::Value* head = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y);
  llvm::Value* kv_head = b_.CreateUDiv(head, b_.getInt32(static_cast<int32_t>(c_.heads / c_.kv_heads)));
  llvm::Value* q_start =
      b_.CreateMul(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), b_.getInt32(R));
  LoadTile(kQ, c_.q, q_start, b_.getInt32(static_cast<int32_t>(c_.q_seqlen)), head, c_.qk_head_dim,
           plan_.qk_pad, &plan_.q, nullptr);
  Barrier();
  const IrInt warp_row = warp_ * kMmaM;
  const std::vector<std::array<llvm::Value*, 4>> qa = LoadA(plan_.q, warp_row, plan_.qk_pad);
  // Running state, base-2 domain: x = scale * log2(e) * q.k.
  const double scale2 = c_.scale * M_LOG2E;
  const float neg_inf = -INFINITY;
  std::array<llvm::Value*, 2> m_var, l_var;
  for (int half = 0; half < 2; ++half) {
    m_var[half] = Var(F(neg_inf), "m");
    l_var[half] = Var(F(0.0), "l");
  }
  const std::vector<std::array<llvm::Value*, 4>> o_var = AccVars(plan_.v_pad / kMmaN);
  IrInt tiles = FlashKvTileCount(I(q_start), I(kv_len_), c_.causal, R, C, Min);
  // A tile of padding rows only sees no key.
  llvm::Value* count = b_.CreateSelect(b_.CreateICmpSLT(q_start, q_len_), tiles.v, b_.getInt32(0));
  Loop(count, "kv", [&](llvm::Value* kt) {
    llvm::Value* kv_start = b_.CreateMul(kt, b_.getInt32(C));
    Barrier();  // the previous tile's readers are done
    LoadTile(kK, c_.k, kv_start, kv_len_, kv_head, c_.qk_head_dim, plan_.qk_pad, &plan_.k,
             nullptr);
    LoadTile(kV, c_.v, kv_start, kv_len_, kv_head, c_.v_head_dim, plan_.v_pad, nullptr, &plan_.vt);
    Barrier();
    Acc s = ZeroAcc(C / kMmaN);
    MmaRowMajorB(qa, plan_.k, s);
    // Scale and mask.
    for (int64_t nt = 0; nt < C / kMmaN; ++nt) {
      for (int e = 0; e < 4; ++e) {
        llvm::Value* i = b_.CreateAdd(q_start, (warp_row + MmaCRow(g_, e)).v);
        llvm::Value* j = b_.CreateAdd(kv_start, (MmaCCol(t_, e) + nt * kMmaN).v);
        llvm::Value* x = b_.CreateFMul(s[nt][e], F(scale2));
        s[nt][e] = b_.CreateSelect(Visible(i, j), x, F(neg_inf));
      }
    }
    // Online softmax per row half (rows g and g + 8).
    for (int half = 0; half < 2; ++half) {
      llvm::Value* row_max = F(neg_inf);
      for (auto& tile : s) {
        for (int e = 2 * half; e < 2 * half + 2; ++e) row_max = Max(row_max, tile[e]);
      }
      llvm::Value* m_old = Get(m_var[half]);
      llvm::Value* m_new = Max(m_old, QuadReduce(row_max, true));
      llvm::Value* base =
          b_.CreateSelect(b_.CreateFCmpOEQ(m_new, F(neg_inf)), F(0.0), m_new);
      llvm::Value* alpha = Ex2(b_.CreateFSub(m_old, base));
      llvm::Value* sum = F(0.0);
      for (auto& tile : s) {
        for (int e = 2 * half; e < 2 * half + 2; ++e) {
          tile[e] = Ex2(b_.CreateFSub(tile[e], base));
          sum = b_.CreateFAdd(sum, tile[e]);
        }
      }
      Set(l_var[half], b_.CreateFAdd(b_.CreateFMul(Get(l_var[half]), alpha), sum));
      Set(m_var[half], m_new);
      for (auto& tile : o_var) {
        for (int e = 2 * half; e < 2 * half + 2; ++e) {
          Set(tile[e], b_.CreateFMul(Get(tile[e]), alpha));
        }
      }
    }
    // O += P * V, B(k, n) = V[k][n] = vt[n][k].
    AddToVars(o_var, AccToA(s), plan_.vt);
  });
  // O / l and the statistics (natural log): rows with no visible key get 0.
  llvm::Value* head_row0 = b_.CreateMul(
      b_.CreateAdd(b_.CreateMul(batch_, b_.getInt32(static_cast<int32_t>(c_.heads))), head),
      b_.getInt32(static_cast<int32_t>(c_.q_seqlen)));
  std::array<llvm::Value*, 2> inv;
  for (int half = 0; half < 2; ++half) {
    llvm::Value* l = QuadReduce(Get(l_var[half]), false);
    llvm::Value* seen = b_.CreateFCmpOGT(l, F(0.0));
    inv[half] = b_.CreateSelect(seen, b_.CreateFDiv(F(1.0), l), F(0.0));
    llvm::Value* row = b_.CreateAdd(q_start, (warp_row + MmaCRow(g_, 2 * half)).v);
    llvm::Value* in_range = b_.CreateICmpSLT(row, b_.getInt32(static_cast<int32_t>(c_.q_seqlen)));
    If(b_.CreateAnd(in_range, b_.CreateICmpEQ(t_.v, b_.getInt32(0))), [&] {
      llvm::Value* lse = b_.CreateFMul(
          b_.CreateFAdd(Get(m_var[half]), Call(llvm::Intrinsic::nvvm_lg2_approx_f, {l})),
          F(M_LN2));
      llvm::Value* index = b_.CreateZExt(b_.CreateAdd(head_row0, row), b_.getInt64Ty());
      b_.CreateAlignedStore(b_.CreateSelect(seen, lse, F(0.0)), GlobalPtr(kStats, index, 4),
                            llvm::Align(4));
    });
  }
  StoreRows(o_var, inv, kOut, c_.o, q_start, head, c_.q_seqlen, c_.v_head_dim);
}

llvm::Value* FlashEmitter::ToFloat(llvm::Value* bits) {
  if (plan_.type == PrimitiveType::BF16) {
    return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(bits, b_.getInt32Ty()), 16),
                            b_.getFloatTy());
  }
  return b_.CreateFPExt(b_.CreateBitCast(bits, b_.getHalfTy()), b_.getFloatTy());
}

void FlashEmitter::RowDots(const SmemTile& dout, llvm::Value* row0, llvm::Value* head,
                           int64_t index_offset) {
  const int64_t per_row = kFlashThreads / dout.rows;
  const int64_t chunks = c_.v_head_dim / kChunkElems;
  IrInt tid = I(tid_);
  IrInt row = tid / per_row, sub = tid % per_row;
  llvm::Value* seq = b_.CreateAdd(row0, row.v);
  llvm::Value* row_ok = b_.CreateICmpSLT(seq, b_.getInt32(static_cast<int32_t>(c_.q_seqlen)));
  llvm::Value* safe_seq = b_.CreateSelect(row_ok, seq, b_.getInt32(0));
  llvm::Type* halves = llvm::FixedVectorType::get(b_.getInt16Ty(), kChunkElems);
  llvm::Value* sum = F(0.0);
  for (int64_t u = 0; u * per_row < chunks; ++u) {
    IrInt chunk = sub + u * per_row;
    llvm::Value* ok = b_.CreateAnd(row_ok, b_.CreateICmpULT(chunk.v, b_.getInt32(chunks)));
    IrInt col = (Min(chunk, I(chunks - 1))) * kChunkElems;
    llvm::Value* index = b_.CreateAdd(GlobalIndex(c_.o, safe_seq, head),
                                      b_.CreateZExt(col.v, b_.getInt64Ty()));
    llvm::Value* o = b_.CreateAlignedLoad(halves, GlobalPtr(kBOut, index, 2), llvm::Align(16));
    llvm::Value* d = b_.CreateAlignedLoad(halves, SmemPtr(dout.offset, dout.Element(row, col).v),
                                          llvm::Align(16));
    llvm::Value* part = F(0.0);
    for (int64_t e = 0; e < kChunkElems; ++e) {
      part = b_.CreateFAdd(part, b_.CreateFMul(ToFloat(b_.CreateExtractElement(o, e)),
                                               ToFloat(b_.CreateExtractElement(d, e))));
    }
    sum = b_.CreateFAdd(sum, b_.CreateSelect(ok, part, F(0.0)));
  }
  for (int64_t mask = 1; mask < per_row; mask *= 2) {
    sum = b_.CreateFAdd(sum, ShuffleXor(sum, static_cast<int>(mask)));
  }
  If(b_.CreateICmpEQ(sub.v, b_.getInt32(0)), [&] {
    b_.CreateAlignedStore(sum, F32SmemPtr(index_offset, row.v), llvm::Align(4));
  });
}

void FlashEmitter::StoreRows(const std::vector<std::array<llvm::Value*, 4>>& vars,
                             const std::array<llvm::Value*, 2>& mul, Param p,
                             const ffi::TeTensorView& view, llvm::Value* row0, llvm::Value* head,
                             int64_t limit, int64_t dim) {
  for (int half = 0; half < 2; ++half) {
    llvm::Value* row = b_.CreateAdd(row0, (warp_ * kMmaM + MmaCRow(g_, 2 * half)).v);
    If(b_.CreateICmpSLT(row, b_.getInt32(static_cast<int32_t>(limit))), [&] {
      llvm::Value* base = GlobalIndex(view, row, head);
      for (int64_t nt = 0; nt * kMmaN < dim; ++nt) {
        const int e = 2 * half;
        llvm::Value* lo = b_.CreateFMul(Get(vars[nt][e]), mul[half]);
        llvm::Value* hi = b_.CreateFMul(Get(vars[nt][e + 1]), mul[half]);
        llvm::Value* col = b_.CreateZExt((MmaCCol(t_, e) + nt * kMmaN).v, b_.getInt64Ty());
        b_.CreateAlignedStore(Pack(lo, hi), GlobalPtr(p, b_.CreateAdd(base, col), 2),
                              llvm::Align(4));
      }
    });
  }
}

std::vector<std::array<llvm::Value*, 4>> FlashEmitter::AccVars(int64_t n_tiles) {
  std::vector<std::array<llvm::Value*, 4>> vars(n_tiles);
  for (auto& tile : vars) {
    for (auto& e : tile) e = Var(F(0.0), "acc");
  }
  return vars;
}

// vars += a * B with B(k, n) = b_tile[n][k] (a transposed tile).
void FlashEmitter::AddToVars(const std::vector<std::array<llvm::Value*, 4>>& vars,
                             const std::vector<std::array<llvm::Value*, 4>>& a,
                             const SmemTile& b_tile) {
  Acc acc(vars.size());
  for (size_t nt = 0; nt < vars.size(); ++nt) {
    for (int e = 0; e < 4; ++e) acc[nt][e] = Get(vars[nt][e]);
  }
  MmaRowMajorB(a, b_tile, acc);
  for (size_t nt = 0; nt < vars.size(); ++nt) {
    for (int e = 0; e < 4; ++e) Set(vars[nt][e], acc[nt][e]);
  }
}

llvm::Value* FlashEmitter::LoadStat2(llvm::Value* stats_row0, llvm::Value* row,
                                     llvm::Value* limit) {
  llvm::Value* ok = b_.CreateICmpSLT(row, limit);
  llvm::Value* index = b_.CreateZExt(
      b_.CreateAdd(stats_row0, b_.CreateSelect(ok, row, b_.getInt32(0))), b_.getInt64Ty());
  llvm::Value* l =
      b_.CreateAlignedLoad(b_.getFloatTy(), GlobalPtr(kBStats, index, 4), llvm::Align(4));
  return b_.CreateFMul(b_.CreateSelect(ok, l, F(0.0)), F(M_LOG2E));
}

void FlashEmitter::EmitBackwardDq() {
  const int64_t R = plan_.block_rows, C = plan_.block_cols;
  llvm::Value* head = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y);
  llvm::Value* kv_head =
      b_.CreateUDiv(head, b_.getInt32(static_cast<int32_t>(c_.heads / c_.kv_heads)));
  llvm::Value* q_start =
      b_.CreateMul(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), b_.getInt32(R));
  llvm::Value* sq = b_.getInt32(static_cast<int32_t>(c_.q_seqlen));
  LoadTile(kQ, c_.q, q_start, sq, head, c_.qk_head_dim, plan_.qk_pad, &plan_.q, nullptr);
  LoadTile(kBDOut, c_.o, q_start, sq, head, c_.v_head_dim, plan_.v_pad, &plan_.dout, nullptr);
  Barrier();
  RowDots(plan_.dout, q_start, head, 0);
  Barrier();
  const IrInt warp_row = warp_ * kMmaM;
  const std::vector<std::array<llvm::Value*, 4>> qa = LoadA(plan_.q, warp_row, plan_.qk_pad);
  const std::vector<std::array<llvm::Value*, 4>> da = LoadA(plan_.dout, warp_row, plan_.v_pad);
  const double scale2 = c_.scale * M_LOG2E;
  std::array<llvm::Value*, 2> d_row, l_row;
  llvm::Value* stats_row0 = b_.CreateMul(
      b_.CreateAdd(b_.CreateMul(batch_, b_.getInt32(static_cast<int32_t>(c_.heads))), head), sq);
  for (int half = 0; half < 2; ++half) {
    IrInt local = warp_row + MmaCRow(g_, 2 * half);
    d_row[half] = LoadF32Smem(local.v, 0);
    l_row[half] = LoadStat2(stats_row0, b_.CreateAdd(q_start, local.v), sq);
  }
  const std::vector<std::array<llvm::Value*, 4>> dq = AccVars(plan_.qk_pad / kMmaN);
  IrInt tiles = FlashKvTileCount(I(q_start), I(kv_len_), c_.causal, R, C, Min);
  llvm::Value* count = b_.CreateSelect(b_.CreateICmpSLT(q_start, q_len_), tiles.v, b_.getInt32(0));
  Loop(count, "kv", [&](llvm::Value* kt) {
    llvm::Value* kv_start = b_.CreateMul(kt, b_.getInt32(C));
    Barrier();
    LoadTile(kK, c_.k, kv_start, kv_len_, kv_head, c_.qk_head_dim, plan_.qk_pad, &plan_.k,
             &plan_.kt);
    LoadTile(kV, c_.v, kv_start, kv_len_, kv_head, c_.v_head_dim, plan_.v_pad, &plan_.v, nullptr);
    Barrier();
    Acc s = ZeroAcc(C / kMmaN), dp = ZeroAcc(C / kMmaN);
    MmaRowMajorB(qa, plan_.k, s);
    MmaRowMajorB(da, plan_.v, dp);
    for (int64_t nt = 0; nt < C / kMmaN; ++nt) {
      for (int e = 0; e < 4; ++e) {
        llvm::Value* i = b_.CreateAdd(q_start, (warp_row + MmaCRow(g_, e)).v);
        llvm::Value* j = b_.CreateAdd(kv_start, (MmaCCol(t_, e) + nt * kMmaN).v);
        llvm::Value* p =
            Ex2(b_.CreateFSub(b_.CreateFMul(s[nt][e], F(scale2)), l_row[e >> 1]));
        p = b_.CreateSelect(Visible(i, j), p, F(0.0));
        s[nt][e] = b_.CreateFMul(p, b_.CreateFSub(dp[nt][e], d_row[e >> 1]));
      }
    }
    AddToVars(dq, AccToA(s), plan_.kt);
  });
  llvm::Value* scale = F(c_.scale);
  StoreRows(dq, {scale, scale}, static_cast<Param>(kDq + c_.q.operand), c_.q, q_start, head,
            c_.q_seqlen, c_.qk_head_dim);
}

void FlashEmitter::EmitBackwardDkDv() {
  const int64_t R = plan_.block_rows, C = plan_.block_cols;
  const int64_t ratio = c_.heads / c_.kv_heads;
  llvm::Value* kv_head = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y);
  llvm::Value* k_start =
      b_.CreateMul(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), b_.getInt32(R));
  LoadTile(kK, c_.k, k_start, kv_len_, kv_head, c_.qk_head_dim, plan_.qk_pad, &plan_.k, nullptr);
  LoadTile(kV, c_.v, k_start, kv_len_, kv_head, c_.v_head_dim, plan_.v_pad, &plan_.v, nullptr);
  Barrier();
  const IrInt warp_row = warp_ * kMmaM;
  const std::vector<std::array<llvm::Value*, 4>> ka = LoadA(plan_.k, warp_row, plan_.qk_pad);
  const std::vector<std::array<llvm::Value*, 4>> va = LoadA(plan_.v, warp_row, plan_.v_pad);
  const double scale2 = c_.scale * M_LOG2E;
  const std::vector<std::array<llvm::Value*, 4>> dk = AccVars(plan_.qk_pad / kMmaN);
  const std::vector<std::array<llvm::Value*, 4>> dv = AccVars(plan_.v_pad / kMmaN);
  // Query tiles: from the one holding query k_start (causal) or 0, to the
  // last with a query below q_len; none when the key tile is all padding.
  IrInt first = c_.causal ? I(k_start) / C : I(int64_t{0});
  llvm::Value* end = ((I(q_len_) + (C - 1)) / C).v;
  llvm::Value* q_tiles = b_.CreateSub(end, first.v);
  q_tiles = b_.CreateSelect(b_.CreateICmpSGT(q_tiles, b_.getInt32(0)), q_tiles, b_.getInt32(0));
  q_tiles = b_.CreateSelect(b_.CreateICmpSLT(k_start, kv_len_), q_tiles, b_.getInt32(0));
  llvm::Value* sq = b_.getInt32(static_cast<int32_t>(c_.q_seqlen));
  Loop(b_.getInt32(static_cast<int32_t>(ratio)), "head", [&](llvm::Value* hh) {
    llvm::Value* head =
        b_.CreateAdd(b_.CreateMul(kv_head, b_.getInt32(static_cast<int32_t>(ratio))), hh);
    llvm::Value* stats_row0 = b_.CreateMul(
        b_.CreateAdd(b_.CreateMul(batch_, b_.getInt32(static_cast<int32_t>(c_.heads))), head),
        sq);
    Loop(q_tiles, "q", [&](llvm::Value* it) {
      llvm::Value* q_start = b_.CreateMul(b_.CreateAdd(first.v, it), b_.getInt32(C));
      Barrier();
      LoadTile(kQ, c_.q, q_start, q_len_, head, c_.qk_head_dim, plan_.qk_pad, &plan_.q,
               &plan_.qt);
      LoadTile(kBDOut, c_.o, q_start, q_len_, head, c_.v_head_dim, plan_.v_pad, &plan_.dout,
               &plan_.doutt);
      // The tile's statistics (base 2), then D.
      If(b_.CreateICmpULT(tid_, b_.getInt32(static_cast<int32_t>(C))), [&] {
        b_.CreateAlignedStore(LoadStat2(stats_row0, b_.CreateAdd(q_start, tid_), q_len_),
                              F32SmemPtr(0, tid_), llvm::Align(4));
      });
      Barrier();
      RowDots(plan_.dout, q_start, head, C);
      Barrier();
      Acc st = ZeroAcc(C / kMmaN), dpt = ZeroAcc(C / kMmaN);
      MmaRowMajorB(ka, plan_.q, st);
      MmaRowMajorB(va, plan_.dout, dpt);
      Acc pt = st;
      for (int64_t nt = 0; nt < C / kMmaN; ++nt) {
        for (int e = 0; e < 4; ++e) {
          llvm::Value* j = b_.CreateAdd(k_start, (warp_row + MmaCRow(g_, e)).v);
          IrInt col = MmaCCol(t_, e) + nt * kMmaN;
          llvm::Value* i = b_.CreateAdd(q_start, col.v);
          llvm::Value* p = Ex2(b_.CreateFSub(b_.CreateFMul(st[nt][e], F(scale2)),
                                             LoadF32Smem(col.v, 0)));
          p = b_.CreateSelect(Visible(i, j), p, F(0.0));
          pt[nt][e] = p;
          st[nt][e] = b_.CreateFMul(p, b_.CreateFSub(dpt[nt][e], LoadF32Smem(col.v, C)));
        }
      }
      AddToVars(dv, AccToA(pt), plan_.doutt);
      AddToVars(dk, AccToA(st), plan_.qt);
    });
  });
  llvm::Value* scale = F(c_.scale);
  llvm::Value* one = F(1.0);
  StoreRows(dk, {scale, scale}, static_cast<Param>(kDq + c_.k.operand), c_.k, k_start, kv_head,
            c_.kv_seqlen, c_.qk_head_dim);
  StoreRows(dv, {one, one}, static_cast<Param>(kDq + c_.v.operand), c_.v, k_start, kv_head,
            c_.kv_seqlen, c_.v_head_dim);
}

absl::StatusOr<NvptxKernelInfo> FlashEmitter::Run(const std::string& symbol) {
  if (module_->getFunction(symbol) != nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("kernel symbol '", symbol, "' already exists"));
  }
  NvptxKernelInfo info;
  info.symbol = symbol;
  info.kind = absl::StrCat("flash_attention_", FlashKernelName(plan_.kernel));
  info.args = FlashKernelArgs(plan_.kernel);
  info.launch.block_x = kFlashThreads;
  info.launch.shared_memory_bytes = plan_.smem_bytes;
  const bool empty = plan_.grid_x == 0 || plan_.grid_y == 0 || plan_.grid_z == 0;
  info.launch.grid_x = empty ? 0 : plan_.grid_x;
  info.launch.grid_y = plan_.grid_y;
  info.launch.grid_z = plan_.grid_z;
  CreateKernel(symbol);
  switch (plan_.kernel) {
    case FlashKernel::kForward:
      EmitForward();
      break;
    case FlashKernel::kBackwardDq:
      EmitBackwardDq();
      break;
    case FlashKernel::kBackwardDkDv:
      EmitBackwardDkDv();
      break;
  }
  b_.CreateRetVoid();
  return info;
}

}  // namespace

std::vector<NvptxKernelArg> FlashKernelArgs(FlashKernel kernel) {
  std::vector<NvptxKernelArg> args;
  auto add = [&](bool is_output, int64_t index) {
    NvptxKernelArg arg;
    arg.is_output = is_output;
    arg.index = index;
    args.push_back(arg);
  };
  for (int operand : ParamBuffers(kernel)) add(false, operand);
  const int results = kernel == FlashKernel::kForward ? 2 : 3;
  for (int r = 0; r < results; ++r) add(true, r);
  return args;
}

absl::StatusOr<NvptxKernelInfo> EmitFlashAttentionKernel(const FlashAttentionPlan& plan,
                                                         const std::string& symbol,
                                                         llvm::Module* module) {
  return FlashEmitter(plan, module).Run(symbol);
}

}  // namespace xla::gpu
