#include "cli/mutants.h"

#include "cli/exit_codes.h"

#ifndef TAPECHECK_MUTANTS

namespace tc::cli {

int runMutants(const MutantsOptions&) {
  return report(kUsage, "mutants: this build has no mutants; configure with -DTAPECHECK_MUTANTS=ON");
}

}  // namespace tc::cli

#else

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "adapters/process/interrupt.h"
#include "core/carriers/dispatch.h"
#include "core/io/case_file.h"
#include "core/support/mutants.h"
#include "core/support/result.h"
#include "core/support/text.h"

namespace tc::cli {
namespace {

//! How one child run of the property suite ended.
struct ChildRun {
  enum class End { finished, timedOut, crashed } end = End::finished;
  int status = 0;  // exit status, or the signal when crashed
  double seconds = 0;
  nlohmann::json report;  // the run's --json report, when it finished
};

//! A child run of the property suite under way.
struct StartedChild {
  pid_t pid = -1;  // -1: fork failed
  std::chrono::steady_clock::time_point start;
  std::string json;  // where its --json report goes
};

// Starts `tapecheck run` on the default suite in a child process with TAPECHECK_MUTANT=id.
StartedChild startChild(int id, const MutantsOptions& options, const std::filesystem::path& dir) {
  std::string json = (dir / fmt::format("mutant-{}.json", id)).string();
  std::string saves = (dir / fmt::format("mutant-{}", id)).string();
  std::vector<std::string> args{"/proc/self/exe", "run", "--quiet", "--cases", std::to_string(options.cases),
                                "--seed", std::to_string(options.seed), "--json", json, "--save-failures", saves};
  StartedChild started{-1, std::chrono::steady_clock::now(), json};
  std::fflush(nullptr);  // else the child's freopen would write the parent's buffered output again
  const pid_t parent = getpid();
  std::optional<process::InterruptsBlocked> blocked(std::in_place);  // until the child is watched
  pid_t child = fork();
  if (child < 0) return started;
  if (child == 0) {
    // The child run is a tapecheck: SIGTERM, also when this one dies, ends it and its engines' trees.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    for (int handled : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction current {};
      if (sigaction(handled, nullptr, &current) == 0 && current.sa_handler != SIG_IGN) signal(handled, SIG_DFL);
    }
    sigprocmask(SIG_SETMASK, &blocked->previous(), nullptr);
    if (id > 0) setenv("TAPECHECK_MUTANT", std::to_string(id).c_str(), 1);
    else unsetenv("TAPECHECK_MUTANT");
    unsetenv("GTEST_SHARD_INDEX");  // every mutant runs the whole suite
    unsetenv("GTEST_TOTAL_SHARDS");
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  process::watchChild(child);  // an interrupt of this run ends the child's too
  started.pid = child;
  return started;
}

// Reaped and forgotten with the signals blocked: the handler never signals a reused pid.
bool reaped(pid_t child, int& status, int flags) {
  process::InterruptsBlocked reaping;
  pid_t done = waitpid(child, &status, flags);
  if (done == child) process::forgetChild(child);
  return done == child;
}

// How a started child ended, if it has (or the timeout ended it); nothing while it still runs.
std::optional<ChildRun> childEnded(const StartedChild& started, const MutantsOptions& options) {
  ChildRun run;
  if (started.pid < 0) return ChildRun{ChildRun::End::crashed, 0, 0, {}};
  int status = 0;
  const auto now = std::chrono::steady_clock::now();
  run.seconds = std::chrono::duration<double>(now - started.start).count();
  if (!reaped(started.pid, status, WNOHANG)) {
    if (run.seconds <= options.timeoutSeconds) return std::nullopt;
    kill(started.pid, SIGTERM);  // the child's handler ends its engines' trees first
    bool ended = false;
    for (int waited = 0; waited < 1000 && !(ended = reaped(started.pid, status, WNOHANG)); ++waited)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (!ended) kill(started.pid, SIGKILL), reaped(started.pid, status, 0);
    run.end = ChildRun::End::timedOut;
    return run;
  }
  if (WIFSIGNALED(status)) {
    run.end = ChildRun::End::crashed;
    run.status = WTERMSIG(status);
    return run;
  }
  run.status = WEXITSTATUS(status);
  std::ifstream in(started.json);
  if (in) run.report = nlohmann::json::parse(in, nullptr, false);
  return run;
}

// Runs the suite once per id, up to options.jobs children at a time (each run is single-threaded),
// calling `done(index, run)` in the order of `ids` as the runs end.
template <class Done>
void runChildren(const std::vector<int>& ids, const MutantsOptions& options, const std::filesystem::path& dir,
                 Done&& done) {
  std::vector<std::optional<StartedChild>> running(ids.size());
  std::vector<std::optional<ChildRun>> ended(ids.size());
  std::size_t next = 0, reported = 0, active = 0;
  const std::size_t jobs = std::max<std::size_t>(1, options.jobs);
  while (reported < ids.size()) {
    for (; active < jobs && next < ids.size(); ++next, ++active) running[next] = startChild(ids[next], options, dir);
    for (std::size_t i = reported; i < next; ++i) {
      if (!running[i]) continue;
      if (auto run = childEnded(*running[i], options)) ended[i] = std::move(run), running[i].reset(), --active;
    }
    for (; reported < ids.size() && ended[reported]; ++reported) done(reported, std::move(*ended[reported]));
    if (reported < ids.size()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Runs one child to its end.
ChildRun runChild(int id, const MutantsOptions& options, const std::filesystem::path& dir) {
  ChildRun result;
  MutantsOptions alone = options;
  alone.jobs = 1;
  runChildren({id}, alone, dir, [&](std::size_t, ChildRun run) { result = std::move(run); });
  return result;
}

//! The killer named when the run's coverage tags disagree with the hand-tagged corpus.
constexpr const char* kCorpusKiller = "coverage corpus";
constexpr const char* kAccuracyWitnessKiller = "accuracy witnesses";

//! What a mutant's run showed.
struct Verdict {
  const mutants::MutantInfo* info = nullptr;
  ChildRun run;
  std::set<std::string> killers;  // properties that failed, on any carrier
  double firstKillMs = 0;
  std::size_t nodes = 0, largestDimension = 0;  // of the first counterexample
  bool killed() const { return !killers.empty(); }
  std::string outcome() const {
    if (run.end == ChildRun::End::timedOut) return "timed out";
    if (run.end == ChildRun::End::crashed) return fmt::format("crashed (signal {})", run.status);
    if (!run.report.is_object()) return fmt::format("no report (exit {})", run.status);
    if (killers.size() == 1 && killers.count(kCorpusKiller)) return "killed (coverage tags wrong)";
    if (killers.size() == 1 && killers.count(kAccuracyWitnessKiller)) return "killed (accuracy oracle wrong)";
    return killed() ? "killed" : "SURVIVED";
  }
};

std::size_t largestDimensionOf(const nlohmann::json& doc, const std::string& carrier) {
  return static_cast<std::size_t>(withCarrier(carrier, [&]<class T>() -> int {
    auto loaded = parseCase<T>(doc.dump());
    std::size_t largest = 0;
    if (loaded)
      for (std::size_t p = 0; p < loaded->graph.positionCount(); ++p)
        for (auto d : loaded->graph.shapeAt(p)) largest = std::max<std::size_t>(largest, d);
    return static_cast<int>(largest);
  }));
}

Verdict judge(const mutants::MutantInfo& info, ChildRun run) {
  Verdict v{&info, std::move(run), {}, 0, 0, 0};
  if (!v.run.report.is_object()) return v;
  double elapsed = 0;
  bool first = true;
  // A run whose coverage tags disagree with the hand-tagged corpus fails though no row does.
  if (!v.run.report.value("coverage_tag_faults", nlohmann::json::array()).empty()) v.killers.insert(kCorpusKiller);
  // So does one whose accuracy oracle misjudges its own witnesses (a budget loosened).
  if (!v.run.report.value("accuracy_oracle_faults", nlohmann::json::array()).empty()) v.killers.insert(kAccuracyWitnessKiller);
  for (const auto& row : v.run.report.value("results", nlohmann::json::array())) {
    elapsed += row.value("ms", 0.0);
    if (row.value("result", "") != "fail") continue;
    v.killers.insert(row.value("property", "?"));
    if (!first) continue;
    first = false;
    v.firstKillMs = elapsed;
    const nlohmann::json shrunk = row.value("failure", nlohmann::json::object()).value("case", nlohmann::json::object());
    v.nodes = shrunk.value("nodes", nlohmann::json::array()).size();
    std::string carrier = row.value("carrier", "rational");
    if (std::find(kCarrierNames.begin(), kCarrierNames.end(), carrier) != kCarrierNames.end())
      v.largestDimension = largestDimensionOf(shrunk, carrier);
  }
  return v;
}

//! The mutants --only names (ids or names, comma-separated), or all; the first item that names no
//! mutant is the error.
Result<std::vector<int>> chosenIds(const MutantsOptions& options) {
  std::vector<int> ids;
  if (options.only.empty()) {
    for (const auto& m : mutants::all()) ids.push_back(m.id);
    return ids;
  }
  std::stringstream list(options.only);
  for (std::string item; std::getline(list, item, ',');) {
    std::optional<int> id = mutants::idOf(item);
    if (!id)
      return fail(fmt::format("mutants: no mutant {} (an id from 1 to {}, or a name such as {})", quote(item),
                              mutants::all().size(), mutants::all().front().name));
    ids.push_back(*id);
  }
  return ids;
}

void printMatrix(const std::vector<Verdict>& verdicts, const std::vector<std::string>& properties) {
  fmt::print("\nkill matrix (x: the property failed on some carrier)\n");
  for (std::size_t i = 0; i < properties.size(); ++i) fmt::print("  P{:<2} {}\n", i + 1, properties[i]);
  fmt::print("\n{:>3} {:<34}", "id", "mutant");
  for (std::size_t i = 0; i < properties.size(); ++i) fmt::print(" P{:<2}", i + 1);
  fmt::print(" {:>10} {:>6} {:>4}  {}\n", "first kill", "nodes", "dim", "outcome");
  for (const Verdict& v : verdicts) {
    fmt::print("{:>3} {:<34}", v.info->id, v.info->name);
    for (const std::string& p : properties) fmt::print(" {:<3}", v.killers.count(p) ? " x" : " .");
    if (v.killed()) fmt::print(" {:>8.0f}ms {:>6} {:>4}  {}\n", v.firstKillMs, v.nodes, v.largestDimension, v.outcome());
    else fmt::print(" {:>10} {:>6} {:>4}  {}\n", "-", "-", "-", v.outcome());
  }
}

}  // namespace

int runMutants(const MutantsOptions& options) {
  auto all = mutants::all();
  Result<std::vector<int>> chosen = chosenIds(options);
  if (!chosen) return report(kUsage, chosen.error().message);
  const std::vector<int>& ids = *chosen;
  //! The children's reports and counterexamples, removed however the command ends.
  struct ScratchDirectory {
    std::filesystem::path path = std::filesystem::temp_directory_path() / fmt::format("tapecheck-mutants-{}", getpid());
    ScratchDirectory() { std::filesystem::create_directories(path); }
    ~ScratchDirectory() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } scratch;
  const std::filesystem::path& dir = scratch.path;
  if (options.format == "text")
    fmt::print("tapecheck mutants: the default suite ({} cases per property, seed {}) once per mutant, timeout {:g} s\n",
               options.cases, options.seed, options.timeoutSeconds);
  ChildRun baseline = runChild(0, options, dir);
  if (baseline.end != ChildRun::End::finished || baseline.status != 0)
    return report(kFailed, "mutants: the suite does not pass without a mutant; fix that first");
  std::vector<std::string> properties;
  for (const auto& row : baseline.report.value("results", nlohmann::json::array()))
    if (std::string name = row.value("property", "?"); std::find(properties.begin(), properties.end(), name) == properties.end())
      properties.push_back(name);
  std::vector<Verdict> verdicts;
  runChildren(ids, options, dir, [&](std::size_t index, ChildRun run) {
    const int id = ids[index];
    auto info = std::find_if(all.begin(), all.end(), [&](const auto& m) { return m.id == id; });
    verdicts.push_back(judge(*info, std::move(run)));
    if (options.format == "text") {
      fmt::print("  mutant {:>2} {:<34} {}\n", id, info->name, verdicts.back().outcome());
      std::fflush(stdout);
    }
  });
  std::size_t killed = 0, small = 0;
  std::map<std::size_t, std::size_t> byNodes;
  for (const Verdict& v : verdicts) {
    if (!v.killed()) continue;
    ++killed;
    ++byNodes[v.nodes];
    small += v.nodes <= 3 && v.largestDimension <= 3;
  }
  if (options.format == "text") {
    printMatrix(verdicts, properties);
    fmt::print("\nshrunk counterexamples (first kill): ");
    for (const auto& [nodes, count] : byNodes) fmt::print("{} with {} node{}; ", count, nodes, nodes == 1 ? "" : "s");
    fmt::print("\n{} of {} kills have at most 3 nodes and dimensions at most 3\n", small, killed);
    fmt::print("{} mutants, {} killed{}\n", verdicts.size(), killed,
               killed == verdicts.size() ? "" : fmt::format(", {} not killed", verdicts.size() - killed));
  } else {
    nlohmann::json list = nlohmann::json::array();
    for (const Verdict& v : verdicts)
      list.push_back({{"id", v.info->id}, {"name", v.info->name}, {"category", v.info->category},
                      {"site", v.info->site}, {"outcome", v.outcome()}, {"killed_by", v.killers},
                      {"first_kill_ms", v.firstKillMs}, {"nodes", v.nodes}, {"largest_dimension", v.largestDimension},
                      {"seconds", v.run.seconds}});
    for (const auto& entry : list) fmt::print("{}\n", entry.dump());
    fmt::print("{}\n", nlohmann::json{{"total", verdicts.size()}, {"killed", killed}, {"small_kills", small},
                                      {"cases", options.cases}, {"seed", options.seed}}.dump());
  }
  return killed == verdicts.size() ? kSuccess : kFailed;
}

}  // namespace tc::cli

#endif
