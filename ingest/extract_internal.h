// Internal to the extractors (ingest/extract*.cpp): the page being read, the
// readers every extractor shares (values, "- Label"/"- value" pairs, "Label:
// value" lines, markdown tables, sentences) and the template registry.
//
// Offsets are bytes into the page text; a Range is [begin, end).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/fact.h"
#include "engine/status.h"
#include "ingest/extract.h"
#include "ingest/resolve.h"
#include "schema/schema.h"

namespace chipkg::extract_internal {

struct Range {
  size_t begin = 0;
  size_t end = 0;
  size_t size() const { return end > begin ? end - begin : 0; }
  bool empty() const { return end <= begin; }
  bool Overlaps(const Range& o) const { return begin < o.end && o.begin < end; }
  bool Contains(const Range& o) const { return begin <= o.begin && o.end <= end; }
};

// ---- text helpers (extract_text.cpp) -------------------------------------

bool IsDigit(char c);
bool IsAsciiAlpha(char c);
bool IsUpper(char c);
bool IsLower(char c);
// Letters, digits and any non-ASCII byte: what a word is made of.
bool IsWordByte(char c);
std::string AsciiLower(std::string_view s);
// The name without trademark signs (U+2122, U+00AE): "AMD Instinct\u2122 MI355X" is
// "AMD Instinct MI355X", and with the sign it was an entity of its own.
std::string WithoutTrademarks(std::string_view name);
// Bytes of white space at `pos` (ASCII space, tab, CR, LF, no-break space), 0 if none.
size_t SpaceAt(std::string_view s, size_t pos);
Range Trim(std::string_view text, Range r);
// Moves `pos` back (Floor) or forward (Ceil) to the start of a UTF-8 character.
size_t Utf8Floor(std::string_view text, size_t pos);
size_t Utf8Ceil(std::string_view text, size_t pos);
// True if text[pos] begins a word (or is past the end) / text[pos-1] ends one.
bool WordStartsAt(std::string_view text, size_t pos);
bool WordEndsAt(std::string_view text, size_t pos);
// A minus sign just before the figure at `pos` (U+2212, or '-' at `floor` or
// after a space or an opening bracket, not in "5-9 W" or "Gen-2"). No size
// the schema has is below zero, and read without its sign "-5 W" was 5 W.
bool MinusSignBefore(std::string_view text, size_t floor, size_t pos);
// Finds `needle` (already lower case ASCII) in `text` ignoring ASCII case, at
// word boundaries, from `from`. npos if none.
size_t FindWord(std::string_view text, std::string_view needle_lower, size_t from = 0);
// The same in text already lower-cased (ASCII); byte offsets are unchanged by it.
size_t FindLowerWord(std::string_view lower, std::string_view needle_lower, size_t from = 0);
// Next word [begin, end) at or after pos within limit (letters/digits/'-'/'+'/'.').
std::optional<Range> NextWord(std::string_view text, size_t pos, size_t limit);

struct NumberToken {
  Range range;
  double value = 0;
};
// A plain number at exactly `pos` ("2,900", "0.4744", "46.7"), not glued to a
// preceding letter or digit.
std::optional<NumberToken> NumberAt(std::string_view text, size_t pos, size_t limit);

struct DateToken {
  Range range;
  Date date;
};
// A date written at exactly `pos`: "2024-12-03", "2024-12", "1 December 2020",
// "December 1, 2020", "December 2020", "Dec 2020", "04/13/2023" and "13/04/2023"
// (not "04/05/2023", which could be either), "Q2 2023" and "H2 2024" (as
// their year); with `allow_year` also a
// bare year "2022" (1950-2100).
std::optional<DateToken> DateAt(std::string_view text, size_t pos, size_t limit, bool allow_year);
// An event named with its year at exactly `pos`: "re:Invent 2023", "GTC
// 2024", "Hot Chips 2023": one to three capitalised words (a capital letter
// in each, no digits) and a year. The date is the year: events span days
// and sometimes months, and the page says no more.
std::optional<DateToken> EventYearAt(std::string_view text, size_t pos, size_t limit);
// Every date in the range (bare years only where `allow_year`).
std::vector<DateToken> FindDates(std::string_view text, Range r, bool allow_year);

// ---- the page --------------------------------------------------------------

struct Line {
  // Without the line break, and without a heading's marks: "# AWS Trainium"
  // (an HTML page's <h1>, a Markdown heading) is read as "AWS Trainium", so
  // that a site's template recognises the lines its text rendering has.
  Range range;
  int heading = 0;  // 1-6 for a line of '#' marks and a space, else 0
};

// A label found in text: the range it covers, its definition, and qualifiers
// the written form adds ("On-chip memory (per core)" -> scope=core).
struct LabelHit {
  Range range;
  const LabelDef* def = nullptr;
  Qualifiers extra;
  // "FP4 Tensor Core 1" where the page says "1. With sparsity | without
  // sparsity": the cell's first figure is sparse, the one after its '|' dense.
  bool sparse_then_dense = false;
  // "BF16 TFLOPS", "TeraFLOPs (FP8)": the unit the label gives its cells'
  // bare numbers ("2,250").
  const UnitDef* unit = nullptr;
  // "FP8/FP6 Tensor Core": a second label the same figure is read for.
  const LabelDef* also = nullptr;
  // "FP8/FP16 Tensor Core: 4.5 / 2.25 PFLOPS": the first figure's unit is
  // the one written after the second.
  bool unit_after_next_figure = false;
};

// A known entity (schema) mentioned in text.
struct Mention {
  Range range;
  const EntityDef* entity = nullptr;
};

// Provenance shared by the facts of one region of the page.
struct Emit {
  std::string rule;
  std::string attribution;
  std::vector<std::string> citations;
  std::optional<Date> valid_as_of;
  std::string note;
};

// A fact before provenance is filled in.
struct Draft {
  EntityId subject;
  std::string predicate;
  Value value;
  Qualifiers qualifiers;
  Range span;
  Derivation derivation = Derivation::kStated;
  std::string formula;
  std::vector<std::string> citations;  // overrides Emit::citations when non-empty
  std::string note;                    // overrides Emit::note when non-empty
};

// The predicate whose label sets the page's own as-of date (Extraction::as_of)
// instead of making a claim. Declared in schema/sites/extract-predicates.schema.
inline constexpr const char* kPageDatePredicate = "record_as_of";

// Thrown by Page::Add when a page states more facts than Page::max_facts.
struct FactLimitReached : std::exception {
  explicit FactLimitReached(size_t at) : offset(at) {}
  const char* what() const noexcept override { return "too many facts"; }
  size_t offset;  // where in the text the fact over the limit was read
};

class Page {
 public:
  Page(const std::string& text, const SourceInfo& source, const Schema& schema, EntityResolver& resolver);

  const std::string& text;
  const SourceInfo& source;
  const Schema& schema;
  EntityResolver& resolver;

  // Set by the template extractor.
  std::string template_name = "generic";
  bool inline_citations = false;  // small numbers after values are citation numbers
  std::string title;
  std::optional<Date> as_of;

  // ---- text
  const std::vector<Line>& lines() const { return lines_; }
  std::string_view View(Range r) const;
  std::string Str(Range r) const { return std::string(View(r)); }
  size_t LineIndexAt(size_t offset) const;
  int LineNumberAt(size_t offset) const { return static_cast<int>(LineIndexAt(offset)) + 1; }
  bool LineTooLong(size_t index) const { return lines_[index].range.size() > kMaxInterpretedLine; }

  // ---- subject
  const EntityId& subject() const { return subject_; }
  const std::string& subject_kind() const { return subject_kind_; }
  // Resolves `name` as the page subject (a known entity keeps its own kind).
  void SetSubject(const std::string& name, const std::string& kind, size_t offset);
  bool MentionsSubject(Range r) const;
  // What SetSubject sets, to read one part of a page about another subject and go back.
  struct SubjectState {
    EntityId id;
    std::string kind;
    std::vector<std::string> names;
    std::string scope;
    std::string written;
  };
  // The subject is a system of several chips ("Amazon EC2 Trn2 instances",
  // "AMD Instinct MI300X Platform"): its figures get this scope (Add).
  void SetSubjectScope(std::string scope) { subject_scope_ = std::move(scope); }
  // While a part of the page about another product is read ("SambaRack
  // SN40L-16" on the SN40L's page), the page's own subject, so that a
  // sentence there naming the page's chip by its designation ("does not
  // disclose the SN40L's thermal design power") can be given to it.
  void SetOuterSubject(std::optional<SubjectState> outer) { outer_subject_ = std::move(outer); }
  // The outer subject, where `r` names it by a designation (a word with a
  // digit) of its names that no name of the current subject has.
  const SubjectState* OuterSubjectNamedIn(Range r) const;
  SubjectState SaveSubject() const {
    return SubjectState{subject_, subject_kind_, subject_names_, subject_scope_, subject_written_};
  }
  void RestoreSubject(SubjectState state);
  // `word` is a word of the subject's name or of one of its aliases ("MI300X" of "AMD Instinct MI300X").
  bool NamedBySubject(std::string_view word) const;
  // "v5e" in a table on the page of "TPU v6e": another model of the
  // subject's line, named by its designation alone. The subject's name as
  // the page wrote it with that designation in place of its own ("TPU v5e"),
  // or "" where `designation` is no word shaped as the subject's is.
  std::string SiblingOfSubject(std::string_view designation) const;

  // "312 TFLOPS*" on a page whose footnote says "* With sparsity": a sparse figure.
  bool MarkedSparse(size_t figure_end) const;
  // What the page's footnote `mark` ("1", "2") says, normalised as a label
  // ("with sparsity"), from a line "1. With sparsity."; none where no line
  // explains the mark.
  std::optional<std::string> FootnoteMeaning(std::string_view mark) const;
  // "FP4 Tensor Core 1": where `label` ends in a footnote's number, that
  // number; else empty.
  static std::string_view FootnoteMarkOf(std::string_view label);

  // ---- sections: headings in text order
  void AddSection(size_t offset, std::string heading);
  std::string SectionAt(size_t offset) const;
  bool has_sections() const { return !sections_.empty(); }

  // ---- lines already interpreted by a template (generic readers skip them)
  void Claim(size_t line_index);
  void ClaimLines(size_t first, size_t end);
  bool Claimed(size_t line_index) const { return claimed_[line_index]; }

  // ---- schema lookups
  // The label a document writes, site first, then template, then generic.
  // Falls back to the label without a trailing parenthesis, whose words may
  // add qualifiers ("(per core)", "(dense)").
  std::optional<LabelHit> LookupLabel(Range written) const;
  // Every label written in `r`, longest first, not overlapping, at word boundaries.
  std::vector<LabelHit> LabelsIn(Range r) const;
  const PredicateDef* Predicate(const std::string& name) const { return schema.FindPredicate(name); }
  static bool Applies(const PredicateDef& p, const std::string& kind);
  // Known entities mentioned in `r` (longest match wins), skipping `excluded`.
  std::vector<Mention> MentionsIn(Range r, const std::vector<Range>& excluded = {}) const;
  // Known entity whose name or alias is written exactly at [pos, ...) (longest).
  std::optional<Mention> MentionAt(size_t pos, size_t limit) const;
  // "bf16" for the word "BF16": a numeric format named by an attribute.
  std::optional<std::string> FormatWord(std::string_view word) const;
  bool IsScopeWord(std::string_view word) const;
  // A scope of a part of one chip ("core", "die": schema table part_scopes),
  // whose figures are neither the chip's nor a system's.
  bool IsPartScope(std::string_view word) const;
  // A scope of several chips: a scope word that is neither "chip" nor a part's.
  bool IsSystemScope(std::string_view word) const {
    return IsScopeWord(word) && AsciiLower(word) != "chip" && !IsPartScope(word);
  }
  // "server" for "DGX B200", "rack" for "GB300 NVL72": the scope of a system
  // built of several chips that `name` names (schema tables system_words_SCOPE);
  // empty for a chip.
  std::string SystemScopeOf(std::string_view name) const;
  // "core" for "PE", "SM", "tile": a part of a chip whose figures are that
  // part's (schema tables part_words_SCOPE); empty for any other word.
  std::string PartScopeOf(std::string_view word) const;
  // Words of table words_<predicate> found in `r`, for text predicates.
  std::vector<std::pair<Range, std::string>> VocabularyIn(Range r, const std::string& predicate) const;
  // Text predicates that have a words_<predicate> table.
  const std::vector<std::string>& vocabulary_predicates() const { return vocab_predicates_; }
  bool InVocabulary(const std::string& predicate, std::string_view word) const;

  // ---- entities
  // The entity `name` names, through the resolver. nullopt (with a warning)
  // for a name the resolver refuses; a resolver failure is kept in error().
  std::optional<EntityId> Resolve(const std::string& name, const std::string& kind, size_t offset);
  const Status& error() const { return error_; }

  // ---- output
  // Adds a fact (validated against the schema; a bad one becomes a warning).
  // A fact of kPageDatePredicate sets as_of instead.
  void Add(Draft draft, const Emit& emit);
  void Warn(size_t offset, const std::string& message);
  std::vector<Fact>& facts() { return facts_; }
  std::vector<bool>& from_template() { return from_template_; }
  std::vector<std::string>& warnings() { return warnings_; }
  bool generic_phase = false;  // facts added now come from generic readers
  // Add throws FactLimitReached instead of adding one more fact than this:
  // the readers have no way out of their loops, and the limit must stop them
  // before the memory is spent, not after.
  size_t max_facts = kDefaultMaxFactsPerDocument;

 private:
  std::vector<Line> lines_;
  std::vector<bool> claimed_;
  std::vector<std::pair<size_t, std::string>> sections_;
  EntityId subject_;
  std::string subject_kind_;
  std::vector<std::string> subject_names_;  // lower case
  std::string subject_written_;              // the name SetSubject was given
  std::optional<SubjectState> outer_subject_;
  // A system's scope ("server" for "DGX B200"): the subject's figures without
  // a scope of their own get it (Add). Empty for a chip.
  std::string subject_scope_;
  mutable std::optional<bool> sparsity_footnote_;  // MarkedSparse's, found once
  struct LabelEntry {
    std::string lower;  // as NormalizeLabel would fold it
    const LabelDef* def;
  };
  std::vector<LabelEntry> scan_labels_;  // labels applicable to this page, longest first
  // The label written exactly so (as NormalizeLabel folds it), or null.
  const LabelDef* ExactLabel(std::string_view written) const;
  struct FormatLabel {
    const LabelDef* def;
    Qualifiers sparsity;
  };
  std::optional<FormatLabel> FormatLabelOf(std::string_view written) const;
  struct AliasEntry {
    std::string lower;
    const EntityDef* entity;
  };
  std::vector<AliasEntry> aliases_;  // longest first
  std::vector<std::string> vocab_predicates_;
  std::vector<Fact> facts_;
  std::vector<bool> from_template_;
  std::unordered_map<std::string, std::vector<size_t>> by_span_;  // subject, predicate, span -> facts_
  std::vector<std::string> warnings_;
  Status error_;

 public:
  // Builds label and alias indexes; call after template_name is known.
  void Prepare();
};

// ---- shared readers (extract_values.cpp, extract_generic.cpp) --------------

// What a quantity value says besides its number.
struct QuantityRead {
  Range figure;  // the bytes of the figure as written: "0.42 BF16 TFLOPS/W", "2,900 GB/s"
  double canonical = 0;
  double number = 0;  // as written, in the unit found
  std::string dimension;
  Qualifiers qualifiers;  // format words, (dense)/(sparse), per-scope phrases
  std::string formula;    // "210 TFLOPS ÷ 500 W" when the value shows its own arithmetic
  Range rest;             // what follows the figure (and formula)
};
// Reads the first figure of `value` (of `dimension` if given).
std::optional<QuantityRead> ReadQuantity(const Page& page, Range value, const std::string& dimension);
// Qualifiers written in `r`: format words, dense/sparse, "per [N-chip] SCOPE".
Qualifiers QualifiersIn(const Page& page, Range r);
// "GPU", "accelerators", "chip": a word for the chips a system holds.
bool IsChipNoun(std::string_view word);
// "8", "eight" (up to sixteen): how many chips a multi-chip scope holds, as written.
std::optional<int> SmallCount(std::string_view word);
// A number at `number_begin` that is a year by what is written before it
// ("in 2025", "since 2022", "by the end of 2025", "September 2025", "Q3
// 2025", "mid-2025"): no count of the chips after it.
bool ReadsAsYear(std::string_view text, size_t number_begin, double value);
// The scope that the opening of a sentence (its words before the first
// figure) gives all its figures: "Per server, ...", "An eight-accelerator
// baseboard offers ...", "Platform (8 GPUs): ...", "The whole system draws
// ...". Empty for one chip's. Counts (qualifier chips) where the text gives them.
Qualifiers SentenceScope(const Page& page, Range opening);
std::string NamedScope(const Page& page, std::string_view word);
// "The CloudMatrix 384 system links 384 Ascend 910C chips": the chips of the
// `scope` word the sentence names, counted within four words after it with
// no other scope between, and of the page's chip (the words between count
// and noun are its name's). nullopt where the sentence counts no such chips.
std::optional<long long> ChipsOfScopeIn(const Page& page, Range sentence, std::string_view scope);
// The scope a label names: as SentenceScope, or a scope as its first word ("Pod compute").
Qualifiers LabelScope(const Page& page, Range label);
// The formats of the first run of format words in `r` joined by "and", "or",
// "/" or "&" ("FP16 / BF16", "FP8 and BF16"), each once, in written order.
std::vector<std::string> FormatsIn(const Page& page, Range r);

// Strips trailing citation numbers ("820 GB/s 4" -> "820 GB/s") when the page
// uses inline citations; appends them to `citations`.
Range StripCitations(const Page& page, Range value, std::vector<std::string>* citations);

// Reads `value` as the value of `label` about `subject` and adds the facts.
// Returns the number of facts added.
size_t ReadLabelledValue(Page& page, const EntityId& subject, const std::string& subject_kind,
                         const LabelHit& label, Range value, const Emit& emit);

// "- Label" / "- value" pairs in lines [first, end). Claims what it reads.
void ReadPairs(Page& page, size_t first, size_t end, const Emit& emit);
// "Label: value" lines in [first, end) no template claimed; claims those with a known label.
void ReadLabelValueLines(Page& page, const Emit& emit, size_t first = 0, size_t end = SIZE_MAX);

struct Table {
  struct Row {
    size_t line = 0;
    std::vector<Range> cells;  // trimmed
  };
  size_t first_line = 0;
  size_t end_line = 0;  // one past the last line
  Row header;
  std::vector<Row> rows;
};
// A markdown table starting at line `first` (lines whose text begins with '|').
std::optional<Table> ParseTable(Page& page, size_t first);
void ReadTable(Page& page, const Table& table, const Emit& emit);

struct SentenceOptions {
  Emit emit;
  EntityId subject;  // empty: the page subject
  std::string subject_kind;
  std::vector<LabelHit> context_labels;  // labels that apply from outside (a FAQ question)
  bool subject_in_context = false;       // "not published" needs no mention of the subject
};
// Reads the sentences in `r`.
void ReadSentences(Page& page, Range r, const SentenceOptions& options);
std::vector<Range> SplitSentences(const Page& page, Range r);
// The items of a list of places or names from `pos` ("the US and in Mumbai,
// India", "Columbus, OH, Portland, OR, and Tokyo", "US East (N. Virginia),
// US West (Oregon)"): capitalised names, each with its apposition; and
// the name an item gives ("Mumbai", "US East (Ohio)": schema table region_area_words).
std::vector<Range> ListItems(std::string_view text, size_t pos, size_t limit);
std::string ListItemName(const Page& page, Range item);
// The names of the places an item gives: ListItemName's, or one for each
// place of an area's parenthesis ("Asia Pacific (Tokyo, Osaka)").
std::vector<std::string> ListItemNames(const Page& page, Range item);

// ---- product names the schema does not know (extract_names.cpp) ----------

struct ProductName {
  std::string name;  // as written, without trademark signs: "AMD Instinct MI325X"
  Range range;       // from its first word to its last
};
// The product a headline is about: a chip the schema knows, else a model
// designation and the brand words before it ("AMD launches Instinct MI300X
// accelerator to take on Nvidia's H100" -> "Instinct MI300X"). nullopt when
// it names none, or compares two ("H100 vs H200"; then `compares`, if given, is set).
// Without a designation, the headline less words like "at a glance" ("Groq
// LPU at a glance" -> "Groq LPU"), unless `designated`.
std::optional<ProductName> ProductNameIn(const Page& page, Range headline, bool* compares = nullptr,
                                         bool designated = false);
// A headline written as a sentence ("Our next generation Meta Training and
// Inference Accelerator"): lower-case words other than "and", "of" and the
// like, or an opening such as "Our" or "How". Taken whole as a chip's name,
// it named a chip no dataset or other page would ever meet.
bool ReadsAsSentence(const Page& page, Range headline);
// `r` writes the model designation of the page's subject ("TPU v5p" on a
// page about "Google TPU v5p"): a mention of it, for Page::MentionsSubject.
bool NamesSubjectsModel(const Page& page, Range r);
// A section heading that is a product's name, with at most words like
// "specifications" or "at a glance" around it ("TPU v5e").
std::optional<ProductName> HeadingProduct(const Page& page, Range heading);
// Chip model numbers written in `r` ("H100", "MI300X") that are not the
// page's subject and not in `excluded`.
std::vector<Range> OtherModelsIn(const Page& page, Range r, const std::vector<Range>& excluded);

// All generic readers over every line no template claimed.
void RunGeneric(Page& page);

// ---- templates -----------------------------------------------------------

// Bytes of a UTF-8 byte order mark the text starts with (3 or 0). A page
// saved by some editors starts with one; it is no part of the first line's
// words (a title read with it named a chip "\uFEFFAI chip"), but stays in the
// stored text, so that every span counts the bytes as stored.
size_t ByteOrderMarkSize(std::string_view text);

struct TemplateDef {
  const char* name;
  double (*score)(std::string_view text);
  void (*run)(Page& page);
};
const std::vector<TemplateDef>& Templates();
// A template runs when its score reaches this.
inline constexpr double kTemplateThreshold = 0.5;

double ScoreCatalog(std::string_view text);
void RunCatalog(Page& page);
double ScoreDossier(std::string_view text);
void RunDossier(Page& page);

}  // namespace chipkg::extract_internal
