#include "xla/hlo/ir/backend_config_text.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"

namespace xla {
namespace {

std::unique_ptr<HloInstruction> CallWithConfig(const std::string* config) {
  auto call = HloInstruction::Create(HloOpcode::kCustomCall, Shape::Scalar(PrimitiveType::F32), {},
                                     "c");
  if (config != nullptr) call->SetAttr(AttrId::kBackendConfig, *config);
  return call;
}

std::string TextOf(const std::string& config) { return BackendConfigText(*CallWithConfig(&config)); }

TEST(BackendConfigText, QuotedJsonIsUnquotedAndUnescaped) {
  EXPECT_EQ(TextOf(R"("{\"alpha_real\":1,\"epilogue\":\"BIAS\"}")"),
            R"({"alpha_real":1,"epilogue":"BIAS"})");
  EXPECT_EQ(TextOf(R"("ij,jk->ik")"), "ij,jk->ik");
}

TEST(BackendConfigText, DictionaryAndBadEscapesStayVerbatim) {
  EXPECT_EQ(TextOf("{attn_heads = 32 : i64}"), "{attn_heads = 32 : i64}");
  EXPECT_EQ(TextOf(R"("bad \q escape")"), R"("bad \q escape")");
  EXPECT_EQ(TextOf("\""), "\"");
}

TEST(BackendConfigText, AbsentIsEmpty) { EXPECT_EQ(BackendConfigText(*CallWithConfig(nullptr)), ""); }

}  // namespace
}  // namespace xla
