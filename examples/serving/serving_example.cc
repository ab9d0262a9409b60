// serving_example: loads an artifact once, initializes it on its device and
// serves requests from N threads on the one shared executable, then prints
// throughput and latency percentiles. See README.md and kUsage below.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "examples/serving/latency_stats.h"
#include "examples/serving/model_server.h"
#include "examples/serving/request_dir.h"
#include "xla/aot/literal_execution.h"
#include "xla/tools/trust_flags.h"
#include "xla/types/random_literal.h"
#include "xla/util/status_macros.h"

namespace xla::serving {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;  // the model did not load, or a request failed
constexpr int kExitUsage = 2;   // bad flags

const char kUsage[] =
    "usage: serving_example MODEL.xaot [--threads=N] [--requests=K] [--seed=S]\n"
    "                                  [--warmup=W] [--execute=device|literals]\n"
    "       serving_example MODEL.xaot --requests_dir=DIR --output_dir=OUT [--threads=N]\n"
    "\n"
    "Loads MODEL.xaot once, initializes it on device 0 of the platform it was\n"
    "compiled for, and serves requests from N threads, each with its own inputs,\n"
    "on the one shared executable. Prints requests, threads, wall time,\n"
    "throughput and the p50, p90, p99 and max latency of a request.\n"
    "\n"
    "  --threads=N          serving threads, >= 1 (default 1)\n"
    "  --requests=K         requests with random inputs, >= 1 (default 100); request\n"
    "                       r gets the inputs of `xla_aot run --random_inputs\n"
    "                       --seed=S+r`, all drawn before timing starts\n"
    "  --seed=S             first request's seed, >= 0 (default 0)\n"
    "  --warmup=W           untimed requests first, >= 0 (default: N)\n"
    "  --execute=PATH       device: a per-thread session (the default);\n"
    "                       literals: ExecuteOnLiterals per request, to compare\n"
    "  --requests_dir=DIR   serve DIR/<name>/input_0.npy, input_1.npy, ... (one per\n"
    "                       parameter) instead of random inputs; needs --output_dir\n"
    "  --output_dir=OUT     results go to OUT/<name>/out0.npy, out1.npy, ...\n" XLA_AOT_TRUST_FLAGS_HELP
    "\n"
    "Exit status: 0 when every request succeeded, 1 when the model did not load\n"
    "or a request failed (each failure is printed), 2 for bad flags.\n";

struct Flags {
  std::string artifact;
  int64_t threads = 1;
  int64_t requests = 100;
  int64_t seed = 0;
  int64_t warmup = -1;  // -1: one per thread
  std::string execute = "device";
  std::string requests_dir;
  std::string output_dir;
  bool requests_given = false;
  cli::TrustFlags trust;
};

// Parses "--name=<integer >= min>" into *value. True when `arg` is that flag
// (then *error is set for a bad value).
bool IntFlag(const std::string& arg, const std::string& name, int64_t min, int64_t* value, std::string* error) {
  const std::string prefix = absl::StrCat("--", name, "=");
  if (!absl::StartsWith(arg, prefix)) return false;
  if (!absl::SimpleAtoi(arg.substr(prefix.size()), value) || *value < min) {
    *error = absl::StrCat("bad ", arg, " (an integer >= ", min, ")");
  }
  return true;
}

// An empty string, or what is wrong with the command line.
std::string ParseFlags(const std::vector<std::string>& args, Flags* f) {
  for (const std::string& arg : args) {
    std::string error;
    if (cli::ParseTrustFlag(arg, &f->trust, &error) || IntFlag(arg, "threads", 1, &f->threads, &error) ||
        IntFlag(arg, "seed", 0, &f->seed, &error) || IntFlag(arg, "warmup", 0, &f->warmup, &error)) {
      if (!error.empty()) return error;
    } else if (IntFlag(arg, "requests", 1, &f->requests, &error)) {
      if (!error.empty()) return error;
      f->requests_given = true;
    } else if (absl::StartsWith(arg, "--execute=")) {
      f->execute = arg.substr(10);
      if (f->execute != "device" && f->execute != "literals") return absl::StrCat("bad ", arg, " (device or literals)");
    } else if (absl::StartsWith(arg, "--requests_dir=")) {
      f->requests_dir = arg.substr(15);
      if (f->requests_dir.empty()) return "empty --requests_dir";
    } else if (absl::StartsWith(arg, "--output_dir=")) {
      f->output_dir = arg.substr(13);
      if (f->output_dir.empty()) return "empty --output_dir";
    } else if (absl::StartsWith(arg, "-")) {
      return absl::StrCat("unknown flag '", arg, "'");
    } else if (f->artifact.empty()) {
      f->artifact = arg;
    } else {
      return absl::StrCat("unexpected argument '", arg, "' (one artifact only)");
    }
  }
  if (f->artifact.empty()) return "no artifact file";
  if (f->requests_dir.empty() != f->output_dir.empty()) return "--requests_dir and --output_dir go together";
  if (!f->requests_dir.empty() && f->requests_given) return "--requests_dir serves its folders; no --requests";
  if (f->threads > 4096) return "--threads is at most 4096";
  return "";
}

// Request r's inputs: parameter i drawn with seed (seed + r) * 1000003 + i,
// as `xla_aot run --random_inputs --seed=<seed + r>` draws them.
absl::StatusOr<std::vector<std::vector<Literal>>> DrawInputs(const ProgramShape& shape, int64_t seed,
                                                             int64_t requests) {
  std::vector<std::vector<Literal>> inputs(static_cast<size_t>(requests));
  for (int64_t r = 0; r < requests; ++r) {
    for (size_t i = 0; i < shape.parameters.size(); ++i) {
      const uint64_t s = static_cast<uint64_t>(seed + r) * 1000003 + i;
      ASSIGN_OR_RETURN(Literal input, MakeRandomLiteral(shape.parameters[i], s));
      inputs[static_cast<size_t>(r)].push_back(std::move(input));
    }
  }
  return inputs;
}

// Serves `requests` random requests; prints each failure and the summary.
absl::Status ServeRandom(const ModelServer& server, const Flags& f, int64_t* failed) {
  const int threads = static_cast<int>(f.threads);
  ASSIGN_OR_RETURN(auto inputs, DrawInputs(server.program_shape(), f.seed, f.requests));
  std::vector<std::unique_ptr<ModelServer::Session>> sessions;
  for (int t = 0; t < threads; ++t) {
    ASSIGN_OR_RETURN(std::unique_ptr<ModelServer::Session> session, server.NewSession());
    sessions.push_back(std::move(session));
  }
  auto run_one = [&](int worker, int64_t r) {
    const std::vector<Literal>& in = inputs[static_cast<size_t>(r) % inputs.size()];
    if (f.execute == "literals") return aot::ExecuteOnLiterals(server.executable(), server.device(), in).status();
    return sessions[static_cast<size_t>(worker)]->Run(in).status();
  };
  // Untimed warmup (request w reuses request w mod K's inputs); its failures
  // are not reported: the same inputs fail again below.
  const int64_t warmup = f.warmup < 0 ? threads : f.warmup;
  RunOnThreads(threads, warmup, [&](int worker, int64_t w) { run_one(worker, w).IgnoreError(); });
  std::vector<absl::Status> statuses(inputs.size());  // slot r written by request r only
  const PoolTiming timing = RunOnThreads(
      threads, f.requests, [&](int worker, int64_t r) { statuses[static_cast<size_t>(r)] = run_one(worker, r); });
  for (size_t r = 0; r < statuses.size(); ++r) {
    if (statuses[r].ok()) continue;
    ++*failed;
    std::cerr << "request " << r << " failed: " << statuses[r].message() << "\n";
  }
  if (*failed > 0) {
    std::cerr << *failed << " of " << f.requests << " requests failed\n";
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(LatencySummary summary, Summarize(timing.latency_seconds, threads, timing.wall_seconds));
  std::cout << FormatSummary(summary);
  return absl::OkStatus();
}

// Serves the request folders; prints each failure, a count and the summary
// of the requests that succeeded.
absl::Status ServeFolders(const ModelServer& server, const Flags& f, int64_t* failed) {
  ASSIGN_OR_RETURN(DirectoryReport report,
                   ServeDirectory(server, f.requests_dir, f.output_dir, static_cast<int>(f.threads)));
  std::vector<double> ok_latencies;
  for (size_t r = 0; r < report.names.size(); ++r) {
    if (report.statuses[r].ok()) {
      ok_latencies.push_back(report.timing.latency_seconds[r]);
    } else {
      std::cerr << "request " << report.names[r] << " failed: " << report.statuses[r].message() << "\n";
    }
  }
  *failed = report.failed;
  std::cout << "served " << report.names.size() << " request folders from " << f.requests_dir << " into "
            << f.output_dir << ": " << ok_latencies.size() << " ok, " << report.failed << " failed\n";
  if (ok_latencies.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(LatencySummary summary,
                   Summarize(ok_latencies, static_cast<int>(f.threads), report.timing.wall_seconds));
  std::cout << FormatSummary(summary);
  return absl::OkStatus();
}

int Main(const std::vector<std::string>& args) {
  // Under `bazel run` the binary starts in its runfiles; relative paths on
  // the command line mean the directory bazel was run from.
  if (const char* dir = std::getenv("BUILD_WORKING_DIRECTORY"); dir != nullptr && chdir(dir) != 0) {
    std::cerr << "serving_example: cannot enter " << dir << " (BUILD_WORKING_DIRECTORY)\n";
    return kExitFailed;
  }
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return kExitOk;
    }
  }
  Flags f;
  if (const std::string error = ParseFlags(args, &f); !error.empty()) {
    std::cerr << "serving_example: " << error << "\n\n" << kUsage;
    return kExitUsage;
  }
  absl::StatusOr<aot::LoadOptions> load = cli::LoadOptionsFromFlags(f.trust);
  if (!load.ok()) {
    std::cerr << "serving_example: " << load.status().message() << "\n";
    return kExitUsage;
  }
  absl::StatusOr<std::unique_ptr<ModelServer>> server = ModelServer::LoadFromFile(f.artifact, *load);
  if (!server.ok()) {
    std::cerr << "serving_example: " << f.artifact << ": " << server.status().message() << "\n";
    return kExitFailed;
  }
  std::cout << "model:       " << f.artifact << " " << (*server)->program_shape().ToString() << "\n"
            << "device:      " << (*server)->executable().program().target.platform << " 0\n";
  int64_t failed = 0;
  const absl::Status status =
      f.requests_dir.empty() ? ServeRandom(**server, f, &failed) : ServeFolders(**server, f, &failed);
  if (!status.ok()) {
    std::cerr << "serving_example: " << status.message() << "\n";
    return kExitFailed;
  }
  return failed == 0 ? kExitOk : kExitFailed;
}

}  // namespace
}  // namespace xla::serving

int main(int argc, char** argv) {
  return xla::serving::Main(std::vector<std::string>(argv + 1, argv + argc));
}
