// Internal to the fact-checker (query/factcheck*.cpp): caches, citation
// numbering, grouping of claims, target parsing. Not a public header.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "query/factcheck.h"

namespace chipkg::factcheck::internal {

// "([1] or [2]) and [3]": per input, the citations that each suffice.
std::string SupportText(const std::vector<std::vector<int>>& inputs);
// A verify item's working with the citations of its inputs after it.
std::string WorkingWithSources(const VerifyItem& item);
// "1,300 TFLOPS / 550 W = 2.364 TFLOPS/W  from [2] and [4]".
std::string OtherReadingText(const VerifyItem::OtherReading& reading);
// How a verify item's document gives its figure: "stated", or "estimated"
// for its own estimate (basis=estimate), which "stated" misnamed.
const char* GivenAs(const VerifyItem& item);

// Reads through the store once per report: documents, versions (with text),
// entity names and transactions are fetched on first use and kept.
class Library {
 public:
  // `as_of_tx`: the report reads the store as it was after that transaction
  // (Options::view); a retraction after it had not happened then.
  Library(const Store& store, const Schema& schema, std::optional<TxId> as_of_tx = std::nullopt)
      : store_(store), schema_(schema), as_of_tx_(as_of_tx) {}

  // A fact's retraction as the report's point in time sees it: 0 when it
  // came after that point.
  TxId RetractedAsSeen(TxId retracted_tx) const {
    return as_of_tx_ && retracted_tx > *as_of_tx_ ? 0 : retracted_tx;
  }

  const Store& store() const { return store_; }
  const Schema& schema() const { return schema_; }

  std::string EntityName(const EntityId& id);
  const Document* GetDocument(const std::string& id);                          // nullptr if absent
  const DocumentVersion* GetVersion(const std::string& id, uint32_t version);  // with text; nullptr if absent
  std::optional<Transaction> GetTransaction(TxId tx);
  // The document's latest version as the report sees the store (stored by
  // its point in time), without its text; nullptr if none.
  const DocumentVersion* LatestVersion(const std::string& id);

  // "32 GB", "TSMC", "not published", "2022-10-01", "yes". A quantity is
  // shown as the source wrote it when `as_written` and the original reads as
  // a figure with a unit, else in the predicate's display unit.
  std::string Display(const Value& value, const std::string& predicate, bool as_written = true,
                      const Qualifiers* qualifiers = nullptr);
  // A canonical quantity in the predicate's (or dimension's) display unit
  // (an integer format's in OPS: Schema::FormatQuantity). `written`: a
  // figure a program wrote, shown in the unit it is a whole number of
  // (Schema::FormatWrittenFigure: a dataset's 8589934592 bytes is 8 GiB).
  std::string FormatCanonical(double canonical, const std::string& dimension, const std::string& predicate = "",
                              const Qualifiers* qualifiers = nullptr, bool written = false);
  // "= 212.5 TFLOPS per chip" text for a wider-scope figure, empty otherwise.
  std::string PerChipDisplay(const Value& value, const Qualifiers& qualifiers, const std::string& predicate);

  // Chip counts known for a chip: instances, racks or data centers whose
  // accelerator it is (their `chips`), and `chips` qualifiers on its own
  // claims. Counts of 1 are left out. {count, what has it}.
  std::vector<std::pair<double, std::string>> KnownChipCounts(const EntityId& chip, const ReadView& view);

  // The first read above that failed other than by finding nothing (a
  // damaged store): the getters answer as if absent so that a report can be
  // built, and the report's caller returns this instead of the report. A
  // fact-checker must not be told that a version "is not stored" or that its
  // fetch time is unknown when the store could not be read.
  const Status& failure() const { return failure_; }
  // For a report's own reads of the store: keeps `status` as the failure
  // when it is the store's (damaged, or unreadable), not an answer such as
  // "no figure" that a report turns into "unverifiable". True if it was OK.
  bool NoteStoreRead(const Status& status) {
    if (failure_.ok() && (status.IsCorruption() || status.IsIOError())) failure_ = status;
    return status.ok();
  }

 private:
  // Keeps the first failure that is not NotFound; true if `status` is OK.
  bool Note(const Status& status);

  const Store& store_;
  const Schema& schema_;
  std::optional<TxId> as_of_tx_;
  std::map<EntityId, std::string> names_;
  std::map<std::string, std::unique_ptr<Document>> documents_;
  std::map<std::pair<std::string, uint32_t>, std::unique_ptr<DocumentVersion>> versions_;
  std::optional<std::map<TxId, Transaction>> transactions_;
  std::map<std::string, std::optional<DocumentVersion>> latest_versions_;
  Status failure_;
};

// Numbers citations in order of first use; one number per (document,
// version, span, claim date): a citation shows its claim's valid_as_of, so two
// claims of one passage that hold as of different dates need two.
class CitationTable {
 public:
  int Cite(Library& library, const Fact& fact);
  const std::vector<Citation>& list() const { return list_; }
  std::vector<Citation> Take() { return std::move(list_); }

 private:
  std::map<std::tuple<std::string, uint32_t, uint32_t, uint32_t, std::string>, int> index_;
  std::vector<Citation> list_;
};

Citation MakeCitation(Library& library, const Fact& fact);
Claim MakeClaim(Library& library, CitationTable* citations, const Fact& fact);

// Groups facts (of one subject) by predicate and comparison qualifiers, in
// schema declaration order, clusters agreeing claims and finds the pairs of
// clusters that disagree. Citations are numbered in display order. With
// `conflicts_only`, attributes on which all claims agree are left out (and
// not cited).
std::vector<AttributeSummary> Summarise(Library& library, CitationTable& citations, std::vector<Fact> facts,
                                        const Options& options, bool conflicts_only = false);

// Adds sanity flags to a summary of quantities: a cluster whose per-chip
// figure is 3x or more away from another's, with the likely cause when a
// known chip count explains the ratio.
void AddSanityFlags(Library& library, AttributeSummary& summary, const ReadView& view);

// True when `fact` carries every qualifier in `fixed` (a missing sparsity counts as dense).
bool HasQualifiers(const Qualifiers& fact_qualifiers, const Qualifiers& fixed);

// What a trace/history target names.
struct Target {
  Entity entity;
  std::string attribute;  // as written, normalised to snake_case
  std::string predicate;  // stated predicate, "" when only a derivation has the name
  Qualifiers fixed;       // an attribute view's qualifiers
  const DerivationDef* derivation = nullptr;
  std::vector<std::string> arguments;  // fits("Llama 3.1 70B", int8) -> {"Llama 3.1 70B", "int8"}
  bool call = false;                   // written with parentheses, even empty ones
};
Result<Target> ParseTarget(const Store& store, const Schema& schema, const std::string& text);

// NotFound when the view reads the store as at a transaction before the
// entity was first stored (describe and trace said "no source says anything
// about it yet" of an entity that was not there).
Status CheckStoredThen(const Entity& entity, const ReadView& view);

// Byte offset moved back (or forward) to the start of a UTF-8 character.
size_t Utf8Floor(const std::string& text, size_t pos);
size_t Utf8Ceil(const std::string& text, size_t pos);

// Leaves of a derive formula, in order of first appearance.
void CollectLeaves(const Expr& expr, std::vector<const Expr*>& leaves);
std::string LeafName(const Expr& leaf);  // "tdp", "model.parameters", "bytes_per_parameter(precision)"
// The formula with each leaf replaced by `show(leaf)`: "210 TFLOPS / 500 W".
std::string RenderExpr(const Expr& expr, const std::function<std::string(const Expr&)>& show);

// A claim traced to its stored document version (context re-read from the text).
TracedClaim TraceFact(Library& library, CitationTable& citations, const Fact& fact);

// Evaluates `derivation` for `subject` with `arguments` bound to its params
// (in order), reading each input's claims through `facts_for(entity,
// predicate)`. Every combination of agreeing claims is evaluated (bounded);
// an input without any claim leaves `missing` set and no values.
// `trace_claims` also fills DerivedInput::claims.
Result<DerivedTrace> TraceDerivation(
    Library& library, CitationTable& citations, const DerivationDef& derivation, const Entity& subject,
    const std::vector<std::string>& arguments, const Options& options,
    const std::function<Result<std::vector<Fact>>(const EntityId&, const std::string&)>& facts_for,
    bool trace_claims);

}  // namespace chipkg::factcheck::internal
