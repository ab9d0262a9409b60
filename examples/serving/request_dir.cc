#include "examples/serving/request_dir.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "xla/types/npy.h"
#include "xla/util/status_macros.h"

namespace xla::serving {

namespace fs = std::filesystem;

absl::StatusOr<std::vector<std::string>> ListRequests(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return absl::NotFoundError(absl::StrCat(dir, ": not a directory"));
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec)) names.push_back(it->path().filename().string());
  }
  if (ec) return absl::NotFoundError(absl::StrCat(dir, ": cannot list: ", ec.message()));
  if (names.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir, ": no request folders (expected DIR/<name>/input_0.npy, ...)"));
  }
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

std::string Expected(size_t count) {
  if (count == 0) return "the model takes no inputs";
  return absl::StrCat("the model takes ", count, count == 1 ? " input" : " inputs", " (input_0.npy",
                      count == 1 ? "" : absl::StrCat(" to input_", count - 1, ".npy"), ")");
}

// The input files of a request folder by parameter number. Errors name the
// file: a name input_*.npy without a number, or a number past the count.
absl::StatusOr<std::map<size_t, std::string>> FindInputFiles(const std::string& dir, size_t count) {
  std::map<size_t, std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!absl::StartsWith(name, "input_") || !absl::EndsWith(name, ".npy")) continue;
    const std::string path = it->path().string();
    const std::string digits = name.substr(6, name.size() - 6 - 4);
    size_t index = 0;
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        !absl::SimpleAtoi(digits, &index)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": not an input name (input_<N>.npy, N = 0, 1, ...); ", Expected(count)));
    }
    if (index >= count) return absl::InvalidArgumentError(absl::StrCat(path, ": extra input; ", Expected(count)));
    files[index] = path;
  }
  if (ec) return absl::NotFoundError(absl::StrCat(dir, ": cannot list: ", ec.message()));
  return files;
}

}  // namespace

absl::StatusOr<std::vector<Literal>> ReadRequestInputs(const std::string& request_dir, const ProgramShape& shape) {
  const size_t count = shape.parameters.size();
  ASSIGN_OR_RETURN(auto files, FindInputFiles(request_dir, count));
  std::vector<Literal> inputs;
  inputs.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    auto it = files.find(i);
    if (it == files.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat((fs::path(request_dir) / absl::StrCat("input_", i, ".npy")).string(), ": missing input; ",
                       Expected(count)));
    }
    ASSIGN_OR_RETURN(Literal file, ReadNpyFile(it->second));
    const std::string name = i < shape.parameter_names.size() ? absl::StrCat(" ('", shape.parameter_names[i], "')") : "";
    ASSIGN_OR_RETURN(Literal input,
                     ConvertNpyLiteral(file, shape.parameters[i], absl::StrCat(it->second, " (parameter ", i, name, ")")));
    inputs.push_back(std::move(input));
  }
  return inputs;
}

absl::Status WriteRequestResults(const std::string& dir, absl::Span<const Literal> results) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat(dir, ": cannot create the folder: ", ec.message()));
  for (size_t i = 0; i < results.size(); ++i) {
    RETURN_IF_ERROR(WriteNpyFile((fs::path(dir) / absl::StrCat("out", i, ".npy")).string(), results[i]));
  }
  return absl::OkStatus();
}

absl::StatusOr<DirectoryReport> ServeDirectory(const ModelServer& server, const std::string& requests_dir,
                                               const std::string& output_dir, int threads) {
  DirectoryReport report;
  ASSIGN_OR_RETURN(report.names, ListRequests(requests_dir));
  const int64_t count = static_cast<int64_t>(report.names.size());
  std::vector<std::unique_ptr<ModelServer::Session>> sessions;
  for (int t = 0; t < std::max(1, threads); ++t) {
    ASSIGN_OR_RETURN(std::unique_ptr<ModelServer::Session> session, server.NewSession());
    sessions.push_back(std::move(session));
  }
  report.statuses.assign(static_cast<size_t>(count), absl::OkStatus());
  auto serve = [&](int worker, int64_t r) -> absl::Status {
    const std::string& name = report.names[static_cast<size_t>(r)];
    ASSIGN_OR_RETURN(std::vector<Literal> inputs,
                     ReadRequestInputs((fs::path(requests_dir) / name).string(), server.program_shape()));
    ASSIGN_OR_RETURN(std::vector<Literal> results, sessions[static_cast<size_t>(worker)]->Run(inputs));
    return WriteRequestResults((fs::path(output_dir) / name).string(), results);
  };
  report.timing = RunOnThreads(threads, count, [&](int worker, int64_t r) {
    report.statuses[static_cast<size_t>(r)] = serve(worker, r);
  });
  report.failed = std::count_if(report.statuses.begin(), report.statuses.end(),
                                [](const absl::Status& s) { return !s.ok(); });
  return report;
}

}  // namespace xla::serving
