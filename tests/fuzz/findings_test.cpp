// Replays the case fuzzer's seeds and its findings (tests/fuzz/seed_dirs.txt) through the check
// the fuzzer runs, in the ordinary build: every input that once made the fuzzer report stays a test.
// Also checks that the fuzzer's dictionary names every op and attribute of the library.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/ops/library.hpp"
#include "tests/fuzz/case_fuzz.h"
#include "tests/fuzz/protocol_fuzz.h"

namespace tc {
namespace {

const std::filesystem::path kSource = TAPECHECK_SOURCE_DIR;

std::string readAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

//! The files that `list` names (each line DIR/* or DIR/*.EXT), relative to the source tree, sorted.
std::vector<std::string> corpusFiles(const std::string& list) {
  std::vector<std::string> files;
  std::istringstream lines(readAll(kSource / list));
  for (std::string line; std::getline(lines, line);) {
    const std::filesystem::path pattern = line;
    const std::string name = pattern.filename().string();
    if (!name.starts_with("*") || !std::filesystem::is_directory(kSource / pattern.parent_path())) continue;
    const std::string extension = name.substr(1);  // "" or ".json"
    for (const auto& entry : std::filesystem::directory_iterator(kSource / pattern.parent_path()))
      if (entry.is_regular_file() && (extension.empty() || entry.path().extension() == extension))
        files.push_back(std::filesystem::relative(entry.path(), kSource).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A test's name from a corpus file's path.
std::string testName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
  return name;
}

class FuzzCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzCorpus, HasNoFinding) {
  std::string text = readAll(kSource / GetParam());
  std::optional<std::string> finding = fuzz::findingIn(text);
  EXPECT_FALSE(finding.has_value()) << GetParam() << ": " << finding.value_or("");
}

INSTANTIATE_TEST_SUITE_P(SeedsAndFindings, FuzzCorpus, ::testing::ValuesIn(corpusFiles("tests/fuzz/seed_dirs.txt")),
                         testName);

// The protocol fuzzer's seeds and findings (tests/fuzz/protocol/): engines' output.
class ProtocolFuzzCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(ProtocolFuzzCorpus, HasNoFinding) {
  std::string text = readAll(kSource / GetParam());
  std::optional<std::string> finding = fuzz::protocolFindingIn(text);
  EXPECT_FALSE(finding.has_value()) << GetParam() << ": " << finding.value_or("");
}

INSTANTIATE_TEST_SUITE_P(SeedsAndFindings, ProtocolFuzzCorpus,
                         ::testing::ValuesIn(corpusFiles("tests/fuzz/protocol_seed_dirs.txt")), testName);

// The protocol fuzzer reports what it should: an answer over its case's limits is refused, so an
// input holding one is no finding, and a refusal that names no request would be.
TEST(ProtocolFuzz, AnAnswerOverTheLimitsIsRefusedNotAFinding) {
  std::string flood = R"({"id": 1, "context": [{"values": [)";
  for (int k = 0; k < 5000; ++k) flood += k ? R"(, "0")" : R"("0")";
  flood += R"(], "shape": [5000]}]})";
  EXPECT_EQ(fuzz::protocolFindingIn("{}\n" + flood), std::nullopt);
  EXPECT_EQ(fuzz::protocolFindingIn("{\"tapecheck_engine\": 2}\nnot json\n\n"), std::nullopt);
}

//! The quoted words of the dictionary's entries (`op_add="\"add\""` gives add).
std::set<std::string> dictionaryWords() {
  std::set<std::string> words;
  std::istringstream lines(readAll(kSource / "tests/fuzz/case.dict"));
  for (std::string line; std::getline(lines, line);) {
    auto open = line.find("=\"\\\"");
    auto close = line.rfind("\\\"\"");
    if (line.starts_with("#") || open == std::string::npos || close == std::string::npos || close < open + 4) continue;
    words.insert(line.substr(open + 4, close - open - 4));
  }
  return words;
}

TEST(FuzzDictionary, NamesEveryOpAndAttribute) {
  std::set<std::string> words = dictionaryWords();
  ASSERT_FALSE(words.empty());
  for (std::size_t k = 0; k < kOpCount; ++k) {
    auto kind = static_cast<OpKind>(k);
    EXPECT_TRUE(words.contains(std::string(opName(kind)))) << "op " << opName(kind);
    for (const AttrSpec<double>& attribute : ops::attributes<double>(kind))
      EXPECT_TRUE(words.contains(std::string(attribute.name))) << opName(kind) << " attribute " << attribute.name;
  }
}

}  // namespace
}  // namespace tc
