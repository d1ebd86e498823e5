// Store::Check: the whole store read once and cross-checked (engine/README.md,
// "Checking a store").
//
// Two layers of damage are looked for. A table block that fails its checksum
// (a bad disk, a stray write) is found by reading every block of every live
// table file, each file on its own so that one damaged file does not hide the
// next. A store whose blocks are all sound can still disagree with itself (a
// bug in a writer, a copy assembled from two moments): every record is
// decoded and each index entry, fact, version and counter is checked against
// what it must agree with. Reads never fill the block cache: a check reads
// every byte once.
#include <rocksdb/db.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/codec.h"
#include "engine/damage_skip.h"
#include "engine/sha256_internal.h"
#include "engine/store_impl.h"

namespace chipkg::internal {
namespace {

using codec::CoreRecord;

// At most this many problems of one kind are spelt out; the rest are counted.
constexpr size_t kShownPerKind = 5;

class Findings {
 public:
  explicit Findings(StoreCheck* out) : out_(out) {}
  void Add(const std::string& kind, std::string message) {
    ++out_->problem_count;
    size_t& seen = seen_[kind];
    if (++seen <= kShownPerKind) out_->problems.push_back(std::move(message));
  }
  // Appends "... N more" lines for the kinds cut short.
  void Close() {
    for (const auto& [kind, seen] : seen_) {
      if (seen > kShownPerKind) {
        out_->problems.push_back("... and " + std::to_string(seen - kShownPerKind) + " more: " + kind);
      }
    }
  }

 private:
  StoreCheck* out_;
  std::map<std::string, size_t> seen_;
};

// A key to seek to, as SeekPastDamage pads it (zeros to 32 bytes): shown
// without the zeros past an id's 8 bytes.
std::string WithoutPadding(std::string key) {
  while (key.size() > 8 && key.back() == '\0') key.pop_back();
  return key;
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

uint64_t HashBytes(std::string_view bytes) { return std::hash<std::string_view>()(bytes) | 1; }  // 0: no fact

// What an index entry is compared with: the fact's CORE as stored in
// `facts`, and the leading visibility fields alone (ref entries and the doc
// entries of older stores hold only those).
struct FactMark {
  uint64_t core_hash = 0;  // 0: no such fact
  uint64_t header_hash = 0;
  uint8_t seen_in = 0;  // bit per index (IndexBit) the fact has an entry in
  bool has_prov = false;
  bool refers = false;  // its value is an entity: it must have a ref entry
};

enum IndexBit : uint8_t { kSpoBit = 1, kPosBit = 2, kDocBit = 4, kRefBit = 8 };

uint64_t HeaderHash(const CoreRecord& core) {
  std::string header;
  codec::EncodeCoreHeader(core, &header);
  return HashBytes(header);
}

}  // namespace

}  // namespace chipkg::internal

namespace chipkg {

Result<std::vector<std::string>> Store::DamagedTableFiles(const std::string& path) {
  std::error_code ec;
  std::vector<std::filesystem::path> tables;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    if (entry.path().extension() == ".sst") tables.push_back(entry.path());
  }
  if (ec) return Status::IOError("listing " + path + ": " + ec.message());
  std::sort(tables.begin(), tables.end());
  std::vector<std::string> damaged;
  rocksdb::Options options;
  for (const auto& table : tables) {
    rocksdb::SstFileReader reader(options);
    rocksdb::Status st = reader.Open(table.string());
    if (st.ok()) st = reader.VerifyChecksum(rocksdb::ReadOptions());
    if (!st.ok()) damaged.push_back("table file " + table.string() + " is damaged: " + st.ToString());
  }
  return damaged;
}

}  // namespace chipkg

namespace chipkg::internal {

Result<StoreCheck> StoreImpl::Check() const {
  StoreCheck report;
  Findings findings(&report);
  const rocksdb::Snapshot* snap = db_->GetSnapshot();
  struct Release {
    rocksdb::DB* db;
    const rocksdb::Snapshot* snap;
    ~Release() { db->ReleaseSnapshot(snap); }
  } release{db_, snap};
  rocksdb::ReadOptions ro;
  ro.snapshot = snap;
  ro.fill_cache = false;
  ro.verify_checksums = true;
  ro.total_order_seek = true;

  // ---- every block of every table file ------------------------------------
  // One file at a time: DB::VerifyChecksum stops at the first damaged file.
  // A writer's compactions may delete a table file between the listing and
  // its reading, which read as damage ("No such file ... while stat a file
  // for size", seen once in 560 test runs): deletions wait until the files
  // are read. (A read-only instance refuses, and deletes nothing itself.)
  struct HoldDeletions {
    rocksdb::DB* db;
    bool held;
    ~HoldDeletions() {
      if (held) db->EnableFileDeletions(/*force=*/false);
    }
  } hold{db_, db_->DisableFileDeletions().ok()};
  std::vector<rocksdb::LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  rocksdb::Options reader_options;
  reader_options.env = db_->GetEnv();
  std::unordered_set<std::string> damaged_cfs;
  for (const auto& file : files) {
    const std::string name = file.db_path + "/" + file.name.substr(file.name.front() == '/' ? 1 : 0);
    ++report.table_files;
    report.table_bytes += file.size;
    rocksdb::SstFileReader reader(reader_options);
    rocksdb::Status st = reader.Open(name);
    if (st.ok()) st = reader.VerifyChecksum(rocksdb::ReadOptions());
    // A reader cannot hold deletions: a file gone since this view opened,
    // while a writer moved the MANIFEST on, is a compaction's input, no
    // damage. The view still reads it through the file it holds open, and
    // the scans below check every block they read.
    std::error_code gone_ec;
    if (!st.ok() && !hold.held && !std::filesystem::exists(name, gone_ec) && !gone_ec && ManifestMovedSinceOpen()) {
      --report.table_files;
      report.table_bytes -= file.size;
      continue;
    }
    if (!st.ok()) {
      report.tables_damaged = true;
      damaged_cfs.insert(file.column_family_name);
      findings.Add("damaged table files", "table file " + name + " (column family " + file.column_family_name +
                                              ", " + std::to_string(file.num_entries) +
                                              " entries) is damaged: " + st.ToString());
    }
  }

  // Scans one column family around any damaged block, each one a problem:
  // stopped at the first, a check of a store with one bad block of
  // provenance called 2,480 facts "without provenance" where 20 were.
  bool read_whole = true;
  auto scan = [&](int cf, const std::function<void(std::string_view, std::string_view)>& fn) {
    bool damaged_to_the_end = false;
    const rocksdb::Status st = ScanAroundDamage(
        db_, handles_[cf], ro,
        [&](std::string_view key, std::string_view value) {
          ++report.records;
          fn(key, value);
          return true;
        },
        [&](const std::string& last_good, const rocksdb::Status& error, const std::string& next) {
          read_whole = false;
          report.tables_damaged = true;
          damaged_to_the_end = next.empty();
          findings.Add("damaged stretches of column families",
                       std::string("column family ") + codec::CfName(cf) + ": the records after " +
                           (last_good.empty() ? std::string("its start") : "key " + Hex(last_good)) +
                           " cannot be read (" + error.ToString() + "); " +
                           (next.empty() ? std::string("nothing after them reads")
                                         : "read on from key " + Hex(WithoutPadding(next))));
        });
    if (!st.ok() && !damaged_to_the_end) {
      read_whole = false;
      findings.Add("column families that could not be read to the end",
                   std::string("column family ") + codec::CfName(cf) + " could not be read to its end (" +
                       std::to_string(report.records) + " records read in all): " + st.ToString());
    }
  };

  // ---- counters, as of the snapshot ---------------------------------------
  Counters counters;
  counters.ForEach([&](const char* name, uint64_t& field) {
    std::string value;
    const rocksdb::Status st = db_->Get(ro, handles_[codec::kMetaCf], codec::CounterKey(name), &value);
    if (st.ok() && value.size() == 8) {
      field = codec::GetU64(value.data());
    } else if (!st.IsNotFound()) {
      findings.Add("counters", std::string("counter ") + name + " cannot be read: " +
                                   (st.ok() ? "it is " + std::to_string(value.size()) + " bytes, not 8" : st.ToString()));
    }
  });
  {
    std::string format;
    const rocksdb::Status st = db_->Get(ro, handles_[codec::kMetaCf], codec::kFormatKey, &format);
    if (!st.ok()) findings.Add("format record", "the format record cannot be read: " + st.ToString());
  }

  // ---- dictionary ------------------------------------------------------------
  std::vector<std::string> names(counters.next_dict);
  std::vector<bool> named(counters.next_dict, false);
  std::vector<std::pair<std::string, uint32_t>> forward;
  scan(codec::kDictCf, [&](std::string_view key, std::string_view value) {
    if (!key.empty() && key[0] == 'R' && key.size() == 5) {
      const uint32_t id = codec::GetU32(key.data() + 1);
      if (id == 0 || id >= counters.next_dict) {
        findings.Add("dictionary", "dictionary id " + std::to_string(id) + " (" + std::string(value) +
                                       ") is outside the ids given out (1 to " +
                                       std::to_string(counters.next_dict - 1) + ")");
        return;
      }
      names[id].assign(value.data(), value.size());
      named[id] = true;
    } else if (!key.empty() && key[0] == 'F' && value.size() == 4) {
      forward.emplace_back(std::string(key.substr(1)), codec::GetU32(value.data()));
    } else {
      findings.Add("dictionary", "dictionary record " + Hex(key) + " is neither a forward nor a reverse entry");
    }
  });
  for (const auto& [name, id] : forward) {
    if (id >= names.size() || !named[id] || names[id] != name) {
      findings.Add("dictionary", "dictionary entry '" + name + "' names id " + std::to_string(id) +
                                     ", which decodes to " +
                                     (id < names.size() && named[id] ? "'" + names[id] + "'" : "nothing"));
    }
  }
  auto name_of = [&](uint32_t id) -> const std::string* {
    return id < named.size() && named[id] ? &names[id] : nullptr;
  };
  auto id_text = [&](uint32_t id) {
    const std::string* n = name_of(id);
    return n != nullptr ? "'" + *n + "'" : "id " + std::to_string(id) + " (not in the dictionary)";
  };

  // ---- documents, versions, texts ---------------------------------------------
  std::unordered_set<std::string> documents;
  scan(codec::kDocumentsCf, [&](std::string_view key, std::string_view value) {
    Document d;
    if (!codec::DecodeDocument(key, value, &d)) {
      findings.Add("undecodable records", "document record '" + std::string(key) + "' cannot be decoded");
    }
    documents.emplace(key);
  });
  report.documents = documents.size();
  struct VersionSeen {
    std::string content_hash;
    uint64_t text_size = 0;
    bool has_text = false;
  };
  std::unordered_map<uint64_t, VersionSeen> versions;  // (document id << 32 | version)
  auto version_name = [&](uint32_t document, uint32_t version) {
    return "version " + std::to_string(version) + " of document " + id_text(document);
  };
  scan(codec::kVersionsCf, [&](std::string_view key, std::string_view value) {
    if (key.size() != 9 || (key[0] != 'm' && key[0] != 't')) {
      findings.Add("undecodable records", "version record " + Hex(key) + " has a key of no known form");
      return;
    }
    const uint32_t document = codec::GetU32(key.data() + 1), version = codec::GetU32(key.data() + 5);
    VersionSeen& seen = versions[(uint64_t{document} << 32) | version];
    if (key[0] == 'm') {
      DocumentVersion v;
      if (!codec::DecodeVersionMeta(value, &v, &seen.text_size)) {
        findings.Add("undecodable records", version_name(document, version) + ": its record cannot be decoded");
        return;
      }
      seen.content_hash = v.content_hash;
      const std::string* doc = name_of(document);
      if (doc == nullptr || v.document_id != *doc) {
        findings.Add("versions", version_name(document, version) + " says it is of document '" + v.document_id + "'");
      } else if (documents.count(*doc) == 0) {
        findings.Add("versions", version_name(document, version) + ": the document has no record");
      }
      ++report.document_versions;
      return;
    }
    seen.has_text = true;
    if (seen.content_hash.empty()) {
      findings.Add("versions", version_name(document, version) + " has a text but no version record");
      return;
    }
    if (value.size() != seen.text_size) {
      findings.Add("texts", version_name(document, version) + ": its text is " + std::to_string(value.size()) +
                                " bytes, its record says " + std::to_string(seen.text_size));
    } else if (internal::Sha256HexWith(value, /*hardware=*/true) != seen.content_hash) {
      findings.Add("texts", version_name(document, version) +
                                ": its text does not match its content hash (the text every span points into "
                                "has changed)");
    }
  });
  for (const auto& [key, seen] : versions) {
    if (!seen.content_hash.empty() && !seen.has_text) {
      findings.Add("versions", version_name(static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key)) +
                                   " has no text");
    }
  }

  // ---- entities, aliases, transactions ---------------------------------------
  std::unordered_set<std::string> entities;
  scan(codec::kEntitiesCf, [&](std::string_view key, std::string_view value) {
    Entity e;
    if (!codec::DecodeEntity(key, value, &e)) {
      findings.Add("undecodable records", "entity record '" + std::string(key) + "' cannot be decoded");
    }
    entities.emplace(key);
  });
  report.entities = entities.size();
  scan(codec::kAliasCf, [&](std::string_view key, std::string_view) {
    const size_t zero = key.find('\0');
    const std::string entity(zero == std::string_view::npos ? std::string_view() : key.substr(zero + 1));
    if (entities.count(entity) == 0) {
      findings.Add("aliases", "the alias '" + std::string(key.substr(0, zero)) + "' names entity '" + entity +
                                  "', which has no record");
    }
  });
  TxId highest_tx = 0;
  scan(codec::kTxCf, [&](std::string_view key, std::string_view value) {
    Transaction t;
    if (!codec::DecodeTx(key, value, &t)) {
      findings.Add("undecodable records", "transaction record " + Hex(key) + " cannot be decoded");
      return;
    }
    ++report.transactions;
    highest_tx = std::max(highest_tx, t.id);
  });

  // ---- facts and their provenance ----------------------------------------------
  std::vector<FactMark> marks(counters.next_fact);
  uint64_t live = 0, retracted = 0, not_published = 0;
  auto fact_name = [](uint64_t fid) { return "fact " + std::to_string(fid); };
  scan(codec::kFactsCf, [&](std::string_view key, std::string_view value) {
    if (key.size() != 8) {
      findings.Add("undecodable records", "fact record " + Hex(key) + " has a key of no known form");
      return;
    }
    const uint64_t fid = codec::GetU64(key.data());
    CoreRecord core;
    if (!codec::DecodeCore(value, &core)) {
      findings.Add("undecodable records", fact_name(fid) + ": its record cannot be decoded");
      return;
    }
    ++report.facts;
    if (fid == 0 || fid >= marks.size()) {
      findings.Add("facts", fact_name(fid) + " is outside the ids given out (1 to " +
                                std::to_string(counters.next_fact - 1) + ")");
      return;
    }
    FactMark& mark = marks[fid];
    mark.core_hash = HashBytes(value);
    mark.header_hash = HeaderHash(core);
    mark.refers = core.kind == ValueKind::kEntity;
    if (core.retracted_tx != 0) {
      ++retracted;
    } else {
      ++live;
      if (core.kind == ValueKind::kNotPublished) ++not_published;
    }
    // A fact may be about an entity that has no record (the engine does not
    // require one; ingest writes one first), so only the names are checked.
    if (name_of(core.subject) == nullptr || name_of(core.predicate) == nullptr ||
        (core.kind == ValueKind::kEntity && name_of(core.entity) == nullptr)) {
      findings.Add("facts", fact_name(fid) + ": its subject, predicate or entity value is not in the dictionary");
    }
    if (core.asserted_tx == 0 || core.asserted_tx > counters.last_tx ||
        (core.retracted_tx != 0 && (core.retracted_tx < core.asserted_tx || core.retracted_tx > counters.last_tx))) {
      findings.Add("facts", fact_name(fid) + ": asserted at tx " + std::to_string(core.asserted_tx) +
                                (core.retracted_tx != 0 ? ", retracted at tx " + std::to_string(core.retracted_tx) : "") +
                                ", against the store's last tx " + std::to_string(counters.last_tx));
    }
    if (core.document != 0) {
      const auto v = versions.find((uint64_t{core.document} << 32) | core.document_version);
      if (v == versions.end() || v->second.content_hash.empty()) {
        findings.Add("facts", fact_name(fid) + " cites " + version_name(core.document, core.document_version) +
                                  ", which is not stored");
      }
    }
  });
  scan(codec::kProvCf, [&](std::string_view key, std::string_view value) {
    const uint64_t fid = key.size() == 8 ? codec::GetU64(key.data()) : 0;
    if (fid == 0 || fid >= marks.size() || marks[fid].core_hash == 0) {
      findings.Add("provenance", "a provenance record (" + Hex(key) + ") belongs to no stored fact");
      return;
    }
    marks[fid].has_prov = true;
    Provenance prov;
    uint32_t run_id = 0;
    if (!codec::DecodeProv(value, &prov, &run_id)) {
      findings.Add("undecodable records", fact_name(fid) + ": its provenance record cannot be decoded");
    } else if (prov.span_begin > prov.span_end) {
      findings.Add("provenance", fact_name(fid) + ": its span ends (" + std::to_string(prov.span_end) +
                                     ") before it begins (" + std::to_string(prov.span_begin) + ")");
    }
  });

  // ---- indexes: each entry the fact's own bytes, under the fact's own key ------
  auto check_entry = [&](const char* index, uint64_t fid, std::string_view value, IndexBit bit,
                         const std::function<bool(const CoreRecord&)>& key_agrees) {
    if (fid == 0 || fid >= marks.size() || marks[fid].core_hash == 0) {
      findings.Add("index entries", std::string(index) + " has an entry for " + fact_name(fid) +
                                        ", which is not stored");
      return;
    }
    FactMark& mark = marks[fid];
    mark.seen_in |= bit;
    CoreRecord core;
    if (codec::HoldsCore(value)) {
      if (HashBytes(value) != mark.core_hash || !codec::DecodeCore(value, &core)) {
        findings.Add("index entries", std::string(index) + "'s entry for " + fact_name(fid) +
                                          " differs from the fact's record");
      } else if (!key_agrees(core)) {
        findings.Add("index entries", std::string(index) + "'s entry for " + fact_name(fid) +
                                          " is filed under a key that is not the fact's");
      }
      return;
    }
    TxId asserted = 0, retracted_at = 0;
    std::optional<Date> valid;
    if (!codec::DecodeCoreHeader(value, &asserted, &retracted_at, &valid)) {
      findings.Add("undecodable records", std::string(index) + "'s entry for " + fact_name(fid) +
                                              " cannot be decoded");
      return;
    }
    core.asserted_tx = asserted;
    core.retracted_tx = retracted_at;
    core.valid_as_of = valid;
    if (HeaderHash(core) != mark.header_hash) {
      findings.Add("index entries", std::string(index) + "'s entry for " + fact_name(fid) +
                                        " differs from the fact's record (asserted or retracted)");
    }
  };
  uint64_t spo_entries = 0, pos_entries = 0, doc_entries = 0, ref_entries = 0;
  scan(codec::kSpoCf, [&](std::string_view key, std::string_view value) {
    if (key.size() != 16) return findings.Add("undecodable records", "spo entry " + Hex(key) + " has a key of no known form");
    ++spo_entries;
    const uint32_t subject = codec::GetU32(key.data()), predicate = codec::GetU32(key.data() + 4);
    check_entry("spo", codec::FactIdOfIndexKey(key), value, kSpoBit,
                [&](const CoreRecord& c) { return c.subject == subject && c.predicate == predicate; });
  });
  scan(codec::kPosCf, [&](std::string_view key, std::string_view value) {
    if (key.size() < 13) return findings.Add("undecodable records", "pos entry " + Hex(key) + " has a key of no known form");
    ++pos_entries;
    const uint32_t predicate = codec::GetU32(key.data());
    const std::string_view value_key = key.substr(4, key.size() - 12);
    check_entry("pos", codec::FactIdOfIndexKey(key), value, kPosBit, [&](const CoreRecord& c) {
      std::string expected;
      codec::AppendValueKey(c, &expected);
      return c.predicate == predicate && expected == value_key;
    });
  });
  scan(codec::kDocCf, [&](std::string_view key, std::string_view value) {
    if (key.size() != 16) return findings.Add("undecodable records", "doc entry " + Hex(key) + " has a key of no known form");
    ++doc_entries;
    const uint32_t document = codec::GetU32(key.data()), version = codec::GetU32(key.data() + 4);
    check_entry("doc", codec::FactIdOfIndexKey(key), value, kDocBit,
                [&](const CoreRecord& c) { return c.document == document && c.document_version == version; });
  });
  scan(codec::kRefCf, [&](std::string_view key, std::string_view value) {
    if (key.size() != 12) return findings.Add("undecodable records", "ref entry " + Hex(key) + " has a key of no known form");
    ++ref_entries;
    const uint32_t object = codec::GetU32(key.data());
    check_entry("ref", codec::FactIdOfIndexKey(key), value, kRefBit,
                [&](const CoreRecord& c) { return c.kind == ValueKind::kEntity && c.entity == object; });
  });
  if (contested_index_) {
    scan(codec::kContestedCf, [&](std::string_view key, std::string_view value) {
      if (key.size() != 16) {
        return findings.Add("undecodable records", "contested entry " + Hex(key) + " has a key of no known form");
      }
      const uint32_t subject = codec::GetU32(key.data()), predicate = codec::GetU32(key.data() + 4);
      check_entry("contested", codec::FactIdOfIndexKey(key), value, IndexBit{0},
                  [&](const CoreRecord& c) { return c.subject == subject && c.predicate == predicate; });
    });
  }
  for (uint64_t fid = 1; fid < marks.size(); ++fid) {
    const FactMark& mark = marks[fid];
    if (mark.core_hash == 0) continue;
    const uint8_t wanted = kSpoBit | kPosBit | kDocBit | (mark.refers ? kRefBit : 0);
    if ((mark.seen_in & wanted) != wanted) {
      std::string missing;
      for (const auto& [bit, name] : {std::pair{kSpoBit, "spo"}, {kPosBit, "pos"}, {kDocBit, "doc"}, {kRefBit, "ref"}}) {
        if ((wanted & bit) && !(mark.seen_in & bit)) missing += std::string(missing.empty() ? "" : ", ") + name;
      }
      findings.Add("facts missing from an index", fact_name(fid) + " has no entry in " + missing);
    }
    if (!mark.has_prov) findings.Add("facts without provenance", fact_name(fid) + " has no provenance record");
  }

  // ---- counters against what was counted ----------------------------------------
  auto agree = [&](const char* counter, uint64_t stored, uint64_t counted) {
    if (stored != counted) {
      findings.Add("counters", std::string("counter ") + counter + " says " + std::to_string(stored) +
                                   ", the store holds " + std::to_string(counted));
    }
  };
  // Counters can only be trusted against a whole read: a column family cut
  // short by a damaged block would make every count after it disagree.
  if (damaged_cfs.empty() && read_whole) {
    agree("facts", counters.facts, report.facts);
    agree("live", counters.live, live);
    agree("retracted", counters.retracted, retracted);
    agree("not_published", counters.not_published, not_published);
    agree("documents", counters.documents, report.documents);
    agree("versions", counters.versions, report.document_versions);
    agree("entities", counters.entities, report.entities);
    agree("transactions", counters.transactions, report.transactions);
    agree("last_tx", counters.last_tx, highest_tx);
  }
  findings.Close();
  return report;
}

}  // namespace chipkg::internal
