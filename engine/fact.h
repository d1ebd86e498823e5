// The fact model: a fact is one claim that one version of one document made.
//
// chipkg never stores "unknown": unknown is the absence of any claim. A source
// saying that the maker has not published a figure is a claim of its own
// (ValueKind::kNotPublished), distinct from every value.
//
// Quantities are stored in the canonical unit of their dimension (bytes,
// byte/s, FLOP/s, W, m, USD, ...; the schema names them), with the number and
// unit text as the source wrote them kept beside, so 32 GB and 32 GiB stay
// distinguishable and comparable.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include "engine/flat_map.h"

namespace chipkg {

// Entity ids are stable strings "<kind>:<slug>", e.g. "chip:aws-trainium".
using EntityId = std::string;

enum class DatePrecision : uint8_t { kYear = 1, kMonth = 2, kDay = 3 };

// A calendar date known to year, month or day precision. "November 2023" is
// {2023, 11, 0, kMonth}: it covers the whole month, and comparisons against a
// day use the covered interval [FirstDay(), LastDay()].
struct Date {
  int32_t year = 0;
  uint8_t month = 0;  // 1-12, 0 when precision is kYear
  uint8_t day = 0;    // 1-31, 0 unless precision is kDay
  DatePrecision precision = DatePrecision::kDay;

  // Accepts "YYYY", "YYYY-MM", "YYYY-MM-DD" (ISO). Returns nullopt otherwise or
  // for an impossible date (2023-02-30).
  static std::optional<Date> Parse(const std::string& iso);
  static Date FromDays(int32_t days_since_epoch);  // day precision
  // Days since 1970-01-01 of the first and last day the date covers.
  int32_t FirstDay() const;
  int32_t LastDay() const;
  std::string ToString() const;  // ISO at its own precision: "2023", "2023-11", "2023-11-28"
  // Whether Parse(ToString()) gives the date back: year 0-9999 (what ISO
  // export can carry), fields that match the precision, a day that exists in
  // its month. Writes refuse dates that are not.
  bool IsValid() const;
  bool operator==(const Date&) const = default;
};

enum class ValueKind : uint8_t {
  kQuantity = 1,
  kDate = 2,
  kEntity = 3,
  kText = 4,
  kBool = 5,
  kNotPublished = 6,
};

const char* ValueKindName(ValueKind kind);  // "quantity", "date", ...

struct Value {
  ValueKind kind = ValueKind::kText;
  double number = 0;      // kQuantity: in the canonical unit of `dimension`; kBool: 0 or 1
  std::string dimension;  // kQuantity: "bytes", "bytes_per_second", "flops", "watts", ...
  std::string original;   // the value as the source wrote it: "2,900 GB/s", "32 GiB", "November 2023"
  std::string text;       // kText: the text; kEntity: the referenced EntityId
  Date date;              // kDate

  static Value Quantity(double canonical, std::string dimension, std::string original);
  static Value OfDate(Date date, std::string original);
  static Value Entity(EntityId id, std::string original);
  static Value Text(std::string text);
  static Value Bool(bool b, std::string original);
  static Value NotPublished(std::string original);

  // Same claim content: kind, canonical number or text or date (original text ignored).
  bool SameContent(const Value& other) const;
  // For people: the original text when there is one, else a rendering of the content.
  std::string ToString() const;
  bool operator==(const Value&) const = default;
};

// Qualifiers narrow what a claim is about. Keys come from the schema; the
// common ones are named below. Values are lower-case words or numbers.
// Kept ordered by key, so equal qualifier sets encode identically; looked up
// by "scope" without making a string (engine/flat_map.h).
using Qualifiers = FlatStringMap;
namespace qualifier {
inline constexpr const char* kScope = "scope";        // "chip" (default), "server", "instance", "rack", "core"
inline constexpr const char* kScopeCount = "chips";   // chips in the scope: "16" for a 16-chip server
inline constexpr const char* kFormat = "format";      // "bf16", "fp8", "int8", "fp16", "int4", ...
inline constexpr const char* kSparsity = "sparsity";  // "dense" or "sparse"
inline constexpr const char* kRegion = "region";      // "us", "ap-south-1 (mumbai)", ...
inline constexpr const char* kTerm = "term";          // "on-demand", "1-yr reserved", "capacity block", ...
inline constexpr const char* kInstance = "instance";  // "trn1.32xlarge"
// "estimate": the source's own estimate of a figure the maker does not
// publish (Epoch's TPU TDPs); a claim without a basis is stated.
inline constexpr const char* kBasis = "basis";
}  // namespace qualifier

// How a claim came to be: stated by the page, or a figure the page computed
// itself from others (perf per watt, a fit-table mark, "$0.596 per chip"),
// which `verify` recomputes.
enum class Derivation : uint8_t { kStated = 1, kStatedDerived = 2 };

struct Provenance {
  std::string document_id;        // Document::id
  uint32_t document_version = 0;  // DocumentVersion::version the claim was read from
  std::string section;            // heading the span sits under ("4.Full spec table")
  // Character span [begin, end) in bytes of the stored document version text,
  // and its TextQuoteSelector: exact excerpt with a little context either side.
  uint32_t span_begin = 0;
  uint32_t span_end = 0;
  std::string excerpt;
  std::string prefix;
  std::string suffix;
  // Structured datasets: row (1-based, header is row 0) and column name. -1 when not from a table row.
  int64_t row = -1;
  std::string column;
  std::string attribution;             // the page's own: "Straight from the vendor datasheet", "citation 4"
  std::vector<std::string> citations;  // what the page cites for this claim: URLs or citation numbers
  std::string note;                    // free text kept with the claim (a dataset's Notes)
  std::string rule;                    // extraction rule that made the claim ("trainium-spec-list")
  std::string rule_version;            // bumped when the rule's output changes
  std::string run_id;                  // ingest run that wrote it
  Derivation derivation = Derivation::kStated;
  std::string formula;  // kStatedDerived: what the page says it computed ("210 TFLOPS ÷ 500 W")
};

// Transaction numbers order every write to the store; 0 means "never".
using TxId = uint64_t;

struct Fact {
  uint64_t id = 0;  // assigned by the store on write
  EntityId subject;
  std::string predicate;  // a predicate name declared in the schema
  Value value;
  Qualifiers qualifiers;
  Provenance provenance;
  std::optional<Date> valid_as_of;  // the date the claim holds as of (valid time)
  TxId asserted_tx = 0;             // assigned by the store
  TxId retracted_tx = 0;            // 0 while the claim stands

  bool live() const { return retracted_tx == 0; }
};

// A source document (a URL or a file). Its content lives in versions.
struct Document {
  std::string id;     // stable: derived from the URL or path by the ingester
  std::string url;    // URL or path as given
  std::string title;
  std::string site;   // "aws.amazon.com", "epoch.ai"
  std::string kind;   // "vendor", "press", "aggregator", ...
  // Conditional-GET validators of the latest fetch.
  std::string etag;
  std::string last_modified;
  // The transaction that retired it (Store::RetireDocument), 0 while it is a
  // source. Kept on the record, not only in the log: a retired document's
  // later versions are stored without claims, so that a changed page or a
  // re-extraction cannot bring back what was withdrawn unnoticed. Set and
  // cleared only by RetireDocument and ReinstateDocument (and an import);
  // other writes keep the stored value whatever the caller passes.
  TxId retired_tx = 0;
};

struct DocumentVersion {
  std::string document_id;
  uint32_t version = 0;       // 1, 2, ... assigned by the store
  std::string content_hash;   // hex SHA-256 of text
  int64_t fetched_at = 0;     // Unix seconds, UTC
  std::optional<Date> as_of;  // the document's own publication or "record as of" date
  std::string content_type;
  std::string text;           // exact text every span refers to
  TxId tx = 0;                // transaction that stored it
  // Where this version was read from, and the document's title then: a
  // document re-ingested from another place (`--id` on an edited copy)
  // keeps citing the old place for the old versions. Empty in versions
  // stored before they were kept: the Document's then stand for them.
  std::string url;
  std::string title;
  // How the text was read: the dataset's name for a CSV read by its
  // columns, empty for a page (and in versions stored before it was kept).
  // The next version is read the same way unless the source says otherwise.
  std::string format;
};

struct Entity {
  EntityId id;
  std::string kind;  // "chip", "organization", "process_node", "data_center", "instance_type", "rack_design", "llm"
  std::string name;  // display name
  std::vector<std::string> aliases;
  // The transaction that first stored it, set by the store (a later write
  // keeps it): a view of the store as at an earlier transaction leaves the
  // entity out. 0 where not known (stored before it was kept): always there.
  TxId created_tx = 0;
};

struct Transaction {
  TxId id = 0;
  int64_t time_micros = 0;  // wall clock at commit, Unix microseconds
  std::string run_id;
  std::string description;
};

}  // namespace chipkg
