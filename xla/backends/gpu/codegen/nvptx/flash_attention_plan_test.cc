#include "xla/backends/gpu/codegen/nvptx/flash_attention_plan.h"
#include "gtest/gtest.h"
