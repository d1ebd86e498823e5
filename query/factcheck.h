// The fact-checker's commands: describe, trace, verify, conflicts, sources,
// source, history. Each reads the store through engine/store.h, returns a
// typed report, and renders it as text (people), JSON or CSV (scripts), with
// the same provenance in every format.
//
// Citations are numbered per report in order of first use; one number stands
// for one claim's place in one document version (document, version, span).
// Claims that agree with each other (see query/compare.h) are shown as one
// value with several citations; a value that disagrees with another is a
// conflict, with the size of the disagreement.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/fact.h"
#include "engine/status.h"
#include "engine/store.h"
#include "query/compare.h"
#include "schema/schema.h"

namespace chipkg::factcheck {

enum class Format : uint8_t { kText, kJson, kCsv };
// "text", "json", "csv"; InvalidArgument naming the choices otherwise.
Result<Format> ParseFormat(const std::string& name);
const char* FormatName(Format format);

struct Options {
  ReadView view;           // which claims (as of a tx, valid on a date); retracted ones only in trace/history
  CompareOptions compare;  // what counts as a disagreement
  // verify: relative slack beyond what the digits shown allow (0 = the digits alone decide).
  double verify_tolerance = 0;
  // verify: list only the figures not confirmed (mismatched, unverifiable);
  // the counts still cover every figure checked.
  bool verify_problems_only = false;
};

// Where one claim came from, as a footnote shows it.
struct Citation {
  int number = 0;
  uint64_t fact_id = 0;
  std::string document_id;
  std::string title;
  std::string url;  // URL or path as ingested
  std::string site;
  std::string kind;  // vendor, press, aggregator, ...
  uint32_t version = 0;
  std::string content_hash;
  int64_t fetched_at = 0;  // Unix seconds
  std::optional<Date> document_as_of;
  std::optional<Date> valid_as_of;  // the claim's
  std::string section;
  uint32_t span_begin = 0, span_end = 0;
  std::string excerpt;
  std::string attribution;
  std::vector<std::string> cited;  // what the page cites for the claim
  int64_t row = -1;                // dataset row (1-based), -1 for pages
  std::string column;
  std::string note;
  std::string rule, rule_version;
  Derivation derivation = Derivation::kStated;
  std::string formula;
};

// One claim as shown in an answer.
struct Claim {
  uint64_t fact_id = 0;
  int citation = 0;  // number in the report's citation list
  Value value;
  Qualifiers qualifiers;
  std::string display;  // "32 GB", "TSMC", "not published", "2022-10-01"
  std::string
      per_chip_display;  // set when the figure was normalised from a wider scope: "212.5 TFLOPS per chip"
  std::optional<Date> valid_as_of;
  std::string document_id;
  TxId asserted_tx = 0;
  TxId retracted_tx = 0;
};

// Claims that agree with each other, shown as one value.
struct ValueGroup {
  std::string display;  // of the first claim
  std::vector<Claim> claims;
  size_t documents = 0;  // distinct documents among the claims
};

struct Difference {
  size_t a = 0, b = 0;  // indexes into AttributeSummary::groups
  // The claims compared, indexes into each group's claims: the first two
  // that disagree, which a group's first claim may not be ("2022" agrees
  // with 2022-10-10; 2022-10-01 of the same group is 9 days from it).
  size_t a_claim = 0, b_claim = 0;
  Comparison comparison;
};

// A figure implausible for one chip given the other sources.
struct SanityFlag {
  size_t group = 0;             // the suspect group
  double ratio = 0;             // its per-chip figure over the other group's
  std::optional<double> chips;  // the chip count that explains it, when one does
  std::string where;            // what has that count: "trn1.32xlarge", "16-chip server"
  std::string
      message;  // "likely a per-server/instance figure: 9.8 TB/s / 16 = 612.5 GB/s per chip, near 820 GB/s"
};

// Every claim on one subject and attribute (predicate + comparison qualifiers).
struct AttributeSummary {
  EntityId subject;
  std::string subject_name;
  std::string predicate;
  Qualifiers key;     // ComparisonQualifiers of the claims
  std::string label;  // "memory", "peak_throughput {format=bf16}"
  std::vector<ValueGroup> groups;
  std::vector<Difference> differences;  // pairs of groups that disagree
  std::vector<SanityFlag> flags;
  bool conflict() const { return !differences.empty(); }
};

// An entity that refers to the described one (an instance whose accelerator it is).
struct Reference {
  EntityId subject;
  std::string subject_name;
  std::string predicate;
  std::vector<int> citations;
};

struct Profile {
  Entity entity;
  std::vector<AttributeSummary> attributes;
  std::vector<Reference> referenced_by;
  std::vector<Citation> citations;
};

struct ConflictReport {
  CompareOptions options;
  std::string entity;  // filter, empty for all
  size_t subjects_checked = 0;
  std::vector<AttributeSummary> conflicts;
  std::vector<Citation> citations;
};

// A claim traced back to its document: the excerpt re-read from the stored
// version text and shown in context, and when it was asserted and retracted.
struct TracedClaim {
  Claim claim;
  Citation citation;
  std::string before, at, after;  // text around the span in the stored version ("at" is the span itself)
  bool excerpt_verified = false;  // the stored text at the span equals the recorded excerpt
  std::string text_problem;       // why not, when not
  Transaction asserted;
  std::optional<Transaction> retracted;
  // The latest version of the document (as the report sees the store) when
  // it is later than the cited one and the claim stands: a page fetched
  // again keeps a claim it still makes under the version that first made it,
  // so without this a figure the page states today read as last seen in an
  // old version, amid that version's text. Without its text.
  std::optional<DocumentVersion> still_stated_by;
  // Retracted after the point in time the report reads the store as at
  // (--as-at): the claim then stood, and the fact-checker is told it does
  // not now. 0 otherwise.
  TxId retracted_later = 0;
};

// One evaluation of a derivation over one choice of inputs.
struct DerivedValue {
  Qualifiers qualifiers;  // of the inputs that vary (format=bf16)
  double value = 0;
  std::string display;
  std::string working;                   // "210 TFLOPS / 500 W"
  std::string support;                   // "([1] or [2]) and [3]"
  std::vector<std::vector<int>> inputs;  // per input, the citations that each suffice
};

struct DerivedInput {
  std::string leaf;                 // "peak_throughput", "model.parameters", "bytes_per_parameter(precision)"
  std::string about;                // entity it reads, or the table key
  std::optional<double> constant;   // table lookups and numbers
  std::vector<TracedClaim> claims;  // claims read for it
};

struct DerivedTrace {
  std::string name;
  std::string formula;
  std::vector<std::pair<std::string, std::string>> arguments;  // param -> argument as given
  std::vector<DerivedInput> inputs;
  std::vector<DerivedValue> values;
  std::string missing;  // non-empty when some input has no claim: what is missing
};

struct TraceReport {
  Entity entity;
  std::string attribute;  // as asked, e.g. "memory_bandwidth", "bf16", "fits"
  std::string predicate;  // stated predicate traced ("" if the name is only a derivation)
  Qualifiers fixed;       // qualifiers an attribute view fixes, and those asked in braces
  std::vector<TracedClaim> claims;
  // Claims of the predicate that `fixed` left out: a trace of
  // tdp{basis=stated} with only an estimate is not "no source".
  size_t set_aside = 0;
  std::optional<DerivedTrace> derived;
};

struct VerifyItem {
  EntityId subject;
  std::string subject_name;
  std::string predicate;
  Qualifiers qualifiers;
  Claim stated;
  std::string status;                // "confirmed", "mismatch", "unverifiable"
  std::optional<double> recomputed;  // canonical unit (1/0 for a mark)
  std::string recomputed_display;
  std::string method;   // "perf_per_watt = peak_throughput / tdp", "page's own formula", ...
  std::string working;  // "210 TFLOPS / 500 W = 0.42 TFLOPS/W"
  // Per input of `working`, the citations that each suffice: shown after it
  // as "from ([1] or [2]) and [3]". Kept as numbers, not text, so that a
  // report renumbered to its problems (--mismatches) still cites the right
  // excerpts.
  std::vector<std::vector<int>> working_inputs;
  // Other readings of the inputs that do not confirm the figure where the
  // one above does: the document (or the sources used) gives two values for
  // an input ("500 W" in one section, "550 W" in another). Confirmed on one
  // reading is not confirmed on every one, and the fact-checker is told.
  struct OtherReading {
    std::string working;  // "1,300 TFLOPS / 550 W"
    std::string recomputed_display;
    std::vector<std::vector<int>> inputs;  // as working_inputs
  };
  std::vector<OtherReading> other_readings;
  RoundingCheck check;
  std::vector<int> input_citations;
  std::string reason;  // unverifiable: why; mismatch: what differs
};

struct VerifyReport {
  std::string document;  // filter, empty for every document
  std::vector<VerifyItem> items;
  size_t confirmed = 0, mismatched = 0, unverifiable = 0;
  size_t confirmed_on_one_reading = 0;  // of `confirmed`: with other readings that do not confirm them
  std::vector<Citation> citations;
};

struct SourceSummary {
  Document document;
  std::vector<DocumentVersion> versions;  // without text, oldest first
  size_t live_facts = 0;
  size_t retracted_facts = 0;
  size_t not_published = 0;
  size_t subjects = 0;
};

struct SourceFact {
  Claim claim;
  EntityId subject;
  std::string subject_name;
  std::string predicate;
  uint32_t version = 0;
  std::string section;
  std::string excerpt;
  Derivation derivation = Derivation::kStated;
};

struct SourcesReport {
  std::vector<SourceSummary> sources;
  // Sources whose ingest failed in the latest runs (a dead URL in a cron
  // job's list), stored or not. Ingest keeps that record; Sources leaves
  // this empty for its caller to fill.
  struct Failing {
    std::string document_id;
    std::string location;
    std::vector<std::string> manifests;  // those whose runs it failed in; none for the command line alone
    int64_t since = 0;  // Unix seconds: the first failure of those in a row
    int64_t last = 0;   // the latest
    uint64_t runs = 0;  // failed runs in a row
    std::string error;  // the latest's
  };
  std::vector<Failing> failing;
};

struct SourceReport {
  SourceSummary source;
  std::vector<SourceFact> facts;  // live facts unless the view includes retracted ones
};

struct HistoryEvent {
  TxId tx = 0;
  int64_t time_micros = 0;
  std::string run_id;
  bool asserted = true;  // false: retracted
  Claim claim;
  uint32_t version = 0;
};

struct HistoryReport {
  Entity entity;
  std::string predicate;
  Qualifiers fixed;
  std::vector<HistoryEvent> events;  // in transaction order
  std::vector<Citation> citations;
};

// ENTITY: a name, alias or id, looked up ignoring case and punctuation.
// Unknown names fail with NotFound suggesting the nearest names.
Result<Profile> Describe(const Store& store, const Schema& schema, const std::string& entity,
                         const Options& options = {});

// Conflicts of one entity, or of every entity when `entity` is empty.
Result<ConflictReport> Conflicts(const Store& store, const Schema& schema, const std::string& entity,
                                 const Options& options = {});

// TARGET: "ENTITY.ATTR", "ENTITY ATTR", or "ENTITY.fits(MODEL, PRECISION)";
// ATTR a predicate, an attribute view (bf16) or a derivation (perf_per_watt).
Result<TraceReport> Trace(const Store& store, const Schema& schema, const std::string& target,
                          const Options& options = {});

// Recomputes every stated-derived figure of one document (id, title, URL or
// path), or of every document when `document` is empty.
Result<VerifyReport> Verify(const Store& store, const Schema& schema, const std::string& document,
                            const Options& options = {});

Result<SourcesReport> Sources(const Store& store, const Options& options = {});
Result<SourceReport> Source(const Store& store, const std::string& document, const Options& options = {});

// TARGET as for Trace (a predicate or attribute view; not a derivation).
Result<HistoryReport> History(const Store& store, const Schema& schema, const std::string& target);

std::string Render(const Profile& report, Format format);
std::string Render(const ConflictReport& report, Format format);
std::string Render(const TraceReport& report, Format format);
std::string Render(const VerifyReport& report, Format format);
std::string Render(const SourcesReport& report, Format format);
std::string Render(const SourceReport& report, Format format);
std::string Render(const HistoryReport& report, Format format);

// Finds a document by id, URL/path, or title (exact, then case-insensitive,
// then a unique substring). NotFound lists the closest ids.
Result<Document> FindDocument(const Store& store, const std::string& name);

// Finds an entity by name, alias or id through the store, then the schema's
// aliases. NotFound suggests the nearest names.
Result<Entity> FindEntityByName(const Store& store, const Schema& schema, const std::string& name);

// Names for completion and suggestions: predicates, attribute views,
// derivations (from the schema).
std::vector<std::string> AttributeNames(const Schema& schema);

}  // namespace chipkg::factcheck
