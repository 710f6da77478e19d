#include "adapters/process/engine_process.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <chrono>
#include <utility>

#include "adapters/process/json_reader.h"
#include "core/io/document_format.h"
#include "core/support/text.h"
#include "properties/engines/profile_json.h"

namespace tc::process {
namespace {

std::string secondsText(std::chrono::milliseconds timeout) { return fmt::format("{:g} s", timeout.count() / 1000.0); }

// How long one quoted line of an engine's standard error may be, and all of them together: the
// newest lines that fit are quoted, so that a crash's message stays within what reports print whole.
constexpr std::size_t kQuotedErrorLineLength = 200, kQuotedErrorBytes = 3000;

// The id of an answer line, without reading the rest; nullopt when it has none.
std::optional<std::uint64_t> answerId(std::string_view line) {
  JsonReader in(line);
  if (!in.beginObject()) return std::nullopt;
  std::string key;
  for (;;) {
    auto more = in.nextKey(key);
    if (!more || !*more) return std::nullopt;
    if (key == "id") {
      auto id = in.count();
      return id ? std::optional<std::uint64_t>(*id) : std::nullopt;
    }
    if (!in.skip()) return std::nullopt;
  }
}

}  // namespace

Result<Hello> helloFromJson(const nlohmann::json& hello) {
  if (!hello.is_object()) return fail("the hello must be a JSON object, got " + hello.dump().substr(0, 80));
  for (const auto& [key, value] : hello.items())
    if (key != "tapecheck_engine" && key != "profile" && key != "policy" && key != "cancel")
      return fail(fmt::format("hello: unknown key {}; the keys are tapecheck_engine, profile, policy, cancel", quote(key)));
  if (!hello.contains("tapecheck_engine") || !hello["tapecheck_engine"].is_number_integer())
    return fail("hello: needs \"tapecheck_engine\": 1, the protocol version (is this a tapecheck engine?)");
  if (hello["tapecheck_engine"].get<long long>() != kProtocolVersion)
    return fail(fmt::format("hello: the engine speaks protocol version {}; this tapecheck speaks version {}",
                            hello["tapecheck_engine"].dump(), kProtocolVersion));
  if (!hello.contains("profile")) return fail("hello: needs \"profile\", what the engine declares (docs/engine-protocol.md §2)");
  auto profile = profileFromJson(hello["profile"]);
  if (!profile) return fail("hello: profile: " + profile.error().message);
  Hello out{std::move(*profile), std::nullopt};
  if (hello.contains("policy")) {
    const auto& policy = hello["policy"];
    out.policy = policy.is_string() ? props::parsePolicy(policy.get<std::string>()) : std::nullopt;
    if (!out.policy || *out.policy == props::Policy::bitsAnyZeroSign)
      return fail("hello: policy: must be \"bits\" or \"values\", got " + policy.dump());
  }
  if (hello.contains("cancel")) {
    if (!hello["cancel"].is_boolean()) return fail("hello: cancel: must be true or false, got " + hello["cancel"].dump());
    out.cancels = hello["cancel"].get<bool>();
  }
  return out;
}

Result<Hello> helloFromLine(std::string_view line) {
  auto document = parseJsonDocument(line);
  if (!document)
    return fail(fmt::format("not a hello ({}): {} (standard output is the protocol's: write anything else to "
                            "standard error)",
                            document.error().message, quote(line, 80)));
  return helloFromJson(*document);
}

EngineProcess::EngineProcess(std::string command, ProcessSettings settings)
    : command_(command), launch_([command] { return ChildProcess::start(command); }), settings_(settings) {}

EngineProcess::EngineProcess(std::string label, Launcher launch, ProcessSettings settings)
    : command_(std::move(label)), launch_(std::move(launch)), settings_(settings) {}

EngineProcess::~EngineProcess() {
  if (child_) child_->stop();
}

std::string EngineProcess::where(std::size_t line) const {
  return fmt::format("engine {}, output line {}: ", quote(command_, 80), line);
}

void EngineProcess::protocolError(std::size_t line, const std::string& why) const {
  throw ProtocolError(where(line) + why);
}

const Hello& EngineProcess::hello() {
  if (!hello_) start();
  return *hello_;
}

void EngineProcess::logLine(std::string_view mark, std::string_view text) const {
  if (!settings_.log) return;
  fmt::print(settings_.log.get(), "{}{}\n", mark, text);
  std::fflush(settings_.log.get());
}

void EngineProcess::start() {
  auto child = launch_();
  if (!child) throw ProtocolError(fmt::format("cannot start engine {}: {}", quote(command_, 80), child.error().message));
  child_.emplace(std::move(*child));
  ++starts_, linesRead_ = 0;
  logLine("# ", fmt::format("start {}: {}", starts_, command_));
  // Loading an interpreter and a library (PyTorch) takes seconds on a busy machine: the hello is
  // awaited at least kHelloTimeout, whatever the timeout per answer.
  const auto helloTimeout = std::max(settings_.timeout, kHelloTimeout);
  const std::size_t maxHello = std::min(settings_.maxLine, kMaxHelloLine);
  LineOutcome first = child_->readLine(helloTimeout, maxHello);
  std::string engine = fmt::format("engine {}", quote(command_, 80));
  if (first.kind == LineOutcome::Kind::timeout)
    throw ProtocolError(fmt::format("{} gave no hello in {} (does it write one line and flush its standard output?)",
                                    engine, secondsText(helloTimeout)));
  if (first.kind == LineOutcome::Kind::exited)
    throw ProtocolError(fmt::format("{} exited before its hello: {}{}", engine, child_->exitDescription(), stderrSuffix()));
  if (first.kind == LineOutcome::Kind::tooLong)
    protocolError(1, fmt::format("the hello is longer than {} bytes (the protocol's version and a profile, one line)",
                                 maxHello));
  linesRead_ = 1;
  logLine("< ", first.line);
  auto hello = helloFromLine(first.line);
  if (!hello) protocolError(1, hello.error().message);
  if (!hello_) hello_ = std::move(*hello);
  for (Pending& request : pending_) write(request);  // what a fault left unanswered, or what waited for the start
  child_->flushInput();
}

std::chrono::milliseconds EngineProcess::slowestAnswer(std::size_t requestBytes) const {
  const auto last = std::min<std::size_t>(std::bit_width(requestBytes), slowestAnswers_.size() - 1);
  const auto slowest = *std::max_element(slowestAnswers_.begin(), slowestAnswers_.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  // No answer to a request this small yet: the slowest of any size.
  return slowest.count() > 0 ? slowest : *std::max_element(slowestAnswers_.begin(), slowestAnswers_.end());
}

std::chrono::milliseconds EngineProcess::answerTimeout(std::size_t requestBytes) const {
  if (!hung_) return settings_.timeout;
  return std::min(settings_.timeout, std::max(kLeastShortTimeout, kShortTimeoutFactor * slowestAnswer(requestBytes)));
}

std::string EngineProcess::stderrSuffix() {
  const std::vector<std::string> lines = child_->lastErrorLines(kQuotedErrorLines);
  std::vector<std::string> quoted;
  std::size_t bytes = 0;
  for (auto line = lines.rbegin(); line != lines.rend(); ++line) {
    std::string text = quote(*line, kQuotedErrorLineLength);
    if (!quoted.empty() && bytes + text.size() + 3 > kQuotedErrorBytes) break;
    bytes += text.size() + 3;
    quoted.push_back(std::move(text));
  }
  if (quoted.empty()) return "";
  std::reverse(quoted.begin(), quoted.end());
  if (quoted.size() == 1) return fmt::format(" (last line on stderr: {})", quoted.front());
  return fmt::format(" (last {} lines on stderr: {})", quoted.size(), fmt::join(quoted, " / "));
}

Fault EngineProcess::crashed(const std::string& ending) {
  Fault fault{(ending.starts_with("signal") ? "engine crashed: " : "engine exited: ") + ending +
              (child_ ? stderrSuffix() : std::string())};
  logLine("# ", "fault: " + fault.message);
  return fault;
}

void EngineProcess::sendCancel(std::size_t wireId) {
  const std::string line = fmt::format("{{\"cancel\":{}}}", wireId);
  logLine("> ", line);
  child_->send(line + '\n');
}

bool EngineProcess::cancel(std::size_t wireId) {
  sendCancel(wireId);
  LineOutcome outcome = child_->readLine(std::min(settings_.timeout, kCancelTimeout), settings_.maxLine);
  if (outcome.kind != LineOutcome::Kind::line) return false;
  logLine("< ", outcome.line);
  ++linesRead_;
  return answerId(outcome.line) == wireId;  // its answer, whatever it says: the request has timed out
}

std::string EngineProcess::faultMessage(const LineOutcome& outcome, std::chrono::milliseconds waited) {
  if (outcome.kind == LineOutcome::Kind::timeout) {
    return "no answer in " + secondsText(waited) +
           (waited < settings_.timeout
                ? fmt::format(" (shortened after an earlier hang: {}x its slowest answer to a case this size, at least {})",
                              kShortTimeoutFactor, secondsText(kLeastShortTimeout))
                : "");
  }
  return crashed(child_->exitDescription()).message;
}

std::vector<std::size_t> EngineProcess::send(const std::vector<std::string>& bodies) {
  std::vector<std::size_t> tickets;
  for (const std::string& body : bodies) {
    assert(body.size() > 2 && body.front() == '{');
    pending_.push_back({nextTicket_, body, 0, false});
    tickets.push_back(nextTicket_++);
  }
  if (!child_) {
    start();  // sends everything pending
  } else {
    for (std::size_t k = pending_.size() - bodies.size(); k < pending_.size(); ++k) write(pending_[k]);
    child_->flushInput();
  }
  return tickets;
}

void EngineProcess::write(Pending& request) {
  request.wireId = nextId_++;
  std::string line = fmt::format("{{\"id\":{},", request.wireId);
  line.append(request.body, 1);
  logLine("> ", line);
  line += '\n';
  child_->send(line);
}

void EngineProcess::forget(std::size_t ticket) {
  if (done_.erase(ticket)) return;
  for (Pending& request : pending_)
    if (request.ticket == ticket && !request.forgotten) {
      request.forgotten = true;
      // An engine that cancels need not run it: its answer ("cancelled") is read and dropped.
      if (child_ && hello_ && hello_->cancels) sendCancel(request.wireId);
    }
}

std::variant<Answer, Fault> EngineProcess::receive(std::size_t ticket) {
  for (;;) {
    if (auto found = done_.find(ticket); found != done_.end()) {
      auto reply = std::move(found->second);
      done_.erase(found);
      return reply;
    }
    assert(!pending_.empty() && "receive: a ticket that was never sent, or received twice");
    if (!child_) start();
    // Answers come in request order: the next line answers the oldest pending request.
    Pending oldest = std::move(pending_.front());
    pending_.pop_front();
    const auto waitStart = std::chrono::steady_clock::now();
    const auto timeout = answerTimeout(oldest.body.size());
    LineOutcome outcome = child_->readLine(timeout, settings_.maxLine);
    if (outcome.kind == LineOutcome::Kind::tooLong)
      protocolError(linesRead_ + 1, fmt::format("the line is longer than {} bytes", settings_.maxLine));
    std::variant<Answer, Fault> reply;
    if (outcome.kind == LineOutcome::Kind::line) {
      const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - waitStart);
      auto& slowest = slowestAnswers_[std::bit_width(oldest.body.size())];
      slowest = std::max(slowest, waited);
      logLine("< ", outcome.line);
      reply = Answer{std::move(outcome.line), ++linesRead_, oldest.wireId};
    } else if (outcome.kind == LineOutcome::Kind::timeout) {
      reply = Fault{faultMessage(outcome, timeout)};
      logLine("# ", "fault: " + std::get<Fault>(reply).message);
      ++timeouts_;
      if (timeout == settings_.timeout) ++fullTimeouts_;
      hung_ = true;
      if (!hello_->cancels || !cancel(oldest.wireId)) restart();
    } else {
      reply = Fault{faultMessage(outcome, timeout)};  // logged there
      restart();
    }
    if (!oldest.forgotten) done_.emplace(oldest.ticket, std::move(reply));
  }
}

void EngineProcess::restart() {
  child_.reset();  // killed with its process group; started again for the requests still pending
  std::erase_if(pending_, [](const Pending& request) { return request.forgotten; });  // nobody waits for these
}

std::vector<std::variant<Answer, Fault>> EngineProcess::exchange(const std::vector<std::string>& bodies) {
  std::vector<std::variant<Answer, Fault>> replies;
  for (std::size_t ticket : send(bodies)) replies.push_back(receive(ticket));
  return replies;
}

}  // namespace tc::process
