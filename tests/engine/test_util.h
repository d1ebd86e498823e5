// Helpers shared by the engine tests: temporary directories and documents
// whose facts carry spans that really point into their text.
#pragma once

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/fact.h"
#include "engine/store.h"
#include "tests/common/temp_dir.h"

namespace chipkg::testing {

class TempDir : public test_support::TempDir {
 public:
  TempDir() : test_support::TempDir("chipkg-engine-test") {}
};

// Builds a document text line by line; each Add returns a fact whose span and
// excerpt are the line just added, with a little context either side.
class DocBuilder {
 public:
  explicit DocBuilder(std::string document_id) : document_id_(std::move(document_id)) {}

  Fact& Add(const std::string& subject, const std::string& predicate, Value value, const std::string& line,
            Qualifiers qualifiers = {}) {
    Fact f;
    f.subject = subject;
    f.predicate = predicate;
    f.value = std::move(value);
    f.qualifiers = std::move(qualifiers);
    f.provenance.document_id = document_id_;
    f.provenance.span_begin = static_cast<uint32_t>(text_.size());
    text_ += line;
    f.provenance.span_end = static_cast<uint32_t>(text_.size());
    f.provenance.excerpt = line;
    f.provenance.rule = "test-rule";
    f.provenance.rule_version = "1";
    text_ += "\n";
    facts_.push_back(std::move(f));
    return facts_.back();
  }
  void AddText(const std::string& line) { text_ += line + "\n"; }

  Document doc() const {
    Document d;
    d.id = document_id_;
    d.url = "https://example.com/" + document_id_;
    d.title = "Title of " + document_id_;
    d.site = "example.com";
    d.kind = "vendor";
    return d;
  }
  DocumentVersion version() const {
    DocumentVersion v;
    v.text = text_;
    v.fetched_at = 1700000000;
    v.content_type = "text/plain";
    return v;
  }
  const std::vector<Fact>& facts() const { return facts_; }
  std::vector<Fact>& facts() { return facts_; }
  const std::string& text() const { return text_; }

 private:
  std::string document_id_;
  std::string text_;
  std::vector<Fact> facts_;
};

// A closed store opened with RocksDB alone, every column family of it, as
// another RocksDB user (or another chipkg) could: for tests that change what
// chipkg itself would never write.
class RawStore {
 public:
  explicit RawStore(const std::string& path) {
    std::vector<std::string> names;
    EXPECT_TRUE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), path, &names).ok()) << path;
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    for (const auto& n : names) cfs.emplace_back(n, rocksdb::ColumnFamilyOptions());
    rocksdb::Status st = rocksdb::DB::Open(rocksdb::DBOptions(), path, cfs, &handles_, &db_);
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (!st.ok()) db_ = nullptr;
  }
  ~RawStore() {
    if (db_ == nullptr) return;
    for (auto* h : handles_) EXPECT_TRUE(db_->DestroyColumnFamilyHandle(h).ok());
    delete db_;
  }
  RawStore(const RawStore&) = delete;
  RawStore& operator=(const RawStore&) = delete;
  bool ok() const { return db_ != nullptr; }
  rocksdb::DB* db() { return db_; }
  // Null when the store has no such column family.
  rocksdb::ColumnFamilyHandle* handle(const std::string& name) {
    for (auto* h : handles_) {
      if (h->GetName() == name) return h;
    }
    return nullptr;
  }
  rocksdb::ColumnFamilyHandle* Create(const std::string& name) {
    rocksdb::ColumnFamilyHandle* added = nullptr;
    EXPECT_TRUE(db_->CreateColumnFamily(rocksdb::ColumnFamilyOptions(), name, &added).ok()) << name;
    if (added != nullptr) handles_.push_back(added);
    return added;
  }
  void Drop(const std::string& name) {
    auto* h = handle(name);
    ASSERT_NE(h, nullptr) << name;
    ASSERT_TRUE(db_->DropColumnFamily(h).ok()) << name;
  }

 private:
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  rocksdb::DB* db_ = nullptr;
};

inline std::unique_ptr<Store> OpenOrDie(const std::string& path, const StoreOptions& options = {}) {
  auto store = Store::Open(path, options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) std::abort();
  return std::move(store).value();
}

// The store at `path` created, then written by a child process that ends
// as a crash would, before any flush: every write of `writes` is in the
// write-ahead log alone. `writes` returns false to fail the child.
// (Once a store: a forked child has none of RocksDB's background threads, so
// a second child, whose writer must first flush what the first left in the
// log, would wait for that flush for ever. Writes that fill a memory would too.)
inline void WriteThenDieBeforeAFlush(const std::string& path, const std::function<bool(Store&)>& writes) {
  OpenOrDie(path);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto store = Store::Open(path);
    _exit(store.ok() && writes(**store) ? 0 : 101);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// Compares what a caller gives a fact with what the store returns: every field
// except those the store assigns (id, txs, document_version, run_id).
inline void ExpectSameClaim(const Fact& want, const Fact& got) {
  EXPECT_EQ(want.subject, got.subject);
  EXPECT_EQ(want.predicate, got.predicate);
  EXPECT_EQ(want.value, got.value) << want.value.ToString() << " vs " << got.value.ToString();
  EXPECT_EQ(want.qualifiers, got.qualifiers);
  EXPECT_EQ(want.valid_as_of, got.valid_as_of);
  const Provenance& a = want.provenance;
  const Provenance& b = got.provenance;
  EXPECT_EQ(a.document_id, b.document_id);
  EXPECT_EQ(a.section, b.section);
  EXPECT_EQ(a.span_begin, b.span_begin);
  EXPECT_EQ(a.span_end, b.span_end);
  EXPECT_EQ(a.excerpt, b.excerpt);
  EXPECT_EQ(a.prefix, b.prefix);
  EXPECT_EQ(a.suffix, b.suffix);
  EXPECT_EQ(a.row, b.row);
  EXPECT_EQ(a.column, b.column);
  EXPECT_EQ(a.attribution, b.attribution);
  EXPECT_EQ(a.citations, b.citations);
  EXPECT_EQ(a.note, b.note);
  EXPECT_EQ(a.rule, b.rule);
  EXPECT_EQ(a.rule_version, b.rule_version);
  EXPECT_EQ(a.derivation, b.derivation);
  EXPECT_EQ(a.formula, b.formula);
}

}  // namespace chipkg::testing
