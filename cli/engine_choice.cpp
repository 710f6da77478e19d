#include "cli/engine_choice.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "core/carriers/dispatch.h"
#include "core/support/text.h"

namespace tc::cli {
namespace {

// The exit status of an isolated engine's process after its engine threw.
constexpr int kEngineThrew = 70;

// Runs a server in the forked copy; an exception from the engine ends the copy with what it threw
// as the last line on standard error, which the verdict quotes.
template <class Serve>
int serveReportingExceptions(Serve&& serve) {
  try {
    return serve();
  } catch (const std::exception& thrown) {
    std::fprintf(stderr, "engine threw: %s\n", thrown.what());
  } catch (...) {
    std::fprintf(stderr, "engine threw an exception that is not a std::exception\n");
  }
  return kEngineThrew;
}

// Starts a forked copy of this program that serves the engine (docs/engine-protocol.md).
process::Launcher forkServing(const std::string& builtinName, const NamedEngine* registered) {
  return [builtinName, registered] {
    return process::ChildProcess::fork([&](int in, std::FILE* out) {
      return serveReportingExceptions([&] {
        return serveEngine(builtinName, registered, in, out);
      });
    });
  };
}

}  // namespace

int serveEngine(const std::string& builtinName, const NamedEngine* registered, int in, std::FILE* out,
                const process::ServeLimits& limits) {
  if (!registered) return process::serve(builtinName, in, out, limits);
  return process::serve(registered->profile, props::policyName(registered->policy), registered->engines, in, out,
                        limits);
}

namespace {

bool isBuiltin(std::string_view name) {
  return std::find(std::begin(kBuiltinEngineNames), std::end(kBuiltinEngineNames), name) != std::end(kBuiltinEngineNames);
}

}  // namespace

std::string shellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string shellWord(const std::string& text) {
  const bool plain = !text.empty() && std::ranges::all_of(text, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_./:=@%+,-").find(c) != std::string_view::npos;
  });
  return plain ? text : shellQuote(text);
}

Result<std::unique_ptr<EngineSource>> EngineSource::open(const EngineChoice& choice, const EngineCatalog& catalog) {
  if (!choice.command.empty() && !choice.name.empty())
    return fail("--engine and --engine-cmd name two engines; give one");
  if (!(choice.timeoutSeconds > 0) || !std::isfinite(choice.timeoutSeconds))
    return fail(fmt::format("--engine-timeout must be a positive number of seconds, got {}", choice.timeoutSeconds));
  auto source = std::make_unique<EngineSource>();
  source->timeoutSeconds_ = choice.timeoutSeconds;
  process::ProcessSettings settings;
  settings.timeout = std::chrono::milliseconds(static_cast<long long>(std::ceil(choice.timeoutSeconds * 1000)));
  if (!choice.logFile.empty()) {
    std::FILE* log = std::fopen(choice.logFile.c_str(), "w");
    if (!log) return fail(fmt::format("--engine-log: cannot write {}: {}", quote(choice.logFile), std::strerror(errno)));
    settings.log = std::shared_ptr<std::FILE>(log, std::fclose);
  }
  if (!choice.command.empty()) {
    if (choice.isolate == false) return fail("--no-isolate: an engine command always runs in a process of its own");
    source->command_ = choice.command, source->external_ = true, source->isolated_ = true;
    source->process_ = std::make_unique<process::EngineProcess>(choice.command, settings);
  } else {
    source->name_ = choice.name.empty() ? catalog.defaultName() : choice.name;
    source->registered_ = catalog.registered(source->name_);
    if (!source->registered_ && !isBuiltin(source->name_))
      return fail(fmt::format("no engine named {}; the engines are: {}", quote(source->name_), fmt::join(catalog.names(), ", ")));
    source->external_ = source->registered_ != nullptr;
    source->isolated_ = choice.isolate.value_or(source->external_);
    if (source->registered_) source->registeredHello_ = process::Hello{source->registered_->profile, source->registered_->policy};
    if (!source->isolated_) {
      if (settings.log) return fail("--engine-log records an engine in another process: --engine-cmd, or --isolate");
      return source;
    }
    source->process_ = std::make_unique<process::EngineProcess>(
        source->name_ + " (isolated)", forkServing(source->name_, source->registered_), settings);
  }
  try {
    const process::Hello& hello = source->process_->hello();
    if (!source->command_.empty()) source->name_ = hello.profile.name;
  } catch (const process::ProtocolError& error) {
    return fail(error.what());
  }
  std::apply([&](auto&... engines) {
    ((engines = std::make_unique<typename std::remove_reference_t<decltype(engines)>::element_type>(*source->process_)), ...);
  }, source->engines_);
  return source;
}

bool EngineSource::runsOn(std::string_view carrier) const {
  if (!registered_) return true;
  return withCarrier(std::string(carrier), [&]<class T>() { return registered_->engines.get<T>() != nullptr; });
}

const process::Hello* EngineSource::hello() const {
  if (process_) return &process_->hello();
  return registeredHello_ ? &*registeredHello_ : nullptr;
}

std::string EngineSource::flags() const {
  if (command_.empty())
    return fmt::format("--engine {}{}", name_, isolated_ == external_ ? "" : isolated_ ? " --isolate" : " --no-isolate");
  std::string flags = "--engine-cmd " + shellQuote(command_);
  if (timeoutSeconds_ != 10) flags += fmt::format(" --engine-timeout {:g}", timeoutSeconds_);
  return flags;
}

std::string EngineSource::description() const {
  if (command_.empty()) return isolated_ ? name_ + " (isolated)" : name_;
  return fmt::format("{} ({})", shellQuote(command_), process_->hello().profile.name);
}

EngineCatalog::EngineCatalog(std::vector<NamedEngine> registered) : registered_(std::move(registered)) {
  for (std::size_t k = 0; k < registered_.size(); ++k) {
    assert(!isBuiltin(registered_[k].name) && "a registered engine's name must not be a built-in engine's");
    for (std::size_t j = 0; j < k; ++j) assert(registered_[j].name != registered_[k].name && "engine names are unique");
  }
}

std::vector<std::string> EngineCatalog::names() const {
  std::vector<std::string> names;
  for (const NamedEngine& engine : registered_) names.push_back(engine.name);
  for (std::string_view name : kBuiltinEngineNames) names.emplace_back(name);
  return names;
}

const NamedEngine* EngineCatalog::registered(std::string_view name) const {
  for (const NamedEngine& engine : registered_)
    if (engine.name == name) return &engine;
  return nullptr;
}

std::string EngineCatalog::defaultName() const { return registered_.empty() ? "compiled" : registered_.front().name; }

}  // namespace tc::cli
