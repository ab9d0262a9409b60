#include "xla/hlo/evaluator/fused_attention_op.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/ffi/ffi_attribute_parser.h"
#include "xla/backends/gpu/ffi/te_fused_attention.h"
#include "xla/hlo/ir/backend_config_text.h"

namespace xla::evaluator {
namespace {

namespace ffi = ::xla::gpu::ffi;

absl::Status Named(const HloInstruction& instr, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat("custom-call '", instr.name(), "': ", status.message()));
}

// A shape without its layout (literals are row-major whatever the layout).
Shape Logical(const Shape& shape) {
  Shape s = shape;
  s.clear_layout();
  return s;
}

// Sequence lengths: from cu_seqlens for padding masks, the maximum
// lengths otherwise.
absl::StatusOr<std::vector<int64_t>> Lengths(const ffi::TeAttentionConfig& c,
                                             const Literal* cu_seqlens, int64_t max_len, int index,
                                             absl::string_view what) {
  if (!c.padding) return std::vector<int64_t>(c.batch, max_len);
  std::vector<int32_t> cu(cu_seqlens->element_count());
  for (int64_t i = 0; i < cu_seqlens->element_count(); ++i) {
    cu[i] = static_cast<int32_t>(cu_seqlens->GetInt(i));
  }
  return ffi::TeSequenceLengths(cu, c.batch, max_len,
                                absl::StrCat("operand ", index, " (", what, ")"));
}

// A [batch, heads, seq, dim] tensor of doubles read from its view.
std::vector<double> Read(const Literal& lit, const ffi::TeTensorView& view, int64_t batch,
                         int64_t heads, int64_t seq, int64_t dim) {
  std::vector<double> out;
  out.reserve(batch * heads * seq * dim);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t s = 0; s < seq; ++s) {
        for (int64_t d = 0; d < dim; ++d) out.push_back(lit.GetDouble(view.At(b, s, h) + d));
      }
    }
  }
  return out;
}

void Write(const std::vector<double>& values, Literal& lit, const ffi::TeTensorView& view,
           int64_t batch, int64_t heads, int64_t seq, int64_t dim) {
  int64_t n = 0;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t s = 0; s < seq; ++s) {
        for (int64_t d = 0; d < dim; ++d) lit.SetDouble(view.At(b, s, h) + d, values[n++]);
      }
    }
  }
}

// The attention probabilities of query row `i` of head `h` in batch `b`:
// p[j] for every key (0 where masked), and whether the row sees any key.
// `lse` receives the row's log-sum-exp (0 for a row that sees nothing).
bool Probabilities(const ffi::TeAttentionConfig& c, const std::vector<double>& q,
                   const std::vector<double>& k, int64_t b, int64_t h, int64_t i, int64_t q_len,
                   int64_t kv_len, std::vector<double>& p, double& lse) {
  const int64_t Dqk = c.qk_head_dim, Skv = c.kv_seqlen;
  const double* qi = &q[((b * c.heads + h) * c.q_seqlen + i) * Dqk];
  const double* kh = &k[((b * c.kv_heads + c.KvHead(h)) * Skv) * Dqk];
  double max = -std::numeric_limits<double>::infinity();
  bool any = false;
  for (int64_t j = 0; j < Skv; ++j) {
    p[j] = 0;
    if (!c.Visible(i, j, q_len, kv_len)) continue;
    double dot = 0;
    for (int64_t d = 0; d < Dqk; ++d) dot += qi[d] * kh[j * Dqk + d];
    p[j] = c.scale * dot;
    max = any ? std::max(max, p[j]) : p[j];
    any = true;
  }
  lse = 0;
  if (!any) return false;
  double sum = 0;
  for (int64_t j = 0; j < Skv; ++j) {
    if (c.Visible(i, j, q_len, kv_len)) sum += std::exp(p[j] - max);
  }
  for (int64_t j = 0; j < Skv; ++j) {
    p[j] = c.Visible(i, j, q_len, kv_len) ? std::exp(p[j] - max) / sum : 0.0;
  }
  lse = max + std::log(sum);
  return true;
}

absl::StatusOr<Literal> Forward(const HloInstruction& instr, const ffi::TeAttentionConfig& c,
                                absl::Span<const Literal* const> operands) {
  absl::StatusOr<std::vector<int64_t>> q_len =
      Lengths(c, operands[ffi::kFwdQCuSeqlens], c.q_seqlen, ffi::kFwdQCuSeqlens, "q_cu_seqlens");
  if (!q_len.ok()) return Named(instr, q_len.status());
  absl::StatusOr<std::vector<int64_t>> kv_len = Lengths(
      c, operands[ffi::kFwdKvCuSeqlens], c.kv_seqlen, ffi::kFwdKvCuSeqlens, "kv_cu_seqlens");
  if (!kv_len.ok()) return Named(instr, kv_len.status());
  const int64_t B = c.batch, H = c.heads, G = c.kv_heads, Sq = c.q_seqlen, Skv = c.kv_seqlen;
  const int64_t Dqk = c.qk_head_dim, Dv = c.v_head_dim;
  const std::vector<double> q = Read(*operands[c.q.operand], c.q, B, H, Sq, Dqk);
  const std::vector<double> k = Read(*operands[c.k.operand], c.k, B, G, Skv, Dqk);
  const std::vector<double> v = Read(*operands[c.v.operand], c.v, B, G, Skv, Dv);

  Literal result(instr.shape());
  std::vector<Literal>& parts = *result.mutable_tuple_elements();
  std::vector<double> out(B * H * Sq * Dv, 0.0), p(Skv);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      const double* vh = &v[((b * G + c.KvHead(h)) * Skv) * Dv];
      for (int64_t i = 0; i < Sq; ++i) {
        double lse = 0;
        if (Probabilities(c, q, k, b, h, i, (*q_len)[b], (*kv_len)[b], p, lse)) {
          double* o = &out[((b * H + h) * Sq + i) * Dv];
          for (int64_t j = 0; j < Skv; ++j) {
            if (p[j] == 0) continue;
            for (int64_t d = 0; d < Dv; ++d) o[d] += p[j] * vh[j * Dv + d];
          }
        }
        parts[ffi::kFwdSoftmaxAux].SetDouble((b * H + h) * Sq + i, lse);
      }
    }
  }
  Write(out, parts[ffi::kFwdOutput], c.o, B, H, Sq, Dv);
  return result;
}

absl::StatusOr<Literal> Backward(const HloInstruction& instr, const ffi::TeAttentionConfig& c,
                                 absl::Span<const Literal* const> operands) {
  absl::StatusOr<std::vector<int64_t>> q_len =
      Lengths(c, operands[ffi::kBwdQCuSeqlens], c.q_seqlen, ffi::kBwdQCuSeqlens, "q_cu_seqlens");
  if (!q_len.ok()) return Named(instr, q_len.status());
  absl::StatusOr<std::vector<int64_t>> kv_len = Lengths(
      c, operands[ffi::kBwdKvCuSeqlens], c.kv_seqlen, ffi::kBwdKvCuSeqlens, "kv_cu_seqlens");
  if (!kv_len.ok()) return Named(instr, kv_len.status());
  const int64_t B = c.batch, H = c.heads, G = c.kv_heads, Sq = c.q_seqlen, Skv = c.kv_seqlen;
  const int64_t Dqk = c.qk_head_dim, Dv = c.v_head_dim;
  const std::vector<double> q = Read(*operands[c.q.operand], c.q, B, H, Sq, Dqk);
  const std::vector<double> k = Read(*operands[c.k.operand], c.k, B, G, Skv, Dqk);
  const std::vector<double> v = Read(*operands[c.v.operand], c.v, B, G, Skv, Dv);
  const std::vector<double> dout = Read(*operands[ffi::kBwdDOutput], c.o, B, H, Sq, Dv);

  std::vector<double> dq(q.size(), 0.0), dk(k.size(), 0.0), dv(v.size(), 0.0);
  std::vector<double> p(Skv), dp(Skv);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      const int64_t kvh = (b * G + c.KvHead(h)) * Skv;
      for (int64_t i = 0; i < Sq; ++i) {
        double lse = 0;
        if (!Probabilities(c, q, k, b, h, i, (*q_len)[b], (*kv_len)[b], p, lse)) continue;
        const int64_t row = (b * H + h) * Sq + i;
        const double* doi = &dout[row * Dv];
        double row_term = 0;  // sum_j P_ij dP_ij
        for (int64_t j = 0; j < Skv; ++j) {
          dp[j] = 0;
          if (p[j] == 0) continue;
          for (int64_t d = 0; d < Dv; ++d) dp[j] += doi[d] * v[(kvh + j) * Dv + d];
          row_term += p[j] * dp[j];
        }
        for (int64_t j = 0; j < Skv; ++j) {
          if (p[j] == 0) continue;
          const double ds = p[j] * (dp[j] - row_term);
          for (int64_t d = 0; d < Dv; ++d) dv[(kvh + j) * Dv + d] += p[j] * doi[d];
          for (int64_t d = 0; d < Dqk; ++d) {
            dq[row * Dqk + d] += c.scale * ds * k[(kvh + j) * Dqk + d];
            dk[(kvh + j) * Dqk + d] += c.scale * ds * q[row * Dqk + d];
          }
        }
      }
    }
  }
  Literal result(instr.shape());
  std::vector<Literal>& parts = *result.mutable_tuple_elements();
  // Packed layouts share a result between gradients; each writes its part.
  Write(dq, parts[c.q.operand], c.q, B, H, Sq, Dqk);
  Write(dk, parts[c.k.operand], c.k, B, G, Skv, Dqk);
  Write(dv, parts[c.v.operand], c.v, B, G, Skv, Dv);
  return result;
}

}  // namespace

bool IsTeFusedAttentionCall(absl::string_view target) {
  return ffi::IsTeFusedAttentionTarget(target);
}

absl::StatusOr<Literal> EvalTeFusedAttention(const HloInstruction& instr,
                                             absl::Span<const Literal* const> operands) {
  const std::string& target = instr.GetString(AttrId::kCustomCallTarget);
  const bool backward = target == ffi::kTeFusedAttnBackwardTarget;
  // No backend_config: no attributes (as the compiler treats it), so the
  // error names the first missing one.
  const std::string config_text = BackendConfigText(instr);
  absl::StatusOr<ffi::Attributes> attributes =
      config_text.empty() ? ffi::Attributes() : gpu::ParseFfiAttributes(config_text, instr.name());
  if (!attributes.ok()) return attributes.status();
  absl::StatusOr<ffi::TeAttentionConfig> config = ffi::ParseTeAttentionConfig(target, *attributes);
  if (!config.ok()) return Named(instr, config.status());
  if (!instr.shape().IsTuple()) {
    return Named(
        instr, absl::InvalidArgumentError(absl::StrCat(target, ": the result must be a tuple, is ",
                                                       instr.shape().ToString())));
  }
  std::vector<Shape> operand_shapes, result_shapes;
  for (const Literal* operand : operands) operand_shapes.push_back(Logical(operand->shape()));
  for (const Shape& s : instr.shape().tuple_shapes()) result_shapes.push_back(Logical(s));
  std::vector<const Shape*> operand_ptrs, result_ptrs;
  for (const Shape& s : operand_shapes) operand_ptrs.push_back(&s);
  for (const Shape& s : result_shapes) result_ptrs.push_back(&s);
  absl::Status shapes =
      ffi::CheckTeAttentionShapes(target, *config, backward, operand_ptrs, result_ptrs);
  if (!shapes.ok()) return Named(instr, shapes);
  return backward ? Backward(instr, *config, operands) : Forward(instr, *config, operands);
}

}  // namespace xla::evaluator
