// `chipkg import --corpus DIR` on a real generated corpus (tools/bench/gen.py,
// N=60, through python3), then the five peer-benchmark queries through the
// real `chipkg query` command, each answer's row count checked against the
// generator's own params.json, and the refusals (a second import, a missing
// corpus) with their exit codes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

struct CommandRun {
  int code = -1;
  std::string out, err;
};

class ImportCorpusTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::random_device rd;
    root_ = new fs::path(fs::temp_directory_path() /
                         ("chipkg-import-corpus-" + std::to_string(::getpid()) + "-" + std::to_string(rd())));
    fs::create_directories(*root_);
    const std::string gen = "python3 " + Quote(std::string(CHIPKG_SOURCE_DIR) + "/tools/bench/gen.py") + " 60 " +
                            Quote((*root_ / "corpus").string()) + " > /dev/null";
    ASSERT_EQ(std::system(gen.c_str()), 0) << gen;
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*root_, ec);
    delete root_;
  }

  static CommandRun Chipkg(const std::string& store, const std::string& args) {
    const fs::path out = *root_ / "out.txt", err = *root_ / "err.txt";
    const std::string cmd = "CHIPKG_SCHEMA_DIR=" + Quote(std::string(CHIPKG_SOURCE_DIR) + "/schema") + " " +
                            Quote(CHIPKG_BINARY) + " --db " + Quote(store) + " " + args + " > " +
                            Quote(out.string()) + " 2> " + Quote(err.string());
    const int status = std::system(cmd.c_str());
    CommandRun r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = ReadFile(out);
    r.err = ReadFile(err);
    return r;
  }

  static nlohmann::json Params() { return nlohmann::json::parse(ReadFile(*root_ / "corpus" / "params.json")); }

  static fs::path* root_;
};

fs::path* ImportCorpusTest::root_ = nullptr;

TEST_F(ImportCorpusTest, ImportsTheCorpusAndAnswersTheFiveQueriesWithTheGeneratorsCounts) {
  const std::string store = (*root_ / "store").string();
  const nlohmann::json p = Params();
  CommandRun imported = Chipkg(store, "import --corpus " + Quote((*root_ / "corpus").string()));
  ASSERT_EQ(imported.code, 0) << imported.err;
  EXPECT_NE(imported.err.find("imported " + std::to_string(p["stats"]["fact_assertions"].get<long>()) + " facts"),
            std::string::npos)
      << imported.err;

  const std::string queries[5] = {
      "facts about \"" + p["q1_chip"].get<std::string>() + "\"",
      "find chip where memory >= " + std::to_string(p["q2_min_gb"].get<int>()) + " GB with evidence",
      "find chip where fits(\"" + p["q3_model"].get<std::string>() + "\", int4) with evidence",
      "facts from document \"" + p["q4_source"].get<std::string>() + "\"",
      "conflicts in chip tolerance 0% ignoring not_published",
  };
  for (int q = 0; q < 5; ++q) {
    SCOPED_TRACE(queries[q]);
    CommandRun r = Chipkg(store, "query --format json " + Quote(queries[q]));
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json answer = nlohmann::json::parse(r.out);
    const std::string name = "Q" + std::to_string(q + 1);
    ASSERT_TRUE(answer.contains("rows"));
    EXPECT_EQ(answer["rows"].size(), p["expected_rows"][name].get<size_t>()) << name;
    // Every row carries its source: the citations name documents of the corpus with their excerpts.
    ASSERT_FALSE(answer["citations"].empty());
    const nlohmann::json& first = answer["citations"][0];
    EXPECT_EQ(first["document"]["id"].get<std::string>().rfind("src:", 0), 0u) << first.dump();
    EXPECT_FALSE(first["excerpt"].get<std::string>().empty()) << first.dump();
  }
}

// CHIPKG_TIMINGS=1 splits the import's time into its passes (stderr), as it does for queries.
TEST_F(ImportCorpusTest, TimingsOnRequest) {
  setenv("CHIPKG_TIMINGS", "1", 1);
  CommandRun timed = Chipkg((*root_ / "store-timed").string(), "import --corpus " + Quote((*root_ / "corpus").string()));
  unsetenv("CHIPKG_TIMINGS");
  ASSERT_EQ(timed.code, 0) << timed.err;
  for (const char* part : {"chipkg timings: first pass ", " s, facts ", " s, finish "}) {
    EXPECT_NE(timed.err.find(part), std::string::npos) << part << " missing from: " << timed.err;
  }
  CommandRun quiet = Chipkg((*root_ / "store-quiet").string(), "import --corpus " + Quote((*root_ / "corpus").string()));
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("chipkg timings"), std::string::npos) << quiet.err;
}

TEST_F(ImportCorpusTest, RefusesANonEmptyStoreAndAMissingCorpus) {
  const std::string store = (*root_ / "store-twice").string();
  const std::string corpus = Quote((*root_ / "corpus").string());
  ASSERT_EQ(Chipkg(store, "import --corpus " + corpus).code, 0);
  CommandRun again = Chipkg(store, "import --corpus " + corpus);
  EXPECT_EQ(again.code, 1);
  EXPECT_NE(again.err.find("is not empty"), std::string::npos) << again.err;

  CommandRun missing = Chipkg((*root_ / "store-missing").string(), "import --corpus " + Quote((*root_ / "nope").string()));
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("nope/sources.jsonl: No such file"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(*root_ / "store-missing")) << "a store was created for a corpus that is not there";
}

// `import FILE` given the corpus directory (an easy slip) says so and points
// at --corpus, and creates no store; a missing file names the reason.
TEST_F(ImportCorpusTest, ImportOfADirectoryOrAMissingFileSaysWhatItIs) {
  const fs::path store = *root_ / "store-from-directory";
  CommandRun dir = Chipkg(store.string(), "import " + Quote((*root_ / "corpus").string()));
  EXPECT_EQ(dir.code, 2) << dir.err;
  EXPECT_NE(dir.err.find("corpus is a directory"), std::string::npos) << dir.err;
  EXPECT_NE(dir.err.find("chipkg import --corpus " + (*root_ / "corpus").string()), std::string::npos) << dir.err;
  EXPECT_FALSE(fs::exists(store)) << "a store was created for an import that could not start";

  // An export cut short fails, and the store created for it is removed again:
  // a failed import writes nothing, so nothing is lost, and a retry starts clean.
  const fs::path cut = *root_ / "cut.jsonl";
  std::ofstream(cut) << R"({"type":"format","format":"chipkg-store 1","end_record":true})" << "\n";
  CommandRun cut_short = Chipkg(store.string(), "import " + Quote(cut.string()));
  EXPECT_EQ(cut_short.code, 1) << cut_short.err;
  EXPECT_NE(cut_short.err.find("it was cut short"), std::string::npos) << cut_short.err;
  EXPECT_FALSE(fs::exists(store)) << "the store created for a failed import was left behind";
  fs::create_directories(store);
  EXPECT_EQ(Chipkg(store.string(), "import " + Quote(cut.string())).code, 1);
  EXPECT_TRUE(fs::exists(store) && fs::is_empty(store)) << "a directory made ahead of time is kept, empty";
  fs::remove(store);

  CommandRun missing = Chipkg(store.string(), "import " + Quote((*root_ / "no-such-export.jsonl").string()));
  EXPECT_EQ(missing.code, 1) << missing.err;
  EXPECT_NE(missing.err.find("cannot read " + (*root_ / "no-such-export.jsonl").string() + ": No such file"),
            std::string::npos)
      << missing.err;
  EXPECT_FALSE(fs::exists(store));
}

}  // namespace
