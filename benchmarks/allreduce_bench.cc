// Host all-reduce bus bandwidth (f32 sum) at 1 KiB, 1 MiB and 64 MiB:
//
//   bazel run -c opt //benchmarks:allreduce_bench            # in one process,
//                                                            # 2 and 4 threads
//   mpirun -np N bazel-bin/benchmarks/allreduce_bench --mpi   # N processes
//
// busbw = 2 (n-1)/n * bytes / time (the nccl-tests convention), time = the
// mean wall time of one all-reduce, measured by the slowest participant
// after a warm-up op. Prints one line per size ("mpi" lines from rank 0).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "xla/backends/gpu/runtime/collectives/in_process_communicator.h"
#include "xla/backends/gpu/runtime/collectives/mpi_api.h"
#include "xla/backends/gpu/runtime/collectives/mpi_communicator.h"
#include "xla/util/logging.h"

namespace xla::gpu {
namespace {

constexpr int64_t kSizes[] = {1 << 10, 1 << 20, 64 << 20};

int Iterations(int64_t bytes) {
  if (bytes <= (1 << 10)) return 500;
  if (bytes <= (1 << 20)) return 30;
  return 3;
}

// Runs warm-up + iters all-reduces on `comm`; returns seconds per op.
double TimeAllReduce(Communicator& comm, int64_t bytes, int64_t first_run_id) {
  const int64_t count = bytes / 4;
  std::vector<float> send(count), recv(count);
  for (int64_t i = 0; i < count; ++i) send[i] = static_cast<float>(i % 97) * 0.25f + comm.rank();
  auto op = [&](int64_t run) {
    absl::Status s = comm.AllReduce(run, ReductionKind::kSum, PrimitiveType::F32, send.data(),
                                    recv.data(), count);
    XLA_CHECK(s.ok()) << s;
  };
  op(first_run_id);
  const int iters = Iterations(bytes);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) op(first_run_id + 1 + i);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / iters;
  // Sanity: element 1 = sum over ranks of (0.25 + rank).
  const int n = static_cast<int>(comm.size());
  XLA_CHECK(count < 2 || recv[1] == 0.25f * n + n * (n - 1) / 2.0f) << recv[1];
  return seconds;
}

void Report(const char* where, int64_t n, int64_t bytes, double seconds) {
  const double busbw = 2.0 * (n - 1) / n * bytes / seconds / 1e9;
  std::printf("%-10s n=%lld  %9lld bytes  %10.1f us  busbw %8.3f GB/s\n", where,
              static_cast<long long>(n), static_cast<long long>(bytes), seconds * 1e6, busbw);
  std::fflush(stdout);
}

void InProcess(int64_t n) {
  InProcessCliques cliques(absl::Seconds(300));
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < n; ++i) ids.push_back(i);
  const CliqueKey key = CliqueKey::Create(ids).value();
  int64_t run_base = 1;
  for (int64_t bytes : kSizes) {
    std::vector<double> seconds(n);
    std::vector<std::thread> threads;
    for (int64_t r = 0; r < n; ++r) {
      threads.emplace_back([&, r] {
        Communicator* comm = cliques.Get(key, r).value();
        seconds[r] = TimeAllReduce(*comm, bytes, run_base);
      });
    }
    for (std::thread& t : threads) t.join();
    run_base += 1 + Iterations(bytes);
    Report("in-process", n, bytes, *std::max_element(seconds.begin(), seconds.end()));
  }
}

int Mpi() {
  absl::StatusOr<const MpiApi*> api = LoadMpiApi();
  XLA_CHECK(api.ok()) << api.status();
  std::unique_ptr<MpiCliques> cliques = MpiCliques::Create(**api, absl::Seconds(300)).value();
  const int64_t n = cliques->world_size();
  for (int64_t bytes : kSizes) {
    const double mine = TimeAllReduce(*cliques->world(), bytes, 1);
    // The slowest process' time, through one more (tiny) all-reduce of f64 max.
    double slowest = 0;
    XLA_CHECK(cliques->world()
                  ->AllReduce(0, ReductionKind::kMax, PrimitiveType::F64, &mine, &slowest, 1)
                  .ok());
    if (cliques->world_rank() == 0) Report("mpi", n, bytes, slowest);
  }
  return 0;
}

}  // namespace
}  // namespace xla::gpu

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--mpi") return xla::gpu::Mpi();
  for (int64_t n : {2, 4}) xla::gpu::InProcess(n);
  return 0;
}
