#include "xla/stream_executor/host/flush_subnormals.h"

#include <cfloat>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "gtest/gtest.h"

namespace stream_executor::host {
namespace {

// Through volatile, so that nothing is folded at compile time.
float Multiply(float a, float b) {
  volatile float x = a, y = b;
  return x * y;
}
double Multiply(double a, double b) {
  volatile double x = a, y = b;
  return x * y;
}

#if defined(__x86_64__)
TEST(FlushSubnormalsTest, SubnormalInputsAndResultsAreZeroInsideOnly) {
  const float tiny = FLT_MIN / 8;  // subnormal
  ASSERT_EQ(std::fpclassify(tiny), FP_SUBNORMAL);
  ASSERT_FALSE(SubnormalsFlushed());
  EXPECT_EQ(Multiply(tiny, 3.0f), tiny * 3.0f);
  EXPECT_NE(Multiply(tiny, 3.0f), 0.0f);
  {
    ScopedFlushSubnormals flush;
    EXPECT_TRUE(SubnormalsFlushed());
    EXPECT_EQ(Multiply(tiny, 3.0f), 0.0f);              // input flushed (DAZ)
    EXPECT_EQ(Multiply(FLT_MIN, 0.25f), 0.0f);          // result flushed (FTZ)
    EXPECT_EQ(Multiply(DBL_MIN, 0.5), 0.0);             // f64 too
    EXPECT_EQ(Multiply(FLT_MIN, 2.0f), 2.0f * FLT_MIN);  // normal values as before
    {
      ScopedFlushSubnormals nested;
      EXPECT_TRUE(SubnormalsFlushed());
    }
    EXPECT_TRUE(SubnormalsFlushed());  // the inner one found it set
  }
  EXPECT_FALSE(SubnormalsFlushed());
  EXPECT_EQ(Multiply(FLT_MIN, 0.25f), FLT_MIN / 4);
}

// A thread started before the scope keeps its own MXCSR. (One started
// inside it inherits the setting: Linux copies MXCSR into a new thread.)
TEST(FlushSubnormalsTest, OnlyTheCallingThread) {
  std::mutex mu;
  std::condition_variable cv;
  int stage = 0;  // 1: the scope is open; 2: the other thread has looked
  bool other_flushed = true;
  std::thread other([&] {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return stage == 1; });
    other_flushed = SubnormalsFlushed();
    stage = 2;
    cv.notify_all();
  });
  {
    ScopedFlushSubnormals flush;
    std::unique_lock<std::mutex> lock(mu);
    stage = 1;
    cv.notify_all();
    cv.wait(lock, [&] { return stage == 2; });
    EXPECT_TRUE(SubnormalsFlushed());
  }
  other.join();
  EXPECT_FALSE(other_flushed);
}
#endif

}  // namespace
}  // namespace stream_executor::host
