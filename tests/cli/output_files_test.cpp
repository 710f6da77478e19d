// The files a run writes (cli/output_files.h): whole or not at all, and a bad path refused with the
// system's reason before any work.
#include "cli/output_files.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tc::cli {
namespace {
namespace fs = std::filesystem;

fs::path freshDirectory(const std::string& name) {
  fs::path dir = fs::path(::testing::TempDir()) / (name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string contents(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(OutputFiles, WriteWholeReplacesTheFileAndLeavesNoTemporary) {
  fs::path dir = freshDirectory("write_whole");
  fs::path file = dir / "report.json";
  ASSERT_TRUE(writeWhole(file.string(), "old"));
  ASSERT_TRUE(writeWhole(file.string(), "new"));
  EXPECT_EQ(contents(file), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(OutputFiles, AFailedWriteKeepsThePreviousFileAndSaysWhy) {
  fs::path dir = freshDirectory("write_fails");
  fs::path file = dir / "report.json";
  ASSERT_TRUE(writeWhole(file.string(), "previous"));
  // A disk that fills up mid-write, as a file size limit (which binds root too).
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto handler = ::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 4;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  auto written = writeWhole(file.string(), "a report longer than four bytes");
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, handler);
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().message.find("File too large"), std::string::npos) << written.error().message;
  EXPECT_EQ(contents(file), "previous");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1) << "the temporary is removed";
}

TEST(OutputFiles, BadPathsAreRefusedWithTheReason) {
  fs::path dir = freshDirectory("bad_paths");
  std::ofstream(dir / "plain") << "x";
  EXPECT_EQ(checkFilePath("--json", "").error().message, "--json: the path is empty");
  EXPECT_EQ(checkFilePath("--json", dir.string()).error().message, "--json: '" + dir.string() + "' is a directory");
  EXPECT_NE(checkFilePath("--junit", (dir / "missing" / "x.xml").string()).error().message.find("does not exist"),
            std::string::npos);
  EXPECT_NE(checkDirectoryPath("--save-failures", (dir / "plain" / "sub").string()).error().message.find("is not a directory"),
            std::string::npos);
  EXPECT_TRUE(checkFilePath("--json", (dir / "new.json").string()));
  EXPECT_TRUE(checkDirectoryPath("--save-failures", (dir / "a" / "b").string()));
  EXPECT_FALSE(fs::exists(dir / "a")) << "checking creates nothing";
}

}  // namespace
}  // namespace tc::cli
