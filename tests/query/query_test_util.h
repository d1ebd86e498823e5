// Shared helpers of the query tests: temporary stores, documents written
// fact by fact through Store::WriteDocumentVersion, and the seeds store.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/store.h"
#include "ingest/pipeline.h"
#include "query/query.h"
#include "schema/schema.h"
#include "tests/common/temp_dir.h"

namespace chipkg::query::testing {

class TempDir : public test_support::TempDir {
 public:
  TempDir() : test_support::TempDir("chipkg-query") {}
};

inline const Schema& RealSchema() {
  static const Schema* schema = [] {
    Result<Schema> s = Schema::LoadDirectory(std::string(CHIPKG_SOURCE_DIR) + "/schema");
    if (!s.ok()) {
      ADD_FAILURE() << s.status().message();
      std::abort();
    }
    return new Schema(std::move(*s));
  }();
  return *schema;
}

// Builds one document version: each fact adds a line to the text, and its
// span is the value's original text within that line, so every span is real.
class DocBuilder {
 public:
  DocBuilder(std::string id, std::string kind, std::string site) {
    doc_.id = std::move(id);
    doc_.url = "https://" + site + "/" + doc_.id;
    doc_.title = "Page " + doc_.id;
    doc_.site = std::move(site);
    doc_.kind = std::move(kind);
  }

  DocBuilder& Add(const EntityId& subject, const std::string& predicate, const Value& value,
                  const Qualifiers& qualifiers = {}, std::optional<Date> valid_as_of = std::nullopt) {
    const std::string excerpt = value.original.empty() ? value.ToString() : value.original;
    const std::string line = predicate + ": " + excerpt + "\n";
    Fact f;
    f.subject = subject;
    f.predicate = predicate;
    f.value = value;
    f.qualifiers = qualifiers;
    f.valid_as_of = valid_as_of;
    f.provenance.document_id = doc_.id;
    f.provenance.section = "Specs";
    f.provenance.span_begin = static_cast<uint32_t>(text_.size() + predicate.size() + 2);
    f.provenance.span_end = static_cast<uint32_t>(f.provenance.span_begin + excerpt.size());
    f.provenance.excerpt = excerpt;
    f.provenance.attribution = "from the " + doc_.kind;
    f.provenance.rule = "test";
    f.provenance.rule_version = "1";
    text_ += line;
    facts_.push_back(std::move(f));
    return *this;
  }

  // Writes the version; returns its transaction.
  TxId Write(Store& store, const std::string& run_id = "run-test", int64_t fetched_at = 1735689600) {
    DocumentVersion v;
    v.document_id = doc_.id;
    v.text = text_;
    v.fetched_at = fetched_at;  // default 2025-01-01T00:00:00Z
    v.content_type = "text/plain";
    Result<WriteSummary> s = store.WriteDocumentVersion(doc_, v, facts_, run_id);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? s->tx : 0;
  }

 private:
  Document doc_;
  std::string text_;
  std::vector<Fact> facts_;
};

inline void PutEntity(Store& store, const EntityId& id, const std::string& kind, const std::string& name,
                      std::vector<std::string> aliases = {}) {
  Entity e;
  e.id = id;
  e.kind = kind;
  e.name = name;
  e.aliases = std::move(aliases);
  Status s = store.PutEntity(e);
  ASSERT_TRUE(s.ok()) << s.message();
}

inline Value Q(double canonical, const std::string& dimension, const std::string& original) {
  return Value::Quantity(canonical, dimension, original);
}

// The seed pages (datasets/seeds.json: those of datasets/manifest.json, not
// the Epoch CSV) ingested once per test binary into a fresh store, as the
// examples of query/README.md assume; a user makes it with
// `chipkg --db DIR ingest --manifest datasets/seeds.json`.
class SeedStore {
 public:
  static SeedStore& Get() {
    if (instance_ == nullptr) instance_ = new SeedStore();  // kept until the test environment ends
    return *instance_;
  }
  static void Release() {
    delete instance_;
    instance_ = nullptr;
  }
  Store& store() { return *store_; }
  const Schema& schema() { return RealSchema(); }
  double ingest_seconds() const { return ingest_seconds_; }

 private:
  SeedStore() {
    Result<std::unique_ptr<Store>> s = Store::Open(dir_.path() + "/store");
    if (!s.ok()) {
      ADD_FAILURE() << s.status().message();
      std::abort();
    }
    store_ = std::move(*s);
    Result<std::vector<SourceSpec>> manifest = LoadManifest(std::string(CHIPKG_SOURCE_DIR) + "/datasets/manifest.json");
    Result<std::vector<SourceSpec>> seeds = LoadManifest(std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds.json");
    if (!manifest.ok() || !seeds.ok()) {
      ADD_FAILURE() << manifest.status().message() << seeds.status().message();
      std::abort();
    }
    // The same sources as the default store's: its answers are the guide's.
    std::vector<std::string> in_manifest, in_seeds;
    auto line = [](const SourceSpec& s) { return s.id + " " + s.location + " " + s.kind + " " + s.site + " " + s.title; };
    for (const SourceSpec& spec : *manifest) {
      if (spec.location.find("/seeds/") != std::string::npos) in_manifest.push_back(line(spec));
    }
    for (const SourceSpec& spec : *seeds) in_seeds.push_back(line(spec));
    EXPECT_EQ(in_seeds, in_manifest) << "datasets/seeds.json and the seeds of datasets/manifest.json differ";
    IngestOptions options;
    options.run_id = "seed-run";
    Result<IngestReport> report = IngestSources(*store_, RealSchema(), *seeds, options);
    if (!report.ok()) {
      ADD_FAILURE() << report.status().message();
      std::abort();
    }
    for (const SourceOutcome& o : report->sources) {
      if (!o.error.empty()) ADD_FAILURE() << o.location << ": " << o.error;
    }
    ingest_seconds_ = report->seconds;
  }
  static inline SeedStore* instance_ = nullptr;
  TempDir dir_;
  std::unique_ptr<Store> store_;  // declared after dir_: closed before the directory goes
  double ingest_seconds_ = 0;
};

// Closes the seeds store and removes its directory when the tests end.
class SeedStoreCleanup : public ::testing::Environment {
 public:
  void TearDown() override { SeedStore::Release(); }
};
inline const bool kSeedStoreCleanupRegistered =
    (::testing::AddGlobalTestEnvironment(new SeedStoreCleanup), true);

}  // namespace chipkg::query::testing
