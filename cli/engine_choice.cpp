#include "cli/engine_choice.h"

#include <fmt/format.h>

#include <cmath>

namespace tc::cli {

std::string shellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

Result<std::unique_ptr<EngineSource>> EngineSource::open(const EngineChoice& choice) {
  auto source = std::make_unique<EngineSource>();
  if (!choice.command.empty() && !choice.name.empty())
    return fail("--engine and --engine-cmd name two engines; give one");
  if (choice.command.empty()) {
    source->builtinName_ = choice.name.empty() ? "compiled" : choice.name;
    return source;
  }
  if (!(choice.timeoutSeconds > 0) || !std::isfinite(choice.timeoutSeconds))
    return fail(fmt::format("--engine-timeout must be a positive number of seconds, got {}", choice.timeoutSeconds));
  source->command_ = choice.command, source->timeoutSeconds_ = choice.timeoutSeconds;
  process::ProcessSettings settings;
  settings.timeout = std::chrono::milliseconds(static_cast<long long>(std::ceil(choice.timeoutSeconds * 1000)));
  source->process_ = std::make_unique<process::EngineProcess>(choice.command, settings);
  try {
    (void)source->process_->hello();
  } catch (const process::ProtocolError& error) {
    return fail(error.what());
  }
  std::apply([&](auto&... engines) {
    ((engines = std::make_unique<typename std::remove_reference_t<decltype(engines)>::element_type>(*source->process_)), ...);
  }, source->engines_);
  return source;
}

std::string EngineSource::flags() const {
  if (!process_) return "--engine " + builtinName_;
  std::string flags = "--engine-cmd " + shellQuote(command_);
  if (timeoutSeconds_ != 10) flags += fmt::format(" --engine-timeout {:g}", timeoutSeconds_);
  return flags;
}

std::string EngineSource::description() const {
  if (!process_) return builtinName_;
  return fmt::format("{} ({})", shellQuote(command_), process_->hello().profile.name);
}

}  // namespace tc::cli
