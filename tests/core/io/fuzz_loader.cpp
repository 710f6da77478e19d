// A standalone fuzz driver for the file loader (not part of the CMake build).
//
// Every input goes to tc::parseCase for the rational, modp and double carriers; the driver
// reports an input as a finding when an exception escapes, when an error message is empty or
// spans lines, or when one call takes longer than --slow-ms. A loaded case is also written and
// read back, and must read back.
//
// Mutation mode (the default):
//   g++ -std=c++23 -O2 -g -I. tests/core/io/fuzz_loader.cpp build-loader/libtapecheck_core.a -lfmt -lgmp
//       -o build-loader/fuzz_loader
//   build-loader/fuzz_loader [--runs N] [--seed S] [--slow-ms MS] [--max-mb MB] [--out DIR] FILE...
//   (the files are the seed corpus, e.g. examples/graphs/*.json tests/core/io/malformed/*.json; with
//   --runs 0 each file is only checked once; findings are saved to DIR, default ./fuzz-findings)
//
// libFuzzer mode (clang):
//   clang++ -std=c++2b -O1 -g -fsanitize=fuzzer,address -DTAPECHECK_LIBFUZZER -I.
//       tests/core/io/fuzz_loader.cpp <core sources built with the same flags> -lfmt -lgmp
//   (untested here: the core needs C++23 <expected>, which clang 14 with libstdc++ 12 lacks)
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/carriers/carrier.h"
#include "core/io/case_file.h"

namespace {

struct Finding {
  std::string what;  // empty: none
};

//! Control characters and non-ASCII bytes as \xNN, at most `limit` characters.
std::string printable(std::string_view text, std::size_t limit = 300) {
  std::string out;
  for (char ch : text.substr(0, limit)) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
      out += buffer;
    }
  }
  return text.size() > limit ? out + "..." : out;
}

bool oneLine(const std::string& m) { return !m.empty() && m.find_first_of("\n\r") == std::string::npos; }

template <class T>
Finding checkOne(std::string_view text, double slowMs) {
  auto start = std::chrono::steady_clock::now();
  try {
    auto loaded = tc::parseCase<T>(text);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::string carrier(tc::Carrier<T>::name);
    if (ms > slowMs) return {carrier + ": slow (" + std::to_string(ms) + " ms)"};
    if (!loaded) {
      if (!oneLine(loaded.error().message)) return {carrier + ": message is not one line: " + loaded.error().message};
      return {};
    }
    auto again = tc::parseCase<T>(tc::writeCase(*loaded));
    if (!again) return {carrier + ": written case does not read back: " + again.error().message};
    return {};
  } catch (const std::bad_alloc&) {
    return {std::string(tc::Carrier<T>::name) + ": std::bad_alloc escaped (memory limit, see --max-mb)"};
  } catch (const std::exception& e) {
    return {std::string(tc::Carrier<T>::name) + ": exception escaped: " + e.what()};
  }
}

Finding checkAll(std::string_view text, double slowMs) {
  for (Finding f : {checkOne<tc::Rational>(text, slowMs), checkOne<tc::ModP>(text, slowMs),
                    checkOne<double>(text, slowMs)})
    if (!f.what.empty()) return f;
  return {};
}

}  // namespace

#ifdef TAPECHECK_LIBFUZZER

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Finding f = checkAll(std::string_view(reinterpret_cast<const char*>(data), size), 1e9);
  if (!f.what.empty()) {
    std::fprintf(stderr, "finding: %s\n", printable(f.what).c_str());
    std::abort();
  }
  return 0;
}

#else

namespace {

std::string mutate(std::string text, std::mt19937_64& rng, const std::vector<std::string>& corpus) {
  static const std::vector<std::string> tokens = {
      "0", "1", "-1", "2", "4294967296", "18446744073709551615", "1e10000", "0x1p-1074", "\"nan\"", "\"-0\"",
      "\"1/0\"", "[]", "{}", "null", "true", "\"\\n\"", "\"\\u0000\"", "[[[[[[[[]]]]]]]]", "\"const3\"", "\"twice\""};
  const std::string alphabet = "{}[]:,\"\\0123456789-+./eEpPxXnaifu \n\t";
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    std::size_t at = text.empty() ? 0 : rng() % (text.size() + 1);
    switch (rng() % 8) {
      case 0:
        if (at < text.size()) text[at] = static_cast<char>(rng() & 0xff);
        break;
      case 1: text.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      case 2:
        if (at < text.size()) text.erase(at, 1 + rng() % 8);
        break;
      case 3: text.insert(at, tokens[rng() % tokens.size()]); break;
      case 4: {  // splice a piece of another corpus entry
        const std::string& other = corpus[rng() % corpus.size()];
        if (other.empty()) break;
        std::size_t from = rng() % other.size();
        text.insert(at, other.substr(from, 1 + rng() % 64));
        break;
      }
      case 5: {  // duplicate a piece of the text
        if (text.empty()) break;
        std::size_t from = rng() % text.size();
        text.insert(at, text.substr(from, 1 + rng() % 64));
        break;
      }
      case 6: {  // replace a digit run with a token
        std::size_t d = text.find_first_of("0123456789", at);
        if (d == std::string::npos) break;
        std::size_t end = text.find_first_not_of("0123456789", d);
        text.replace(d, (end == std::string::npos ? text.size() : end) - d, tokens[rng() % 6]);
        break;
      }
      default:
        if (at < text.size()) text.resize(at);
        break;
    }
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  long runs = 100000;
  std::uint64_t seed = 1;
  double slowMs = 200;
  long maxMb = 2048;
  std::filesystem::path out = "fuzz-findings";
  std::vector<std::string> corpus;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << arg << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--runs") runs = std::stol(next());
    else if (arg == "--seed") seed = std::stoull(next());
    else if (arg == "--slow-ms") slowMs = std::stod(next());
    else if (arg == "--out") out = next();
    else if (arg == "--max-mb") maxMb = std::stol(next());
    else {
      std::ifstream in(arg, std::ios::binary);
      if (!in) {
        std::cerr << arg << ": cannot open\n";
        return 2;
      }
      std::ostringstream text;
      text << in.rdbuf();
      corpus.push_back(text.str());
    }
  }
  // A memory limit turns a runaway allocation into a std::bad_alloc finding instead of the OOM killer.
  rlimit limit{static_cast<rlim_t>(maxMb) << 20, static_cast<rlim_t>(maxMb) << 20};
  setrlimit(RLIMIT_AS, &limit);
  if (corpus.empty()) corpus.push_back(R"({"tapecheck": 1, "inputs": [{"shape": [2]}]})");

  long findings = 0;
  auto report = [&](const std::string& input, const Finding& f) {
    std::filesystem::create_directories(out);
    std::filesystem::path file = out / ("finding-" + std::to_string(findings++) + ".json");
    std::ofstream(file, std::ios::binary) << input;
    std::cout << file.string() << ": " << printable(f.what) << "\n";
  };
  for (const std::string& text : corpus)
    if (Finding f = checkAll(text, slowMs); !f.what.empty()) report(text, f);
  std::mt19937_64 rng(seed);
  auto start = std::chrono::steady_clock::now();
  for (long r = 0; r < runs; ++r) {
    std::string input = mutate(corpus[rng() % corpus.size()], rng, corpus);
    if (Finding f = checkAll(input, slowMs); !f.what.empty()) report(input, f);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << runs << " mutated inputs (x3 carriers) in " << seconds << " s, " << findings << " findings\n";
  return findings == 0 ? 0 : 1;
}

#endif
