#pragma once
// Runs the tapecheck binary as a user would and captures its exit status, stdout and stderr.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

namespace tc::testing {

struct CommandRun {
  int status;
  std::string out;
  std::string err;
};

inline std::string readAll(FILE* file) {
  std::string text;
  std::array<char, 4096> buffer;
  while (std::size_t n = fread(buffer.data(), 1, buffer.size(), file)) text.append(buffer.data(), n);
  return text;
}

//! Runs a shell command line, capturing stdout and (through a file) stderr.
inline CommandRun runCommand(const std::string& commandLine) {
  // One file per process and call: ctest runs test processes in parallel.
  static int calls = 0;
  const std::string errFile =
      ::testing::TempDir() + "tapecheck_stderr_" + std::to_string(getpid()) + "_" + std::to_string(++calls) + ".txt";
  std::string command = commandLine + " 2>" + errFile;
  FILE* pipe = popen(command.c_str(), "r");
  CommandRun run{-1, readAll(pipe), {}};
  run.status = WEXITSTATUS(pclose(pipe));
  FILE* err = fopen(errFile.c_str(), "r");
  run.err = readAll(err);
  fclose(err);
  std::remove(errFile.c_str());
  return run;
}

//! Runs the tapecheck binary with `arguments`. A `run` that names no --save-failures folder gets a
//! new one of its own: a run judges the counterexamples saved in its folder first (the failure
//! database), so runs sharing the default folder would judge each other's.
inline CommandRun runTapecheck(const std::string& arguments) {
  static int runs = 0;
  // Appended rather than `std::string(TAPECHECK_BINARY) + " " + ...`, on which GCC 12 warns
  // wrongly (-Warray-bounds) when the standard headers come precompiled.
  std::string commandLine = TAPECHECK_BINARY;
  commandLine.append(" ").append(arguments);
  if (arguments.starts_with("run") && arguments.find("--save-failures") == std::string::npos)
    commandLine.append(" --save-failures ")
        .append(::testing::TempDir())
        .append("tapecheck_failures_" + std::to_string(getpid()) + "_" + std::to_string(++runs));
  return runCommand(commandLine);
}

inline std::string source(const std::string& relative) { return std::string(TAPECHECK_SOURCE_DIR) + "/" + relative; }

}  // namespace tc::testing
