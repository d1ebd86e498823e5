// The ingest pipeline over real HTTP on loopback: conditional fetches of an
// unchanged page, sources fetched at once, and a stalled host bounded by the
// fetch deadline without holding up the others.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "engine/store.h"
#include "ingest/pipeline.h"
#include "schema/schema.h"
#include "tests/ingest/http_server.h"

namespace chipkg {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using testing::HttpRequest;
using testing::HttpResponse;
using testing::HttpServer;

std::string SeedText(const std::string& name) {
  std::ifstream in(fs::path(CHIPKG_SOURCE_DIR) / "datasets" / "seeds" / name, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class PipelineHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = fs::temp_directory_path() / ("chipkg-pipeline-http-" + std::to_string(rd()));
    fs::create_directories(dir_);
    auto schema = Schema::LoadDirectory(std::string(CHIPKG_SOURCE_DIR) + "/schema");
    ASSERT_TRUE(schema.ok()) << schema.status().message();
    schema_ = std::make_unique<Schema>(std::move(*schema));
    auto store = Store::Open((dir_ / "store").string());
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(*store);
    options_.fetch.proxy = "";  // loopback only, whatever the environment says
    options_.fetch.base_backoff = milliseconds(50);
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }

  fs::path dir_;
  std::unique_ptr<Schema> schema_;
  std::unique_ptr<Store> store_;
  IngestOptions options_;
};

// The page's validators are kept with the document: the next run asks with
// If-None-Match, gets 304 and stores nothing.
TEST_F(PipelineHttpTest, AnUnchangedPageIsAskedForConditionallyAndCostsNothing) {
  const std::string page = SeedText("003_d5e7e28472882ec2.txt");
  std::atomic<int> not_modified{0};
  HttpServer server([&](const HttpRequest& request, int) {
    if (request.Header("If-None-Match") == "\"v1\"") {
      ++not_modified;
      HttpResponse r;
      r.status = 304;
      r.reason = "Not Modified";
      return r;
    }
    HttpResponse r;
    r.body = page;
    r.headers = {{"ETag", "\"v1\""}, {"Content-Type", "text/plain; charset=utf-8"}};
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  SourceSpec spec;
  spec.location = server.Url("/trainium2");
  spec.kind = "press";
  spec.site = "chip-catalog.example";

  auto first = IngestSources(*store_, *schema_, {spec}, options_);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->documents_new, 1u) << first->sources[0].error;
  EXPECT_GT(first->facts_added, 10u);
  auto doc = store_->GetDocument(spec.location);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->etag, "\"v1\"");

  auto second = IngestSources(*store_, *schema_, {spec}, options_);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->documents_unchanged, 1u) << second->sources[0].error;
  EXPECT_EQ(second->facts_added + second->facts_retracted, 0u);
  EXPECT_EQ(not_modified.load(), 1);
  EXPECT_EQ(server.request_count(), 2u);
}

// Three stalled URLs and a good one: each stalled one fails after the fetch
// deadline naming it; fetched at once, they cost the run about one deadline,
// not three; the good page is stored; the report keeps the sources' order.
TEST_F(PipelineHttpTest, StalledHostsCostOneDeadlineAndDoNotHoldUpTheOthers) {
  const std::string page = SeedText("003_d5e7e28472882ec2.txt");
  HttpServer server([&](const HttpRequest& request, int) {
    HttpResponse r;
    if (request.target.rfind("/stalled", 0) == 0) {
      r.delay = milliseconds(30'000);
      r.body = "never";
    } else {
      r.body = page;
    }
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  std::vector<SourceSpec> specs;
  for (const char* path : {"/stalled-1", "/stalled-2", "/page", "/stalled-3"}) {
    SourceSpec spec;
    spec.location = server.Url(path);
    spec.kind = "press";
    spec.site = "chip-catalog.example";
    specs.push_back(spec);
  }
  options_.fetch.deadline = milliseconds(1500);
  options_.fetch.max_retries = 0;
  options_.parallel_fetches = 4;
  const auto start = std::chrono::steady_clock::now();
  auto report = IngestSources(*store_, *schema_, specs, options_);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->sources.size(), 4u);
  for (size_t i = 0; i < specs.size(); ++i) EXPECT_EQ(report->sources[i].location, specs[i].location);
  EXPECT_EQ(report->documents_failed, 3u);
  EXPECT_EQ(report->documents_new, 1u);
  EXPECT_EQ(report->sources[2].state, SourceOutcome::State::kNew) << report->sources[2].error;
  for (size_t i : {0u, 1u, 3u}) {
    const std::string& error = report->sources[i].error;
    EXPECT_EQ(error.rfind(specs[i].location + ": timed out after ", 0), 0u) << error;
    EXPECT_NE(error.find("the fetch's deadline is 1500 ms"), std::string::npos) << error;
  }
  EXPECT_LT(elapsed, milliseconds(4000));  // one after another: at least 4.5 s
  EXPECT_GE(elapsed, milliseconds(1400));
  auto facts = store_->FactsFromDocument(specs[2].location);
  ASSERT_TRUE(facts.ok());
  EXPECT_GT(facts->size(), 10u);
  EXPECT_FALSE(store_->GetDocument(specs[0].location).ok());
}

// How many fetches are in flight at once is what parallel_fetches says, and
// either way every page is stored.
TEST_F(PipelineHttpTest, ParallelFetchesBoundsTheFetchesInFlight) {
  const std::string page = SeedText("000_de7815fa348ea8df.txt");
  std::atomic<int> in_flight{0}, most{0};
  HttpServer server([&](const HttpRequest&, int) {
    const int now = ++in_flight;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(milliseconds(300));
    --in_flight;
    HttpResponse r;
    r.body = page;
    return r;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  for (int parallel : {1, 3}) {
    SCOPED_TRACE(parallel);
    std::vector<SourceSpec> specs;
    for (const char* path : {"/a", "/b", "/c", "/d", "/e", "/f"}) {
      SourceSpec spec;
      spec.location = server.Url(std::string(path) + "?p=" + std::to_string(parallel));
      spec.kind = "press";
      spec.site = "chip-catalog.example";
      specs.push_back(spec);
    }
    most = 0;
    options_.parallel_fetches = parallel;
    auto report = IngestSources(*store_, *schema_, specs, options_);
    ASSERT_TRUE(report.ok()) << report.status().message();
    EXPECT_EQ(report->documents_new, 6u);
    if (parallel == 1) {
      EXPECT_EQ(most.load(), 1);
    } else {
      EXPECT_GE(most.load(), 2);  // six fetches of 300 ms; at most three at once
      EXPECT_LE(most.load(), 3);
    }
    for (const auto& s : specs) {
      auto facts = store_->FactsFromDocument(s.location);
      ASSERT_TRUE(facts.ok());
      EXPECT_GT(facts->size(), 10u) << s.location;
    }
  }

  options_.parallel_fetches = 0;
  EXPECT_TRUE(IngestSources(*store_, *schema_, {}, options_).status().IsInvalidArgument());
}

}  // namespace
}  // namespace chipkg
