// Export and Import: the whole store as JSON Lines (format in engine/README.md).
//
// Everything a store holds is written with its original ids and transaction
// numbers, so that Import(Export(s)) answers every read exactly as s does and
// Export(Import(Export(s))) == Export(s) byte for byte. Dictionary ids are
// internal and not exported. Strings that are not valid UTF-8 (a span cut
// inside a multi-byte character) are written as {"hex": "..."}.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <istream>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>

#include "engine/bulk_writer_impl.h"
#include "engine/damage_skip.h"
#include "engine/store_impl.h"
#include "engine/utf8.h"

namespace chipkg::internal {

using Json = nlohmann::ordered_json;

namespace {


Json Str(const std::string& s) {
  if (IsValidUtf8(s)) return s;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : s) {
    hex.push_back(kHex[c >> 4]);
    hex.push_back(kHex[c & 15]);
  }
  return Json{{"hex", hex}};
}

// The field of an import line's record being read, for an error that names
// it: nlohmann's type errors name none ("cannot use at() with string").
thread_local const char* t_reading_field = nullptr;

const Json& Field(const Json& record, const char* name) {
  if (!record.is_object() && t_reading_field != nullptr) {
    // The record read from the field before, where an object belongs.
    throw std::invalid_argument("field '" + std::string(t_reading_field) + "' is " +
                                (record.is_array() || record.is_object() ? "an " : "a ") + record.type_name() +
                                ", where an object belongs");
  }
  t_reading_field = name;
  return record.at(name);
}

// A whole number that fits T, or an error naming the field: nlohmann's get<T>
// casts (a document_version of 2^32 + 1 was stored as 1, a tx past 2^64,
// read as a float, as 0).
template <typename T>
T ReadInt(const Json& j, const char* field) {
  const bool fits = j.is_number_unsigned()
                        ? j.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max())
                        : j.is_number_integer() && std::numeric_limits<T>::is_signed &&
                              j.get<int64_t>() >= static_cast<int64_t>(std::numeric_limits<T>::min());
  if (!fits) {
    throw std::runtime_error(std::string(field) + " " + j.dump() + " is not a whole number from " +
                             std::to_string(std::numeric_limits<T>::min()) + " to " +
                             std::to_string(std::numeric_limits<T>::max()));
  }
  return j.get<T>();
}

std::string ReadStr(const Json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_object() && j.contains("hex")) {
    const std::string hex = j.at("hex").get<std::string>();  // not Field: the field read is the string's own
    if (hex.size() % 2 != 0) throw std::runtime_error("odd-length hex string");
    std::string out;
    for (size_t i = 0; i < hex.size(); i += 2) {
      out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    return out;
  }
  throw std::runtime_error("expected a string, found " + j.dump());
}

Json Number(double d) {
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  return d;
}

double ReadNumber(const Json& j) {
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "inf") return HUGE_VAL;
    if (s == "-inf") return -HUGE_VAL;
    throw std::runtime_error("expected a number, found " + j.dump());
  }
  return j.get<double>();
}

Json DateJson(const Date& d) { return d.ToString(); }

Date ReadDate(const Json& j) {
  auto d = Date::Parse(j.get<std::string>());
  if (!d) throw std::runtime_error("not an ISO date: " + j.dump());
  return *d;
}

Json StrList(const std::vector<std::string>& v) {
  Json a = Json::array();
  for (const auto& s : v) a.push_back(Str(s));
  return a;
}

std::vector<std::string> ReadStrList(const Json& j) {
  std::vector<std::string> out;
  for (const auto& e : j) out.push_back(ReadStr(e));
  return out;
}

Json FactJson(const Fact& f) {
  Json value;
  value["kind"] = ValueKindName(f.value.kind);
  switch (f.value.kind) {
    case ValueKind::kQuantity:
      value["number"] = Number(f.value.number);
      value["dimension"] = Str(f.value.dimension);
      break;
    case ValueKind::kDate: value["date"] = DateJson(f.value.date); break;
    case ValueKind::kEntity: value["id"] = Str(f.value.text); break;
    case ValueKind::kText: value["text"] = Str(f.value.text); break;
    case ValueKind::kBool: value["value"] = f.value.number != 0; break;
    case ValueKind::kNotPublished: break;
  }
  value["original"] = Str(f.value.original);
  Json qualifiers = Json::array();
  for (const auto& [k, v] : f.qualifiers) qualifiers.push_back(Json::array({Str(k), Str(v)}));
  const Provenance& p = f.provenance;
  Json prov;
  prov["document_id"] = Str(p.document_id);
  prov["document_version"] = p.document_version;
  prov["section"] = Str(p.section);
  prov["span_begin"] = p.span_begin;
  prov["span_end"] = p.span_end;
  prov["excerpt"] = Str(p.excerpt);
  prov["prefix"] = Str(p.prefix);
  prov["suffix"] = Str(p.suffix);
  prov["row"] = p.row;
  prov["column"] = Str(p.column);
  prov["attribution"] = Str(p.attribution);
  prov["citations"] = StrList(p.citations);
  prov["note"] = Str(p.note);
  prov["rule"] = Str(p.rule);
  prov["rule_version"] = Str(p.rule_version);
  prov["run_id"] = Str(p.run_id);
  prov["derivation"] = p.derivation == Derivation::kStatedDerived ? "stated_derived" : "stated";
  prov["formula"] = Str(p.formula);

  Json j;
  j["type"] = "fact";
  j["id"] = f.id;
  j["subject"] = Str(f.subject);
  j["predicate"] = Str(f.predicate);
  j["value"] = std::move(value);
  j["qualifiers"] = std::move(qualifiers);
  j["valid_as_of"] = f.valid_as_of ? DateJson(*f.valid_as_of) : Json();
  j["asserted_tx"] = f.asserted_tx;
  j["retracted_tx"] = f.retracted_tx;
  j["provenance"] = std::move(prov);
  return j;
}

Fact ReadFact(const Json& j) {
  Fact f;
  f.id = ReadInt<uint64_t>(Field(j, "id"), "id");
  f.subject = ReadStr(Field(j, "subject"));
  f.predicate = ReadStr(Field(j, "predicate"));
  const Json& v = Field(j, "value");
  const std::string kind = Field(v, "kind").get<std::string>();
  const std::string original = ReadStr(Field(v, "original"));
  if (kind == "quantity") {
    f.value = Value::Quantity(ReadNumber(Field(v, "number")), ReadStr(Field(v, "dimension")), original);
  } else if (kind == "date") {
    f.value = Value::OfDate(ReadDate(Field(v, "date")), original);
  } else if (kind == "entity") {
    f.value = Value::Entity(ReadStr(Field(v, "id")), original);
  } else if (kind == "text") {
    f.value = Value::Text(ReadStr(Field(v, "text")));
    f.value.original = original;
  } else if (kind == "bool") {
    f.value = Value::Bool(Field(v, "value").get<bool>(), original);
  } else if (kind == "not_published") {
    f.value = Value::NotPublished(original);
  } else {
    throw std::runtime_error("field 'kind': unknown value kind '" + kind + "'");
  }
  for (const auto& q : Field(j, "qualifiers")) {
    if (!q.is_array() || q.size() != 2) throw std::runtime_error("a qualifier is not a [key, value] pair");
    f.qualifiers[ReadStr(q[0])] = ReadStr(q[1]);
  }
  if (!Field(j, "valid_as_of").is_null()) f.valid_as_of = ReadDate(Field(j, "valid_as_of"));
  f.asserted_tx = ReadInt<uint64_t>(Field(j, "asserted_tx"), "asserted_tx");
  f.retracted_tx = ReadInt<uint64_t>(Field(j, "retracted_tx"), "retracted_tx");
  const Json& p = Field(j, "provenance");
  Provenance& pr = f.provenance;
  pr.document_id = ReadStr(Field(p, "document_id"));
  pr.document_version = ReadInt<uint32_t>(Field(p, "document_version"), "document_version");
  pr.section = ReadStr(Field(p, "section"));
  pr.span_begin = ReadInt<uint32_t>(Field(p, "span_begin"), "span_begin");
  pr.span_end = ReadInt<uint32_t>(Field(p, "span_end"), "span_end");
  pr.excerpt = ReadStr(Field(p, "excerpt"));
  pr.prefix = ReadStr(Field(p, "prefix"));
  pr.suffix = ReadStr(Field(p, "suffix"));
  pr.row = ReadInt<int64_t>(Field(p, "row"), "row");
  pr.column = ReadStr(Field(p, "column"));
  pr.attribution = ReadStr(Field(p, "attribution"));
  pr.citations = ReadStrList(Field(p, "citations"));
  pr.note = ReadStr(Field(p, "note"));
  pr.rule = ReadStr(Field(p, "rule"));
  pr.rule_version = ReadStr(Field(p, "rule_version"));
  pr.run_id = ReadStr(Field(p, "run_id"));
  const std::string derivation = Field(p, "derivation").get<std::string>();
  if (derivation == "stated") {
    pr.derivation = Derivation::kStated;
  } else if (derivation == "stated_derived") {
    pr.derivation = Derivation::kStatedDerived;
  } else {
    throw std::runtime_error("unknown derivation '" + derivation + "'");
  }
  pr.formula = ReadStr(Field(p, "formula"));
  return f;
}

Json DocumentJson(const Document& d) {
  Json j;
  j["type"] = "document";
  j["id"] = Str(d.id);
  j["url"] = Str(d.url);
  j["title"] = Str(d.title);
  j["site"] = Str(d.site);
  j["kind"] = Str(d.kind);
  j["etag"] = Str(d.etag);
  j["last_modified"] = Str(d.last_modified);
  if (d.retired_tx != 0) j["retired_tx"] = d.retired_tx;  // exports before retirement was kept have none
  return j;
}

Json VersionJson(const DocumentVersion& v) {
  Json j;
  j["type"] = "version";
  j["document_id"] = Str(v.document_id);
  j["version"] = v.version;
  j["content_hash"] = v.content_hash;
  j["fetched_at"] = v.fetched_at;
  j["as_of"] = v.as_of ? DateJson(*v.as_of) : Json();
  j["content_type"] = Str(v.content_type);
  j["tx"] = v.tx;
  j["text"] = Str(v.text);
  if (!v.url.empty()) j["url"] = Str(v.url);
  if (!v.title.empty()) j["title"] = Str(v.title);
  if (!v.format.empty()) j["format"] = Str(v.format);
  return j;
}

// nlohmann's messages begin "[json.exception.parse_error.101] parse error at
// line 1, column 315: "; a line of an export is one JSON text, so the import
// names the file's line and the column itself, and keeps only the reason.
std::string JsonReason(const std::exception& e) {
  std::string what = e.what();
  if (what.rfind("[json.exception.", 0) == 0) {
    const size_t close = what.find("] ");
    if (close != std::string::npos) what.erase(0, close + 2);
    if (what.rfind("parse error", 0) == 0) {
      const size_t colon = what.find(": ");
      if (colon != std::string::npos) what.erase(0, colon + 2);
    }
  }
  // nlohmann quotes everything it read of the line: a version's whole text
  // (tens of KB) for a line cut inside it. Its last characters say where.
  static constexpr std::string_view kLastRead = "; last read: '";
  constexpr size_t kKept = 60;
  if (const size_t at = what.find(kLastRead); at != std::string::npos) {
    const size_t from = at + kLastRead.size();
    const size_t end = what.rfind('\'');  // its closing quote: "...'" or "...'; expected ..."
    if (end != std::string::npos && end > from + kKept) {
      size_t cut = end - kKept;
      while (cut < end && (static_cast<unsigned char>(what[cut]) & 0xC0) == 0x80) ++cut;  // not inside a character
      what = what.substr(0, from) + "..." + what.substr(cut);
    }
  }
  return what;
}

// A bad value is quoted in its error; a line of 50 MB made a message of
// 50 MB. The start says what was wrong, and the size what was left out.
Status ClippedStatus(const Status& s) {
  constexpr size_t kKept = 400;
  const std::string& message = s.message();
  if (message.size() <= kKept) return s;
  size_t cut = kKept;
  while (cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return s.WithMessage(message.substr(0, cut) + "... (" + std::to_string(message.size()) + " bytes of message in all)");
}

struct RecordWriter {
  std::ostream& out;
  uint64_t records = 0;  // written so far
  // The system's reason for the first write that failed (a full disk: ENOSPC),
  // taken at once: later calls may change errno.
  int first_error = 0;
  void Write(const Json& j) {
    out << j.dump() << '\n';
    ++records;
    if (!out && first_error == 0) first_error = errno != 0 ? errno : EIO;
  }
  Status Failure(const std::string& path) const {
    return Status::IOError("writing the export of " + path + " failed: " + std::strerror(first_error != 0 ? first_error : EIO));
  }
};

// Salvaging: every record of a column family that reads and decodes, around
// damaged blocks, each stretch that does not read and each record that does
// not decode listed in `left_out` (a list read whole lost every entity, say,
// for one bad block of them).
template <typename T, typename Decode>
std::vector<T> RecordsAroundDamage(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const rocksdb::ReadOptions& ro,
                                   const std::string& what, LeftOut& left_out, Decode&& decode) {
  std::vector<T> out;
  const rocksdb::Status scanned = ScanAroundDamage(
      db, cf, ro,
      [&](std::string_view key, std::string_view value) {
        T record;
        if (decode(key, value, &record)) {
          out.push_back(std::move(record));
        } else {
          left_out.Add("a " + what + " record that cannot be decoded (key " + std::string(key) + ")");
        }
        return true;
      },
      [&](const std::string&, const rocksdb::Status& error, const std::string& next) {
        left_out.Add("the " + what + " records of a damaged block" + (next.empty() ? " and every one after it" : "") +
                     " (" + error.ToString() + ")");
      });
  if (!scanned.ok() && !scanned.IsCorruption()) {
    left_out.Add("the " + what + " records after the " + std::to_string(out.size()) + "th (" + scanned.ToString() + ")");
  }
  return out;
}

}  // namespace

Status StoreImpl::Export(std::ostream& out_stream, LeftOut* left_out) const {
  // Records are counted for the end record: an export cut short at a line
  // boundary (a full disk, an interrupted copy) would otherwise import
  // without complaint.
  RecordWriter out{out_stream};
  try {
    ReadSnapshot snap(this);
    rocksdb::ReadOptions salvage_ro = ReadOpts(0);
    salvage_ro.snapshot = snap.get();
    std::vector<Document> documents;
    if (left_out == nullptr) {
      CHIPKG_ASSIGN_OR_RETURN(documents, ListDocuments());
    } else {
      documents = RecordsAroundDamage<Document>(db_, handles_[codec::kDocumentsCf], salvage_ro, "document",
                                                *left_out, codec::DecodeDocument);
    }
    const bool any_retired =
        std::any_of(documents.begin(), documents.end(), [](const Document& d) { return d.retired_tx != 0; });
    out.Write(Json{{"type", "format"},
                   {"format", any_retired ? codec::kExportFormatWithRetirements : codec::kExportFormat},
                   {"end_record", true}});
    std::vector<Transaction> txs;
    if (left_out == nullptr) {
      CHIPKG_ASSIGN_OR_RETURN(txs, ListTransactions());
    } else {
      txs = RecordsAroundDamage<Transaction>(db_, handles_[codec::kTxCf], salvage_ro, "transaction", *left_out,
                                             codec::DecodeTx);
    }
    for (const auto& t : txs) {
      out.Write(Json{{"type", "tx"},
                          {"id", t.id},
                          {"time_micros", t.time_micros},
                          {"run_id", Str(t.run_id)},
                          {"description", Str(t.description)}});
    }
    // (Salvaging, an entity record lost costs its names and aliases: the
    // facts name their subjects themselves.)
    Result<std::vector<Entity>> entities =
        left_out == nullptr ? ListEntities("")
                            : Result<std::vector<Entity>>(RecordsAroundDamage<Entity>(
                                  db_, handles_[codec::kEntitiesCf], salvage_ro, "entity", *left_out, codec::DecodeEntity));
    CHIPKG_RETURN_IF_ERROR(entities.status());
    for (const auto& e : *entities) {
      Json line{{"type", "entity"},
                {"id", Str(e.id)},
                {"kind", Str(e.kind)},
                {"name", Str(e.name)},
                {"aliases", StrList(e.aliases)}};
      if (e.created_tx != 0) line["created_tx"] = e.created_tx;
      out.Write(line);
    }
    for (const auto& d : documents) {
      out.Write(DocumentJson(d));
      Result<std::vector<DocumentVersion>> versions = ListDocumentVersions(d.id, /*with_text=*/true);
      if (!versions.ok() && left_out != nullptr) {
        // Versions import only without gaps: those before the first that
        // cannot be read are kept.
        const std::string why = versions.status().message();
        versions = std::vector<DocumentVersion>();
        for (uint32_t n = 1;; ++n) {
          auto v = GetDocumentVersion(d.id, n, /*with_text=*/true);
          if (!v.ok()) break;
          versions->push_back(std::move(*v));
        }
        left_out->Add("document " + d.id + ": its versions from version " + std::to_string(versions->size() + 1) +
                      " on (" + why + ")");
      }
      CHIPKG_RETURN_IF_ERROR(versions.status());
      if (versions->empty() && left_out != nullptr) {
        // Every version is written with its document: its texts went with a
        // lost write (or with the document's dictionary entry).
        left_out->Add("document " + d.id + ": no version of it can be read");
      }
      for (const auto& v : *versions) out.Write(VersionJson(v));
    }
    // Facts in id order, provenance read a batch at a time.
    std::vector<Fact> batch;
    Status status;
    codec::CoreRecord core;
    auto flush = [&]() -> Status {
      Status filled = FillProvenance(&batch, snap.get());
      if (!filled.ok() && left_out != nullptr) {
        // One fact at a time, to keep those whose provenance reads.
        std::vector<Fact> kept, one;
        for (Fact& f : batch) {
          one.assign(1, std::move(f));
          const Status single = FillProvenance(&one, snap.get());
          if (single.ok()) {
            kept.push_back(std::move(one.front()));
          } else {
            left_out->Add("fact " + std::to_string(one.front().id) + " (" + one.front().subject + " " +
                          one.front().predicate + "): " + single.message());
          }
        }
        batch = std::move(kept);
        filled = Status::OK();
      }
      CHIPKG_RETURN_IF_ERROR(filled);
      for (const auto& f : batch) out.Write(FactJson(f));
      batch.clear();
      // A full disk stops the export here, not after every fact was encoded.
      return out_stream ? Status::OK() : out.Failure(path_);
    };
    auto each_fact = [&](std::string_view key, std::string_view value) {
      if (key.size() != 8 || !codec::DecodeCore(value, &core)) {
        status = Status::Corruption("an undecodable fact record in " + path_);
      } else {
        status = ToFact(codec::GetU64(key.data()), core, &batch.emplace_back());
        if (!status.ok()) batch.pop_back();
      }
      if (!status.ok() && left_out != nullptr) {
        left_out->Add((key.size() == 8 ? "fact " + std::to_string(codec::GetU64(key.data())) + ": " : "") +
                      status.message());
        status = Status::OK();
      }
      if (status.ok() && batch.size() >= 4096) status = flush();
      return status.ok();
    };
    if (left_out == nullptr) {
      CHIPKG_RETURN_IF_ERROR(Scan(codec::kFactsCf, "", "", 0, each_fact, snap.get()));
    } else {
      // Salvaging: a damaged block of fact records costs its own facts, not
      // every one after it.
      const rocksdb::Status scanned = ScanAroundDamage(
          db_, handles_[codec::kFactsCf], salvage_ro, each_fact,
          [&](const std::string& last_good, const rocksdb::Status& error, const std::string& next) {
            const std::string after =
                last_good.size() == 8 ? "after fact " + std::to_string(codec::GetU64(last_good.data())) : "first";
            const std::string until =
                next.size() >= 8 ? "before fact " + std::to_string(codec::GetU64(next.data())) : "to the end";
            left_out->Add("the fact records " + after + ", " + until + " (a damaged block: " + error.ToString() + ")");
          });
      // Damage was listed as it was met; anything else (an I/O error) ends the export.
      if (!scanned.ok() && !scanned.IsCorruption() && status.ok()) {
        status = FromRocks(scanned, "scanning the facts of " + path_);
      }
    }
    CHIPKG_RETURN_IF_ERROR(status);
    CHIPKG_RETURN_IF_ERROR(flush());
    CHIPKG_ASSIGN_OR_RETURN(auto meta, ListMeta(""));
    for (const auto& [k, v] : meta) out.Write(Json{{"type", "meta"}, {"key", Str(k)}, {"value", Str(v)}});
    out.Write(Json{{"type", "end"}, {"records", out.records}});
    out_stream.flush();
    if (!out_stream) return out.Failure(path_);
    return Status::OK();
  } catch (const std::exception& e) {
    return Status::IOError("exporting " + path_ + ": " + e.what());
  }
}

Result<ImportStats> StoreImpl::Import(std::istream& in, LeftOut* left_out) {
  CHIPKG_ASSIGN_OR_RETURN(std::unique_ptr<BulkWriterImpl> writer, StartRawBulk());
  writer->LeaveOutInvalid(left_out);
  std::string line;
  size_t line_no = 0;
  bool saw_format = false;
  bool expect_end = false;  // exports written before the end record existed have none
  size_t end_line = 0;      // the end record's line, once read
  uint64_t records = 0;     // before the end record
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    const std::string where = "import line " + std::to_string(line_no);
    if (end_line != 0) {
      return Status::InvalidArgument(where + ": a record after the end record of line " + std::to_string(end_line));
    }
    ++records;
    Status s;
    t_reading_field = nullptr;
    try {
      const Json j = Json::parse(line);
      // Thrown, to be left out as any bad record is when salvaging.
      if (!j.is_object()) {
        throw std::invalid_argument("a record is a JSON object ({\"type\": ...}), this line is " +
                                    std::string(j.type_name()));
      }
      const std::string type = Field(j, "type").get<std::string>();
      if (!saw_format) {
        if (type != "format") return Status::InvalidArgument(where + ": the first line must be the format record");
        const std::string format = Field(j, "format").get<std::string>();
        if (format != codec::kExportFormat && format != codec::kExportFormatWithRetirements) {
          return ClippedStatus(Status::FormatMismatch(where + ": the export has storage format '" + format +
                                                      "', this chipkg reads '" + codec::kExportFormat + "' and '" +
                                                      codec::kExportFormatWithRetirements + "'"));
        }
        expect_end = j.value("end_record", false);
        saw_format = true;
        continue;
      }
      if (type == "end") {
        const uint64_t written = ReadInt<uint64_t>(Field(j, "records"), "records");
        if (written != records - 1) {
          return Status::InvalidArgument(where + ": the end record counts " + std::to_string(written) +
                                         " records before it, the file has " + std::to_string(records - 1) + ": " +
                                         (written > records - 1 ? "lines are missing"
                                                                : "lines were added (a line repeated, or another "
                                                                  "file's lines?)") +
                                         "; nothing was imported");
        }
        end_line = line_no;
        continue;
      }
      if (type == "tx") {
        s = writer->AddTransaction({ReadInt<uint64_t>(Field(j, "id"), "id"), ReadInt<int64_t>(Field(j, "time_micros"), "time_micros"),
                                    ReadStr(Field(j, "run_id")), ReadStr(Field(j, "description"))});
      } else if (type == "entity") {
        Entity e{ReadStr(Field(j, "id")), ReadStr(Field(j, "kind")), ReadStr(Field(j, "name")), ReadStrList(Field(j, "aliases"))};
        if (j.contains("created_tx")) e.created_tx = ReadInt<uint64_t>(Field(j, "created_tx"), "created_tx");  // absent in older exports
        s = writer->AddEntity(e);
      } else if (type == "document") {
        Document d;
        d.id = ReadStr(Field(j, "id"));
        d.url = ReadStr(Field(j, "url"));
        d.title = ReadStr(Field(j, "title"));
        d.site = ReadStr(Field(j, "site"));
        d.kind = ReadStr(Field(j, "kind"));
        d.etag = ReadStr(Field(j, "etag"));
        d.last_modified = ReadStr(Field(j, "last_modified"));
        if (j.contains("retired_tx") && !Field(j, "retired_tx").is_null()) d.retired_tx = ReadInt<uint64_t>(Field(j, "retired_tx"), "retired_tx");
        s = writer->AddDocument(d);
      } else if (type == "version") {
        DocumentVersion v;
        v.document_id = ReadStr(Field(j, "document_id"));
        v.version = ReadInt<uint32_t>(Field(j, "version"), "version");
        v.content_hash = Field(j, "content_hash").get<std::string>();
        v.fetched_at = ReadInt<int64_t>(Field(j, "fetched_at"), "fetched_at");
        if (!Field(j, "as_of").is_null()) v.as_of = ReadDate(Field(j, "as_of"));
        v.content_type = ReadStr(Field(j, "content_type"));
        v.tx = ReadInt<uint64_t>(Field(j, "tx"), "tx");
        v.text = ReadStr(Field(j, "text"));
        if (j.contains("url")) v.url = ReadStr(Field(j, "url"));  // exports before they were kept have neither
        if (j.contains("title")) v.title = ReadStr(Field(j, "title"));
        if (j.contains("format")) v.format = ReadStr(Field(j, "format"));
        Document d;
        d.id = v.document_id;
        s = writer->AddDocumentVersion(d, std::move(v));
      } else if (type == "fact") {
        s = writer->AddFact(ReadFact(j));
      } else if (type == "meta") {
        s = writer->AddUserMeta(ReadStr(Field(j, "key")), ReadStr(Field(j, "value")));
      } else if (type == "format") {
        s = Status::InvalidArgument("a second format record");
      } else {
        s = Status::InvalidArgument("unknown record type '" + type + "'");
      }
    } catch (const Json::parse_error& e) {
      s = Status::InvalidArgument("not valid JSON at column " + std::to_string(e.byte) + ": " + JsonReason(e));
    } catch (const Json::type_error& e) {
      const std::string reason = JsonReason(e);
      constexpr std::string_view kAt = "cannot use at() with ";
      if (t_reading_field == nullptr) {
        s = Status::InvalidArgument("a field holds another JSON type than its record's (" + reason + ")");
      } else if (reason.rfind(kAt, 0) == 0) {
        s = Status::InvalidArgument("field '" + std::string(t_reading_field) + "' is a " + reason.substr(kAt.size()) +
                                    ", where an object belongs");
      } else {
        s = Status::InvalidArgument("field '" + std::string(t_reading_field) + "': " + reason);
      }
    } catch (const std::exception& e) {
      const std::string reason = JsonReason(e);
      // ReadInt's and a missing key's messages name the field already.
      const bool named = t_reading_field == nullptr || reason.rfind("field '", 0) == 0 ||
                         reason.rfind(t_reading_field, 0) == 0 ||
                         reason.find("'" + std::string(t_reading_field) + "'") != std::string::npos;
      s = Status::InvalidArgument(named ? reason : "field '" + std::string(t_reading_field) + "': " + reason);
    }
    if (!s.ok()) s = ClippedStatus(s);
    if (!s.ok() && left_out != nullptr && !writer->failed() && saw_format) {
      left_out->Add(s.WithContext(where).message());
      continue;
    }
    if (!s.ok()) return s.WithContext(where);
  }
  if (in.bad()) return Status::IOError("reading the import stream failed at line " + std::to_string(line_no));
  if (!saw_format) return Status::InvalidArgument("import: empty input (no format record)");
  if (expect_end && end_line == 0) {
    return Status::InvalidArgument("import: the export ends at line " + std::to_string(line_no) +
                                   " without its end record: it was cut short (an interrupted copy, a full "
                                   "disk); nothing was imported");
  }
  Result<ImportStats> stats = writer->Finish("import");
  if (!stats.ok()) return stats;
  // An export of a format-2 store has its retirements only in its log.
  CHIPKG_RETURN_IF_ERROR(MarkEarlierRetirements().WithContext("marking the retired documents of the import"));
  return stats;
}

}  // namespace chipkg::internal

namespace chipkg {

void LeftOut::Add(std::string what) {
  if (first.size() < 20) first.push_back(std::move(what));
  ++count;
}

}  // namespace chipkg
