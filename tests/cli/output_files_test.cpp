// The files a run writes (cli/output_files.h): whole or not at all, only regular files (a device,
// a pipe, a link is refused and left as it was), through a temporary no one can plant, and a bad
// path refused with the system's reason before any work (docs/threat-model.md §3).
#include "cli/output_files.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
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
  EXPECT_EQ(checkFilePath("--json", dir.string()).error().message,
            "--json: '" + dir.string() + "' is a directory; tapecheck writes only a regular file or a new one");
  EXPECT_NE(checkFilePath("--junit", (dir / "missing" / "x.xml").string()).error().message.find("does not exist"),
            std::string::npos);
  EXPECT_NE(checkDirectoryPath("--save-failures", (dir / "plain" / "sub").string()).error().message.find("is not a directory"),
            std::string::npos);
  EXPECT_TRUE(checkFilePath("--json", (dir / "new.json").string()));
  EXPECT_TRUE(checkDirectoryPath("--save-failures", (dir / "a" / "b").string()));
  EXPECT_FALSE(fs::exists(dir / "a")) << "checking creates nothing";
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1) << "and leaves nothing behind";
}

// A name longer than the file system allows is found before the run, not when the report is written.
TEST(OutputFiles, ANameTooLongIsRefusedBeforeTheRun) {
  fs::path dir = freshDirectory("too_long");
  const std::string longName(300, 'n');
  auto file = checkFilePath("--json", (dir / std::string(longName).append(".json")).string());
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().message.find("is longer than 255 bytes"), std::string::npos) << file.error().message;
  auto folder = checkDirectoryPath("--save-failures", (dir / longName / "sub").string());
  ASSERT_FALSE(folder);
  EXPECT_NE(folder.error().message.find("is longer than 255 bytes"), std::string::npos) << folder.error().message;
  auto deep = checkFilePath("--junit", (dir / "missing" / "report.xml").string());
  ASSERT_FALSE(deep);
  EXPECT_NE(deep.error().message.find("does not exist"), std::string::npos) << deep.error().message;
}

// A path names a regular file or nothing: a named pipe, a device, a link or a directory is refused,
// by the check before the run and by the write itself, and left as it was.
TEST(OutputFiles, WhatIsNotARegularFileIsRefusedAndLeftAsItWas) {
  fs::path dir = freshDirectory("not_regular");
  const fs::path fifo = dir / "report.fifo", target = dir / "target.json", link = dir / "link.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  std::ofstream(target) << "the target";
  fs::create_symlink(target, link);
  for (const auto& [path, kind] : {std::pair<fs::path, std::string>{fifo, "a named pipe (FIFO)"},
                                   {link, "a symbolic link"},
                                   {fs::path("/dev/null"), "a character device"}}) {
    auto checked = checkFilePath("--junit", path.string());
    ASSERT_FALSE(checked) << path;
    EXPECT_EQ(checked.error().message.find("--junit: '" + path.string() + "' is " + kind +
                                          "; tapecheck writes only a regular file or a new one"),
              0u)
        << checked.error().message;
  }
  // The write refuses too (a path that changed after the check); /dev/null is left to the check,
  // so that a broken write can never replace it when the tests run as root.
  for (const fs::path& path : {fifo, link}) {
    auto written = writeWhole(path.string(), "report");
    ASSERT_FALSE(written) << path;
    EXPECT_NE(written.error().message.find("writes only a regular file"), std::string::npos) << written.error().message;
  }
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(contents(target), "the target");
  EXPECT_TRUE(fs::is_character_file(fs::symlink_status("/dev/null")));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 3) << "no temporary left";
}

// The temporary is created with O_EXCL and O_NOFOLLOW under a random name: a link planted where the
// old predictable name (".<name>.tmp-<pid>") would have been is neither followed nor replaced.
TEST(OutputFiles, ALinkPlantedAtTheOldTemporaryNameIsNotFollowed) {
  fs::path dir = freshDirectory("planted");
  const fs::path victim = dir / "victim.txt", file = dir / "report.json";
  std::ofstream(victim) << "the victim's data";
  const fs::path planted = dir / (".report.json.tmp-" + std::to_string(::getpid()));
  fs::create_symlink(victim, planted);
  ASSERT_TRUE(writeWhole(file.string(), "the report"));
  EXPECT_EQ(contents(victim), "the victim's data");
  EXPECT_EQ(contents(file), "the report");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(file)));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(planted)));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 3) << "no temporary left";
}

// A file replaced keeps its permissions.
TEST(OutputFiles, AReplacedFileKeepsItsPermissions) {
  fs::path dir = freshDirectory("permissions");
  const fs::path file = dir / "report.json";
  ASSERT_TRUE(writeWhole(file.string(), "old"));
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  ASSERT_TRUE(writeWhole(file.string(), "new"));
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
}

}  // namespace
}  // namespace tc::cli
