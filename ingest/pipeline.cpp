#include "ingest/pipeline.h"

#include <iconv.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>

#include "engine/store.h"
#include "engine/utf8.h"
#include "ingest/dataset.h"
#include "ingest/extract.h"
#include "ingest/fetch.h"
#include "ingest/html_text.h"
#include "ingest/resolve.h"
#include "schema/schema.h"

namespace chipkg {
namespace {

std::string HostOf(const std::string& location) {
  const std::string url = CanonicalUrl(WithoutCredentials(location));
  auto p = url.find("://");
  if (p == std::string::npos || url.rfind("file://", 0) == 0) return "";
  auto start = p + 3;
  auto end = url.find_first_of("/:?#", start);
  return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// Stable document id for a location: a URL in its canonical form (one page
// written two ways is one document), a path made absolute so that the same
// file is one document whatever the cwd.
std::string DocumentIdFor(const SourceSpec& spec) {
  if (!spec.id.empty()) return spec.id;
  if (IsUrl(spec.location)) return CanonicalUrl(spec.location);
  std::error_code ec;
  auto abs = std::filesystem::weakly_canonical(spec.location, ec);
  return "file://" + (ec ? spec.location : abs.string());
}

int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}


// The schema's entities are the reference names; keep the store's copy in step
// so lookups by alias work for readers that only have the store.
Status SyncSchemaEntities(Store& store, const Schema& schema) {
  for (const auto& def : schema.entities()) {
    Entity e{def.id, def.kind, def.name, def.aliases};
    auto existing = store.GetEntity(def.id);
    if (existing.ok() && existing->kind == e.kind && existing->name == e.name && existing->aliases == e.aliases) {
      continue;
    }
    CHIPKG_RETURN_IF_ERROR(store.PutEntity(e).WithContext("storing entity " + def.id));
  }
  return Status::OK();
}

// Why `body` cannot be a version of a document, or "" when it can. An empty
// body or one that is not text (a server's empty 200, an error page's
// binary, a wrong URL) is a failed fetch, not a new version: stored, it would
// retract every fact the previous version stated.
std::string WhyNotADocument(std::string_view body) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return body.empty() ? "the document is empty" : "the document is only white space";
  }
  if (const size_t nul = body.find('\0'); nul != std::string_view::npos) {
    if (body.starts_with("%PDF-")) return "the document is a PDF, not text (chipkg reads text and HTML pages)";
    return "the document is not text (a NUL byte at offset " + std::to_string(nul) + ")";
  }
  return "";
}

// A byte of Windows-1252 (the superset of Latin-1 that older pages are served
// in without saying so) as UTF-8.
void AppendWindows1252(unsigned char b, std::string* out) {
  static constexpr uint16_t k80To9F[32] = {0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                                           0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
                                           0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                                           0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};
  const uint32_t cp = b >= 0x80 && b <= 0x9F ? k80To9F[b - 0x80] : b;
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The text of a body in the charset its server names (Content-Type's
// charset), an HTML page's <meta charset> or its byte order mark says
// (UTF-16), as UTF-8; the body as it is for UTF-8 and the Latin charsets,
// which AsUtf8 reads. Through glibc's iconv, part of the C library: a GBK
// page (Chinese vendors serve them) was stored as Windows-1252 mojibake
// under its own charset's name, and UTF-16 refused as "not text". Labels
// are read as browsers read them (gb2312 is GBK's subset, which pages
// labelled so use beyond it: read as GB18030, the superset).
std::string CharsetLabel(std::string label) {
  label.erase(std::remove_if(label.begin(), label.end(), [](unsigned char c) { return std::isspace(c); }),
              label.end());
  std::transform(label.begin(), label.end(), label.begin(), [](unsigned char c) { return std::tolower(c); });
  if (label.size() >= 2 && (label.front() == '"' || label.front() == '\'') && label.back() == label.front()) {
    label = label.substr(1, label.size() - 2);
  }
  return label;
}

Result<std::string> DecodeCharset(std::string body, std::string_view content_type) {
  std::string charset, said_by = "the server's charset";
  for (size_t at = content_type.find(';'); at != std::string_view::npos; at = content_type.find(';', at + 1)) {
    const std::string param = CharsetLabel(std::string(content_type.substr(at + 1, content_type.find(';', at + 1) - at - 1)));
    if (param.rfind("charset=", 0) == 0) charset = CharsetLabel(param.substr(8));
  }
  if (charset.empty() && LooksLikeHtml(content_type, body)) {
    // <meta charset="gbk"> or <meta http-equiv=... content="text/html; charset=gbk">, near the start.
    std::string head = body.substr(0, 4096);
    std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return std::tolower(c); });
    for (size_t meta = head.find("<meta"); meta != std::string::npos; meta = head.find("<meta", meta + 5)) {
      const size_t end = head.find('>', meta);
      const size_t at = head.find("charset", meta);
      if (at == std::string::npos || at > end) continue;
      size_t v = head.find('=', at);
      if (v == std::string::npos || v > end) continue;
      ++v;
      while (v < end && (head[v] == ' ' || head[v] == '"' || head[v] == '\'')) ++v;
      size_t e = v;
      while (e < end && head[e] != '"' && head[e] != '\'' && head[e] != ' ' && head[e] != ';' && head[e] != '/') ++e;
      charset = CharsetLabel(head.substr(v, e - v));
      said_by = "its <meta charset>";
      break;
    }
  }
  if (body.starts_with("\xFF\xFE") || body.starts_with("\xFE\xFF")) {
    charset = "utf-16";
    said_by = "its byte order mark";
  }
  static const std::set<std::string> kReadAsIs = {
      "",           "utf-8",      "utf8",    "unicode-1-1-utf-8", "us-ascii", "ascii", "iso-8859-1", "iso8859-1",
      "iso_8859-1", "latin1",     "latin-1", "l1",                "cp819",    "iso-8859-15", "latin9",
      "windows-1252", "cp1252", "x-cp1252"};
  if (kReadAsIs.count(charset) > 0) return body;
  static const std::vector<std::pair<std::vector<std::string>, std::string>> kAliases = {
      {{"gb2312", "gbk", "x-gbk", "gb_2312-80", "csgb2312", "chinese", "iso-ir-58", "euc-cn", "cp936", "gb18030"},
       "GB18030"},
      {{"shift_jis", "shift-jis", "sjis", "x-sjis", "ms_kanji", "windows-31j", "csshiftjis", "ms932", "cp932"},
       "CP932"},
      {{"euc-kr", "ks_c_5601-1987", "korean", "ksc5601", "cp949", "windows-949", "csksc56011987"}, "CP949"},
      {{"big5", "big5-hkscs", "cn-big5", "x-x-big5", "csbig5"}, "BIG5-HKSCS"},
  };
  std::string iconv_name = charset;
  for (const auto& [labels, name] : kAliases) {
    if (std::find(labels.begin(), labels.end(), charset) != labels.end()) iconv_name = name;
  }
  iconv_t cd = iconv_open("UTF-8", iconv_name.c_str());
  if (cd == reinterpret_cast<iconv_t>(-1)) {
    return Status::InvalidArgument(said_by + " is '" + charset + "', which chipkg cannot read");
  }
  std::string out(body.size() * 2 + 16, '\0');
  char* in = body.data();
  size_t in_left = body.size();
  char* to = out.data();
  size_t to_left = out.size();
  Status status;
  while (in_left > 0) {
    if (iconv(cd, &in, &in_left, &to, &to_left) != static_cast<size_t>(-1)) continue;
    if (errno == E2BIG) {
      const size_t used = out.size() - to_left;
      out.resize(out.size() * 2);
      to = out.data() + used;
      to_left = out.size() - used;
      continue;
    }
    status = Status::InvalidArgument("not valid " + charset + " (" + said_by + ") at byte " +
                                     std::to_string(body.size() - in_left));
    break;
  }
  iconv_close(cd);
  if (!status.ok()) return status;
  out.resize(out.size() - to_left);
  if (out.starts_with("\xEF\xBB\xBF")) out.erase(0, 3);  // the mark, decoded: no part of the text
  return out;
}

// The text as UTF-8: what is well-formed UTF-8 kept as it is, each byte that
// is not read as Windows-1252. Byte by byte rather than for the whole text: a
// UTF-8 page with one stray byte (a 0x92 apostrophe pasted from an old
// editor) read wholly as Windows-1252 had every other accented name and "✓"
// garbled, and on the next run stated a fraction of its facts. A page wholly
// in Windows-1252 comes out the same either way, but for the rare pair of its
// bytes that happens to be well-formed UTF-8. Says, in `warning`, where the
// first such byte was and how many there were; leaves it empty for UTF-8.
std::string AsUtf8(std::string text, std::string* warning) {
  size_t first = FirstInvalidUtf8(text);
  if (first == std::string::npos) return text;
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  size_t at = 0, replaced = 0;
  std::string_view rest(text);
  while (true) {
    const size_t bad = FirstInvalidUtf8(rest.substr(at));
    if (bad == std::string_view::npos) {
      out.append(rest.substr(at));
      break;
    }
    out.append(rest.substr(at, bad));
    AppendWindows1252(static_cast<unsigned char>(rest[at + bad]), &out);
    ++replaced;
    at += bad + 1;
  }
  *warning = "not valid UTF-8 at byte " + std::to_string(first) + ": " + std::to_string(replaced) +
             (replaced == 1 ? " byte" : " bytes") + " read as Windows-1252";
  return out;
}

// A stored version states at least this many facts before a new one that
// states less than half as many is refused: a short page losing a few facts
// is an ordinary edit.
constexpr size_t kShrinkGuardFromFacts = 10;

// What a source's fetch needs from the store, read before the fetch.
struct PreparedSource {
  Status status;  // a failure of the store read: the source's failure
  Document doc;   // the stored record (validators included) with the spec's fields over it
  FetchRequest request;
  std::string relabelled;  // SourceOutcome::relabelled
};

PreparedSource PrepareSource(const Store& store, const SourceSpec& spec) {
  PreparedSource out;
  std::string doc_id = DocumentIdFor(spec);
  Document& doc = out.doc;
  auto existing = store.GetDocument(doc_id);
  if (existing.status().IsNotFound() && spec.id.empty() && doc_id != spec.location) {
    // Stores written before URLs were made canonical hold the document under
    // the URL as it was given; it stays that document.
    if (auto as_given = store.GetDocument(spec.location); as_given.ok() || !as_given.status().IsNotFound()) {
      doc_id = spec.location;
      existing = std::move(as_given);
    }
  }
  if (existing.ok()) {
    doc = *existing;
  } else if (!existing.status().IsNotFound()) {
    out.status = existing.status();
  }
  // A document read from another place than last time (its manifest entry
  // moved to a new URL or file) has no validators there: the old place's,
  // sent to the new one, drew a 304 from any server whose file was older,
  // and the new page was never read.
  if (doc.url != spec.location) {
    doc.etag.clear();
    doc.last_modified.clear();
  }
  doc.id = doc_id;
  doc.url = spec.location;
  if (!spec.title.empty()) doc.title = spec.title;
  doc.site = !spec.site.empty() ? spec.site : (doc.site.empty() ? HostOf(spec.location) : doc.site);
  if (!spec.kind.empty()) doc.kind = spec.kind;
  if (existing.ok()) {
    for (const auto& [what, was, now] : {std::tuple{"kind", existing->kind, doc.kind},
                                         std::tuple{"site", existing->site, doc.site}}) {
      if (was == now) continue;
      out.relabelled += std::string(out.relabelled.empty() ? "" : "; ") + what + " " +
                        (was.empty() ? "(none)" : was) + " -> " + (now.empty() ? "(none)" : now);
    }
  }
  if (IsUrl(spec.location) && WithoutCredentials(spec.location) != spec.location) {
    // The location is the document's URL and id: stored, exported, cited.
    out.status = Status::InvalidArgument(WithoutCredentials(spec.location) +
                                         ": a URL with a user name or password is not ingested (it would be stored "
                                         "and exported with the document)");
  }
  out.request.url = spec.location;
  out.request.etag = doc.etag;
  out.request.last_modified = doc.last_modified;
  return out;
}

// The texts the store holds, by content hash: a new document whose text one
// of them is (the page already in a manifest, ingested again by its URL or
// a file copy, or under a renamed id) would count every claim twice, as two
// sources agreeing. Read once a run, when the first new document comes.
class KnownTexts {
 public:
  // A document whose latest version holds `hash` and which has standing
  // claims (a retired copy counts for nothing, an old version is no longer
  // what its document says), with that version; none if no such document.
  Result<std::optional<std::pair<std::string, uint32_t>>> Find(const Store& store, const std::string& hash) {
    using Found = std::optional<std::pair<std::string, uint32_t>>;
    if (!by_hash_) {
      by_hash_.emplace();
      auto versions = store.ListAllDocumentVersions();
      if (!versions.ok()) return versions.status().WithContext("listing document versions to compare texts");
      std::map<std::string, uint32_t> latest;
      for (const DocumentVersion& v : *versions) {
        uint32_t& n = latest[v.document_id];
        n = std::max(n, v.version);
      }
      for (const DocumentVersion& v : *versions) {
        if (latest[v.document_id] == v.version) (*by_hash_)[v.content_hash].emplace_back(v.document_id, v.version);
      }
    }
    auto it = by_hash_->find(hash);
    if (it == by_hash_->end()) return Found();
    for (const auto& [document_id, version] : it->second) {
      auto standing = store.FactsFromDocument(document_id);
      if (!standing.ok()) return standing.status();
      if (!standing->empty()) return Found(std::make_pair(document_id, version));
    }
    return Found();
  }
  // A version stored in this run (a later source may repeat it).
  void Add(const std::string& hash, const std::string& document_id, uint32_t version) {
    if (by_hash_) (*by_hash_)[hash].emplace_back(document_id, version);
  }

 private:
  std::optional<std::map<std::string, std::vector<std::pair<std::string, uint32_t>>>> by_hash_;
};

// The rule of any claim the document ever made (the first, retracted ones
// included), empty when it made none: how its stored text was read, for
// versions stored before that was kept with them.
Result<std::string> RuleOfAnyClaim(const Store& store, const std::string& document_id) {
  ReadView all;
  all.include_retracted = true;
  all.with_provenance = false;  // the rule is in the core
  auto facts = store.FactsFromDocument(document_id, std::nullopt, all);
  if (!facts.ok()) return facts.status();
  return facts->empty() ? std::string() : facts->front().provenance.rule;
}

// What one text states, read as a page or (`format` not empty) as the
// dataset `format` names.
struct Extracted {
  std::vector<Fact> facts;
  std::optional<Date> as_of;
  std::string title;  // a page's own; empty for a dataset
  std::vector<std::string> warnings;
};
Result<Extracted> ExtractText(const Schema& schema, EntityResolver& resolver, const Document& doc,
                              const std::string& location, const std::string& text, const std::string& format,
                              size_t max_facts) {
  Extracted out;
  if (format.empty()) {
    SourceInfo info{doc.id, location, doc.site, doc.kind};
    auto extraction = ExtractDocument(text, info, schema, resolver, max_facts);
    if (!extraction.ok()) return extraction.status();
    out.title = std::move(extraction->title);
    out.as_of = extraction->as_of;
    out.facts = std::move(extraction->facts);
    out.warnings = std::move(extraction->warnings);
    return out;
  }
  auto extraction = ExtractDataset(text, format, doc.id, schema, resolver, max_facts);
  if (!extraction.ok()) return extraction.status();
  out.as_of = extraction->newest_as_of;
  out.facts = std::move(extraction->facts);
  out.warnings = std::move(extraction->warnings);
  // A column read for two attributes (Epoch's "Tensor-FP16/BF16") skips a
  // cell once for each: said once.
  std::set<std::string> said;
  for (const SkippedCell& cell : extraction->skipped) {
    std::string warning = "row " + std::to_string(cell.row) + ", column \"" + cell.column + "\": \"" + cell.text +
                          "\" not read (" + cell.reason + ")";
    if (said.insert(warning).second) out.warnings.push_back(std::move(warning));
  }
  return out;
}

// The new entities the facts name, for the store to write with them in one
// batch: written one by one before the document, a run killed between left
// every one of them (16,490 for a large dataset) with nothing stating
// anything about them, counted by `count chip` and found by name. Only
// entities a fact names: a page with nothing to extract made a chip of its
// first line. The resolver's match decisions are recorded now.
Result<std::vector<Entity>> NamedNewEntities(Store& store, EntityResolver& resolver, const std::vector<Fact>& facts) {
  std::set<std::string> named;
  for (const Fact& f : facts) {
    named.insert(f.subject);
    if (f.value.kind == ValueKind::kEntity) named.insert(f.value.text);
  }
  std::vector<Entity> out;
  for (const auto& e : resolver.NewEntities()) {
    if (named.count(e.id)) out.push_back(e);
  }
  CHIPKG_RETURN_IF_ERROR(RecordMatches(store, resolver.NewMatches()));
  return out;
}

// The user meta record of the rules that read a document's standing claims.
constexpr char kRulesReadKey[] = "rules-read/";
// The user meta record of a source whose ingest failed in the runs up to
// now (FailingSources): JSON, removed by its next success.
// A word as a shell reads it back: quoted when it holds anything but
// letters, digits and "/._-:=,+@%" (a URL's "&", a path's spaces).
std::string ShellWord(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("/._-:=,+@%", c) != nullptr;
  });
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

constexpr char kFailingKey[] = "ingest-failed/";

// The record of a failing source (FailingSources reads it back).
std::string FailureRecord(int64_t since, int64_t last, uint64_t runs, const std::string& location,
                          const std::string& error, const std::vector<std::string>& manifests) {
  nlohmann::json record = {{"since", since}, {"last", last}, {"runs", runs}, {"location", location}, {"error", error}};
  if (!manifests.empty()) record["manifests"] = manifests;
  return record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A failure record's manifests: "manifests", or the one "manifest" of a
// record written before a source could be in several.
std::vector<std::string> RecordedManifests(const nlohmann::json& record) {
  std::vector<std::string> out;
  if (!record.is_object()) return out;
  if (auto it = record.find("manifests"); it != record.end() && it->is_array()) {
    for (const auto& m : *it) {
      if (m.is_string() && !m.get<std::string>().empty()) out.push_back(m.get<std::string>());
    }
  } else if (auto one = record.find("manifest"); one != record.end() && one->is_string() &&
                                                  !one->get<std::string>().empty()) {
    out.push_back(one->get<std::string>());
  }
  return out;
}

// Counts this run's failure onto the record of the runs before (a record
// that cannot be read starts again) and sets the outcome's figures. The
// manifest is added to those the record names: a source two cron jobs list
// is forgotten only once neither does, and a try from the command line
// leaves it in the manifests that list it.
Status RecordFailure(Store& store, SourceOutcome& outcome, const std::string& manifest, int64_t now) {
  const std::string key = kFailingKey + outcome.document_id;
  int64_t since = now;
  uint64_t runs = 1;
  std::vector<std::string> manifests;
  auto before = store.GetMeta(key);
  if (!before.ok() && !before.status().IsNotFound()) return before.status();
  if (before.ok()) {
    const nlohmann::json old = nlohmann::json::parse(*before, nullptr, false);
    auto number = [&old](const char* name) {
      auto it = old.find(name);
      return it != old.end() && it->is_number_integer() ? it->get<int64_t>() : int64_t{0};
    };
    if (old.is_object() && number("since") > 0 && number("runs") > 0) {
      since = number("since");
      runs = static_cast<uint64_t>(number("runs")) + 1;
    }
    manifests = RecordedManifests(old);
  }
  if (!manifest.empty() && std::find(manifests.begin(), manifests.end(), manifest) == manifests.end()) {
    manifests.push_back(manifest);
  }
  outcome.failing_since = since;
  outcome.failed_runs = runs;
  return store.PutMeta(key, FailureRecord(since, now, runs, outcome.location, outcome.error, manifests));
}

// Which rules read a document's standing claims: one meta record a document,
// written in the batch that asserts them (Store's `meta`); written apart, a
// process killed between the two left claims that the next runs called read
// by other rules. Left out when it stands: --reextract runs again and again.
MetaRecords RulesReadRecord(const Store& store, const std::string& document_id, const std::string& rules) {
  auto recorded = store.GetMeta(kRulesReadKey + document_id);
  if (recorded.ok() && *recorded == rules) return {};
  return {{kRulesReadKey + document_id, rules}};
}

// What reads a text besides the schema: ingest/'s own code. Bump it with a
// change there that reads a text otherwise (not kExtractRuleVersion, which
// every page claim carries: a new one would restate every claim).
// 2: dataset notes' sources, derived figures' cited inputs; 3: notes that
// name a column by another word ("Source for power:") or in parentheses;
// 4: a note's link keeps its own closing parenthesis or bracket.
constexpr int kReadingCodeVersion = 4;

}  // namespace

Status ForgetFailingSource(Store& store, const std::string& document_id) {
  return store.DeleteMeta(kFailingKey + document_id);
}

Result<std::vector<FailingSource>> FailingSources(const Store& store) {
  auto records = store.ListMeta(kFailingKey);
  if (!records.ok()) return records.status();
  std::vector<FailingSource> out;
  for (const auto& [key, value] : *records) {
    FailingSource f;
    f.document_id = key.substr(sizeof kFailingKey - 1);
    const nlohmann::json j = nlohmann::json::parse(value, nullptr, false);
    // Read field by field, each of its expected type: a record edited by
    // hand or cut short reads as what it still says, not as an exception.
    auto text = [&j](const char* name) {
      auto it = j.find(name);
      return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    auto number = [&j](const char* name) {
      auto it = j.find(name);
      return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : int64_t{0};
    };
    if (j.is_object()) {
      f.since = number("since");
      f.last = number("last");
      f.runs = static_cast<uint64_t>(std::max<int64_t>(number("runs"), 0));
      f.location = text("location");
      f.manifests = RecordedManifests(j);
      f.error = text("error");
    } else {
      f.error = "(its record is not JSON: " + value.substr(0, 80) + ")";
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::string RulesNow(const Schema& schema) {
  return "schema " + schema.fingerprint().substr(0, 16) + ", extraction " + kExtractRuleVersion + "." +
         std::to_string(kReadingCodeVersion);
}

namespace {

Status IngestOne(Store& store, const Schema& schema, const SourceSpec& spec, PreparedSource& prepared,
                 Result<FetchResult>& fetched, const IngestOptions& options, const std::string& run_id,
                 SourceOutcome& outcome, IngestReport& report, KnownTexts& known_texts,
                 const std::function<Status()>& before_first_write) {
  outcome.document_id = prepared.doc.id;
  CHIPKG_RETURN_IF_ERROR(prepared.status);
  if (!fetched.ok()) return fetched.status();
  // Read again: the record read before the fetch is stale if a source before
  // this one in the run stored the same document.
  PreparedSource now = PrepareSource(store, spec);
  outcome.relabelled = now.relabelled;
  CHIPKG_RETURN_IF_ERROR(now.status);
  Document& doc = now.doc;
  const std::string& doc_id = doc.id;
  // A source that now names another way to read it (a CSV first ingested as
  // a page, then given its dataset) is read again though its text has not
  // changed: unchanged, it kept the page's nothing until --reextract.
  bool read_again = options.reextract;
  if (!spec.format.empty()) {
    auto stored = store.LatestDocumentVersion(doc_id);
    if (!stored.ok() && !stored.status().IsNotFound()) return stored.status();
    if (stored.ok()) {
      std::string was = stored->format;
      if (was.empty()) {  // a version stored before its format was kept: its standing claims' rule says
        ReadView standing;
        standing.with_provenance = false;  // the rule is in the core
        auto live = store.FactsFromDocument(doc_id, std::nullopt, standing);
        if (!live.ok()) return live.status();
        if (!live->empty()) {
          was = Schema::DatasetOfRule(live->front().provenance.rule);
        } else {
          auto rule = RuleOfAnyClaim(store, doc_id);
          if (!rule.ok()) return rule.status();
          was = Schema::DatasetOfRule(*rule);
        }
      }
      const std::string asked = spec.format == "page" ? "" : spec.format;
      read_again = read_again || was != asked;
    }
  }
  std::string text;
  if (fetched->not_modified) {
    if (!read_again) {
      outcome.state = SourceOutcome::State::kUnchanged;
      // What the source list says of it (title, site, kind) is the record's
      // even when the page has not changed.
      auto stored = store.GetDocument(doc_id);
      if (!stored.ok()) return stored.status();
      if (stored->title != doc.title || stored->site != doc.site || stored->kind != doc.kind ||
          stored->url != doc.url) {
        return store.PutDocument(doc);
      }
      return Status::OK();
    }
    auto stored = store.LatestDocumentVersion(doc_id);
    if (!stored.ok()) return stored.status().WithContext("reading the stored text to read it again");
    text = std::move(stored->text);
  } else {
    doc.etag = fetched->etag;
    doc.last_modified = fetched->last_modified;
    auto decoded = DecodeCharset(std::move(fetched->body), fetched->content_type);
    if (!decoded.ok()) {
      return Status::InvalidArgument(spec.location + ": " + decoded.status().message() +
                                     "; nothing stored (a previous version, if any, stands)");
    }
    text = std::move(*decoded);
  }
  if (const std::string why = WhyNotADocument(text); !why.empty()) {
    return Status::InvalidArgument(spec.location + ": " + why + "; nothing stored (a previous version, if any, stands)");
  }
  // Stored, hashed and extracted as UTF-8 (an unchanged page converts to the same text every run).
  std::string encoding_warning;
  text = AsUtf8(std::move(text), &encoding_warning);
  // An HTML page is stored as its text, which the spans count. A stored
  // text read again is that text already, but for one stored as markup
  // before pages were read so: its own first bytes say.
  // A source named a dataset is the CSV it is whatever its server calls it
  // (a mirror that serves every file as text/html flattened it to one line,
  // and the error blamed a missing column); markup where one was expected
  // (a login or error page) fails as what it is.
  const bool named_dataset = !spec.format.empty() && spec.format != "page";
  const bool html = fetched->not_modified || named_dataset ? LooksLikeHtml("", text)
                                                           : LooksLikeHtml(fetched->content_type, text);
  if (html && named_dataset) {
    return Status::InvalidArgument(spec.location + ": an HTML page where the " + spec.format +
                                   " dataset (CSV) was expected; nothing stored (a previous version, if any, stands)");
  }
  std::string markup_warning;
  if (html) {
    text = HtmlToText(text, &markup_warning);
    if (text.empty()) {
      return Status::InvalidArgument(spec.location + ": an HTML page with no text (all markup or script); nothing "
                                     "stored (a previous version, if any, stands)");
    }
  }
  auto latest = store.LatestDocumentVersion(doc_id);
  const std::string content_hash = Sha256Hex(text);
  const bool same_text = latest.ok() && latest->content_hash == content_hash;
  if (same_text && !read_again) {
    outcome.state = SourceOutcome::State::kUnchanged;
    return store.PutDocument(doc);  // keeps the new validators
  }
  if (!latest.ok() && !latest.status().IsNotFound()) return latest.status();
  if (!latest.ok()) {
    auto repeated = known_texts.Find(store, content_hash);
    if (!repeated.ok()) return repeated.status();
    if (*repeated) {
      outcome.repeats = "the same text as " + (*repeated)->first + " version " + std::to_string((*repeated)->second) +
                ", already stored: its claims now count twice, as two sources that agree (to make it a version "
                "of that document instead, give it that id: --id " + (*repeated)->first + ", or \"id\" in the manifest)";
    }
  }

  const TxId retired = doc.retired_tx;
  const std::string reinstate_hint = "; 'chipkg reinstate " + doc_id + "' asserts what its latest version states";
  if (retired != 0 && same_text) {  // --reextract: nothing of it would be asserted
    outcome.retired = "retired by tx " + std::to_string(retired) + " (chipkg retire): not read again" + reinstate_hint;
    outcome.state = SourceOutcome::State::kUnchanged;
    return store.PutDocument(doc);
  }

  auto resolver = MakeEntityResolver(schema, &store);
  DocumentVersion version;
  version.document_id = doc_id;
  version.fetched_at = !fetched->not_modified && fetched->fetched_at != 0 ? fetched->fetched_at : NowSeconds();
  version.content_type = fetched->content_type;
  std::vector<Fact> facts;
  std::optional<std::vector<Fact>> standing;
  if (latest.ok()) {
    auto read = store.FactsFromDocument(doc_id);
    if (!read.ok()) return read.status();
    standing = std::move(*read);
  }
  // A document read as a dataset is read as one again when the source does
  // not say (`chipkg ingest FILE --id epoch-ml-hardware`): as a page, the
  // changed CSV stated nothing, and the error blamed the file. How the
  // stored version was read is kept with it; versions stored before that
  // was kept tell it by their facts' rule.
  std::string stored_format;
  if (latest.ok()) {
    stored_format = latest->format;
    if (stored_format.empty() && standing && !standing->empty()) {
      stored_format = Schema::DatasetOfRule(standing->front().provenance.rule);
    } else if (stored_format.empty() && retired != 0) {  // its claims are all withdrawn
      auto rule = RuleOfAnyClaim(store, doc_id);
      if (!rule.ok()) return rule.status();
      stored_format = Schema::DatasetOfRule(*rule);
    }
  }
  std::string format = spec.format.empty() ? stored_format : spec.format;
  if (format == "page") format.clear();
  version.format = format;
  auto extracted = ExtractText(schema, *resolver, doc, spec.location, text, format, options.max_facts_per_document);
  if (retired != 0) {
    // Kept as history, asserting nothing: the retirement was a decision
    // about the document, which a new text does not undo (and a text that
    // cannot be read fails nothing, since nothing of it is asserted).
    outcome.retired = "retired by tx " + std::to_string(retired) + " (chipkg retire): the new version is stored " +
                      (extracted.ok() ? "without its " + std::to_string(extracted->facts.size()) + " claims"
                                      : "unread (" + extracted.status().message().substr(
                                                             0, extracted.status().message().find("; nothing stored")) +
                                            ")") +
                      reinstate_hint;
    if (extracted.ok()) {
      if (spec.title.empty() && !extracted->title.empty()) doc.title = extracted->title;
      version.as_of = extracted->as_of;
    }
    if (!encoding_warning.empty()) outcome.warnings.push_back(encoding_warning);
    if (!markup_warning.empty()) outcome.warnings.push_back(markup_warning);
    if (doc.title.empty()) doc.title = spec.location;
    version.text = text;
    CHIPKG_RETURN_IF_ERROR(before_first_write());
    auto written = store.WriteDocumentVersion(doc, std::move(version), {}, run_id);
    if (!written.ok()) return written.status();
    outcome.state = SourceOutcome::State::kChanged;
    return Status::OK();
  }
  if (!extracted.ok()) return extracted.status();
  outcome.read_by_these_rules = true;
  // The page's own title, as of its latest version, unless the source list names it.
  if (spec.title.empty() && !extracted->title.empty()) doc.title = extracted->title;
  version.as_of = extracted->as_of;
  facts = std::move(extracted->facts);
  outcome.warnings = std::move(extracted->warnings);
  if (!markup_warning.empty()) outcome.warnings.insert(outcome.warnings.begin(), markup_warning);
  if (!encoding_warning.empty()) outcome.warnings.insert(outcome.warnings.begin(), encoding_warning);
  if (doc.title.empty()) doc.title = spec.location;
  // A new version that states nothing chipkg reads, of a document that
  // stated something (an error or maintenance page served in place of the
  // datasheet, a CSV cut to its header), would retract everything the
  // document said: it is refused, and the stored version stands. One that
  // states less than half of what the stored version states (a page cut
  // short) likewise, unless the caller accepts it.
  if (standing) {
    if (facts.empty() && !standing->empty()) {
      auto reading = [](const std::string& f) { return f.empty() ? std::string("a page") : "dataset " + f; };
      const std::string read_otherwise =
          format == stored_format ? ""
                                  : " (the stored version was read as " + reading(stored_format) +
                                        ", this run read it as " + reading(format) + ")";
      return Status::InvalidArgument(spec.location + ": nothing extracted from the new text (no fact about any "
                                     "entity: an error or maintenance page, or a file cut short?), where the stored "
                                     "version states " + std::to_string(standing->size()) + " facts" +
                                     read_otherwise + "; nothing stored (the stored version stands)");
    }
    if (standing->size() >= kShrinkGuardFromFacts && facts.size() * 2 < standing->size()) {
      const std::string shrinks = "the new text states " + std::to_string(facts.size()) +
                                  " facts where the stored version states " + std::to_string(standing->size());
      // The hint names this document alone: --accept-shrinking on the run's
      // own command line would let every other page of the run shrink too.
      if (!options.accept_shrinking) {
        // As the source is listed: its title kept, its format read; and
        // --reextract, for a text unchanged but read by new rules.
        std::string command = "chipkg ingest " + ShellWord(spec.location) + " --id " + ShellWord(doc.id);
        if (!spec.format.empty()) command += " --dataset " + ShellWord(spec.format);
        if (!spec.title.empty()) command += " --title " + ShellWord(spec.title);
        command += " --reextract --accept-shrinking";
        return Status::InvalidArgument(spec.location + ": " + shrinks +
                                       " (a page cut short, or a layout chipkg reads less of?); nothing stored (the "
                                       "stored version stands; " + command + " stores it)");
      }
      outcome.shrank = shrinks + ": stored, as --accept-shrinking allows";
    }
  } else if (facts.empty()) {
    // Stored (an unchanged text then costs nothing next run), but said: a
    // cron job's first fetch may have met a maintenance page.
    outcome.states_nothing =
        "stored, but it states no fact chipkg reads (an error or maintenance page, or a layout chipkg does not "
        "know?)";
  }

  CHIPKG_RETURN_IF_ERROR(before_first_write());
  Result<std::vector<Entity>> entities = NamedNewEntities(store, *resolver, facts);
  if (!entities.ok()) return entities.status();
  auto count_entities = [&] { report.new_entities.insert(report.new_entities.end(), entities->begin(), entities->end()); };

  const MetaRecords rules_read = RulesReadRecord(store, doc.id, RulesNow(schema));
  if (same_text) {  // read again: the stored version's facts as the rules now read them
    auto restated = store.RestateDocumentVersion(doc, std::move(facts), run_id, *entities, rules_read);
    if (!restated.ok()) return restated.status();
    if (restated->tx != 0) count_entities();
    outcome.state = restated->tx == 0 ? SourceOutcome::State::kUnchanged : SourceOutcome::State::kChanged;
    outcome.facts_added = restated->facts_added;
    outcome.facts_retracted = restated->facts_retracted;
    return restated->tx == 0 ? store.PutDocument(doc) : Status::OK();
  }
  version.text = text;
  auto written = store.WriteDocumentVersion(doc, std::move(version), std::move(facts), run_id, *entities, rules_read);
  if (!written.ok()) return written.status();
  count_entities();
  known_texts.Add(content_hash, doc_id, written->version);
  outcome.state = latest.ok() ? SourceOutcome::State::kChanged : SourceOutcome::State::kNew;
  outcome.facts_added = written->facts_added;
  outcome.facts_retracted = written->facts_retracted;
  return Status::OK();
}

}  // namespace

std::string NewRunId() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "run-%Y%m%dT%H%M%SZ", &tm);
  return std::string(buf) + "-" + std::to_string(::getpid());
}

std::string IngestReport::SummaryLine() const {
  std::ostringstream out;
  out << "chipkg ingest " << run_id << ": documents " << documents_new << " new, " << documents_changed
      << " changed, " << documents_unchanged << " unchanged, " << documents_failed << " failed; facts "
      << facts_added << " added, " << facts_retracted << " retracted; " << new_entities.size()
      << " new entities; " << std::fixed;
  out.precision(2);
  out << seconds << " s";
  return out.str();
}

std::string ManifestName(const std::string& path) {
  if (path == "-") return "standard input";
  // One name for the file however relative the path given, so that a run
  // of it knows its own sources' failure records. Links are not resolved:
  // the sources' relative locations are read from the path as given, so a
  // link elsewhere to the file lists other sources.
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  return (ec ? std::filesystem::path(path) : absolute).lexically_normal().string();
}

Result<std::vector<SourceSpec>> LoadManifest(const std::string& given) {
  const bool from_stdin = given == "-";
  const std::string path = from_stdin ? std::string("standard input") : given;
  std::stringstream buf;
  if (from_stdin) {
    buf << std::cin.rdbuf();
    if (std::cin.bad()) return Status::IOError("cannot read a manifest from standard input");
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      return Status::InvalidArgument("manifest " + path + " is a directory, not a JSON file");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::IOError("cannot read manifest " + path + ": " + std::strerror(errno));
    buf << in.rdbuf();
  }
  const std::string text = buf.str();
  nlohmann::json json;
  // JSON takes the last of two values of one key silently; in a manifest
  // that is a source's id or location given twice, one of them a mistake.
  std::vector<std::set<std::string>> keys_seen;
  size_t sources_seen = 0;
  std::string duplicate;
  auto refuse_duplicate_keys = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (depth == 1 && (event == Event::object_start || event == Event::array_start || event == Event::value)) {
      ++sources_seen;  // an item of the manifest's array begins
    }
    if (event == Event::object_start) {
      keys_seen.emplace_back();
    } else if (event == Event::object_end && !keys_seen.empty()) {
      keys_seen.pop_back();
    } else if (event == Event::key && keys_seen.size() == 1 && duplicate.empty() &&
               !keys_seen.back().insert(parsed.get<std::string>()).second) {
      // A source's own keys only: an object nested in a value is already
      // wrong as a value, and saying so names the real mistake.
      duplicate = path + ": source " + std::to_string(sources_seen) + ": \"" + parsed.get<std::string>() +
                  "\" is given twice";
    }
    return true;
  };
  try {
    json = nlohmann::json::parse(text, refuse_duplicate_keys);
  } catch (const nlohmann::json::parse_error& e) {
    size_t line = 1 + std::count(text.begin(), text.begin() + std::min<size_t>(e.byte, text.size()), '\n');
    return Status::InvalidArgument(path + ":" + std::to_string(line) + ": not valid JSON (" + e.what() + ")");
  }
  if (!json.is_array()) return Status::InvalidArgument(path + ": a manifest is a JSON array of sources");
  if (!duplicate.empty()) return Status::InvalidArgument(duplicate);
  // Standard input has no directory of its own: its paths are the caller's.
  const auto base = from_stdin ? std::filesystem::path() : std::filesystem::path(path).parent_path();
  const std::string manifest_name = ManifestName(given);
  std::vector<SourceSpec> out;
  // Two sources under one document id would each replace the other's
  // version on every run, retracting and re-adding their facts.
  // Keyed by the document id each source is stored under (DocumentIdFor):
  // one URL written two ways, or an id that is another source's derived one,
  // is one document too.
  std::map<std::string, size_t> source_of_document;
  size_t index = 0;
  for (const auto& item : json) {
    ++index;
    const std::string where = path + ": source " + std::to_string(index);
    SourceSpec spec;
    if (item.is_string()) {
      spec.location = item.get<std::string>();
    } else if (item.is_object()) {
      for (const auto& [key, value] : item.items()) {
        std::string* field = key == "location" ? &spec.location
                             : key == "site"   ? &spec.site
                             : key == "kind"   ? &spec.kind
                             : key == "title"  ? &spec.title
                             : key == "format" ? &spec.format
                             : key == "id"     ? &spec.id
                                               : nullptr;
        if (field == nullptr) {
          return Status::InvalidArgument(where + ": unknown key \"" + key +
                                         "\" (expected location, site, kind, title, format, id)");
        }
        if (!value.is_string()) return Status::InvalidArgument(where + ": \"" + key + "\" must be a string");
        *field = value.get<std::string>();
        // An id or a kind is a word a store keys and lists by: empty, padded
        // or over lines it named another document than meant ("" was no id
        // at all) or broke the listings.
        if ((key == "id" || key == "kind") &&
            (field->empty() || field->find_first_of("\n\r\t") != std::string::npos || field->front() == ' ' ||
             field->back() == ' ')) {
          return Status::InvalidArgument(where + ": \"" + key + "\" must be a word, not empty, without line breaks "
                                         "or spaces around it");
        }
      }
    } else {
      return Status::InvalidArgument(where + ": expected a string or an object");
    }
    if (spec.location.empty()) return Status::InvalidArgument(where + ": \"location\" is missing");
    if (!IsUrl(spec.location) && std::filesystem::path(spec.location).is_relative()) {
      spec.location = (base / spec.location).lexically_normal().string();
    }
    // Two sources of one document each replaced the other's version on
    // every run, or (listed twice without ids) the second failed as a
    // source every run, and no line said the manifest was why.
    const std::string document = DocumentIdFor(spec);
    if (auto [it, first] = source_of_document.emplace(document, index); !first) {
      const SourceSpec& earlier = out[it->second - 1];
      const std::string source = "source " + std::to_string(it->second);
      if (!spec.id.empty() && !earlier.id.empty()) {
        return Status::InvalidArgument(where + ": id \"" + spec.id + "\" is already the id of " + source +
                                       " (each source needs its own document id)");
      }
      if (spec.id.empty() && earlier.id.empty()) {
        return Status::InvalidArgument(where + ": location " + spec.location + " is already " + source + "'s" +
                                       (earlier.location == spec.location ? "" : " (as " + earlier.location + ")") +
                                       " (list it once, or give each an id)");
      }
      return Status::InvalidArgument(where + ": its document id " + document + " (" +
                                     (spec.id.empty() ? "from its location" : "its id") + ") is already " + source +
                                     "'s (" + (earlier.id.empty() ? "from its location" : "its id") +
                                     "); give each its own id");
    }
    spec.manifest = manifest_name;
    out.push_back(std::move(spec));
  }
  return out;
}

namespace {

// Fetches every source on one thread per fetcher, in the sources' order and at most a few
// ahead of the one being stored, and stores each on this thread in that order, so that a
// slow host holds up the run only as long as its own fetch takes.
Result<IngestReport> IngestWith(Store& store, const Schema& schema, const std::vector<SourceSpec>& sources,
                                const std::vector<Fetcher*>& fetchers, const IngestOptions& options) {
  if (store.read_only()) return Status::InvalidArgument("the store is open read-only; ingest needs the writer");
  const auto start = std::chrono::steady_clock::now();
  IngestReport report;
  report.run_id = options.run_id.empty() ? NewRunId() : options.run_id;
  // The schema's entities go in with the run's first write to a new store,
  // not before it: a first run whose every source failed (or was refused: a
  // PDF, an empty page) left a store of schema entities alone, which
  // `import` refused as not empty and the REPL did not fill. A store written
  // before is kept in step with the schema's names at once, as readers
  // look aliases up in it.
  bool schema_synced = false;
  auto sync_schema = [&]() -> Status {
    if (schema_synced) return Status::OK();
    CHIPKG_RETURN_IF_ERROR(SyncSchemaEntities(store, schema));
    schema_synced = true;
    return Status::OK();
  };
  if (store.LastTx() > 0) CHIPKG_RETURN_IF_ERROR(sync_schema());

  std::vector<PreparedSource> prepared;
  prepared.reserve(sources.size());
  std::map<std::string, size_t> source_of_document;
  for (size_t i = 0; i < sources.size(); ++i) {
    prepared.push_back(PrepareSource(store, sources[i]));
    // Twice in one run is a mistake in the list (fetched twice, it could
    // store two versions in one run): the second is not fetched.
    auto [first, inserted] = source_of_document.emplace(prepared[i].doc.id, i);
    if (inserted || !prepared[i].status.ok()) continue;
    prepared[i].status = Status::InvalidArgument(sources[i].location + ": document " + prepared[i].doc.id +
                                                 " is source " + std::to_string(first->second + 1) +
                                                 "'s too (listed twice); not fetched again");
  }

  // Sources are stored in order, so a hung host holds back the storing of
  // the sources after it, not their fetching: fetchers run as far ahead as
  // memory allows. A fetch in flight counts as the largest body it may bring
  // (FetchOptions::max_body_bytes), a fetched one as its body, and together
  // they stay within IngestOptions::fetch_ahead_bytes, except that the source
  // the run waits for is always fetched.
  const size_t max_body = std::max<size_t>(options.fetch.max_body_bytes, 1);
  const size_t budget = options.fetch_ahead_bytes;
  std::vector<std::optional<Result<FetchResult>>> fetched(sources.size());
  std::mutex mu;
  std::condition_variable cv;
  size_t next_to_fetch = 0, next_to_store = 0, held_bytes = 0, in_flight = 0;
  bool stop = false;
  auto may_fetch = [&] {
    return next_to_fetch == next_to_store ||  // the one being waited for
           held_bytes + (in_flight + 1) * max_body <= budget;
  };
  auto fetch_loop = [&](Fetcher* fetcher) {
    std::unique_lock lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return stop || next_to_fetch >= sources.size() || may_fetch(); });
      if (stop || next_to_fetch >= sources.size()) return;
      const size_t i = next_to_fetch++;
      ++in_flight;
      lock.unlock();
      std::optional<Result<FetchResult>> result;
      if (!prepared[i].status.ok()) {
        result.emplace(prepared[i].status);  // not fetched: the store read failed
      } else {
        try {
          result.emplace(fetcher->Fetch(prepared[i].request));
          if (result->ok() && (*result)->fetched_at == 0) (*result)->fetched_at = NowSeconds();
        } catch (const std::exception& e) {
          result.emplace(Status::IOError(sources[i].location + ": " + e.what()));
        } catch (...) {
          result.emplace(Status::IOError(sources[i].location + ": the fetch failed with an unknown exception"));
        }
      }
      lock.lock();
      --in_flight;
      if (result->ok()) held_bytes += (*result)->body.size();
      fetched[i] = std::move(result);
      cv.notify_all();
    }
  };
  std::vector<std::thread> workers;
  struct JoinAtExit {
    std::vector<std::thread>& workers;
    std::mutex& mu;
    std::condition_variable& cv;
    bool& stop;
    ~JoinAtExit() {
      {
        std::lock_guard lock(mu);
        stop = true;
      }
      cv.notify_all();
      for (auto& t : workers) t.join();
    }
  } join_at_exit{workers, mu, cv, stop};
  const size_t threads = std::min(fetchers.size(), sources.size());
  for (size_t w = 0; w < threads; ++w) {
    try {
      workers.emplace_back(fetch_loop, fetchers[w]);
    } catch (const std::system_error& e) {
      // Fewer threads fetch; none at all is an error.
      if (workers.empty()) return Status::IOError(std::string("ingest: cannot start a fetching thread: ") + e.what());
      break;
    }
  }

  std::map<std::string, FailingSource> failing_before;
  if (auto failing = FailingSources(store); failing.ok()) {
    for (FailingSource& f : *failing) failing_before.emplace(f.document_id, std::move(f));
  }
  std::set<std::string> ids_of_run;  // as their failures are recorded
  bool stopped_by_store = false;

  KnownTexts known_texts;
  for (size_t i = 0; i < sources.size(); ++i) {
    std::optional<Result<FetchResult>> result;
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return fetched[i].has_value(); });
      result = std::move(fetched[i]);
      fetched[i].reset();
      if (result->ok()) held_bytes -= (*result)->body.size();
      next_to_store = i + 1;
    }
    cv.notify_all();
    SourceOutcome outcome;
    outcome.location = WithoutCredentials(sources[i].location);  // reports never show a password
    Status st = IngestOne(store, schema, sources[i], prepared[i], *result, options, report.run_id, outcome, report,
                          known_texts, sync_schema);
    // Past a fetch that worked, an I/O error or damage is the store's (a
    // full disk, a file gone bad), and would fail every source after it the
    // same way, each fetched for nothing and each with a line of its own in
    // the cron mail: the run stops there, the sources after it not tried.
    const bool store_failed = !st.ok() && result->ok() && (st.IsIOError() || st.IsCorruption());
    if (!st.ok()) {
      outcome.state = SourceOutcome::State::kFailed;
      outcome.error = st.message();
      // Found before the source failed (over --max-facts, say): nothing of
      // it was stored, so no claim counts twice, and no shrink was stored.
      outcome.repeats.clear();
      outcome.shrank.clear();
    }
    if (st.ok()) {
      // Which rules read the document's standing claims (RulesReadRecord:
      // written with them when a run reads it), read when a run does not.
      // A failure to read it costs the notice: said as a warning. (A retired
      // document asserts nothing.)
      const std::string key = kRulesReadKey + outcome.document_id;
      const std::string rules = RulesNow(schema);
      Status recorded_status;
      if (!outcome.read_by_these_rules && outcome.state == SourceOutcome::State::kUnchanged &&
          outcome.retired.empty() && prepared[i].doc.retired_tx == 0) {
        auto recorded = store.GetMeta(key);
        if (!recorded.ok() && !recorded.status().IsNotFound()) recorded_status = recorded.status();
        outcome.read_by_other_rules = recorded_status.ok() && (!recorded.ok() || *recorded != rules);
        report.documents_read_by_other_rules += outcome.read_by_other_rules;
      }
      if (!recorded_status.ok()) {
        outcome.warnings.push_back("which rules read it could not be read: " + recorded_status.message());
      }
    }
    // A source that fails run after run (a dead URL in a cron job's list)
    // is said so with how long, and `chipkg sources` lists it; the failure
    // of a store that failed is the store's, and a source listed twice is
    // the first one's document.
    const std::string& id = outcome.document_id.empty() ? prepared[i].doc.id : outcome.document_id;
    ids_of_run.insert(id);
    ids_of_run.insert(prepared[i].doc.id);
    const auto first_of_id = source_of_document.find(id);
    if (!id.empty() && !store_failed && first_of_id != source_of_document.end() && first_of_id->second == i) {
      outcome.document_id = id;
      Status failure_record;
      if (!st.ok()) {
        failure_record =
            RecordFailure(store, outcome, sources[i].manifest, static_cast<int64_t>(std::time(nullptr)));
      } else if (auto before = failing_before.find(id); before != failing_before.end()) {
        failure_record = store.DeleteMeta(kFailingKey + id);
        outcome.failed_runs = before->second.runs;
        outcome.failing_since = before->second.since;
      }
      if (!failure_record.ok()) {
        outcome.warnings.push_back("its failures in a row could not be recorded: " + failure_record.message());
      }
    }
    switch (outcome.state) {
      case SourceOutcome::State::kNew: ++report.documents_new; break;
      case SourceOutcome::State::kChanged: ++report.documents_changed; break;
      case SourceOutcome::State::kUnchanged: ++report.documents_unchanged; break;
      case SourceOutcome::State::kFailed: ++report.documents_failed; break;
    }
    report.facts_added += outcome.facts_added;
    report.facts_retracted += outcome.facts_retracted;
    report.sources.push_back(std::move(outcome));
    if (store_failed) {
      stopped_by_store = true;
      for (size_t j = i + 1; j < sources.size(); ++j) {
        SourceOutcome untried;
        untried.location = WithoutCredentials(sources[j].location);
        untried.document_id = prepared[j].doc.id;
        untried.tried = false;
        untried.error = "the store failed on source " + std::to_string(i + 1) + " (" +
                        report.sources[i].location + ")";
        ++report.documents_failed;
        report.sources.push_back(std::move(untried));
      }
      break;
    }
  }
  // A source dropped from its manifest (a dead URL taken out of a cron
  // job's list) is tried by no later run, so its record of failures would
  // stand for ever. Only the manifests this run read count: one store may be
  // fed by several, and by sources given on the command line.
  if (!stopped_by_store) {
    std::set<std::string> manifests_of_run(options.manifests_read.begin(), options.manifests_read.end());
    manifests_of_run.erase(std::string());
    for (const SourceSpec& spec : sources) {
      if (!spec.manifest.empty()) manifests_of_run.insert(spec.manifest);
    }
    for (const auto& [id, f] : failing_before) {
      if (f.manifests.empty() || ids_of_run.count(id) > 0) continue;
      std::vector<std::string> still_listing;
      for (const std::string& m : f.manifests) {
        if (manifests_of_run.count(m) == 0) still_listing.push_back(m);
      }
      if (still_listing.size() == f.manifests.size()) continue;
      // A record the store will not rewrite or remove stays as it was,
      // for the next run: listed, which is how it was.
      if (!still_listing.empty()) {
        [[maybe_unused]] const Status rewritten =
            store.PutMeta(kFailingKey + id, FailureRecord(f.since, f.last, f.runs, f.location, f.error, still_listing));
        continue;
      }
      if (!store.DeleteMeta(kFailingKey + id).ok()) continue;
      std::string last_manifest;
      for (const std::string& m : f.manifests) last_manifest = m;
      report.failing_forgotten.push_back({id, f.location, last_manifest, f.runs});
    }
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace

Result<IngestReport> IngestSources(Store& store, const Schema& schema, const std::vector<SourceSpec>& sources,
                                   Fetcher& fetcher, const IngestOptions& options) {
  return IngestWith(store, schema, sources, {&fetcher}, options);
}

Result<IngestReport> IngestSources(Store& store, const Schema& schema, const std::vector<SourceSpec>& sources,
                                   const IngestOptions& options) {
  if (options.parallel_fetches < 1) {
    return Status::InvalidArgument("ingest: parallel_fetches must be at least 1, not " +
                                   std::to_string(options.parallel_fetches));
  }
  std::vector<std::unique_ptr<Fetcher>> owned;
  std::vector<Fetcher*> fetchers;
  for (int i = 0; i < options.parallel_fetches; ++i) {
    owned.push_back(MakeDefaultFetcher(options.fetch));
    fetchers.push_back(owned.back().get());
  }
  return IngestWith(store, schema, sources, fetchers, options);
}

Result<ReinstateReport> ReinstateDocument(Store& store, const Schema& schema, const std::string& document_id,
                                          const IngestOptions& options) {
  if (store.read_only()) return Status::InvalidArgument("the store is open read-only; reinstate needs the writer");
  const std::string run_id = options.run_id.empty() ? NewRunId() : options.run_id;
  Result<Document> doc = store.GetDocument(document_id);
  if (!doc.ok()) return doc.status();
  if (doc->retired_tx == 0) {
    return Status::InvalidArgument("document " + document_id + " is not retired: its claims stand as its latest "
                                   "version states them ('chipkg ingest --reextract' reads it again)");
  }
  Result<DocumentVersion> latest = store.LatestDocumentVersion(document_id);
  if (!latest.ok()) return latest.status();
  CHIPKG_RETURN_IF_ERROR(SyncSchemaEntities(store, schema));
  ReadView all;
  all.include_retracted = true;
  all.with_provenance = false;  // rules and transactions are in the core
  Result<std::vector<Fact>> ever = store.FactsFromDocument(document_id, std::nullopt, all);
  if (!ever.ok()) return ever.status();
  size_t withdrawn = 0;  // by the retirement
  for (const Fact& f : *ever) withdrawn += f.retracted_tx == doc->retired_tx;
  // Read as it was read when stored: versions stored before the reading was
  // kept with them tell it by their (now withdrawn) claims' rule.
  std::string format = latest->format;
  if (format.empty() && !ever->empty()) format = Schema::DatasetOfRule(ever->front().provenance.rule);
  auto resolver = MakeEntityResolver(schema, &store);
  const std::string location = latest->url.empty() ? doc->url : latest->url;
  Result<Extracted> extracted =
      ExtractText(schema, *resolver, *doc, location, latest->text, format, options.max_facts_per_document);
  if (!extracted.ok()) {
    return extracted.status().WithContext("reading version " + std::to_string(latest->version) + " of " +
                                          document_id + " again; nothing written, it stays retired");
  }
  // The guards a changed text meets at ingest, against what the retirement
  // withdrew: a text stored while the document was retired met none (an
  // error page, a file cut short, or claims chipkg did not extract, such as
  // a bulk load's), and reinstating it would assert nothing and clear the
  // mark.
  const size_t read = extracted->facts.size();
  const std::string where = "document " + document_id + " version " + std::to_string(latest->version);
  if (read == 0 && withdrawn > 0) {
    return Status::InvalidArgument(where + ": nothing extracted from its text, where the retirement withdrew " +
                                   std::to_string(withdrawn) + " claims (an error page stored while it was retired, "
                                   "or claims chipkg does not extract?); nothing written, it stays retired");
  }
  if (!options.accept_shrinking && withdrawn >= kShrinkGuardFromFacts && read * 2 < withdrawn) {
    return Status::InvalidArgument(where + ": its text states " + std::to_string(read) + " claims where the "
                                   "retirement withdrew " + std::to_string(withdrawn) + "; nothing written, it stays "
                                   "retired (chipkg reinstate --accept-shrinking asserts them)");
  }
  ReinstateReport report;
  report.warnings = std::move(extracted->warnings);
  report.version = latest->version;
  KnownTexts known_texts;
  auto repeated = known_texts.Find(store, latest->content_hash);
  if (!repeated.ok()) return repeated.status();
  if (*repeated && (*repeated)->first != document_id) {
    report.repeats = "the same text as " + (*repeated)->first + " version " + std::to_string((*repeated)->second) +
                     ", whose claims stand: its claims now count twice, as two sources that agree";
  }
  Result<std::vector<Entity>> entities = NamedNewEntities(store, *resolver, extracted->facts);
  if (!entities.ok()) return entities.status();
  Result<WriteSummary> written = store.ReinstateDocument(*doc, std::move(extracted->facts), run_id, *entities,
                                                         RulesReadRecord(store, document_id, RulesNow(schema)));
  if (!written.ok()) return written.status();
  report.new_entities = std::move(*entities);
  report.tx = written->tx;
  report.facts_added = written->facts_added;
  return report;
}

std::string DefaultManifestPath() {
  if (const char* env = std::getenv("CHIPKG_DATASETS"); env && *env) return std::string(env) + "/manifest.json";
#ifdef CHIPKG_SOURCE_DIR_DEFAULT
  return std::string(CHIPKG_SOURCE_DIR_DEFAULT) + "/datasets/manifest.json";
#else
  return "datasets/manifest.json";
#endif
}

}  // namespace chipkg
