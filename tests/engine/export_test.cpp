// Export and Import: JSON Lines that reproduce a store exactly.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <sstream>

#include "engine/store.h"
#include "tests/engine/test_util.h"

namespace chipkg {
namespace {

using testing::DocBuilder;
using testing::ExpectSameClaim;
using testing::OpenOrDie;
using testing::TempDir;

// A store with history: two versions of one document (with retractions),
// every value kind, odd bytes, entities and settings.
void Populate(Store& store) {
  ASSERT_TRUE(store.PutEntity({"chip:a", "chip", "Chip A", {"A1", "Alpha"}}).ok());
  ASSERT_TRUE(store.PutEntity({"organization:tsmc", "organization", "TSMC", {}}).ok());
  DocBuilder v1("doc-a");
  Fact& m = v1.Add("chip:a", "memory", Value::Quantity(32e9, "bytes", "32 GB"), "Memory 32 GB");
  m.provenance.citations = {"https://example.com/spec", "4"};
  m.provenance.row = 2;
  m.provenance.column = "Memory";
  m.valid_as_of = *Date::Parse("2023-11");
  v1.Add("chip:a", "memory_type", Value::Text("HBM2e"), "HBM2e");
  v1.Add("chip:a", "released", Value::OfDate(*Date::Parse("2022"), "2022"), "2022");
  v1.Add("chip:a", "foundry", Value::Entity("organization:tsmc", "TSMC"), "TSMC");
  v1.Add("chip:a", "safety_critical", Value::Bool(true, "yes"), "yes");
  v1.Add("chip:a", "die_size", Value::NotPublished("n/a"), "n/a");
  v1.Add("chip:a", "bandwidth_ceiling", Value::Quantity(std::numeric_limits<double>::infinity(), "x", "unbounded"),
         "unbounded");
  // A span that ends inside a multi-byte character: the excerpt is not valid UTF-8.
  const std::string snowman = "\xe2\x98\x83";
  Fact& cut = v1.Add("chip:a", "mascot", Value::Text("snow" + snowman.substr(0, 2)), "snow" + snowman.substr(0, 2));
  cut.provenance.suffix = snowman.substr(2);
  cut.provenance.formula = "π ≈ 3.14159";
  cut.provenance.derivation = Derivation::kStatedDerived;
  DocumentVersion dv1 = v1.version();
  dv1.as_of = *Date::Parse("2023-11-28");
  auto w1 = store.WriteDocumentVersion(v1.doc(), dv1, v1.facts(), "run-1");
  ASSERT_TRUE(w1.ok()) << w1.status().ToString();

  DocBuilder v2("doc-a");
  v2.Add("chip:a", "memory", Value::Quantity(32e9, "bytes", "32 GB"), "Memory 32 GB");
  v2.Add("chip:a", "memory_type", Value::Text("HBM3"), "HBM3");
  auto w2 = store.WriteDocumentVersion(v2.doc(), v2.version(), v2.facts(), "run-2");
  ASSERT_TRUE(w2.ok());
  ASSERT_GT(w2->facts_retracted, 0u);

  DocBuilder other("doc-b");
  other.Add("chip:b", "memory", Value::Quantity(-0.0, "bytes", ""), "zero", {{"scope", "server"}, {"chips", "16"}});
  Document d = other.doc();
  d.etag = "W/\"abc\"";
  d.last_modified = "yesterday";
  ASSERT_TRUE(store.WriteDocumentVersion(d, other.version(), other.facts(), "run-3").ok());
  ASSERT_TRUE(store.PutDocument({"doc-empty", "file:///x", "No versions", "", "", "", ""}).ok());
  // A retired document: the mark travels with the export.
  DocBuilder gone("doc-gone");
  gone.Add("chip:b", "tdp", Value::Quantity(300, "watts", "300 W"), "300 W");
  ASSERT_TRUE(store.WriteDocumentVersion(gone.doc(), gone.version(), gone.facts(), "run-4").ok());
  ASSERT_TRUE(store.RetireDocument("doc-gone", "run-5").ok());
  ASSERT_TRUE(store.PutMeta("match/a1", "confirmed").ok());
  ASSERT_TRUE(store.PutMeta("ingest/state", std::string("bin\0ary\xff", 8)).ok());
}

std::string ExportOf(const Store& store) {
  std::ostringstream out;
  Status s = store.Export(out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out.str();
}

TEST(ExportTest, ImportReproducesTheStoreExactly) {
  TempDir dir;
  auto original = OpenOrDie(dir.Sub("a"));
  Populate(*original);
  const std::string first = ExportOf(*original);
  ASSERT_FALSE(first.empty());
  // A retired document: the format that keeps the mark, which a chipkg of an older format refuses.
  EXPECT_EQ(first.substr(0, first.find('\n')), R"({"type":"format","format":"chipkg-store 3","end_record":true})");
  {  // Without one, the first format's name: a chipkg of any format imports it and loses nothing.
    auto plain = OpenOrDie(dir.Sub("plain"));
    ASSERT_TRUE(plain->PutEntity({"chip:p", "chip", "P", {}}).ok());
    const std::string text = ExportOf(*plain);
    EXPECT_EQ(text.substr(0, text.find('\n')), R"({"type":"format","format":"chipkg-store 1","end_record":true})");
  }

  auto copy = OpenOrDie(dir.Sub("b"));
  std::istringstream in(first);
  auto stats = copy->Import(in);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->facts, original->Statistics().value().facts);
  EXPECT_EQ(stats->entities, 2u);
  EXPECT_EQ(stats->documents, 4u);
  EXPECT_NE(first.find(R"("retired_tx":)"), std::string::npos);
  EXPECT_NE(first.find(R"("created_tx":)"), std::string::npos);
  const std::string second = ExportOf(*copy);
  EXPECT_EQ(first, second);
  EXPECT_EQ(copy->GetEntity("chip:a").value().created_tx, original->GetEntity("chip:a").value().created_tx);

  // The copy answers reads exactly as the original, ids and transactions included.
  EXPECT_EQ(copy->LastTx(), original->LastTx());
  ReadView all;
  all.include_retracted = true;
  for (const char* subject : {"chip:a", "chip:b"}) {
    auto a = original->FactsAbout(subject, all).value();
    auto b = copy->FactsAbout(subject, all).value();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      ExpectSameClaim(a[i], b[i]);
      EXPECT_EQ(a[i].id, b[i].id);
      EXPECT_EQ(a[i].asserted_tx, b[i].asserted_tx);
      EXPECT_EQ(a[i].retracted_tx, b[i].retracted_tx);
      EXPECT_EQ(a[i].provenance.run_id, b[i].provenance.run_id);
      EXPECT_EQ(a[i].provenance.document_version, b[i].provenance.document_version);
    }
  }
  auto sa = original->Statistics().value();
  auto sb = copy->Statistics().value();
  EXPECT_EQ(sa.facts, sb.facts);
  EXPECT_EQ(sa.live_facts, sb.live_facts);
  EXPECT_EQ(sa.retracted_facts, sb.retracted_facts);
  EXPECT_EQ(sa.not_published_facts, sb.not_published_facts);
  EXPECT_EQ(sa.documents, sb.documents);
  EXPECT_EQ(sa.document_versions, sb.document_versions);
  EXPECT_EQ(sa.entities, sb.entities);
  EXPECT_EQ(sa.transactions, sb.transactions);
  EXPECT_EQ(copy->GetMeta("ingest/state").value(), std::string("bin\0ary\xff", 8));
  EXPECT_EQ(copy->FindEntity("alpha").value().id, "chip:a");
  EXPECT_EQ(copy->GetDocument("doc-b").value().etag, "W/\"abc\"");
  const TxId retired = original->GetDocument("doc-gone").value().retired_tx;
  EXPECT_NE(retired, 0u);
  EXPECT_EQ(copy->GetDocument("doc-gone").value().retired_tx, retired);
  EXPECT_EQ(copy->GetDocument("doc-b").value().retired_tx, 0u);
  {  // An export written by a chipkg of format 2 has no mark: the import marks it from the log.
    std::string old_export = first;
    const std::string field = R"(,"retired_tx":)" + std::to_string(retired);
    const size_t at = old_export.find(field);
    ASSERT_NE(at, std::string::npos);
    old_export.erase(at, field.size());
    const std::string format_3 = R"("format":"chipkg-store 3")";
    ASSERT_LT(old_export.find(format_3), old_export.find('\n'));
    old_export.replace(old_export.find(format_3), format_3.size(), R"("format":"chipkg-store 1")");
    auto older = OpenOrDie(dir.Sub("c"));
    std::istringstream old_in(old_export);
    ASSERT_TRUE(older->Import(old_in).ok());
    EXPECT_EQ(older->GetDocument("doc-gone").value().retired_tx, retired);
    EXPECT_EQ(older->GetDocument("doc-b").value().retired_tx, 0u);
  }
  auto hist = copy->History("chip:a", "memory_type").value();
  ASSERT_EQ(hist.size(), 2u);
  EXPECT_FALSE(hist[0].live());
  auto inf = copy->FactsAbout("chip:a", "bandwidth_ceiling").value();
  ASSERT_EQ(inf.size(), 0u);  // retracted by version 2
  ReadView at1;
  at1.as_of_tx = 3;  // two entities, then version 1
  auto then = copy->FactsAbout("chip:a", "bandwidth_ceiling", at1).value();
  ASSERT_EQ(then.size(), 1u);
  EXPECT_TRUE(std::isinf(then[0].value.number));
  auto mascot = copy->FactsAbout("chip:a", "mascot", all).value();
  ASSERT_EQ(mascot.size(), 1u);
  EXPECT_EQ(mascot[0].value.text, "snow\xe2\x98");
  EXPECT_EQ(mascot[0].provenance.formula, "π ≈ 3.14159");

  // New writes on the copy continue after the imported ids and transactions.
  DocBuilder more("doc-c");
  more.Add("chip:c", "memory", Value::Quantity(1, "bytes", "1"), "1");
  auto w = copy->WriteDocumentVersion(more.doc(), more.version(), more.facts(), "after");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->tx, original->LastTx() + 1);
  uint64_t max_id = 0;
  for (const char* subject : {"chip:a", "chip:b"}) {
    auto facts = original->FactsAbout(subject, all).value();
    for (const auto& f : facts) max_id = std::max(max_id, f.id);
  }
  EXPECT_GT(copy->FactsAbout("chip:c").value().front().id, max_id);
}

TEST(ExportTest, ImportRefusesNonEmptyStoresAndBadInput) {
  TempDir dir;
  auto original = OpenOrDie(dir.Sub("a"));
  Populate(*original);
  const std::string text = ExportOf(*original);

  std::istringstream again(text);
  auto into_full = original->Import(again);
  ASSERT_FALSE(into_full.ok());
  EXPECT_TRUE(into_full.status().IsInvalidArgument());
  EXPECT_NE(into_full.status().message().find("empty store"), std::string::npos);

  auto target = OpenOrDie(dir.Sub("b"));
  // A damaged line in the middle: the import fails, naming the line, and leaves nothing.
  std::string damaged = text;
  size_t fact_line = damaged.find("{\"type\":\"fact\"");
  ASSERT_NE(fact_line, std::string::npos);
  damaged.insert(fact_line + 5, "}}garbage");
  std::istringstream bad(damaged);
  auto r = target->Import(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("import line"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("key 'type' not found"), std::string::npos) << r.status().ToString();
  EXPECT_EQ(r.status().message().find("json.exception"), std::string::npos) << r.status().ToString();
  // A line cut in the middle of its JSON: the file's line and the column, not the parser's own "line 1".
  std::string cut = text;
  cut.insert(cut.find('\n', fact_line), "{\"type\":\"fact\",\n");
  std::istringstream cut_in(cut);
  auto c = target->Import(cut_in);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find(": not valid JSON at column "), std::string::npos) << c.status().ToString();
  EXPECT_EQ(c.status().message().find("json.exception"), std::string::npos) << c.status().ToString();
  EXPECT_EQ(c.status().message().find("at line 1,"), std::string::npos) << c.status().ToString();
  EXPECT_EQ(target->LastTx(), 0u);
  EXPECT_TRUE(target->ListDocuments().value().empty());
  EXPECT_TRUE(target->ListEntities().value().empty());

  // A text that no longer matches its hash is corrupt.
  std::string tampered = text;
  size_t pos = tampered.find("Memory 32 GB");
  ASSERT_NE(pos, std::string::npos);
  tampered[pos] = 'X';
  std::istringstream tampered_in(tampered);
  auto t = target->Import(tampered_in);
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(t.status().IsCorruption()) << t.status().ToString();

  // An entity first stored by a transaction the export does not hold.
  std::string unborn = text;
  const size_t created = unborn.find(R"("created_tx":)");
  ASSERT_NE(created, std::string::npos);
  unborn.replace(created, unborn.find('}', created) - created, R"("created_tx":999999)");
  std::istringstream unborn_in(unborn);
  auto u = target->Import(unborn_in);
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.status().message().find("names created_tx 999999, which is not in the import"), std::string::npos)
      << u.status().ToString();

  std::istringstream other_format(R"({"type":"format","format":"chipkg-store 9"})"
                                  "\n");
  EXPECT_TRUE(target->Import(other_format).status().IsFormatMismatch());
  std::istringstream empty("");
  EXPECT_FALSE(target->Import(empty).ok());

  // After all that the target still takes the good export.
  std::istringstream good(text);
  auto ok = target->Import(good);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ExportOf(*target), text);
}

// An export ends with a count of its records, so that one cut short at a
// line boundary (an interrupted copy, a full disk) is refused rather than
// imported as a smaller store; exports written before the end record existed
// (no "end_record" in their format line) still import.
TEST(ExportTest, ImportRefusesAnExportCutShortOrExtended) {
  TempDir dir;
  auto original = OpenOrDie(dir.Sub("a"));
  Populate(*original);
  const std::string text = ExportOf(*original);
  ASSERT_EQ(text.find(R"({"type":"format","format":"chipkg-store 3","end_record":true})"), 0u) << text.substr(0, 80);
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    const size_t nl = text.find('\n', at);
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  ASSERT_GT(lines.size(), 5u);
  EXPECT_EQ(lines.back(), R"({"type":"end","records":)" + std::to_string(lines.size() - 1) + "}");
  auto join = [](const std::vector<std::string>& ls, size_t from, size_t to) {
    std::string out;
    for (size_t i = from; i < to; ++i) out += ls[i] + "\n";
    return out;
  };
  auto target = OpenOrDie(dir.Sub("b"));
  auto refused = [&](const std::string& input, const std::string& says) {
    std::istringstream in(input);
    auto r = target->Import(in);
    ASSERT_FALSE(r.ok()) << says;
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(says), std::string::npos) << r.status().ToString();
    EXPECT_EQ(target->LastTx(), 0u);
    EXPECT_TRUE(target->ListDocuments().value().empty());
  };
  refused(join(lines, 0, lines.size() - 1), "without its end record: it was cut short");
  refused(join(lines, 0, lines.size() / 2), "ends at line " + std::to_string(lines.size() / 2));
  std::vector<std::string> one_missing = lines;
  one_missing.erase(one_missing.end() - 2);  // the last fact: no record after it names it
  refused(join(one_missing, 0, one_missing.size()), "lines are missing");
  refused(text + lines[1] + "\n", "a record after the end record");
  {  // A line cut inside a long text: the error quotes the end of what was read, not all of it.
    std::string long_line = R"({"type":"entity","id":"chip:long","kind":"chip","name":")" + std::string(30000, 'x');
    std::istringstream in(lines[0] + "\n" + long_line + "\n");
    auto r = target->Import(in);
    ASSERT_FALSE(r.ok());
    EXPECT_LT(r.status().message().size(), 400u) << r.status().message().substr(0, 600);
    EXPECT_NE(r.status().message().find("import line 2: "), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("; last read: '...xxxx"), std::string::npos) << r.status().message();
  }

  // The same store exported before the end record existed.
  std::vector<std::string> old_style(lines.begin(), lines.end() - 1);
  old_style[0] = R"({"type":"format","format":"chipkg-store 1"})";
  std::istringstream old_in(join(old_style, 0, old_style.size()));
  auto imported = target->Import(old_in);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ(ExportOf(*target), text);
}

// What an import refuses says what is wrong with the line, not something
// near it, and quotes a bad value only in part.
TEST(ExportTest, AnImportsErrorsSayWhatIsWrong) {
  TempDir dir;
  auto original = OpenOrDie(dir.Sub("a"));
  Populate(*original);
  const std::string text = ExportOf(*original);
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    const size_t nl = text.find('\n', at);
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  auto target = OpenOrDie(dir.Sub("b"));
  // Lines with the end record's count made to match them: only what is asked about is wrong.
  auto import_of = [&](std::vector<std::string> ls) {
    ls.back() = R"({"type":"end","records":)" + std::to_string(ls.size() - 1) + "}";
    std::string input;
    for (const auto& l : ls) input += l + "\n";
    std::istringstream in(input);
    return target->Import(in);
  };
  auto says = [&](const Result<ImportStats>& r, const std::string& what) {
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().message().substr(0, 800);
    EXPECT_EQ(target->LastTx(), 0u);
  };
  auto first_of = [&](const std::string& type) {
    for (size_t i = 0; i < lines.size(); ++i) {
      if (nlohmann::json::parse(lines[i]).value("type", "") == type) return i;
    }
    ADD_FAILURE() << "no " << type << " line";
    return size_t{0};
  };

  // A line more than the end record counts: lines were added, not missing.
  {
    std::vector<std::string> ls = lines;
    ls.insert(ls.end() - 1, R"({"type":"meta","key":"added","value":"by hand"})");
    std::string input;
    for (const auto& l : ls) input += l + "\n";
    std::istringstream in(input);
    says(target->Import(in), "lines were added");
  }
  // Two records of one entity, or of one document, are refused, as two of one fact are.
  for (const std::string type : {"entity", "document"}) {
    std::vector<std::string> ls = lines;
    const size_t at = first_of(type);
    nlohmann::json other = nlohmann::json::parse(ls[at]);
    other["name"] = "Another";
    other["title"] = "Another";
    ls.insert(ls.begin() + static_cast<std::ptrdiff_t>(at) + 1, other.dump());
    says(import_of(ls), type + " " + other["id"].get<std::string>() + " given twice");
  }
  {  // A control character in a name would reach a terminal raw.
    std::vector<std::string> ls = lines;
    const size_t at = first_of("entity");
    nlohmann::json edited = nlohmann::json::parse(ls[at]);
    edited["name"] = "evil\x1b[31m";
    ls[at] = edited.dump();
    says(import_of(ls), "a name holds the control character U+001B at byte 4");
  }
  {
    std::vector<std::string> ls = lines;
    ls.insert(ls.begin() + 1, "[1, 2, 3]");
    says(import_of(ls), "import line 2: a record is a JSON object");
  }
  {  // A value of 100 KB is quoted in part.
    std::vector<std::string> ls = lines;
    ls.insert(ls.begin() + 1, R"({"type":")" + std::string(100000, 'x') + R"("})");
    auto r = import_of(ls);
    says(r, "unknown record type 'xxx");
    EXPECT_LT(r.status().message().size(), 600u);
    EXPECT_NE(r.status().message().find(" bytes of message in all)"), std::string::npos);
  }
  {  // A retraction before its assertion, and a span whose end is before its start.
    std::vector<std::string> retracted = lines, reversed = lines;
    bool edited_retraction = false;
    for (size_t i = 0; i < lines.size(); ++i) {
      nlohmann::json j = nlohmann::json::parse(lines[i]);
      if (j.value("type", "") != "fact") continue;
      if (!edited_retraction && !j["retracted_tx"].is_null() && j["retracted_tx"].get<uint64_t>() != 0) {
        std::swap(j["asserted_tx"], j["retracted_tx"]);
        retracted[i] = j.dump();
        edited_retraction = true;
      }
    }
    ASSERT_TRUE(edited_retraction) << "Populate retracts no fact";
    says(import_of(retracted), " is before asserted_tx ");
    const size_t fact = first_of("fact");
    nlohmann::json j = nlohmann::json::parse(lines[fact]);
    ASSERT_TRUE(j.contains("provenance")) << lines[fact];
    auto& p = j["provenance"];
    std::swap(p["span_begin"], p["span_end"]);
    reversed[fact] = j.dump();
    says(import_of(reversed), ") ends before it begins");
  }
  {  // A field of another JSON type is named (nlohmann said "cannot use at() with string").
    const size_t fact = first_of("fact");
    const nlohmann::json j = nlohmann::json::parse(lines[fact]);
    auto with = [&](const std::function<void(nlohmann::json&)>& edit) {
      std::vector<std::string> ls = lines;
      nlohmann::json edited = j;
      edit(edited);
      ls[fact] = edited.dump();
      return import_of(ls);
    };
    says(with([](nlohmann::json& f) { f["value"] = "dense"; }), "field 'value' is a string, where an object belongs");
    says(with([](nlohmann::json& f) { f["provenance"]["excerpt"] = 5; }), "field 'excerpt': expected a string, found 5");
    says(with([](nlohmann::json& f) { f["value"]["kind"] = 3; }), "field 'kind': type must be string, but is number");
    says(with([](nlohmann::json& f) { f["value"]["kind"] = "textt"; }), ": field 'kind': unknown value kind 'textt'");
    // A string written as hex (bytes that are not UTF-8) is read under its own field's name.
    says(with([](nlohmann::json& f) { f["provenance"]["note"] = {{"hex", "abc"}}; }),
         ": field 'note': odd-length hex string");
    says(with([](nlohmann::json& f) { f["provenance"] = nlohmann::json::array(); }),
         "field 'provenance' is an array, where an object belongs");
  }
}

}  // namespace
}  // namespace chipkg
