// Run under mpirun by mpi_communicator_test.cc. Modes (argv[1]):
//   ops      every rank checks MpiCommunicator's ops on sub-cliques against
//            hand-computed values (integer kinds and types the module test
//            does not cover, and a bf16 sum rounded after every rank);
//            prints "rank <r> ok" or "rank <r> FAIL ...".
//   timeout  rank 1 runs an all-reduce that rank 0 never joins, with a 1 s
//            deadline; rank 1 prints the error and aborts the job (exit 5).
//   error    prints MpiError for MPI_ERR_COUNT after MPI_Init.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/runtime/collectives/mpi_api.h"
#include "xla/backends/gpu/runtime/collectives/mpi_communicator.h"

namespace xla::gpu {
namespace {

int failures = 0;

void Expect(bool ok, int64_t rank, const std::string& what) {
  if (ok) return;
  ++failures;
  std::printf("rank %lld FAIL %s\n", static_cast<long long>(rank), what.c_str());
}

void CheckOps(MpiCliques& cliques) {
  const int64_t me = cliques.world_rank();
  const int64_t n = cliques.world_size();
  // Clique of the odd... every other rank from 0, and of everyone.
  std::vector<int64_t> evens, odds;
  for (int64_t i = 0; i < n; ++i) (i % 2 == 0 ? evens : odds).push_back(i);
  std::vector<CliqueKey> keys = {CliqueKey::Create(evens).value()};
  if (!odds.empty()) keys.push_back(CliqueKey::Create(odds).value());
  Expect(cliques.Acquire(keys).ok(), me, "acquire");
  const CliqueKey& mine = keys[me % 2];
  Communicator* c = cliques.Get(mine, me).value();
  const int64_t k = c->size();
  const int64_t r = c->rank();
  Expect(r == me / 2, me, "rank in sub-clique");
  // Not acquired (the pair {2i, 2i+1}, with 4 or more ranks): a clear
  // error, not a hang.
  if (n >= 4 && me - me % 2 + 1 < n) {
    const CliqueKey pair = CliqueKey::Create({me - me % 2, me - me % 2 + 1}).value();
    absl::Status missing = cliques.Get(pair, me).status();
    Expect(missing.code() == absl::StatusCode::kFailedPrecondition &&
               absl::StrContains(missing.message(), "was not created before the run"),
           me, missing.ToString());
  }
  Expect(cliques.Get(mine, (me + 1) % n).status().code() == absl::StatusCode::kInvalidArgument,
         me, "another process' device");

  // s64 prod and u8 min over the sub-clique, 5 elements.
  std::vector<int64_t> p(5), pr(5);
  for (int i = 0; i < 5; ++i) p[i] = (me + 2) * (i + 1) - 3;
  Expect(c->AllReduce(1, ReductionKind::kProd, PrimitiveType::S64, p.data(), pr.data(), 5).ok(),
         me, "prod");
  for (int i = 0; i < 5; ++i) {
    int64_t want = 1;
    for (int64_t q : mine.devices()) want *= (q + 2) * (i + 1) - 3;
    Expect(pr[i] == want, me, absl::StrCat("prod[", i, "] ", pr[i], " != ", want));
  }
  std::vector<uint8_t> u(3 * k), ur(3);
  for (int64_t i = 0; i < 3 * k; ++i) u[i] = static_cast<uint8_t>((me * 37 + i * 11) % 251);
  Expect(c->ReduceScatter(1, ReductionKind::kMin, PrimitiveType::U8, u.data(), ur.data(), 3).ok(),
         me, "reduce-scatter");
  for (int i = 0; i < 3; ++i) {
    int want = 255;
    for (int64_t q : mine.devices()) want = std::min<int>(want, (q * 37 + (r * 3 + i) * 11) % 251);
    Expect(ur[i] == want, me, absl::StrCat("min[", i, "] ", int{ur[i]}, " != ", want));
  }
  // bf16 sum over the sub-clique, 7 elements: every step is rounded to
  // bf16 (computed in f32), in rank order. Element 0: 1 on rank 0, 2^-8
  // elsewhere (1 + 2^-8 is a tie: to even, 1); the rest ordinary values.
  auto bf16_of = [](float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
  };
  auto value_of = [](uint16_t b) {
    const uint32_t u = static_cast<uint32_t>(b) << 16;
    float v;
    std::memcpy(&v, &u, 4);
    return v;
  };
  auto bf16_input = [&](int64_t rank, int i) -> uint16_t {
    if (i == 0) return rank == 0 ? 0x3F80 : 0x3B80;
    return bf16_of(0.37f * (rank + 1) - 1.13f * i + 0.013f * i * i);
  };
  std::vector<uint16_t> h(7), hr(7);
  for (int i = 0; i < 7; ++i) h[i] = bf16_input(r, i);
  Expect(c->AllReduce(1, ReductionKind::kSum, PrimitiveType::BF16, h.data(), hr.data(), 7).ok(),
         me, "bf16 sum");
  for (int i = 0; i < 7; ++i) {
    uint16_t want = bf16_input(0, i);
    for (int64_t q = 1; q < k; ++q) want = bf16_of(value_of(want) + value_of(bf16_input(q, i)));
    Expect(hr[i] == want, me, absl::StrCat("bf16 sum[", i, "] ", hr[i], " != ", want));
  }
  Expect(hr[0] == 0x3F80, me, "bf16 1 + 2^-8 rounds to 1");
  // all-to-all of 2-byte blocks: block j of rank q holds (q, j).
  std::vector<uint8_t> a(2 * k), ar(2 * k);
  for (int64_t j = 0; j < k; ++j) {
    a[2 * j] = static_cast<uint8_t>(me);
    a[2 * j + 1] = static_cast<uint8_t>(j);
  }
  Expect(c->AllToAll(1, a.data(), ar.data(), 2).ok(), me, "all-to-all");
  for (int64_t j = 0; j < k; ++j) {
    Expect(ar[2 * j] == mine.devices()[j] && ar[2 * j + 1] == r, me, "all-to-all block");
  }
  // Broadcast of 13 bytes over the sub-clique from its last rank.
  std::vector<uint8_t> b(13), br(13, 0);
  for (int i = 0; i < 13; ++i) b[i] = static_cast<uint8_t>((me * 29 + i * 3) % 251);
  Expect(c->Broadcast(1, b.data(), br.data(), 13, k - 1).ok(), me, "broadcast");
  const int64_t root = mine.devices()[k - 1];
  for (int i = 0; i < 13; ++i) {
    Expect(br[i] == (root * 29 + i * 3) % 251, me, absl::StrCat("broadcast[", i, "]"));
  }
  Expect(c->Broadcast(1, b.data(), br.data(), 13, k).code() == absl::StatusCode::kInvalidArgument,
         me, "broadcast root out of range");
  // and/or: unsupported for f32, InvalidArgument without communicating.
  float f = 1;
  Expect(c->AllReduce(1, ReductionKind::kAnd, PrimitiveType::F32, &f, &f, 1).code() ==
             absl::StatusCode::kInvalidArgument,
         me, "and on f32");
  // A ring permute on the world, reversed: rank q receives from q+1.
  Communicator* w = cliques.world();
  const int32_t v = static_cast<int32_t>(me * 1000 + 7);
  int32_t got = -1;
  Expect(w->CollectivePermute(1, &v, &got, 4, (me + 1) % n).ok(), me, "permute");
  Expect(got == static_cast<int32_t>(((me + 1) % n) * 1000 + 7), me, "permute value");
  std::printf("rank %lld %s\n", static_cast<long long>(me), failures == 0 ? "ok" : "FAILED");
}

int Main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "ops";
  const MpiApi& api = *LoadMpiApi().value();
  const absl::Duration timeout = mode == "timeout" ? absl::Seconds(1) : absl::Seconds(60);
  std::unique_ptr<MpiCliques> cliques = MpiCliques::Create(api, timeout).value();
  if (mode == "error") {
    if (cliques->world_rank() == 0) {
      std::printf("%s\n", MpiError(api, MPI_ERR_COUNT, "MPI_Iallgather").ToString().c_str());
    }
    return 0;
  }
  if (mode == "timeout") {
    if (cliques->world_rank() == 0) {
      std::this_thread::sleep_for(std::chrono::seconds(60));  // never joins
      return 0;
    }
    float x = 1, y = 0;
    const auto start = std::chrono::steady_clock::now();
    absl::Status s =
        cliques->world()->AllReduce(1, ReductionKind::kSum, PrimitiveType::F32, &x, &y, 1);
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("waited %.1f s: %s\n", waited, s.ToString().c_str());
    std::fflush(stdout);
    cliques->Abort(5);
  }
  CheckOps(*cliques);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace xla::gpu

int main(int argc, char** argv) { return xla::gpu::Main(argc, argv); }
