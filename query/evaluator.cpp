// The evaluator: runs a bound query against the store (RunQuery).
//
// Reads go through engine/store.h only, with ReadView::with_provenance off:
// evaluation needs values, qualifiers and document ids, never excerpts.
// Provenance (section, excerpt, attribution, fetch time) is read per cited
// fact, and only for the rows that are cited (QueryOptions::cite_rows).
//
// Semantics (query/README.md has them for users):
//  - A test is evaluated per claim and the entity takes the best answer
//    (Kleene three-valued logic): true if some claim makes it true, else
//    unknown if some claim leaves it open (a coarse date, "not published", no
//    claim at all), else false. The claims that make it fail are kept as the
//    row's contradicting evidence.
//  - and/or/not are Kleene's; a row is kept only when its condition is true.

#include <cctype>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "query/binder.h"
#include "query/compare.h"
#include "query/parser.h"
#include "query/planner.h"
#include "query/query.h"
#include "query/distinct_sources.h"
#include "query/fact_numbers.h"
#include "query/read_ahead.h"
#include "query/witness_lists.h"

namespace chipkg::query {

const char* CellStateName(Cell::State state) {
  switch (state) {
    case Cell::State::kReported: return "reported";
    case Cell::State::kNotPublished: return "not_published";
    case Cell::State::kUnknown: return "unknown";
    case Cell::State::kConflict: return "conflict";
    case Cell::State::kText: return "text";
  }
  return "unknown";
}

namespace {

// Where in its document a cited claim sits: the stored provenance record,
// moved into the footnote.
void TakeProvenance(Provenance&& p, Citation& c) {
  auto passage = std::make_shared<Passage>();
  passage->section = std::move(p.section);
  passage->excerpt = std::move(p.excerpt);
  passage->attribution = std::move(p.attribution);
  passage->cited = std::move(p.citations);
  passage->row = p.row;
  passage->column = std::move(p.column);
  passage->formula = std::move(p.formula);
  c.passage = std::move(passage);
}

// Reads the provenance of `fact_ids` a chunk at a time, in the order given
// (fact-id order reads the store's stretch by stretch), and hands each record
// to `take(i, record)`: a whole answer's records at once would be a block of
// fresh memory per query, the dearest thing here (tools/bench/HISTORY.md).
template <typename Take>
Status ReadProvenanceInChunks(const Store& store, const std::vector<uint64_t>& fact_ids, Take take) {
  constexpr size_t kChunk = 4096;
  std::vector<uint64_t> ids;
  ids.reserve(std::min(kChunk, fact_ids.size()));
  for (size_t from = 0; from < fact_ids.size(); from += kChunk) {
    const size_t to = std::min(fact_ids.size(), from + kChunk);
    ids.assign(fact_ids.begin() + static_cast<std::ptrdiff_t>(from), fact_ids.begin() + static_cast<std::ptrdiff_t>(to));
    Result<std::vector<Provenance>> provenance = store.ReadProvenance(ids);
    if (!provenance.ok()) return provenance.status().WithContext("reading the provenance of the cited facts");
    for (size_t i = from; i < to; ++i) take(i, std::move((*provenance)[i - from]));
  }
  return Status::OK();
}

// True for figures written by a program rather than a person: seven or more
// integer digits, or an exponent ("9.8e12").
bool IsMachineWritten(const std::string& original) {
  size_t integer_digits = 0;
  bool in_fraction = false;
  for (size_t k = 0; k < original.size(); ++k) {
    const char c = original[k];
    if (c >= '0' && c <= '9') {
      if (!in_fraction) ++integer_digits;
    } else if (c == '.') {
      in_fraction = true;
    } else if ((c == 'e' || c == 'E') && k > 0 && k + 1 < original.size() &&
               (std::isdigit(static_cast<unsigned char>(original[k + 1])) || original[k + 1] == '+' ||
                original[k + 1] == '-')) {
      return true;
    } else if (c != ',') {
      break;
    }
  }
  return integer_digits >= 7;
}

// A figure as written without the ".0" a program adds when it writes a whole
// number as a float: Epoch's CSV gives "1665.0" in "Base clock (MHz)", which
// no person writes ("1665.0 MHz" -> "1665 MHz"). Only exactly one zero after
// the point, ending the number: "1.50 GB" and "2.05 GHz" say something.
std::string WithoutFloatZero(const std::string& original) {
  size_t k = 0;
  while (k < original.size() && ((original[k] >= '0' && original[k] <= '9') || original[k] == ',')) ++k;
  if (k == 0 || k + 1 >= original.size() || original[k] != '.' || original[k + 1] != '0') return original;
  if (k + 2 < original.size() && original[k + 2] != ' ') return original;
  return original.substr(0, k) + original.substr(k + 2);
}


using factcheck::CompareOptions;

enum class Truth : uint8_t { kFalse, kUnknown, kTrue };

// A claim as the evaluator sees it: a stored fact, or a value computed by a
// derive rule from stored facts.
// std::stable_sort, without its temporary buffer for the few elements a
// subject's claims are (a conflicts pass sorts 100,000 such lists, and the
// buffer's allocation was most of each sort).
template <typename T, typename Less>
void StableSortFew(std::vector<T>& items, Less less) {
  constexpr size_t kFew = 32;
  if (items.size() > kFew) {
    std::stable_sort(items.begin(), items.end(), less);
    return;
  }
  for (size_t i = 1; i < items.size(); ++i) {
    T item = std::move(items[i]);
    size_t j = i;
    for (; j > 0 && less(item, items[j - 1]); --j) items[j] = std::move(items[j - 1]);
    items[j] = std::move(item);
  }
}

struct Claim {
  uint64_t fact_id = 0;  // 0 when computed
  EntityId subject;
  std::string predicate;
  Value value;
  Qualifiers qualifiers;          // as stated
  Qualifiers key;                 // what the claim is about (factcheck::ComparisonQualifiers)
  std::optional<double> number;   // quantities: per chip, or as stated when the attribute names a scope
  bool number_per_chip = false;   // `number` is factcheck::PerChipNumber(value, qualifiers)
  std::string document_id;  // computed: the one document every input comes from, else empty
  uint32_t document_version = 0;
  std::optional<Date> valid_as_of;
  Support support;
  bool computed = false;
  std::string formula;  // computed: "1,300 TFLOPS / 500 W"
  std::string text;     // how the value reads: "2,900 GB/s"
  std::shared_ptr<const ShownValue::Content> shown;  // once a cell shows it (ClaimCell)
};

// What a citation needs of a claim: kept instead of the whole claim where an
// evaluation holds hundreds of thousands of cited claims until its end (a
// conflicts pass): a third of a claim's size, and none of its qualifier maps
// or value strings. Memory an answer touches is time: a one-shot Q5 at
// N=100,000 spent over a third of its time with the kernel zeroing pages.
struct CitedClaim {
  uint64_t fact_id = 0;
  EntityId subject;
  std::string predicate;
  std::string claim;  // Citation::claim
  std::string document_id;
  uint32_t document_version = 0;
  std::optional<Date> valid_as_of;
};

// The row entity's claims by attribute label. A find asks for one or two
// attributes a candidate, and a hash map allocated a node for each (Q2 of
// the peer benchmark at N=100,000: 48,582 candidates); entries are kept in
// place while more are added (a deque), so what Find returned stays valid
// until clear().
class ClaimsByLabel {
 public:
  std::vector<Claim>* Find(const std::string& label) {
    for (auto& [l, claims] : entries_) {
      if (l == label) return &claims;
    }
    return nullptr;
  }
  std::vector<Claim>& Add(const std::string& label, std::vector<Claim>&& claims) {
    return entries_.emplace_back(label, std::move(claims)).second;
  }
  auto begin() { return entries_.begin(); }
  auto end() { return entries_.end(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  void clear() { entries_.clear(); }

 private:
  std::deque<std::pair<std::string, std::vector<Claim>>> entries_;
};

// A condition's value for one entity and why.
struct Outcome {
  Truth truth = Truth::kUnknown;
  Support support;  // kTrue: what makes it true; kFalse: what makes it false
  std::vector<Reason> reasons;
};

// One value of a formula term with the claims it rests on.
struct Operand {
  double number = 0;
  std::string dimension;  // empty for plain numbers and table entries
  Qualifiers key;
  Support support;
  std::string text;
  bool compound = false;  // built by an operator
  // The one document every claim behind it comes from, so that two figures
  // computed from one document's own values (Epoch's two FP16 columns over
  // its TDP) are that document's two values, not two sources disagreeing.
  // Null for a number of the formula itself; `several_documents` once two
  // documents (or a claim without one) are behind it. Points into a claim
  // the evaluation keeps until its end. (The flag beside `compound`, in its
  // padding: Q3 moves a quarter of a million operands.)
  bool several_documents = false;
  const std::string* document = nullptr;

  void JoinDocuments(const Operand& a, const Operand& b) {
    several_documents = a.several_documents || b.several_documents ||
                        (a.document != nullptr && b.document != nullptr && *a.document != *b.document);
    document = several_documents ? nullptr : a.document != nullptr ? a.document : b.document;
  }
  void JoinDocument(const std::string& claim_document) {
    if (claim_document.empty() || (document != nullptr && *document != claim_document)) several_documents = true;
    document = several_documents ? nullptr : &claim_document;
  }
};

// A formula comparison evaluated for one combination of claims.
struct Combination {
  bool holds = false;
  Support support;
  std::string text;  // "70 B x 1 (int8) = 70 GB <= 96 GB"
};

std::string ShortNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string FoldText(const std::string& s) {
  std::string out;
  bool space = false;
  for (unsigned char c : s) {
    if (std::isspace(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += static_cast<char>(std::tolower(c));
  }
  return out;
}

// Whether a folded text is the one asked for, or it with a detail in
// parentheses after it: "us east (ohio)" is "us east". Pages name regions
// that way ("US East (N. Virginia)", kept whole since two such regions are
// two places), and someone asking for the area means every place in it.
bool SameOrDetailed(std::string_view have, std::string_view want) {
  if (have == want) return true;
  if (want.empty() || have.size() < want.size() + 3 || have.substr(0, want.size()) != want || have.back() != ')') {
    return false;
  }
  std::string_view detail = have.substr(want.size());  // " (ohio)" or "(ohio)"
  if (detail.front() == ' ') detail.remove_prefix(1);
  return detail.size() >= 3 && detail.front() == '(' && detail.find_first_not_of(" ()") != std::string_view::npos;
}

std::string QualifierText(const Qualifiers& q) {
  if (q.empty()) return "";
  std::string out = "{";
  for (const auto& [k, v] : q) out += (out.size() > 1 ? ", " : "") + k + "=" + v;
  return out + "}";
}

bool Compatible(const Qualifiers& a, const Qualifiers& b) {
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it != b.end() && it->second != v) return false;
  }
  return true;
}

Qualifiers Merge(const Qualifiers& a, const Qualifiers& b) {
  Qualifiers out = a;
  out.insert(b.begin(), b.end());
  return out;
}

// Does a claim fall under an attribute's fixed qualifiers? A claim that does
// not say (no format given) is not excluded; a missing sparsity means dense,
// a missing scope means one chip, a missing basis stated (so that
// {basis=estimate} is only the estimates: it matched every stated TDP).
bool MatchesFilter(const Qualifiers& stated, const Qualifiers& key, const Qualifiers& filter) {
  for (const auto& [k, want] : filter) {
    if (k == qualifier::kScope) {
      auto it = stated.find(k);
      if ((it == stated.end() ? std::string("chip") : it->second) != want) return false;
    } else if (k == qualifier::kScopeCount) {
      auto it = stated.find(k);
      if (it == stated.end() || it->second != want) return false;
    } else if (k == qualifier::kSparsity) {
      auto it = key.find(k);
      if ((it == key.end() ? std::string("dense") : it->second) != want) return false;
    } else if (k == qualifier::kBasis) {
      auto it = stated.find(k);
      if ((it == stated.end() ? std::string("stated") : it->second) != want) return false;
    } else {
      auto it = key.find(k);
      if (it != key.end() && it->second != want) return false;
    }
  }
  return true;
}

Truth Not(Truth t) {
  if (t == Truth::kTrue) return Truth::kFalse;
  if (t == Truth::kFalse) return Truth::kTrue;
  return Truth::kUnknown;
}

// Three-valued comparison of a claimed date (which covers the interval its
// precision allows) with a date written in a query (whose precision makes it
// a boundary: ">= 2024" means from 2024-01-01, "> 2024" after 2024-12-31).
Truth CompareDate(const Date& claim, CompareOp op, const Date& q) {
  const int32_t f = claim.FirstDay(), l = claim.LastDay();
  const int32_t qf = q.FirstDay(), ql = q.LastDay();
  auto three = [](bool yes, bool no) { return yes ? Truth::kTrue : (no ? Truth::kFalse : Truth::kUnknown); };
  switch (op) {
    case CompareOp::kGe: return three(f >= qf, l < qf);
    case CompareOp::kGt: return three(f > ql, l <= ql);
    case CompareOp::kLe: return three(l <= ql, f > ql);
    case CompareOp::kLt: return three(l < qf, f >= qf);
    case CompareOp::kEq: return three(qf <= f && l <= ql, l < qf || f > ql);
    case CompareOp::kNe: return Not(three(qf <= f && l <= ql, l < qf || f > ql));
    case CompareOp::kContains: return Truth::kUnknown;
  }
  return Truth::kUnknown;
}

Truth CompareNumbers(double x, CompareOp op, double v) {
  const bool eq = std::abs(x - v) <= kNumbersAlikeWithin * std::max(std::abs(x), std::abs(v));
  bool r = false;
  switch (op) {
    case CompareOp::kEq: r = eq; break;
    case CompareOp::kNe: r = !eq; break;
    case CompareOp::kLt: r = x < v && !eq; break;
    case CompareOp::kLe: r = x < v || eq; break;
    case CompareOp::kGt: r = x > v && !eq; break;
    case CompareOp::kGe: r = x > v || eq; break;
    case CompareOp::kContains: return Truth::kUnknown;
  }
  return r ? Truth::kTrue : Truth::kFalse;
}

// Appends the time since the previous mark to an answer's phases.
class PhaseClock {
 public:
  explicit PhaseClock(QueryResult& result, std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now())
      : result_(result), last_(start) {}
  void Mark(const char* name) {
    const auto now = std::chrono::steady_clock::now();
    result_.phases.push_back(Phase{name, std::chrono::duration<double, std::milli>(now - last_).count()});
    last_ = now;
  }

 private:
  QueryResult& result_;
  std::chrono::steady_clock::time_point last_;
};

class Evaluator {
 public:
  Evaluator(const Store& store, const Schema& schema, const BoundQuery& q, const QueryOptions& options)
      : store_(store), schema_(schema), q_(q), options_(options) {
    view_ = q.view;
    view_.with_provenance = false;
    // A count shows no rows, but says which entities it counted although a
    // source contradicts them: that takes the reasons (contradicting claims).
    need_reasons_ = !q.with_evidence;
  }

  Result<QueryResult> Run(QueryResult& result) {
    switch (q_.statement) {
      case StatementKind::kFind:
      case StatementKind::kCount:
        CHIPKG_RETURN_IF_ERROR(RunFind(result));
        break;
      case StatementKind::kLookup:
        CHIPKG_RETURN_IF_ERROR(RunLookup(result));
        break;
      case StatementKind::kFacts:
        CHIPKG_RETURN_IF_ERROR(RunFacts(result));
        break;
      case StatementKind::kConflicts:
        CHIPKG_RETURN_IF_ERROR(RunConflicts(result));
        break;
    }
    if (q_.statement != StatementKind::kCount) {
      PhaseClock clock(result);
      CHIPKG_RETURN_IF_ERROR(ResolveCitations(result));
      clock.Mark("citations");
    }
    if (q_.statement == StatementKind::kFind) NoteRanksOnOutliers(result);
    return std::move(result);
  }

  // A row ranked by a figure that the entity's other sources put far lower
  // (or higher, ascending): its place rests on the claim `chipkg conflicts`
  // calls implausible for one chip (a server's bandwidth as a chip's, say),
  // which the answer's order would otherwise pass off as the chip's. Said,
  // not hidden: the figure may be right and the others stale.
  void NoteRanksOnOutliers(QueryResult& result) const {
    constexpr double kImplausibleRatio = 3.0;  // as factcheck's sanity flags
    if (q_.order.empty() || q_.order[0].by_name || q_.with_evidence) return;
    const BoundOrder& order = q_.order[0];
    if (order.attribute.type != ValueKind::kQuantity) return;
    const auto column = std::find(result.columns.begin(), result.columns.end(), order.attribute.label);
    if (column == result.columns.end()) return;
    const size_t at = static_cast<size_t>(column - result.columns.begin());
    std::unordered_map<uint64_t, const std::string*> document_of;
    for (const Citation& c : result.citations) document_of.emplace(c.fact_id, &c.document_id);
    auto documents = [&](const Support& s, std::set<std::string>& into) {
      for (uint64_t id : s.Facts()) {
        if (auto d = document_of.find(id); d != document_of.end()) into.insert(*d->second);
      }
    };
    std::vector<std::string> flagged;
    for (const Row& row : result.rows) {
      if (at >= row.cells.size() || row.cells[at].values.size() < 2) continue;
      const std::vector<ShownValue>& values = row.cells[at].values;
      const ShownValue* key = nullptr;
      for (const ShownValue& v : values) {
        if (v.kind != ShownValue::Kind::kValue || v.value().kind != ValueKind::kQuantity) continue;
        if (key == nullptr || (order.descending ? v.value().number > key->value().number
                                                : v.value().number < key->value().number)) {
          key = &v;
        }
      }
      if (key == nullptr || key->value().number <= 0) continue;
      const ShownValue* nearest = nullptr;  // of the others, the one nearest the key
      std::set<std::string> key_documents, other_documents;
      documents(key->support, key_documents);
      bool outlier = true;
      for (const ShownValue& v : values) {
        if (&v == key || v.kind != ShownValue::Kind::kValue || v.value().kind != ValueKind::kQuantity) continue;
        // Only figures of the same thing: an FP8 sparse figure is 4x a BF16 dense one by design.
        if (v.qualifiers() != key->qualifiers()) continue;
        const double ratio = order.descending ? key->value().number / v.value().number
                                              : v.value().number / key->value().number;
        if (!(ratio >= kImplausibleRatio)) outlier = false;
        if (nearest == nullptr || (order.descending ? v.value().number > nearest->value().number
                                                    : v.value().number < nearest->value().number)) {
          nearest = &v;
        }
        documents(v.support, other_documents);
      }
      if (!outlier || nearest == nullptr || key_documents.empty() || key_documents.size() >= other_documents.size()) {
        continue;
      }
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.3g", order.descending ? key->value().number / nearest->value().number
                                                                  : nearest->value().number / key->value().number);
      flagged.push_back(row.name + " by " + key->text + " (" + (order.descending ? "" : "1/") + ratio + "x the " +
                        nearest->text + " of " + std::to_string(other_documents.size()) + " other source" +
                        (other_documents.size() == 1 ? "" : "s") + ")");
    }
    if (flagged.empty()) return;
    std::string names;
    for (size_t i = 0; i < flagged.size() && i < 5; ++i) names += (i ? "; " : "") + flagged[i];
    if (flagged.size() > 5) names += "; ... (" + std::to_string(flagged.size()) + " in all)";
    result.notes.push_back("ranked by a figure the entity's other sources put far " +
                           std::string(order.descending ? "lower" : "higher") + " (likely another scope's, or "
                           "wrong: chipkg conflicts ENTITY shows the sources side by side): " + names);
  }

  // Frees the claims the evaluation kept, those the helper of EvaluateInTwo
  // made on the read-ahead thread there, at the same time as the rest here:
  // each block back on the thread whose heap it came from, where a block
  // freed on another thread waits in a list its own thread later walks
  // block by block (Q3 of the peer benchmark at N=100,000: half of its
  // 210,000-odd claims).
  // (The worker runs tasks in the order given, so this waits for any other
  // evaluation's task queued before.)
  void Release() {
    std::future<void> there;
    if (!helper_claims_.empty()) {
      try {
        there = read_ahead_.Submit([claims = std::move(helper_claims_)]() mutable { claims.clear(); });
      } catch (const std::exception&) {
        helper_claims_.clear();  // no task to give them to (out of memory): freed here
      }
    }
    retired_claims_.clear();
    row_claims_.clear();
    other_claims_.clear();
    if (there.valid()) there.wait();
  }

 private:
  // ---- Store access with caches --------------------------------------------

  Result<const Document*> Doc(const std::string& id) {
    auto it = docs_.find(id);
    if (it == docs_.end()) {
      Result<Document> d = store_.GetDocument(id);
      if (!d.ok() && !d.status().IsNotFound()) return d.status().WithContext("reading document " + id);
      auto doc = std::make_shared<Document>();
      if (d.ok()) {
        *doc = std::move(*d);
      } else {
        doc->id = id;
      }
      it = docs_.emplace(id, std::move(doc)).first;
    }
    return it->second.get();
  }

  std::string Name(const EntityId& id) {
    auto it = names_.find(id);
    if (it != names_.end()) return it->second;
    Result<Entity> e = store_.GetEntity(id);
    std::string name = e.ok() ? e->name : id;
    if (!e.ok()) {
      if (const EntityDef* def = schema_.ResolveEntity(id)) name = def->name;
    }
    names_.emplace(id, name);
    return name;
  }

  // The names of the claims' subjects not known yet, in one batched read
  // (a document's facts name dozens of subjects).
  Status ReadNames(const std::vector<Claim>& claims) {
    std::vector<EntityId> wanted;
    std::unordered_set<std::string_view> asked;
    const EntityId* previous = nullptr;  // claims come grouped by subject: each group looked up once
    for (const Claim& c : claims) {
      if (previous != nullptr && *previous == c.subject) continue;
      previous = &c.subject;
      if (!names_.count(c.subject) && asked.insert(c.subject).second) wanted.push_back(c.subject);
    }
    if (wanted.size() < 2) return Status::OK();  // Name() reads a single one as well
    Result<std::vector<std::optional<Entity>>> entities = store_.GetEntities(wanted);
    // A record that cannot be read is named by Name(), one by one, as before.
    if (!entities.ok()) return Status::OK();
    for (size_t i = 0; i < wanted.size(); ++i) {
      if ((*entities)[i]) names_.emplace(wanted[i], std::move((*entities)[i]->name));
    }
    return Status::OK();
  }

  // Is a fact's source admitted by the source policy (before preferences)?
  Result<bool> Admit(const Fact& f) {
    const SourcePolicy& p = q_.policy;
    if (p.ignore_not_published && f.value.kind == ValueKind::kNotPublished) return false;
    if (p.document && f.provenance.document_id != *p.document) return false;
    if (p.only.empty()) return true;
    Result<const Document*> d = Doc(f.provenance.document_id);
    if (!d.ok()) return d.status();
    for (const SourceSelector& s : p.only) {
      if (SelectsDocument(s, **d)) return true;
    }
    return false;
  }

  // Rank of a claim's source under `prefer`: the first selector it matches,
  // sources matching none after all of them.
  Result<size_t> PreferenceRank(const Claim& c) {
    const auto& prefer = q_.policy.prefer;
    if (c.computed) return prefer.size();
    Result<const Document*> d = Doc(c.document_id);
    if (!d.ok()) return d.status();
    for (size_t i = 0; i < prefer.size(); ++i) {
      if (SelectsDocument(prefer[i], **d)) return i;
    }
    return prefer.size();
  }

  // Keeps, per figure (qualifier set; an estimate is of the same figure as
  // a stated value), only the claims of the best-ranked source. An estimate
  // gives way to a better-ranked value, not to a "not published" marker:
  // it is what its source makes of the figure the maker does not publish
  // (EstimateOfTheUnpublished).
  Status ApplyPreference(std::vector<Claim>& claims) {
    if (q_.policy.prefer.empty() || claims.size() < 2) return Status::OK();
    std::map<Qualifiers, size_t> best, best_value;
    auto lower = [](std::map<Qualifiers, size_t>& m, const Qualifiers& figure, size_t rank) {
      auto [it, inserted] = m.emplace(figure, rank);
      if (!inserted) it->second = std::min(it->second, rank);
    };
    std::vector<size_t> ranks;
    std::vector<Qualifiers> figures;
    for (const Claim& c : claims) {
      Result<size_t> r = PreferenceRank(c);
      if (!r.ok()) return r.status();
      ranks.push_back(*r);
      figures.push_back(factcheck::WithoutBasis(c.key));
      lower(best, figures.back(), *r);
      if (c.value.kind != ValueKind::kNotPublished) lower(best_value, figures.back(), *r);
    }
    std::vector<Claim> kept;
    for (size_t i = 0; i < claims.size(); ++i) {
      const auto& by = factcheck::IsEstimate(claims[i].key) ? best_value : best;
      if (ranks[i] == by.at(figures[i])) kept.push_back(std::move(claims[i]));
    }
    claims = std::move(kept);
    return Status::OK();
  }

  std::string ValueText(const Value& v, const Qualifiers& stated, const std::optional<double>& per_chip,
                        const std::string& dimension_display) {
    switch (v.kind) {
      case ValueKind::kNotPublished:
        return "not published";
      case ValueKind::kQuantity: {
        // A page's own wording ("2,900 GB/s") is shown as written; a dataset's raw
        // cell ("40000000000.0 B") is not how a person reads a figure, so it is
        // shown in the display unit instead (trace still shows the cell).
        std::string t = v.original.empty() ? schema_.FormatQuantity(v.number, v.dimension, dimension_display, &stated)
                        : !IsMachineWritten(v.original)
                            ? WithoutFloatZero(v.original)
                            : schema_.FormatWrittenFigure(v.number, v.dimension, dimension_display, &stated);
        auto scope = stated.find(qualifier::kScope);
        if (scope != stated.end() && scope->second != "chip" && !scope->second.empty()) {
          auto chips = stated.find(qualifier::kScopeCount);
          t += " per " + scope->second;
          if (chips != stated.end()) t += " of " + chips->second + " chips";
          if (per_chip && chips != stated.end() && *per_chip != v.number) {
            t += " = " + schema_.FormatQuantity(*per_chip, v.dimension, dimension_display, &stated) + " per chip";
          }
        }
        return t;
      }
      case ValueKind::kEntity:
        return Name(v.text);
      case ValueKind::kDate:
        return v.date.ToString();
      case ValueKind::kText:
        return v.text;
      case ValueKind::kBool:
        return v.number != 0 ? "yes" : "no";
    }
    return v.ToString();
  }

  // A citation's claim: the value as the source wrote it, with its
  // qualifiers, read as ValueText reads it (a dataset's "80000000000.0 B" is
  // "80 GB", its "1665.0 MHz" "1665 MHz"; the footnote's passage line still
  // shows the cell as written). The schema is asked only for such a figure:
  // a conflicts answer makes 578,000 of these.
  std::string CitedText(const Value& value, const Qualifiers& qualifiers, const std::string& predicate) const {
    std::string text;
    if (value.kind == ValueKind::kNotPublished) {
      text = "not published";
    } else if (value.kind == ValueKind::kQuantity && !value.original.empty()) {
      if (IsMachineWritten(value.original)) {
        const PredicateDef* p = schema_.FindPredicate(predicate);
        text = schema_.FormatWrittenFigure(value.number, value.dimension, p != nullptr ? p->display_unit : "", &qualifiers);
      } else {
        text = WithoutFloatZero(value.original);
      }
    } else {
      text = value.ToString();
    }
    if (!qualifiers.empty()) text += " " + QualifierText(qualifiers);
    return text;
  }

  // The fact is consumed: its strings move into the claim, a new one (filled
  // in place: a conflicts pass makes 750,000 claims, and moving each into
  // its vector was a twentieth of the pass).
  // Without `name_entities`, an entity value's text is left empty (NameEntityValues).
  void FromFact(Fact&& f, bool raw_scope, const std::string& display_unit, Qualifiers key, Claim& c,
                bool name_entities = true) {
    c.fact_id = f.id;
    if (f.value.kind == ValueKind::kQuantity) {
      c.number = raw_scope ? std::optional<double>(f.value.number) : factcheck::PerChipNumber(f.value, f.qualifiers);
      c.number_per_chip = !raw_scope;
    }
    if (name_entities || f.value.kind != ValueKind::kEntity) {
      c.text = ValueText(f.value, f.qualifiers, c.number, display_unit);
    }
    c.subject = std::move(f.subject);
    c.predicate = std::move(f.predicate);
    c.value = std::move(f.value);
    c.qualifiers = std::move(f.qualifiers);
    c.key = std::move(key);
    c.document_id = std::move(f.provenance.document_id);
    c.document_version = f.provenance.document_version;
    c.valid_as_of = f.valid_as_of;
    c.support = Support::Fact(f.id);
  }

  // The stated claims of `subject` for a predicate narrowed by `filter`,
  // under the source policy.
  Result<std::vector<Claim>> StatedClaims(const EntityId& subject, const std::string& predicate,
                                          const Qualifiers& filter, const std::string& display_unit) {
    Result<std::vector<Fact>> facts = Prefetched(subject, predicate);
    if (!facts.ok()) return facts.status().WithContext("reading " + subject + " " + predicate);
    const bool raw_scope = filter.count(qualifier::kScope) > 0;
    std::vector<Claim> out;
    out.reserve(facts->size());
    for (Fact& f : *facts) {
      Result<bool> admit = Admit(f);
      if (!admit.ok()) return admit.status();
      if (!*admit) continue;
      Qualifiers key = factcheck::ComparisonQualifiers(f.qualifiers, f.value);
      if (!MatchesFilter(f.qualifiers, key, filter)) continue;
      FromFact(std::move(f), raw_scope, display_unit, std::move(key), out.emplace_back());
    }
    CHIPKG_RETURN_IF_ERROR(ApplyPreference(out));
    return out;
  }

  // The facts of a row entity's predicate. `find` evaluates one condition on
  // many candidates, so the facts are read for the next kPrefetch candidates
  // at once (one store iterator for all of them) and handed out one entity
  // at a time; other subjects are read on their own.
  static constexpr size_t kPrefetch = 1024;
  Result<std::vector<Fact>> Prefetched(const EntityId& subject, const std::string& predicate) {
    if (subject != current_entity_ || candidate_pos_ >= candidate_ids_.size() ||
        candidate_ids_[candidate_pos_] != subject) {
      return store_.FactsAbout(subject, predicate, view_);
    }
    if (predicate == whole_.predicate) return FromWholeRead(subject, predicate);
    auto& ahead = prefetched_[predicate];
    auto it = ahead.find(subject);
    if (it == ahead.end()) {
      // The batch after this one is read on another thread while this one is
      // evaluated; it is used if evaluation reaches it where it starts.
      auto batch_at = [this](size_t from) {
        const size_t end = std::min(candidate_ids_.size(), from + kPrefetch);
        return std::vector<EntityId>(candidate_ids_.begin() + static_cast<std::ptrdiff_t>(from),
                                     candidate_ids_.begin() + static_cast<std::ptrdiff_t>(end));
      };
      PendingBatch& pending = pending_[predicate];
      const bool ready = pending.facts.valid() && pending.from == candidate_pos_;
      if (!ready && pending.facts.valid()) pending.facts.wait();  // not needed after all
      Result<std::vector<std::vector<Fact>>> read =
          ready ? pending.facts.get() : store_.FactsAboutEach(batch_at(candidate_pos_), predicate, view_);
      if (!read.ok()) return read.status();
      std::vector<EntityId> batch = batch_at(candidate_pos_);
      ahead.clear();
      for (size_t i = 0; i < batch.size(); ++i) ahead.emplace(std::move(batch[i]), std::move((*read)[i]));
      it = ahead.find(subject);
      pending.from = candidate_pos_ + kPrefetch;
      if (pending.from < candidate_ids_.size() && !on_helper_) {
        pending.facts = read_ahead_.Submit([this, ids = batch_at(pending.from), predicate] {
          return store_.FactsAboutEach(ids, predicate, view_);
        });
      }
    }
    std::vector<Fact> facts = std::move(it->second);
    ahead.erase(it);
    return facts;
  }

  // The access path's predicate for every candidate, read in one call
  // (ReadWhole); handed out in candidate order, which is the order of the ids
  // it was read for.
  Result<std::vector<Fact>> FromWholeRead(const EntityId& subject, const std::string& predicate) {
    size_t at = whole_.cursor;
    while (at < whole_.ids.size() && whole_.ids[at] != subject) ++at;
    if (at == whole_.ids.size() || whole_.taken[at]) return store_.FactsAbout(subject, predicate, view_);
    whole_.cursor = at;
    whole_.taken[at] = true;
    return std::move(whole_.facts[at]);
  }

  // Whether a find picking its candidates by a range of one predicate can
  // evaluate each on the claims in the range alone, not reading the rest of
  // the predicate (Q2 of the peer benchmark at N=100,000: 83,000-odd entries
  // below 64 GB, for 1,094 facts of its 48,582 candidates). A claim outside
  // the range never makes the condition hold: the planner bounds the range
  // so (a per-chip figure is never above the figure stated, a date starts a
  // year early, equality allows its half-width, a fit's range starts at the
  // smallest need), so the rows, their ways and their citations are those of
  // the claims in the range. The other claims count only where the answer
  // shows more than that: reasons (the claims that contradict), columns,
  // order or groups that show the attribute, counts (a note names the
  // candidates another claim contradicts), source preferences (a preferred
  // source's claim outside the range sets aside one in it), and a condition
  // of several parts. A candidate the range's claims do not make the
  // condition hold for is evaluated again on all of its claims (whether it
  // is false or unknown decides a note). Not for equality, whose range runs
  // from the figure up (a server's figure may be a chip's), so that most of
  // its candidates are false and would be read twice.
  bool RangeClaimsDecide() const {
    if (!options_.claims_in_range_alone) return false;
    if (!q_.where || q_.statement != StatementKind::kFind || need_reasons_) return false;
    if (!q_.columns.empty() || !q_.order.empty() || q_.group_by || !q_.policy.prefer.empty()) return false;
    const BoundCondition& c = *q_.where;
    // (Comparisons met by one claim: most candidates of the first's range
    // fail another, and would be read twice.)
    if (c.kind == Condition::Kind::kComparison) {
      return !c.attribute.entity_name && c.op != CompareOp::kEq && c.same_claim.empty();
    }
    return c.kind == Condition::Kind::kCall && c.call.derivation != nullptr;
  }

  // A find with many candidates reads the facts of its access path's
  // predicate for all of them at once: the store can then answer with one
  // pass over the predicate's index entries instead of a seek per candidate
  // (Store::FactsAboutEach). Q2 of the peer benchmark at N=100,000 (48,582
  // candidates): evaluate step 179 -> 86 ms, the query 470 -> 367 ms in a
  // loop, 853 -> 599 ms as a one-shot command (tools/bench/HISTORY.md).
  // Bounded above: the facts of a whole read are in memory at once (712 bytes
  // a Fact, a few per candidate), and past that many candidates a pass per
  // batch would cost more than the seeks it saves; batches of kPrefetch then.
  // A find that stops at a limit reads batch by batch too.
  static constexpr size_t kWholeReadFrom = 4096;
  static constexpr size_t kWholeReadUpTo = 65536;
  bool WantsWholeRead(const std::string& predicate, const std::vector<EntityId>& ids) const {
    return !predicate.empty() && ids.size() >= kWholeReadFrom && ids.size() <= kWholeReadUpTo && !StopsEarly();
  }
  Status ReadWhole(const std::string& predicate, const std::vector<EntityId>& ids) {
    Result<std::vector<std::vector<Fact>>> read = store_.FactsAboutEach(ids, predicate, view_);
    if (!read.ok()) return read.status().WithContext("reading " + predicate + " of every candidate");
    TakeWholeRead(predicate, ids, std::move(*read));
    return Status::OK();
  }
  void TakeWholeRead(const std::string& predicate, const std::vector<EntityId>& ids,
                     std::vector<std::vector<Fact>>&& facts, bool range_only = false) {
    whole_.predicate = predicate;
    whole_.range_only = range_only;
    whole_.ids = ids;
    whole_.facts = std::move(facts);
    whole_.taken.assign(whole_.facts.size(), false);
    whole_.cursor = 0;
  }

  // The predicate whose facts evaluating the condition behind `p` reads for
  // every candidate; empty when there is no single one.
  std::string PathPredicate(const AccessPath& p) {
    switch (p.kind) {
      case AccessPath::Kind::kRange:
      case AccessPath::Kind::kNotPublished:
      case AccessPath::Kind::kSubjectsWith:
        return p.predicate;
      case AccessPath::Kind::kDerivedRange: {
        const BoundAttribute& a = FormulaAttribute(p.predicate);
        return a.predicate != nullptr ? a.predicate->name : p.predicate;
      }
      default:
        return "";
    }
  }

  // A formula's name (predicate or attribute view) as an attribute.
  const BoundAttribute& FormulaAttribute(const std::string& name) {
    auto it = formula_attributes_.find(name);
    if (it != formula_attributes_.end()) return it->second;
    BoundAttribute a;
    a.label = name;
    if (const AttributeDef* view = schema_.FindAttribute(name)) {
      a.predicate = schema_.FindPredicate(view->predicate);
      a.filter = view->qualifiers;
    } else {
      a.predicate = schema_.FindPredicate(name);
    }
    if (a.predicate != nullptr) {
      a.type = a.predicate->type;
      a.dimension = a.predicate->dimension;
      a.display_unit = a.predicate->display_unit;
    }
    return formula_attributes_.emplace(name, std::move(a)).first->second;
  }

  // Every claim of an attribute for one entity: stated ones and, for a
  // derived attribute, computed ones. Cached for the entity being evaluated.
  Result<const std::vector<Claim>*> Claims(const EntityId& subject, const BoundAttribute& a) {
    // The row entity's claims are keyed by attribute alone (no key string
    // made per lookup: a find asks once or twice a candidate).
    const bool of_row = subject == current_entity_;
    std::string other_key;
    if (of_row) {
      if (std::vector<Claim>* kept = row_claims_.Find(a.label)) return kept;
    } else {
      other_key = subject + "\x1f" + a.label;
      if (auto it = other_claims_.find(other_key); it != other_claims_.end()) return &it->second;
    }
    std::vector<Claim> claims;
    if (a.predicate != nullptr) {
      Result<std::vector<Claim>> stated = StatedClaims(subject, a.predicate->name, a.filter, a.display_unit);
      if (!stated.ok()) return stated.status();
      claims = std::move(*stated);
    }
    if (a.derivation != nullptr) {
      Result<std::vector<Operand>> ops = EvalExpr(a.derivation->expr, &subject, nullptr);
      if (!ops.ok()) return ops.status();
      for (Operand& o : *ops) {
        if (!MatchesFilter(o.key, o.key, a.filter)) continue;
        Claim c;
        c.subject = subject;
        c.predicate = a.derivation->name;
        c.computed = true;
        c.value = Value::Quantity(o.number, a.dimension, "");
        c.value.original = schema_.FormatQuantity(o.number, a.dimension, a.display_unit, &o.key);
        c.key = o.key;
        c.qualifiers = o.key;
        c.number = o.number;
        c.support = o.support;
        c.formula = o.text;
        c.text = c.value.original;
        // A computed claim's document: the one its inputs all come from, if so (Operand::document).
        if (o.document != nullptr && !o.several_documents) c.document_id = *o.document;
        claims.push_back(std::move(c));
      }
    }
    if (q_.with_evidence) {
      for (const Claim& c : claims) RememberEvidence(c, a.label);
    }
    if (of_row) return &row_claims_.Add(a.label, std::move(claims));
    return &other_claims_.emplace(std::move(other_key), std::move(claims)).first->second;
  }

  // Claims read from the store stay until the answer's citations are
  // resolved (retired, or in the caches of claims), so a citation needs only
  // the fact's provenance read, not the fact again (CitedClaimsIn).
  void RetireClaims(std::vector<Claim>&& claims) { retired_claims_.push_back(std::move(claims)); }

  // "memory = 96 GB", "Llama 3.1 70B parameters = 70 B": what a fact says,
  // for `with evidence` rows.
  // The row entity's claims are read once while it is the row, so their
  // texts are found among the row's own (EvidenceNumber) and need no entry
  // in the index: a probe for each of them missed the processor's caches
  // (Q3 at N=100,000: 104,000 claims, a quarter of the reading of claims).
  // Claims about other entities (a model's parameters), which any row may
  // cite, are indexed, once each.
  void RememberEvidence(const Claim& c, const std::string& label) {
    if (c.computed) return;
    const bool of_row = c.subject == current_entity_;
    if (!of_row && !evidence_index_.Insert(c.fact_id, static_cast<int>(evidence_texts_.size() + 1))) return;
    evidence_facts_.push_back(c.fact_id);
    std::string& text = evidence_texts_.emplace_back();
    if (c.subject != current_entity_) text = Name(c.subject) + " ";
    text.append(label).append(" = ").append(c.text);
  }

  // ---- Formulas ------------------------------------------------------------

  static constexpr size_t kMaxCombinations = 100000;

  // Sets formula_texts_ for a scope. A derived condition evaluated for a row
  // that shows no reasons (`with evidence`, counts) needs each combination's
  // truth and support, not its text: Q3 of the peer benchmark formatted
  // 205,144 of them ("70 B x 0.5 (int4) = 35 GB <= 96 GB") for nothing.
  // (A formula reads stated claims only, FormulaAttribute: no computed claim,
  // whose formula text is shown wherever it is cited, is made with texts off.)
  class FormulaTexts {
   public:
    FormulaTexts(Evaluator& e, bool on) : e_(e), was_(e.formula_texts_) { e_.formula_texts_ = on; }
    ~FormulaTexts() { e_.formula_texts_ = was_; }
    FormulaTexts(const FormulaTexts&) = delete;
    FormulaTexts& operator=(const FormulaTexts&) = delete;

   private:
    Evaluator& e_;
    bool was_;
  };

  // One operand per distinct value: claims stating the same figure about the
  // same thing are alternatives ("[1] or [4]"), so a formula over two such
  // terms reads ([1] or [4]) and ([2] or [3]) rather than four products.
  Result<std::vector<Operand>> LeafOperands(const std::vector<Claim>& claims) {
    std::vector<Operand> out;
    for (const Claim& c : claims) {
      if (c.value.kind != ValueKind::kQuantity || !c.number) continue;
      bool merged = false;
      for (Operand& o : out) {
        if (o.number == *c.number && o.key == c.key && o.dimension == c.value.dimension) {
          o.support = Support::Or({std::move(o.support), c.support});
          o.JoinDocument(c.document_id);
          merged = true;
          break;
        }
      }
      if (merged) continue;
      Operand o;
      o.number = *c.number;
      o.dimension = c.value.dimension;
      o.key = c.key;
      o.support = c.support;
      o.JoinDocument(c.document_id);
      if (formula_texts_) o.text = c.text;
      out.push_back(std::move(o));
    }
    return out;
  }

  // Whether a formula term reads claims of the row's own subject.
  static bool ReadsSubject(const Expr& e) {
    if (e.kind == Expr::Kind::kPredicate) return true;
    return std::any_of(e.operands.begin(), e.operands.end(), [](const Expr& o) { return ReadsSubject(o); });
  }

  // A term's operands: those of a term that does not read the subject (the
  // model's parameters times the bytes per parameter, in `fits`) are the
  // same for every candidate of a find, so they are computed once per query
  // and call, not once per candidate (Q3 at N=100,000: 80,000 times), and
  // with their texts, whether or not the evaluation at hand shows them.
  // `storage` holds them otherwise.
  Result<const std::vector<Operand>*> TermOperands(const Expr& e, const EntityId* subject, const BoundCall* call,
                                                   std::vector<Operand>& storage) {
    if (e.kind == Expr::Kind::kNumber || e.kind == Expr::Kind::kTableLookup || ReadsSubject(e)) {
      Result<std::vector<Operand>> ops = EvalExpr(e, subject, call);
      if (!ops.ok()) return ops.status();
      storage = std::move(*ops);
      return &storage;
    }
    const auto key = std::make_pair(&e, call);
    if (auto it = invariant_operands_.find(key); it != invariant_operands_.end()) return &it->second;
    FormulaTexts texts(*this, true);
    // Read as claims about another entity than the row's, even when the
    // argument is the row's entity: every row may cite them, so their
    // evidence texts are indexed, with the entity's name (RememberEvidence).
    struct NoRowEntity {
      EntityId& current;
      EntityId row;
      explicit NoRowEntity(EntityId& c) : current(c), row(std::exchange(c, EntityId())) {}
      ~NoRowEntity() { current = std::move(row); }
    } no_row(current_entity_);
    Result<std::vector<Operand>> ops = EvalExpr(e, subject, call);
    if (!ops.ok()) return ops.status();
    return &invariant_operands_.emplace(key, std::move(*ops)).first->second;
  }

  // Evaluates a formula term for `subject` (null when the term must not read
  // the subject) with the arguments of `call` (null for attribute rules).
  Result<std::vector<Operand>> EvalExpr(const Expr& e, const EntityId* subject, const BoundCall* call) {
    switch (e.kind) {
      case Expr::Kind::kNumber: {
        Operand o;
        o.number = e.number;
        if (formula_texts_) o.text = ShortNumber(e.number);
        return std::vector<Operand>{o};
      }
      case Expr::Kind::kPredicate: {
        if (subject == nullptr) return Status::InvalidArgument("formula term " + e.name + " needs a subject");
        const BoundAttribute& a = FormulaAttribute(e.name);
        if (a.predicate == nullptr) return std::vector<Operand>{};
        Result<const std::vector<Claim>*> claims = Claims(*subject, a);
        if (!claims.ok()) return claims.status();
        return LeafOperands(**claims);
      }
      case Expr::Kind::kParamPredicate: {
        if (call == nullptr) return Status::InvalidArgument("formula term " + e.param + "." + e.name + " needs arguments");
        auto arg = call->entity_args.find(e.param);
        if (arg == call->entity_args.end()) return std::vector<Operand>{};
        const BoundAttribute& a = FormulaAttribute(e.name);
        if (a.predicate == nullptr) return std::vector<Operand>{};
        Result<const std::vector<Claim>*> claims = Claims(arg->second, a);
        if (!claims.ok()) return claims.status();
        return LeafOperands(**claims);
      }
      case Expr::Kind::kTableLookup: {
        if (call == nullptr) return std::vector<Operand>{};
        auto arg = call->table_args.find(e.param);
        const auto table = schema_.tables().find(e.name);
        if (arg == call->table_args.end() || table == schema_.tables().end()) return std::vector<Operand>{};
        auto entry = table->second.find(arg->second);
        if (entry == table->second.end()) return std::vector<Operand>{};
        Operand o;
        o.number = entry->second;
        if (formula_texts_) o.text = ShortNumber(entry->second) + " (" + arg->second + ")";
        return std::vector<Operand>{o};
      }
      case Expr::Kind::kBinary:
      case Expr::Kind::kCompare: {
        if (e.operands.size() != 2) return Status::InvalidArgument("malformed formula node");
        std::vector<Operand> left, right;
        Result<const std::vector<Operand>*> l = TermOperands(e.operands[0], subject, call, left);
        if (!l.ok()) return l.status();
        Result<const std::vector<Operand>*> r = TermOperands(e.operands[1], subject, call, right);
        if (!r.ok()) return r.status();
        std::vector<Operand> out;
        for (const Operand& a : **l) {
          for (const Operand& b : **r) {
            if (!Compatible(a.key, b.key)) continue;
            if (out.size() >= kMaxCombinations) {
              truncated_combinations_ = true;
              return out;
            }
            std::optional<Operand> o = e.kind == Expr::Kind::kBinary ? Arithmetic(e.op, a, b)
                                                                     : Compare(e.op, a, b, call);
            if (o) out.push_back(std::move(*o));
          }
        }
        return out;
      }
    }
    return std::vector<Operand>{};
  }

  std::optional<Operand> Arithmetic(Expr::Op op, const Operand& a, const Operand& b) const {
    Operand o;
    const char* sym = "?";
    switch (op) {
      case Expr::Op::kAdd: o.number = a.number + b.number; sym = " + "; break;
      case Expr::Op::kSub: o.number = a.number - b.number; sym = " - "; break;
      case Expr::Op::kMul: o.number = a.number * b.number; sym = " x "; break;
      case Expr::Op::kDiv:
        if (b.number == 0) return std::nullopt;
        o.number = a.number / b.number;
        sym = " / ";
        break;
      default:
        return std::nullopt;
    }
    if (!std::isfinite(o.number)) return std::nullopt;
    // A product with a plain factor keeps the other side's dimension.
    if (op == Expr::Op::kAdd || op == Expr::Op::kSub) {
      o.dimension = a.dimension.empty() ? b.dimension : a.dimension;
    } else if (op == Expr::Op::kMul) {
      o.dimension = a.dimension.empty() ? b.dimension : (b.dimension.empty() ? a.dimension : "");
    } else {
      o.dimension = b.dimension.empty() ? a.dimension : "";
    }
    o.key = Merge(a.key, b.key);
    o.support = Support::And({a.support, b.support});
    o.JoinDocuments(a, b);
    if (formula_texts_) o.text = (a.compound ? "(" + a.text + ")" : a.text) + sym + (b.compound ? "(" + b.text + ")" : b.text);
    o.compound = true;
    return o;
  }

  // Evaluated once per combination of claims (Q3 of the peer benchmark: a
  // quarter of a million), so the operands are copied only when headroom
  // changes one: a copy of the invariant side is its text and support again.
  std::optional<Operand> Compare(Expr::Op op, const Operand& a_in, const Operand& b_in, const BoundCall* call) {
    const double headroom = call != nullptr ? call->headroom : 0;
    // Headroom enlarges what must fit: the smaller side of the comparison.
    const bool demand_is_a = op == Expr::Op::kLess || op == Expr::Op::kLessEqual;
    std::optional<Operand> grown;
    if (headroom > 0) {
      Operand& demand = grown.emplace(demand_is_a ? a_in : b_in);
      demand.number *= 1 + headroom;
      if (formula_texts_) {
        demand.text = (demand.compound ? "(" + demand.text + ")" : demand.text) + " x " + ShortNumber(1 + headroom) +
                      " headroom";
      }
      demand.compound = true;
    }
    const Operand& a = grown && demand_is_a ? *grown : a_in;
    const Operand& b = grown && !demand_is_a ? *grown : b_in;
    bool holds = false;
    const char* sym = "?";
    const char* neg = "?";
    switch (op) {
      case Expr::Op::kLess: holds = a.number < b.number; sym = " < "; neg = " >= "; break;
      case Expr::Op::kLessEqual: holds = a.number <= b.number; sym = " <= "; neg = " > "; break;
      case Expr::Op::kGreater: holds = a.number > b.number; sym = " > "; neg = " <= "; break;
      case Expr::Op::kGreaterEqual: holds = a.number >= b.number; sym = " >= "; neg = " < "; break;
      default: return std::nullopt;
    }
    Operand o;
    o.number = holds ? 1 : 0;
    o.key = Merge(a.key, b.key);
    o.support = Support::And({a.support, b.support});
    if (formula_texts_) {
      // Both sides in the unit of the side that is a plain figure (memory),
      // not of a product whose dimension the formula does not name.
      const std::string& dim = !b.compound && !b.dimension.empty()   ? b.dimension
                               : !a.compound && !a.dimension.empty() ? a.dimension
                               : !a.dimension.empty()                ? a.dimension
                                                                     : b.dimension;
      auto side = [&](const Operand& x) {
        if (!x.compound || dim.empty()) return x.text;
        return x.text + " = " + schema_.FormatQuantity(x.number, dim);
      };
      o.text = side(a) + (holds ? sym : neg) + side(b);
    }
    o.compound = true;
    return o;
  }

  Result<std::vector<Combination>> Combinations(const BoundCall& call, const EntityId& subject) {
    Result<std::vector<Operand>> ops = EvalExpr(call.derivation->expr, &subject, &call);
    if (!ops.ok()) return ops.status();
    std::vector<Combination> out;
    for (Operand& o : *ops) {
      Combination c;
      c.holds = o.number != 0;
      c.support = std::move(o.support);
      c.text = std::move(o.text);
      out.push_back(std::move(c));
    }
    return out;
  }

  // ---- Conditions ------------------------------------------------------------

  Truth CompareClaim(const Claim& c, const BoundCondition& cond) {
    const BoundValue& v = cond.value;
    if (c.value.kind == ValueKind::kNotPublished) return Truth::kUnknown;
    switch (cond.attribute.type) {
      case ValueKind::kQuantity:
        if (c.value.kind != ValueKind::kQuantity || !c.number) return Truth::kUnknown;
        if ((cond.op == CompareOp::kEq || cond.op == CompareOp::kNe) && v.number != 0) {
          // Answers show four significant digits (32 GiB is "34.36 GB"), so
          // = holds for a value that reads as the number asked for at that
          // precision: `memory = 34.36 GB` finds the 32 GiB claim (a count's
          // groups say to ask so), `memory = 80 GB` still not 80.4 GB.
          const bool same = std::abs(*c.number - v.number) <= EqualityHalfWidth(v.number);
          return same == (cond.op == CompareOp::kEq) ? Truth::kTrue : Truth::kFalse;
        }
        return CompareNumbers(*c.number, cond.op, v.number);
      case ValueKind::kDate:
        if (c.value.kind != ValueKind::kDate) return Truth::kUnknown;
        return CompareDate(c.value.date, cond.op, v.date);
      case ValueKind::kEntity:
        if (c.value.kind != ValueKind::kEntity) return Truth::kUnknown;
        return (c.value.text == v.entity) == (cond.op == CompareOp::kEq) ? Truth::kTrue : Truth::kFalse;
      case ValueKind::kBool:
        if (c.value.kind != ValueKind::kBool) return Truth::kUnknown;
        return CompareNumbers(c.value.number, cond.op, v.number);
      case ValueKind::kText:
      case ValueKind::kNotPublished: {
        if (c.value.kind != ValueKind::kText) return Truth::kUnknown;
        const std::string have = FoldText(c.value.text), want = FoldText(v.text);
        bool r = false;
        if (cond.op == CompareOp::kContains) r = have.find(want) != std::string::npos;
        else if (cond.op == CompareOp::kEq) r = SameOrDetailed(have, want);
        else if (cond.op == CompareOp::kNe) r = !SameOrDetailed(have, want);
        else return Truth::kUnknown;
        return r ? Truth::kTrue : Truth::kFalse;
      }
    }
    return Truth::kUnknown;
  }

  Reason::Evidence EvidenceOf(const Claim& c) const {
    // Rows of `with evidence` and counts show no reasons: skip building them.
    if (!need_reasons_) return {};
    Reason::Evidence e;
    e.text = c.computed ? c.text + " (computed: " + c.formula + ")" : c.text;
    if (!c.key.empty()) e.text += " " + QualifierText(c.key);
    e.support = c.support;
    return e;
  }

  // Evidence that reads the same ("2,900 GB/s" from two places) is one entry
  // with several citations.
  static void MergeEvidence(Reason& r) {
    for (auto* list : {&r.supporting, &r.contradicting, &r.undecided}) {
      std::vector<Reason::Evidence> merged;
      for (Reason::Evidence& e : *list) {
        bool found = false;
        for (Reason::Evidence& m : merged) {
          if (m.text == e.text) {
            m.support = Support::Or({std::move(m.support), std::move(e.support)});
            found = true;
            break;
          }
        }
        if (!found) merged.push_back(std::move(e));
      }
      *list = std::move(merged);
    }
  }

  // `name` compared: the entity's name or one of its aliases, ignoring case
  // and runs of space; decided without a claim (true or false, never unknown).
  Result<Outcome> EvalName(const BoundCondition& cond, const EntityId& e) {
    std::vector<std::string> names{Name(e)};
    if (Result<Entity> entity = store_.GetEntity(e); entity.ok()) {
      names.insert(names.end(), entity->aliases.begin(), entity->aliases.end());
    } else if (!entity.status().IsNotFound()) {
      return entity.status();
    }
    const std::string want = FoldText(cond.value.text);
    std::optional<std::string> matched;
    for (const std::string& n : names) {
      const std::string have = FoldText(n);
      if (cond.op == CompareOp::kContains ? have.find(want) != std::string::npos : have == want) {
        matched = n;
        break;
      }
    }
    Outcome o;
    o.truth = (cond.op == CompareOp::kNe ? !matched : matched.has_value()) ? Truth::kTrue : Truth::kFalse;
    if (need_reasons_ && o.truth == Truth::kTrue) {
      Reason r;
      r.test = cond.label;
      r.supporting.push_back({matched ? *matched : names.front(), Support::True()});
      o.reasons.push_back(std::move(r));
    }
    return o;
  }

  Result<Outcome> EvalComparison(const BoundCondition& cond, const EntityId& e) {
    if (cond.attribute.entity_name) return EvalName(cond, e);
    Result<const std::vector<Claim>*> claims = Claims(e, cond.attribute);
    if (!claims.ok()) return claims.status();
    std::vector<Support> yes, no;
    Reason pro, con;
    if (need_reasons_) pro.test = con.test = cond.label;
    const bool side_by_side = cond.attribute.predicate != nullptr && cond.attribute.predicate->many_values;
    bool unknown = false;
    bool floating_point_only = cond.value.floating_point_only;
    for (const BoundCondition& also : cond.same_claim) floating_point_only |= also.value.floating_point_only;
    size_t compared = 0;
    for (const Claim& c : **claims) {
      if (floating_point_only && CountsOperations(c)) continue;
      ++compared;
      Truth t = CompareClaim(c, cond);
      for (auto also = cond.same_claim.begin(); also != cond.same_claim.end() && t != Truth::kFalse; ++also) {
        if (const Truth u = CompareClaim(c, *also); u != Truth::kTrue) t = u;  // false decides, unknown unless false
      }
      if (t == Truth::kTrue) {
        yes.push_back(c.support);
        if (need_reasons_) {
          pro.supporting.push_back(EvidenceOf(c));
          con.contradicting.push_back(EvidenceOf(c));
        }
      } else if (t == Truth::kUnknown) {
        unknown = true;
        if (need_reasons_) {
          pro.undecided.push_back(EvidenceOf(c));
          con.undecided.push_back(EvidenceOf(c));
        }
      } else {
        no.push_back(c.support);
        if (need_reasons_) {
          // Another region an instance is offered in does not contradict
          // "available_in contains us": values=many stand side by side.
          if (!side_by_side) pro.contradicting.push_back(EvidenceOf(c));
          con.supporting.push_back(EvidenceOf(c));
        }
      }
    }
    // Rows that show no reasons (`with evidence`, counts) get none: a
    // reason a candidate was a block allocated and freed for nothing (Q2 of
    // the peer benchmark at N=100,000: 48,000-odd candidates).
    if (need_reasons_) {
      MergeEvidence(pro);
      MergeEvidence(con);
    }
    Outcome o;
    if (!yes.empty()) {
      o.truth = Truth::kTrue;
      o.support = Support::Or(std::move(yes));
      if (need_reasons_) o.reasons.push_back(std::move(pro));
    } else if (unknown || compared == 0) {
      o.truth = Truth::kUnknown;
    } else {
      o.truth = Truth::kFalse;
      o.support = Support::And(std::move(no));
      if (need_reasons_) o.reasons.push_back(std::move(con));
    }
    return o;
  }

  // Do two claims about the same thing agree? As `chipkg conflicts` decides
  // (query/compare.h), except that two figures for the same scope that cannot
  // be normalised to a chip (24 MiB per core, twice) compare as written.
  factcheck::Comparison Agree(const Claim& a, const Claim& b) const {
    if (factcheck::EstimateOfTheUnpublished(a.value, a.key, b.value, b.key)) return factcheck::Comparison();
    const Qualifiers& qa = a.computed ? a.key : a.qualifiers;
    const Qualifiers& qb = b.computed ? b.key : b.qualifiers;
    if (a.value.kind == ValueKind::kQuantity && b.value.kind == ValueKind::kQuantity && !a.number && !b.number) {
      auto scope_of = [](const Qualifiers& q) {
        Qualifiers s;
        for (const char* k : {qualifier::kScope, qualifier::kScopeCount}) {
          if (auto it = q.find(k); it != q.end()) s[k] = it->second;
        }
        return s;
      };
      if (scope_of(qa) == scope_of(qb)) return factcheck::CompareValues(a.value, {}, b.value, {}, q_.compare);
    }
    if (a.number_per_chip && b.number_per_chip && !a.computed && !b.computed) {
      return factcheck::CompareValues(a.value, qa, a.number, b.value, qb, b.number, q_.compare);
    }
    return factcheck::CompareValues(a.value, qa, b.value, qb, q_.compare);
  }

  // Claims grouped by what they are about, each group split into clusters of
  // agreeing values. More than one cluster in a group is a conflict. A
  // source's estimate is of the same figure as a stated value
  // (factcheck::SameFigure): each claim's own key says which it is.
  struct Group {
    Qualifiers key;  // without the basis
    // Claims that agree with each other, every one with every other: a
    // year agrees with two days of it that disagree with each other, and
    // compared with a first member alone it made one cluster of all three.
    std::vector<std::vector<const Claim*>> clusters;
    // Some two of its values come from different sources and disagree: one
    // document giving two values (Epoch's "SMIC,TSMC" cell) lists both and
    // disagrees with nothing, as `chipkg conflicts` has it
    // (query/factcheck.cpp). The first such pair, for the cell's text.
    bool disputed = false;
    const Claim* first_side = nullptr;
    const Claim* other_side = nullptr;
    factcheck::Comparison difference;

    // A computed claim counts as its inputs' document where they have one
    // (Operand::document): Epoch's two FP16 figures of a chip over its TDP
    // make two perf-per-watt figures that are still Epoch's own two values.
    static bool SameDocument(const Claim& a, const Claim& b) {
      return !a.document_id.empty() && a.document_id == b.document_id;
    }
    static const std::string* OnlyDocument(const std::vector<const Claim*>& cluster) {
      const std::string* doc = nullptr;
      for (const Claim* c : cluster) {
        if (c->document_id.empty() || (doc != nullptr && *doc != c->document_id)) return nullptr;
        doc = &c->document_id;
      }
      return doc;
    }
  };

  std::vector<Group> Cluster(const std::vector<Claim>& claims) {
    std::vector<Group> groups;
    for (const Claim& c : claims) {
      Group* g = nullptr;
      for (Group& existing : groups) {
        if (factcheck::SameFigure(existing.key, c.key)) g = &existing;
      }
      if (g == nullptr) {
        g = &groups.emplace_back();
        g->key = factcheck::WithoutBasis(c.key);
      }
      bool placed = false;
      for (auto& cluster : g->clusters) {
        bool agrees = true;
        for (const Claim* member : cluster) {
          if (!Agree(*member, c).agree) {
            agrees = false;
            break;
          }
        }
        if (agrees) {
          cluster.push_back(&c);
          placed = true;
          break;
        }
      }
      if (!placed) g->clusters.push_back({&c});
    }
    for (Group& g : groups) {
      for (size_t i = 0; i < g.clusters.size() && !g.disputed; ++i) {
        for (size_t j = i + 1; j < g.clusters.size() && !g.disputed; ++j) {
          const std::string* di = Group::OnlyDocument(g.clusters[i]);
          const std::string* dj = Group::OnlyDocument(g.clusters[j]);
          if (di != nullptr && dj != nullptr && *di == *dj) continue;
          for (const Claim* x : g.clusters[i]) {
            for (const Claim* y : g.clusters[j]) {
              // Pair by pair: a cluster with two documents may still hold the
              // one whose own two values make the only disagreement.
              if (g.disputed || Group::SameDocument(*x, *y)) continue;
              factcheck::Comparison cmp = Agree(*x, *y);
              if (cmp.agree) continue;
              g.disputed = true;
              g.first_side = x;
              g.other_side = y;
              g.difference = std::move(cmp);
            }
          }
        }
      }
    }
    return groups;
  }

  Result<Outcome> EvalBuiltin(const BoundCall& call, const EntityId& e) {
    Result<const std::vector<Claim>*> claims_or = Claims(e, call.attribute);
    if (!claims_or.ok()) return claims_or.status();
    const std::vector<Claim>& claims = **claims_or;
    Outcome o;
    Reason r;
    if (need_reasons_) r.test = call.label;
    std::vector<Support> values, markers, all;
    for (const Claim& c : claims) {
      all.push_back(c.support);
      (c.value.kind == ValueKind::kNotPublished ? markers : values).push_back(c.support);
    }
    auto add = [&](std::vector<Reason::Evidence>& to, bool np) {
      if (!need_reasons_) return;
      for (const Claim& c : claims) {
        if ((c.value.kind == ValueKind::kNotPublished) == np) to.push_back(EvidenceOf(c));
      }
    };
    const bool has_values = !values.empty(), has_markers = !markers.empty();
    switch (call.builtin) {
      case BoundCall::Builtin::kReported:
        o.truth = has_values ? Truth::kTrue : Truth::kFalse;
        o.support = has_values ? Support::Or(std::move(values)) : Support::And(std::move(markers));
        add(r.supporting, !has_values);
        add(r.contradicting, has_values);
        break;
      case BoundCall::Builtin::kNotPublished:
        o.truth = has_markers ? Truth::kTrue : Truth::kFalse;
        o.support = has_markers ? Support::Or(std::move(markers)) : Support::And(std::move(values));
        add(r.supporting, has_markers);
        add(r.contradicting, !has_markers);
        break;
      case BoundCall::Builtin::kUnknown:
        o.truth = claims.empty() ? Truth::kTrue : Truth::kFalse;
        o.support = claims.empty() ? Support::True() : Support::Or(std::move(all));
        if (claims.empty()) {
          r.supporting.push_back({"no source says anything", Support::True()});
        } else {
          add(r.supporting, false);
          add(r.supporting, true);
        }
        break;
      case BoundCall::Builtin::kConflicting: {
        // Each pair of claims that disagree and come from different sources
        // suffices: "[1] and [3]", not every value of the cell (a page's
        // own two values never make a conflict between them).
        std::vector<Support> conflicts;
        for (const Group& g : Cluster(claims)) {
          if (!g.disputed) continue;
          for (size_t i = 0; i < g.clusters.size(); ++i) {
            r.supporting.push_back(EvidenceOf(*g.clusters[i].front()));
            for (size_t j = i + 1; j < g.clusters.size(); ++j) {
              // Claims of one side that disagree with the same claims of
              // the other are written once: ([1] or [2]) and ([3] or [4]).
              std::vector<std::pair<std::vector<const Claim*>, std::vector<Support>>> by_opponents;
              for (const Claim* x : g.clusters[i]) {
                std::vector<const Claim*> opponents;
                for (const Claim* y : g.clusters[j]) {
                  if (!Group::SameDocument(*x, *y) && !Agree(*x, *y).agree) opponents.push_back(y);
                }
                if (opponents.empty()) continue;
                auto same = std::find_if(by_opponents.begin(), by_opponents.end(),
                                         [&](const auto& entry) { return entry.first == opponents; });
                if (same == by_opponents.end()) {
                  by_opponents.emplace_back(std::move(opponents), std::vector<Support>{x->support});
                } else {
                  same->second.push_back(x->support);
                }
              }
              for (auto& [opponents, sides] : by_opponents) {
                std::vector<Support> others;
                for (const Claim* y : opponents) others.push_back(y->support);
                conflicts.push_back(Support::And({Support::Or(std::move(sides)), Support::Or(std::move(others))}));
              }
            }
          }
        }
        o.truth = conflicts.empty() ? Truth::kFalse : Truth::kTrue;
        o.support = conflicts.empty() ? Support::And(std::move(all)) : Support::Or(std::move(conflicts));
        if (conflicts.empty()) {
          add(r.supporting, false);
          add(r.supporting, true);
        }
        break;
      }
      case BoundCall::Builtin::kNone:
        break;
    }
    if (need_reasons_) {
      MergeEvidence(r);
      o.reasons.push_back(std::move(r));
    }
    return o;
  }

  Result<Outcome> EvalDerived(const BoundCall& call, const EntityId& e) {
    Result<std::vector<Combination>> combos = [&] {
      FormulaTexts texts(*this, need_reasons_);
      return Combinations(call, e);
    }();
    if (!combos.ok()) return combos.status();
    Outcome o;
    Reason r;
    std::vector<Support> yes, no;
    for (Combination& c : *combos) {
      if (need_reasons_) (c.holds ? r.supporting : r.contradicting).push_back({std::move(c.text), c.support});
      (c.holds ? yes : no).push_back(std::move(c.support));
    }
    if (need_reasons_) MergeEvidence(r);
    // Rows that show no reasons (`with evidence`, counts) get none: a reason
    // per candidate was its test's text copied for nothing.
    if (!yes.empty()) {
      o.truth = Truth::kTrue;
      o.support = Support::Or(std::move(yes));
    } else if (!no.empty()) {
      o.truth = Truth::kFalse;
      o.support = Support::And(std::move(no));
      std::swap(r.supporting, r.contradicting);
    }
    if (need_reasons_ && o.truth != Truth::kUnknown) {
      r.test = call.label;
      o.reasons.push_back(std::move(r));
    }
    return o;
  }

  Result<Outcome> Evaluate(const BoundCondition& c, const EntityId& e) {
    switch (c.kind) {
      case Condition::Kind::kComparison:
        return EvalComparison(c, e);
      case Condition::Kind::kCall:
        return c.call.builtin != BoundCall::Builtin::kNone ? EvalBuiltin(c.call, e) : EvalDerived(c.call, e);
      case Condition::Kind::kNot: {
        Result<Outcome> inner = Evaluate(c.children.at(0), e);
        if (!inner.ok()) return inner;
        inner->truth = Not(inner->truth);
        for (Reason& r : inner->reasons) r.test = "not " + r.test;
        return inner;
      }
      case Condition::Kind::kAnd:
      case Condition::Kind::kOr: {
        const bool is_and = c.kind == Condition::Kind::kAnd;
        // The value that decides: false for and, true for or.
        const Truth decisive = is_and ? Truth::kFalse : Truth::kTrue;
        std::vector<Outcome> parts;
        bool any_unknown = false, any_decisive = false;
        for (const BoundCondition& child : c.children) {
          Result<Outcome> r = Evaluate(child, e);
          if (!r.ok()) return r;
          any_unknown = any_unknown || r->truth == Truth::kUnknown;
          any_decisive = any_decisive || r->truth == decisive;
          parts.push_back(std::move(*r));
        }
        Outcome o;
        std::vector<Support> supports;
        if (any_decisive) {
          // Any one decisive child suffices.
          o.truth = decisive;
          for (Outcome& p : parts) {
            if (p.truth != decisive) continue;
            supports.push_back(std::move(p.support));
            for (Reason& r : p.reasons) o.reasons.push_back(std::move(r));
          }
          o.support = Support::Or(std::move(supports));
        } else if (any_unknown) {
          o.truth = Truth::kUnknown;
        } else {
          // Every child has the other value, and all of them are needed.
          o.truth = Not(decisive);
          for (Outcome& p : parts) {
            supports.push_back(std::move(p.support));
            for (Reason& r : p.reasons) o.reasons.push_back(std::move(r));
          }
          o.support = Support::And(std::move(supports));
        }
        return o;
      }
    }
    return Outcome{};
  }

  // ---- Cells -----------------------------------------------------------------

  Cell MakeCell(const std::string& label, const std::vector<Claim>& claims) {
    Cell cell;
    cell.column = label;
    if (claims.empty()) {
      cell.state = Cell::State::kUnknown;
      ShownValue v;
      v.kind = ShownValue::Kind::kUnknown;
      v.text = "\xE2\x80\x94 (no source)";  // an em dash
      cell.values.push_back(std::move(v));
      return cell;
    }
    bool conflict = false, all_markers = true;
    for (const Group& g : Cluster(claims)) {
      const bool disputed = g.disputed;
      if (disputed) {
        conflict = true;
        std::string text;
        for (size_t i = 0; i < g.clusters.size(); ++i) {
          const Claim* rep = g.clusters[i].front();
          if (i > 0) text += " vs ";
          text += rep->text;
          if (factcheck::IsEstimate(rep->key)) text += " (estimate)";
        }
        if (g.clusters.size() == 2 && !g.difference.size.empty()) text += " (" + g.difference.size + ")";
        // A figure several times another is rarely a source's disagreement
        // about one chip: more often a server's or instance's figure given as
        // the chip's. Said where it is used, not only by describe and
        // `chipkg conflicts` (which work out which one, from what chip count).
        if (g.difference.kind == factcheck::DifferenceKind::kQuantity && g.difference.relative >= 2.0 &&
            g.first_side != nullptr && factcheck::ScalesWithChips(g.first_side->value.dimension)) {
          text += ": one may not be a per-chip figure (describe \"" + Name(g.first_side->subject) + "\" says which)";
        }
        if (!g.key.empty()) text += " " + QualifierText(g.key);
        cell.conflict += (cell.conflict.empty() ? "" : "; ") + text;
      }
      for (const auto& cluster : g.clusters) {
        // Stated and computed values of one cluster are shown apart, and so
        // are dates of another precision: "2022" agrees with 2022-10-01, but
        // shown as "2022-10-01 [1][2]" its citation [2] seemed to say the day.
        // So are estimates, each with its own mark.
        struct ShownKind {
          bool computed = false;
          int precision = 0;  // a date's, or 0
          bool estimate = false;
          bool operator==(const ShownKind&) const = default;
        };
        auto kind_of = [](const Claim& c) {
          return ShownKind{c.computed,
                           c.value.kind == ValueKind::kDate ? static_cast<int>(c.value.date.precision) : 0,
                           factcheck::IsEstimate(c.key)};
        };
        std::vector<ShownKind> shown;  // in order of first claim
        for (const Claim* c : cluster) {
          const ShownKind kind = kind_of(*c);
          if (std::find(shown.begin(), shown.end(), kind) == shown.end()) shown.push_back(kind);
        }
        std::stable_sort(shown.begin(), shown.end(),
                         [](const auto& a, const auto& b) { return a.computed < b.computed; });  // stated first
        for (const ShownKind& kind : shown) {
          const bool computed = kind.computed;
          std::vector<Support> supports;
          const Claim* first = nullptr;
          for (const Claim* c : cluster) {
            if (!(kind_of(*c) == kind)) continue;
            if (first == nullptr) first = c;
            supports.push_back(c->support);
          }
          if (first == nullptr) continue;
          ShownValue v;
          v.kind = first->value.kind == ValueKind::kNotPublished ? ShownValue::Kind::kNotPublished
                                                                  : ShownValue::Kind::kValue;
          if (v.kind != ShownValue::Kind::kNotPublished) all_markers = false;
          v.text = first->text;
          auto content = std::make_shared<ShownValue::Content>();
          content->value = first->value;
          if (first->number) content->value.number = *first->number;
          content->qualifiers = first->key;  // the group's, and the claim's basis
          content->formula = first->formula;
          v.content = std::move(content);
          v.support = Support::Or(std::move(supports));
          v.computed = computed;
          v.disputed = disputed;
          cell.values.push_back(std::move(v));
        }
      }
    }
    cell.state = conflict ? Cell::State::kConflict
                          : (all_markers ? Cell::State::kNotPublished : Cell::State::kReported);
    return cell;
  }

  // For a column whose fixed qualifiers leave no claim ({basis=stated} of a
  // chip whose maker published no TDP): the claims that differ from them
  // only on a key a claim may leave unsaid (basis, scope, sparsity), by what
  // they say there, so that the cell does not read as if no source had a
  // figure ("1 with basis=estimate"); empty when there are none. Other keys
  // are left alone: an fp8 cell listing every bf16 figure would be noise. A
  // point read of the predicate, made only for such an empty cell.
  Result<std::string> ClaimsBesideTheFilter(const EntityId& e, const BoundAttribute& a) {
    static constexpr const char* kDefaulted[] = {qualifier::kBasis, qualifier::kScope, qualifier::kSparsity};
    Qualifiers rest = a.filter;
    std::vector<std::string> keys;
    for (const char* k : kDefaulted) {
      if (rest.erase(k) > 0) keys.push_back(k);
    }
    if (keys.empty()) return std::string();
    Result<std::vector<Fact>> facts = store_.FactsAbout(e, a.predicate->name, view_);
    if (!facts.ok()) return facts.status().WithContext("reading " + e + " " + a.predicate->name);
    std::map<std::string, size_t> by_qualifiers;  // "basis=estimate" -> claims
    for (const Fact& f : *facts) {
      Result<bool> admit = Admit(f);
      if (!admit.ok()) return admit.status();
      if (!*admit) continue;
      const Qualifiers key = factcheck::ComparisonQualifiers(f.qualifiers, f.value);
      if (!MatchesFilter(f.qualifiers, key, rest)) continue;
      std::string said;
      for (const std::string& k : keys) {
        // As MatchesFilter reads a claim that does not say.
        std::string value = k == qualifier::kBasis ? "stated" : k == qualifier::kScope ? "chip" : "dense";
        if (auto it = f.qualifiers.find(k); it != f.qualifiers.end()) {
          value = it->second;
        } else if (auto jt = key.find(k); jt != key.end()) {
          value = jt->second;
        }
        said += (said.empty() ? "" : ", ") + k + "=" + value;
      }
      ++by_qualifiers[said];
    }
    std::string out;
    for (const auto& [said, n] : by_qualifiers) {
      out += (out.empty() ? "" : "; ") + std::to_string(n) + " with " + said;
    }
    return out;
  }

  // A column's cell as a row shows it: an empty one under fixed qualifiers
  // says what they left aside. Not for `count ... by`, whose groups are the
  // cells' texts.
  Result<Cell> ShownCell(const BoundColumn& col, const EntityId& e) {
    Result<Cell> cell = ColumnCell(col, e);
    if (!cell.ok() || col.is_call || cell->state != Cell::State::kUnknown || col.attribute.filter.empty() ||
        col.attribute.predicate == nullptr) {
      return cell;
    }
    Result<std::string> beside = ClaimsBesideTheFilter(e, col.attribute);
    if (!beside.ok()) return beside.status();
    if (!beside->empty()) cell->values.front().text = "\xE2\x80\x94 (none that fits; " + *beside + ")";
    return cell;
  }

  Result<Cell> ColumnCell(const BoundColumn& col, const EntityId& e) {
    if (!col.is_call) {
      Result<const std::vector<Claim>*> claims = Claims(e, col.attribute);
      if (!claims.ok()) return claims.status();
      return MakeCell(col.label, **claims);
    }
    Cell cell;
    cell.column = col.label;
    cell.state = Cell::State::kText;
    if (col.call.builtin != BoundCall::Builtin::kNone) {
      Result<Outcome> o = EvalBuiltin(col.call, e);
      if (!o.ok()) return o.status();
      ShownValue v;
      v.kind = ShownValue::Kind::kText;
      v.text = o->truth == Truth::kTrue ? "yes" : "no";
      v.content = YesNo(o->truth == Truth::kTrue);
      v.support = o->support;
      cell.values.push_back(std::move(v));
      return cell;
    }
    Result<std::vector<Combination>> combos = Combinations(col.call, e);
    if (!combos.ok()) return combos.status();
    for (Combination& c : *combos) {
      const std::string text = (c.holds ? "yes: " : "no: ") + c.text;
      bool merged = false;
      for (ShownValue& v : cell.values) {
        if (v.text == text) {
          v.support = Support::Or({std::move(v.support), std::move(c.support)});
          merged = true;
          break;
        }
      }
      if (merged) continue;
      ShownValue v;
      v.kind = ShownValue::Kind::kText;
      v.text = text;
      v.content = YesNo(c.holds);
      v.support = std::move(c.support);
      v.computed = true;
      cell.values.push_back(std::move(v));
    }
    if (col.call.stated) {
      // The page's own mark after the computation: a fact-checker sees
      // where a fit table and the rule part ways.
      Result<const std::vector<Claim>*> claims = Claims(e, *col.call.stated);
      if (!claims.ok()) return claims.status();
      if (!(*claims)->empty()) {
        Cell marks = MakeCell(col.call.stated->label, **claims);
        for (ShownValue& v : marks.values) {
          v.text = "stated " + v.text;
          if (v.content) {  // the call's arguments say the model and format already
            auto content = std::make_shared<ShownValue::Content>(*v.content);
            for (const auto& [key, unused] : col.call.stated->filter) content->qualifiers.erase(key);
            v.content = std::move(content);
          }
          cell.values.push_back(std::move(v));
        }
      }
    }
    if (cell.values.empty()) {
      ShownValue v;
      v.kind = ShownValue::Kind::kUnknown;
      v.text = "\xE2\x80\x94 (no source)";
      cell.values.push_back(std::move(v));
      cell.state = Cell::State::kUnknown;
    }
    return cell;
  }

  // The names a condition asks for whole ("name = \"MI300X\""), where
  // every row needs them (not under "or" or "not").
  static std::vector<std::string> WholeNamesAsked(const BoundCondition& c) {
    std::vector<std::string> names;
    if (c.kind == Condition::Kind::kComparison && c.attribute.entity_name && c.op == CompareOp::kEq) {
      names.push_back(c.value.text);
    } else if (c.kind == Condition::Kind::kAnd) {
      for (const BoundCondition& child : c.children) {
        for (std::string& n : WholeNamesAsked(child)) names.push_back(std::move(n));
      }
    }
    return names;
  }

  // What a test's "yes"/"no" is, for output that reads values (CSV's number).
  static std::shared_ptr<const ShownValue::Content> YesNo(bool holds) {
    static const auto yes = std::make_shared<const ShownValue::Content>(ShownValue::Content{Value::Bool(true, "yes"), {}, ""});
    static const auto no = std::make_shared<const ShownValue::Content>(ShownValue::Content{Value::Bool(false, "no"), {}, ""});
    return holds ? yes : no;
  }

  // ---- Candidates --------------------------------------------------------------

  // `seen` holds what `out` holds once a second scan adds to it: the first
  // scan's subjects are taken whole (the store lists each subject once), so a
  // single-scan path (most finds; 48,582 subjects for Q2 of the peer
  // benchmark) hashes none of them.
  static void Seen(const std::vector<EntityId>& out, std::unordered_set<EntityId>& seen) {
    if (seen.empty() && !out.empty()) seen.insert(out.begin(), out.end());
  }
  static void AddListedOnce(std::vector<EntityId>&& ids, std::vector<EntityId>& out, std::unordered_set<EntityId>& seen) {
    if (out.empty()) {
      out = std::move(ids);
      return;
    }
    Seen(out, seen);
    for (EntityId& id : ids) {
      if (seen.insert(id).second) out.push_back(std::move(id));
    }
  }

  Status AddSubjects(const std::vector<Fact>& facts, std::vector<EntityId>& out, std::unordered_set<EntityId>& seen) {
    Seen(out, seen);
    for (const Fact& f : facts) {
      if (seen.insert(f.subject).second) out.push_back(f.subject);
    }
    return Status::OK();
  }

  // The range of stated values a derived test `p` can hold for: what the
  // other side needs at the least (a model's parameters x bytes per
  // parameter), with the call's headroom. nullopt when the other side has no
  // value: then the test holds for no one.
  Result<std::optional<AccessPath>> RangeOfDerived(const AccessPath& p) {
    const Expr& cmp = p.call->derivation->expr;
    Result<std::vector<Operand>> need = EvalExpr(cmp.operands[1 - p.subject_side], nullptr, p.call);
    if (!need.ok()) return need.status();
    if (need->empty()) return std::optional<AccessPath>();
    double lowest = need->front().number;
    for (const Operand& o : *need) lowest = std::min(lowest, o.number);
    lowest *= 1 + p.call->headroom;
    AccessPath range;
    range.kind = AccessPath::Kind::kRange;
    range.predicate = p.predicate;
    const BoundAttribute& a = FormulaAttribute(p.predicate);
    if (a.predicate != nullptr) range.predicate = a.predicate->name;
    range.range.lower = Value::Quantity(lowest, a.dimension, "");
    range.range.kind = ValueKind::kQuantity;
    return std::optional<AccessPath>(std::move(range));
  }

  Status Execute(const AccessPath& p, std::vector<EntityId>& out, std::unordered_set<EntityId>& seen) {
    switch (p.kind) {
      case AccessPath::Kind::kRange:
      case AccessPath::Kind::kNotPublished: {
        Result<std::vector<EntityId>> subjects = store_.SubjectsInRange(p.predicate, p.range, view_);
        if (!subjects.ok()) return subjects.status().WithContext("index scan of " + p.predicate);
        AddListedOnce(std::move(*subjects), out, seen);
        return Status::OK();
      }
      case AccessPath::Kind::kReferencing: {
        Result<std::vector<Fact>> facts = store_.FactsReferencing(p.object, view_);
        if (!facts.ok()) return facts.status().WithContext("index scan of facts naming " + p.object);
        std::vector<Fact> mine;
        for (Fact& f : *facts) {
          if (f.predicate == p.predicate) mine.push_back(std::move(f));
        }
        return AddSubjects(mine, out, seen);
      }
      case AccessPath::Kind::kSubjectsWith: {
        Result<std::vector<EntityId>> ids = store_.SubjectsWith(p.predicate, view_);
        if (!ids.ok()) return ids.status().WithContext("index scan of subjects with " + p.predicate);
        AddListedOnce(std::move(*ids), out, seen);
        return Status::OK();
      }
      case AccessPath::Kind::kDerivedRange: {
        Result<std::optional<AccessPath>> range = RangeOfDerived(p);
        if (!range.ok()) return range.status();
        if (!*range) return Status::OK();
        return Execute(**range, out, seen);
      }
      case AccessPath::Kind::kUnion:
        for (const AccessPath& part : p.parts) CHIPKG_RETURN_IF_ERROR(Execute(part, out, seen));
        return Status::OK();
      case AccessPath::Kind::kKindScan:
        return Status::OK();
    }
    return Status::OK();
  }

  // Whether an entity was in the store as the query reads it: one first
  // stored after an `as at` transaction was not (`count chip as at tx 1`
  // counted every chip stored since).
  bool ExistedThen(const Entity& e) const { return !view_.as_of_tx || e.created_tx <= *view_.as_of_tx; }

  // Whether a derived range of the path has no bound: the formula's other
  // side has no value under the query's sources and dates (`fits(...) using
  // aggregator`: the model's parameters come from press pages only). The
  // test is then unknown for every entity, and an index finds none of them:
  // "count: 0" where the answer is that nothing can be decided.
  Result<bool> UnboundedDerived(const AccessPath& p) {
    if (p.kind == AccessPath::Kind::kDerivedRange) {
      Result<std::optional<AccessPath>> range = RangeOfDerived(p);
      if (!range.ok()) return range.status();
      return !range->has_value();
    }
    for (const AccessPath& part : p.parts) {
      Result<bool> unbounded = UnboundedDerived(part);
      if (!unbounded.ok() || *unbounded) return unbounded;
    }
    return false;
  }

  // The entities to evaluate, with their names, of the query's kind.
  Result<std::vector<Entity>> Candidates(QueryResult& result) {
    std::optional<AccessPath> path;
    if (q_.where) path = ChooseAccessPath(*q_.where);
    if (path) {
      // Every entity is evaluated instead, and those the test is unknown for named.
      Result<bool> unbounded = UnboundedDerived(*path);
      if (!unbounded.ok()) return unbounded.status();
      if (*unbounded) path.reset();
    }
    std::vector<Entity> out;
    if (!path) {
      result.plan = AccessPath().Describe(q_.kind);
      Result<std::vector<Entity>> all = store_.ListEntities(q_.kind);
      if (!all.ok()) return all.status().WithContext("listing every " + q_.kind);
      std::erase_if(*all, [this](const Entity& e) { return !ExistedThen(e); });
      return all;
    }
    result.plan = path->Describe(q_.kind);
    if (const std::vector<std::string> without = path->UnknownWithout(); !without.empty()) {
      index_missed_unknown_ = true;
      std::string attributes, tests;
      for (const std::string& p : without) {
        attributes += (attributes.empty() ? "" : " or ") + p;
        tests += (tests.empty() ? "" : " or ") + ("unknown(" + p + ") or not_published(" + p + ")");
      }
      result.notes.push_back("found through an index: " + q_.kind + "s it did not find were not examined, so those for "
                             "which the condition is unknown (no " + attributes + " claim, or a \"not published\" "
                             "one) are not named (find " + q_.kind + " where " + tests + " lists the candidates)");
    }
    std::vector<EntityId> ids;
    const std::string predicate = PathPredicate(*path);
    // With a whole read, that read is made here, where its facts are made
    // into claims, and the candidates' entity records on the read-ahead
    // thread (the other way round, the evaluation waited ~25 ms for the
    // facts, and made claims of facts made on the other core: Q2 at
    // N=100,000 in a loop 201-210 -> 196-199 ms, Q3 400-413 -> 395-399).
    using EntityRecords = Result<std::vector<std::optional<Entity>>>;
    std::optional<std::future<EntityRecords>> records;  // read on the read-ahead thread
    std::optional<EntityRecords> records_here;          // read here, half of them on that thread
    Status whole;
    const bool by_range = path->kind == AccessPath::Kind::kRange || path->kind == AccessPath::Kind::kNotPublished ||
                          path->kind == AccessPath::Kind::kDerivedRange;
    std::optional<AccessPath> range;
    if (path->kind == AccessPath::Kind::kDerivedRange) {
      Result<std::optional<AccessPath>> derived = RangeOfDerived(*path);
      if (!derived.ok()) return derived.status();
      range = std::move(*derived);
    } else if (by_range) {
      range = *path;
    }
    if (by_range && range && range->predicate == predicate && !StopsEarly()) {
      // The range's facts are among the whole read's: one read for both.
      // While this thread reads the rest of the predicate, the read-ahead
      // thread reads the candidates' entity records; then both decode the
      // facts. Without the rest to read, both read the records, half each
      // (read on the other thread alone, this one decoded nearly every fact
      // meanwhile, and the evaluation of the other half was slower for it:
      // Q2 at N=100,000, evaluate 26 -> 33 ms).
      const bool range_only = RangeClaimsDecide();
      const Store::RunElsewhere on_read_ahead = [this](std::function<void()> task) {
        read_ahead_.Submit(std::move(task));
      };
      Result<Store::SubjectsWithFacts> read = store_.SubjectsInRangeWithFacts(
          range->predicate, range->range, view_, kWholeReadFrom, kWholeReadUpTo,
          [&](const std::vector<EntityId>& subjects) {
            if (range_only) {
              records_here.emplace(store_.GetEntities(subjects, on_read_ahead));
            } else {
              records = read_ahead_.Submit([this, subjects] { return store_.GetEntities(subjects); });
            }
          },
          on_read_ahead, range_only ? Store::FactsOf::kRange : Store::FactsOf::kWholePredicate);
      if (!read.ok()) {
        if (records) records->wait();
        return read.status().WithContext("index scan of " + range->predicate);
      }
      ids = std::move(read->subjects);
      if (read->facts) TakeWholeRead(predicate, ids, std::move(*read->facts), range_only);
    } else if (by_range) {
      std::unordered_set<EntityId> seen;
      if (range) CHIPKG_RETURN_IF_ERROR(Execute(*range, ids, seen));
    } else {
      std::unordered_set<EntityId> seen;
      CHIPKG_RETURN_IF_ERROR(Execute(*path, ids, seen));
      if (WantsWholeRead(predicate, ids)) {
        records = read_ahead_.Submit([this, ids] { return store_.GetEntities(ids); });
        whole = ReadWhole(predicate, ids);
      }
    }
    EntityRecords entities = records        ? records->get()
                             : records_here ? std::move(*records_here)
                                            : store_.GetEntities(ids);
    CHIPKG_RETURN_IF_ERROR(whole);
    if (!entities.ok()) return entities.status().WithContext("reading the candidate entities");
    out.reserve(entities->size());
    for (std::optional<Entity>& e : *entities) {
      if (!e) continue;  // a subject without an entity record is of no kind
      if (e->kind != q_.kind || !ExistedThen(*e)) continue;
      // Not entered in names_: a row takes its candidate's name from here,
      // and tens of thousands of hash inserts (Q2 at N=100,000: ~3% of its
      // time) served the rare claim whose value names another candidate.
      out.push_back(std::move(*e));
    }
    return out;
  }

  // ---- Statements ----------------------------------------------------------

  // Claims of the row entity are cached while it is evaluated; claims of
  // other entities (a model's parameters) for the whole query.
  void StartEntity(const EntityId& id) {
    current_entity_ = id;
    for (auto& [key, claims] : row_claims_) RetireClaims(std::move(claims));
    row_claims_.clear();
  }

  // Sort key of one row for one order attribute: the smallest value for
  // ascending order, the largest for descending.
  struct SortKey {
    bool present = false;
    double number = 0;
    std::string text;
  };

  // A matching row before it is ordered and expanded.
  struct Pending {
    Row row;
    std::vector<SortKey> keys;
    // The evidence texts first read while evaluating it: [evidence_from, evidence_to).
    size_t evidence_from = 0, evidence_to = 0;
  };

  Result<SortKey> KeyFor(const BoundOrder& o, const Entity& e) {
    SortKey k;
    if (o.by_name) {
      k.present = true;
      k.text = FoldText(e.name);
      return k;
    }
    Result<const std::vector<Claim>*> claims = Claims(e.id, o.attribute);
    if (!claims.ok()) return claims.status();
    for (const Claim& c : **claims) {
      std::optional<double> n;
      std::string t;
      if (c.value.kind == ValueKind::kQuantity && c.number) n = *c.number;
      if (c.value.kind == ValueKind::kDate) n = o.descending ? c.value.date.LastDay() : c.value.date.FirstDay();
      if (c.value.kind == ValueKind::kText) t = FoldText(c.value.text);
      if (c.value.kind == ValueKind::kEntity) t = FoldText(Name(c.value.text));  // foundries, designers by name
      if (!n && t.empty()) continue;
      if (!k.present) {
        k.present = true;
        k.number = n.value_or(0);
        k.text = t;
      } else if (n) {
        k.number = o.descending ? std::max(k.number, *n) : std::min(k.number, *n);
      } else if (o.descending ? t > k.text : t < k.text) {
        k.text = t;
      }
    }
    return k;
  }

  Result<bool> TestedAttributeInConflict(const BoundCondition& c, const EntityId& e) {
    const BoundAttribute* tested = nullptr;
    if (c.kind == Condition::Kind::kComparison && !c.attribute.entity_name) tested = &c.attribute;
    if (c.kind == Condition::Kind::kCall && c.call.builtin != BoundCall::Builtin::kNone) tested = &c.call.attribute;
    if (tested != nullptr) {
      Result<const std::vector<Claim>*> claims = Claims(e, *tested);
      if (!claims.ok()) return claims.status();
      for (const Group& g : Cluster(**claims)) {
        if (g.disputed) return true;
      }
    }
    for (const BoundCondition& child : c.children) {
      Result<bool> in_child = TestedAttributeInConflict(child, e);
      if (!in_child.ok() || *in_child) return in_child;
    }
    return false;
  }

  // `count KIND by ATTRIBUTE`: entities counted under each value their
  // sources give for it (a chip whose sources disagree, or a source that
  // gives two values, is counted under each and named in a note), under
  // "not published", or under "— (no source)".
  struct Groups {
    std::map<std::string, uint64_t> counts;
    std::map<std::string, double> order;  // groups of equal size: a number or date in its own order
    std::vector<std::string> in_several;  // "AWS Trainium (Amazon; Annapurna Labs)"
    std::map<std::string, ShownValue> values;  // what each group is (Row::group)
  };

  Status Tally(const Entity& e, Groups& groups) {
    Result<Cell> cell = ColumnCell(*q_.group_by, e.id);
    if (!cell.ok()) return cell.status();
    std::vector<std::string> labels;
    for (const ShownValue& v : cell->values) {
      // One group per value, however its sources wrote it: Epoch's "500.0 W"
      // and a page's "500 W" are one group, shown in the display unit.
      std::string label = v.text;
      std::optional<double> order;
      if (v.kind == ShownValue::Kind::kValue && v.content != nullptr) {
        const Value& value = v.value();
        if (value.kind == ValueKind::kQuantity) {
          label = schema_.FormatQuantity(value.number, value.dimension, q_.group_by->attribute.display_unit,
                                         &v.qualifiers());
          order = value.number;
        } else if (value.kind == ValueKind::kDate) {
          // By year, the precision every date has: "2022" and "2022-10-01"
          // are one group, and `released = 2022` lists it.
          label = std::to_string(value.date.year);
          order = value.date.year;
        }
      }
      // What the figure is about is part of the group: an int8 and an int4
      // figure of one size are two groups, as are two models' fit marks.
      if (v.content != nullptr && !v.qualifiers().empty()) {
        Qualifiers shown = v.qualifiers();
        for (const auto& [k, fixed] : q_.group_by->attribute.filter) shown.erase(k);
        shown.erase(qualifier::kScope);  // per chip already
        shown.erase(qualifier::kScopeCount);
        for (auto& [k, value] : shown) {
          if (value.find(':') != std::string::npos) value = Name(value);  // model=llm:... -> its name
        }
        if (!shown.empty()) label += " " + QualifierText(shown);
      }
      if (order) groups.order.emplace(label, *order);
      if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
      if (!groups.values.count(label)) groups.values.emplace(label, GroupValue(v, label));
    }
    if (labels.empty()) {
      labels.push_back("— (no source)");
      if (!groups.values.count(labels.back())) {
        ShownValue& unknown = groups.values[labels.back()];
        unknown.kind = ShownValue::Kind::kUnknown;
        unknown.text = labels.back();
      }
    }
    for (const std::string& label : labels) ++groups.counts[label];
    if (labels.size() > 1) {
      std::string joined;
      for (size_t i = 0; i < labels.size() && i < 3; ++i) joined += (joined.empty() ? "" : "; ") + labels[i];
      if (labels.size() > 3) joined += "; ... " + std::to_string(labels.size()) + " values";
      groups.in_several.push_back(e.name + " (" + joined + ")");
    }
    return Status::OK();
  }

  // A group's value as Row::group gives it: the value counted under the
  // label, without its citations, a date at the year it is counted by.
  ShownValue GroupValue(const ShownValue& counted, const std::string& label) const {
    ShownValue group;
    group.kind = counted.kind;
    group.text = label;
    if (counted.content == nullptr) return group;
    ShownValue::Content content = *counted.content;
    content.formula.clear();
    for (const auto& [k, fixed] : q_.group_by->attribute.filter) content.qualifiers.erase(k);
    content.qualifiers.erase(qualifier::kScope);
    content.qualifiers.erase(qualifier::kScopeCount);
    if (content.value.kind == ValueKind::kDate) {
      Date year;
      year.year = content.value.date.year;
      year.precision = DatePrecision::kYear;
      content.value = Value::OfDate(year, std::to_string(year.year));
    }
    group.content = std::make_shared<const ShownValue::Content>(std::move(content));
    return group;
  }

  void GroupRows(const Groups& groups, QueryResult& result) const {
    result.group_by = q_.group_by->label;
    result.groups = groups.counts.size();
    result.columns = {q_.kind + "s"};
    std::vector<std::pair<std::string, uint64_t>> sorted(groups.counts.begin(), groups.counts.end());
    // Largest first; no source and "not published" after every value.
    auto last = [](const std::string& label) { return label == "— (no source)" || label == "not published"; };
    std::stable_sort(sorted.begin(), sorted.end(), [&last, &groups](const auto& a, const auto& b) {
      if (last(a.first) != last(b.first)) return last(b.first);
      if (a.second != b.second) return a.second > b.second;
      auto x = groups.order.find(a.first), y = groups.order.find(b.first);
      if (x != groups.order.end() && y != groups.order.end()) return x->second < y->second;
      return false;  // names in their own (alphabetical) order
    });
    for (const auto& [label, count] : sorted) {
      if (q_.limit && result.rows.size() >= *q_.limit) break;
      Row& row = result.rows.emplace_back();
      row.name = label;
      if (auto group = groups.values.find(label); group != groups.values.end()) {
        row.group = group->second;
        if (row.group->kind == ShownValue::Kind::kValue && row.group->value().kind == ValueKind::kEntity) {
          row.entity = row.group->value().text;
        }
      }
      Cell& cell = row.cells.emplace_back();
      cell.column = result.columns.front();
      cell.state = Cell::State::kText;
      ShownValue& v = cell.values.emplace_back();
      v.kind = ShownValue::Kind::kValue;  // a number, for JSON and CSV
      v.text = std::to_string(count);
      v.content = std::make_shared<const ShownValue::Content>(
          ShownValue::Content{Value::Quantity(static_cast<double>(count), "count", v.text), {}, ""});
    }
    if (q_.limit && sorted.size() > *q_.limit) {
      result.notes.push_back("the " + std::to_string(*q_.limit) + " largest of " + std::to_string(sorted.size()) +
                             " groups shown (values first: \"not published\" and no source come after them)");
    }
    if (!groups.in_several.empty()) {
      constexpr size_t kNamed = 5;
      std::string names;
      for (size_t i = 0; i < groups.in_several.size() && i < kNamed; ++i) names += (i ? ", " : "") + groups.in_several[i];
      if (groups.in_several.size() > kNamed) names += ", ... (" + std::to_string(groups.in_several.size()) + " in all)";
      result.notes.push_back("counted under each value its sources give (sources that disagree, or figures of "
                             "several formats, models or terms): " + names);
    }
    // With the count's own condition: without it the hint listed every
    // chip of the value (88 from TSMC where the group that fits was 24).
    const std::string& a = q_.group_by->label;
    std::string condition;
    if (!q_.where_text.empty()) {
      std::string lower = q_.where_text;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      bool has_or = false;
      for (size_t at = lower.find("or"); at != std::string::npos && !has_or; at = lower.find("or", at + 1)) {
        auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
        has_or = (at == 0 || !word_char(lower[at - 1])) && (at + 2 >= lower.size() || !word_char(lower[at + 2]));
      }
      condition = (has_or ? "(" + q_.where_text + ")" : q_.where_text) + " and ";
    }
    result.notes.push_back("the " + q_.kind + "s of a group, with citations: find " + q_.kind + " where " + condition +
                           a + (q_.group_by->attribute.type == ValueKind::kBool ? " = true (or false)" : " = VALUE") +
                           "; " + condition + "unknown(" + a + ") for no source, " + condition + "not_published(" + a +
                           ")");
  }

  // A find that can end at its limit once that many rows match.
  bool StopsEarly() const {
    return q_.limit && q_.order.empty() && q_.statement != StatementKind::kCount && !q_.with_evidence;
  }

  // What evaluating a stretch of a find's candidates found.
  struct FindPart {
    std::vector<Pending> rows;
    std::vector<std::string> undetermined;
    std::vector<std::string> disputed;  // counted, though another claim contradicts the test
    uint64_t counted = 0;
    bool stopped = false;
    // `with evidence` rows of a stretch evaluated and expanded at once (EvaluateInTwo).
    bool expanded = false;
    std::vector<Row> expanded_rows;
    std::vector<std::string> expand_notes;
  };

  Status EvaluateCandidates(std::span<const Entity> candidates, FindPart& part, Groups& groups) {
    const bool counting = q_.statement == StatementKind::kCount;
    const bool can_stop_early = StopsEarly();
    // Most candidates of an index-chosen find match: one allocation for the
    // rows instead of moving every Row again as the vector grows.
    if (!counting) {
      part.rows.reserve(can_stop_early ? std::min<size_t>(*q_.limit, candidates.size()) : candidates.size());
    }
    candidate_ids_.clear();
    candidate_ids_.reserve(candidates.size());
    for (const Entity& e : candidates) candidate_ids_.push_back(e.id);
    internal::WitnessLists counted_ways;  // a counted row's, reused
    std::vector<size_t> unsettled;        // positions of candidates to evaluate on every claim
    std::vector<size_t> row_positions;    // of the rows, while there may be unsettled candidates
    for (const Entity& e : candidates) {
      if (can_stop_early && part.rows.size() >= *q_.limit) {
        part.stopped = true;
        break;
      }
      StartEntity(e.id);
      candidate_pos_ = static_cast<size_t>(&e - candidates.data());
      const size_t evidence_from = evidence_texts_.size();
      Outcome o;
      o.truth = Truth::kTrue;
      if (q_.where) {
        Result<Outcome> r = Evaluate(*q_.where, e.id);
        if (!r.ok()) return r.status();
        if (r->truth != Truth::kTrue && whole_.range_only) {
          // The range's claims alone do not make it hold; whether it is
          // false or unknown takes every claim (SettleOutsideTheRange).
          unsettled.push_back(candidate_pos_);
          continue;
        }
        o = std::move(*r);
      }
      if (o.truth == Truth::kUnknown) part.undetermined.push_back(e.name);
      if (o.truth != Truth::kTrue) continue;
      if (counting && !q_.with_evidence) {
        for (const Reason& r : o.reasons) {
          if (r.contradicting.empty() && r.undecided.empty()) continue;
          // Contradicted or left open by another source, not by the chip's other figures
          // (its int4 throughput against a test of its int8) or one
          // document's two values (Epoch's "SMIC,TSMC"): some attribute the
          // condition tests must be in conflict.
          Result<bool> conflict = TestedAttributeInConflict(*q_.where, e.id);
          if (!conflict.ok()) return conflict.status();
          if (*conflict) part.disputed.push_back(e.name + " (" + r.test + ")");
          break;
        }
      }
      if (counting && q_.group_by) {
        ++part.counted;
        CHIPKG_RETURN_IF_ERROR(Tally(e, groups));
        continue;
      }
      if (counting && !q_.with_evidence) {
        ++part.counted;
        continue;
      }
      Pending p;
      p.evidence_from = evidence_from;
      p.row.entity = e.id;
      p.row.name = e.name;
      p.row.support = std::move(o.support);
      p.row.reasons = std::move(o.reasons);
      for (const BoundColumn& col : q_.columns) {
        Result<Cell> cell = ShownCell(col, e.id);
        if (!cell.ok()) return cell.status();
        p.row.cells.push_back(std::move(*cell));
      }
      for (const BoundOrder& ord : q_.order) {
        Result<SortKey> k = KeyFor(ord, e);
        if (!k.ok()) return k.status();
        p.keys.push_back(*k);
      }
      if (counting) {
        counted_ways.Clear();
        counted_ways.Append(p.row.support, options_.max_witnesses_per_row);
        part.counted += counted_ways.total();
        continue;
      }
      p.evidence_to = evidence_texts_.size();
      if (whole_.range_only) row_positions.push_back(candidate_pos_);
      part.rows.push_back(std::move(p));
    }
    if (!unsettled.empty()) return SettleOutsideTheRange(candidates, unsettled, row_positions, part);
    return Status::OK();
  }

  // The candidates whose claims in the range did not make the condition
  // hold (RangeClaimsDecide), evaluated on every claim of the predicate,
  // read for all of them at once: one at a time, `memory = 80 GB` at
  // N=100,000 read 40,000-odd candidates again (evaluate 17 -> 160 ms).
  // Their claims outside the range only tell false from unknown (the note
  // of candidates left out); should one make the condition hold after all,
  // its row is put where the candidate's order puts it. (The undetermined
  // are all named here, in candidate order, as one pass names them.)
  Status SettleOutsideTheRange(std::span<const Entity> candidates, const std::vector<size_t>& unsettled,
                               std::vector<size_t>& row_positions, FindPart& part) {
    std::vector<EntityId> ids;
    ids.reserve(unsettled.size());
    for (size_t at : unsettled) ids.push_back(candidates[at].id);
    Result<std::vector<std::vector<Fact>>> facts = store_.FactsAboutEach(ids, whole_.predicate, view_);
    if (!facts.ok()) return facts.status().WithContext("reading " + whole_.predicate + " of the candidates again");
    ForgetPrefetched();  // its batches are by position among the candidates, which change here
    TakeWholeRead(whole_.predicate, ids, std::move(*facts));
    candidate_ids_ = std::move(ids);
    for (size_t k = 0; k < unsettled.size(); ++k) {
      const Entity& e = candidates[unsettled[k]];
      StartEntity(e.id);
      candidate_pos_ = k;
      const size_t evidence_from = evidence_texts_.size();
      Result<Outcome> r = Evaluate(*q_.where, e.id);
      if (!r.ok()) return r.status();
      if (r->truth == Truth::kUnknown) part.undetermined.push_back(e.name);
      if (r->truth != Truth::kTrue) continue;
      Pending p;
      p.evidence_from = evidence_from;
      p.row.entity = e.id;
      p.row.name = e.name;
      p.row.support = std::move(r->support);
      p.row.reasons = std::move(r->reasons);
      p.evidence_to = evidence_texts_.size();
      const auto before = std::upper_bound(row_positions.begin(), row_positions.end(), unsettled[k]);
      part.rows.insert(part.rows.begin() + (before - row_positions.begin()), std::move(p));
      row_positions.insert(before, unsettled[k]);
    }
    return Status::OK();
  }

  void ForgetPrefetched() {
    for (auto& [predicate, batch] : pending_) {
      if (batch.facts.valid()) batch.facts.wait();
    }
    pending_.clear();
    prefetched_.clear();
  }

  // A large find is evaluated on both cores: the second half of its
  // candidates by a second evaluator on the read-ahead thread (idle once the
  // candidates are read), which also expands that half's `with evidence`
  // rows while this one expands the first's. Candidates are evaluated each
  // on its own (a candidate's claims, reasons and cells read nothing another
  // candidate's evaluation made), so the halves' rows and notes, joined in
  // order, are the answer one evaluator would give. Not for a find that is
  // ordered, limited or counted by attribute, whose rows or groups need
  // every candidate's before any is final. Q3 of the peer benchmark at
  // N=100,000 (60,656 candidates): evaluate and expand 127 -> 74-95 ms on
  // this project's machines, whose second core is not always there to take
  // its half (tools/bench/HISTORY.md, 2026-12-02 08:12).
  bool EvaluatesInTwo(size_t candidates) const {
    return !on_helper_ && candidates >= std::max<size_t>(2, options_.evaluate_in_two_from) && q_.order.empty() &&
           !q_.limit && !q_.group_by;
  }

  Status EvaluateInTwo(std::span<const Entity> candidates, FindPart& first, FindPart& second) {
    const size_t half = candidates.size() / 2;
    const bool expand = q_.with_evidence && q_.statement != StatementKind::kCount;
    Evaluator helper(store_, schema_, q_, options_);
    helper.on_helper_ = true;
    GiveWholeReadFrom(candidates[half].id, helper);
    Status later;
    Groups unused_first, unused_second;  // counts by attribute are not split
    // The first half's rows get room for the second's (ExpandRows).
    auto evaluate = [expand](Evaluator& e, std::span<const Entity> part_candidates, FindPart& part, Groups& groups,
                             bool first_half) {
      Status st = e.EvaluateCandidates(part_candidates, part, groups);
      if (st.ok() && expand) {
        e.ExpandRows(std::span<Pending>(part.rows), part.expanded_rows, part.expand_notes, first_half);
        part.rows.clear();
        part.expanded = true;
      }
      return st;
    };
    std::future<void> done = read_ahead_.Submit(
        [&] { later = evaluate(helper, candidates.subspan(half), second, unused_second, false); });
    Status now;
    // While the helper runs, reads this evaluator would hand to the
    // read-ahead thread are made here: that thread is busy.
    on_helper_ = true;
    try {
      now = evaluate(*this, candidates.first(half), first, unused_first, true);
    } catch (...) {
      on_helper_ = false;
      done.wait();  // it reads `candidates` and writes `second`
      throw;
    }
    on_helper_ = false;
    done.wait();
    CHIPKG_RETURN_IF_ERROR(now);  // the first half's error before anything of the second's
    done.get();  // rethrows what the helper threw
    CHIPKG_RETURN_IF_ERROR(later);
    // The claims the helper read, kept for the citations (CitedClaimsIn)
    // and freed where they were made (Release).
    helper.StartEntity(EntityId());
    for (std::vector<Claim>& claims : helper.retired_claims_) helper_claims_.push_back(std::move(claims));
    for (auto& [key, claims] : helper.other_claims_) helper_claims_.push_back(std::move(claims));
    truncated_combinations_ = truncated_combinations_ || helper.truncated_combinations_;
    return Status::OK();
  }

  // The whole read's facts of the candidates from `from` on, for `other`
  // to evaluate them.
  void GiveWholeReadFrom(const EntityId& from, Evaluator& other) {
    if (whole_.predicate.empty()) return;
    size_t at = whole_.cursor;
    while (at < whole_.ids.size() && whole_.ids[at] != from) ++at;
    if (at == whole_.ids.size()) return;  // not read for: the other reads its own
    const auto from_at = static_cast<std::ptrdiff_t>(at);
    std::vector<EntityId> ids(std::make_move_iterator(whole_.ids.begin() + from_at),
                              std::make_move_iterator(whole_.ids.end()));
    std::vector<std::vector<Fact>> facts(std::make_move_iterator(whole_.facts.begin() + from_at),
                                         std::make_move_iterator(whole_.facts.end()));
    whole_.ids.resize(at);
    whole_.facts.resize(at);
    whole_.taken.resize(at);
    other.TakeWholeRead(whole_.predicate, ids, std::move(facts), whole_.range_only);
  }

  Status RunFind(QueryResult& result) {
    result.kind = q_.kind;
    for (const BoundColumn& c : q_.columns) result.columns.push_back(c.label);
    if (q_.with_evidence) result.columns.insert(result.columns.begin(), "evidence");
    PhaseClock clock(result);
    Result<std::vector<Entity>> candidates = Candidates(result);
    if (!candidates.ok()) return candidates.status();
    clock.Mark("candidates");

    const bool counting = q_.statement == StatementKind::kCount;
    Groups groups;
    FindPart first, second;
    const bool in_two = EvaluatesInTwo(candidates->size());
    if (in_two) {
      CHIPKG_RETURN_IF_ERROR(EvaluateInTwo(*candidates, first, second));
    } else {
      CHIPKG_RETURN_IF_ERROR(EvaluateCandidates(*candidates, first, groups));
    }
    std::vector<std::string>& undetermined = first.undetermined;
    undetermined.insert(undetermined.end(), std::make_move_iterator(second.undetermined.begin()),
                        std::make_move_iterator(second.undetermined.end()));
    std::vector<std::string>& disputed = first.disputed;
    disputed.insert(disputed.end(), std::make_move_iterator(second.disputed.begin()),
                    std::make_move_iterator(second.disputed.end()));
    const uint64_t counted = first.counted + second.counted;
    const bool stopped = first.stopped;
    std::vector<Pending>& rows = first.rows;
    if (!second.rows.empty()) {
      rows.reserve(rows.size() + second.rows.size());
      rows.insert(rows.end(), std::make_move_iterator(second.rows.begin()), std::make_move_iterator(second.rows.end()));
    }
    clock.Mark(in_two ? "evaluate on two threads" : "evaluate");
    if (truncated_combinations_) {
      result.notes.push_back("some formulas had more than " + std::to_string(kMaxCombinations) +
                             " combinations of claims; the rest were not evaluated");
    }
    if (!undetermined.empty()) {
      std::string names;
      for (size_t i = 0; i < undetermined.size() && i < 20; ++i) names += (i ? ", " : "") + undetermined[i];
      if (undetermined.size() > 20) names += ", ... (" + std::to_string(undetermined.size()) + " in all)";
      // Of those the index found: the note on what it did not find says
      // how to list every one (a chip with an int8 figure in range is
      // examined for `bf16 >= ...`, one with none at all is not).
      // (A comparison in FLOPs leaves integer figures aside: a chip with no other is unknown too.)
      const std::function<bool(const BoundCondition&)> in_flops = [&in_flops](const BoundCondition& c) {
        if (c.kind == Condition::Kind::kComparison && c.value.floating_point_only) return true;
        for (const BoundCondition& also : c.same_claim) {
          if (also.value.floating_point_only) return true;
        }
        return std::any_of(c.children.begin(), c.children.end(), in_flops);
      };
      const bool flops = q_.where && in_flops(*q_.where);
      result.notes.push_back("left out because the condition is unknown for them (no claim, \"not published\", " +
                             std::string(flops ? "only integer or max figures for a comparison in FLOPs, " : "") +
                             "or a date too coarse to decide)" +
                             std::string(index_missed_unknown_ ? ", of the " + q_.kind + "s the index found" : "") +
                             ": " + names);
    }
    if (stopped) result.notes.push_back("stopped at the limit of " + std::to_string(*q_.limit) + (*q_.limit == 1 ? " row" : " rows"));
    // "name = \"MI300X\"" finds no "AMD Instinct MI300X": said, with the
    // test that would find it, rather than a silent nothing.
    if (rows.empty() && counted == 0 && q_.where) {
      for (const std::string& name : WholeNamesAsked(*q_.where)) {
        result.notes.push_back("no " + q_.kind + "'s name or alias is exactly \"" + name + "\" (compared up to case); name contains \"" +
                               name + "\" finds names that include it");
      }
    }
    if (counting) {
      result.count = counted;
      if (!disputed.empty()) {
        std::string names;
        for (size_t i = 0; i < disputed.size() && i < 10; ++i) names += (i ? ", " : "") + disputed[i];
        if (disputed.size() > 10) names += ", ... (" + std::to_string(disputed.size()) + " in all)";
        result.notes.push_back(std::to_string(disputed.size()) + " counted although another source's claim "
                               "contradicts the test or leaves it open (find with the same condition shows which): " +
                               names);
      }
      if (q_.group_by) GroupRows(groups, result);
      return Status::OK();
    }
    if (!q_.order.empty()) {
      std::stable_sort(rows.begin(), rows.end(), [this](const Pending& a, const Pending& b) {
        for (size_t i = 0; i < q_.order.size(); ++i) {
          const SortKey& x = a.keys[i];
          const SortKey& y = b.keys[i];
          if (x.present != y.present) return x.present;  // rows without a value last
          if (!x.present) continue;
          const bool desc = q_.order[i].descending;
          if (x.number != y.number) return desc ? x.number > y.number : x.number < y.number;
          if (x.text != y.text) return desc ? x.text > y.text : x.text < y.text;
        }
        return false;
      });
    }
    if (first.expanded) {
      result.rows = std::move(first.expanded_rows);
      result.rows.reserve(result.rows.size() + second.expanded_rows.size());
      result.rows.insert(result.rows.end(), std::make_move_iterator(second.expanded_rows.begin()),
                         std::make_move_iterator(second.expanded_rows.end()));
      for (std::vector<std::string>* notes : {&first.expand_notes, &second.expand_notes}) {
        result.notes.insert(result.notes.end(), std::make_move_iterator(notes->begin()),
                            std::make_move_iterator(notes->end()));
      }
    } else if (q_.with_evidence) {
      ExpandWithEvidence(rows, result);  // which gives the rows their room
    } else {
      result.rows.reserve(q_.limit ? std::min<size_t>(*q_.limit, rows.size()) : rows.size());
      for (Pending& p : rows) {
        if (q_.limit && result.rows.size() >= *q_.limit) break;
        result.rows.push_back(std::move(p.row));
      }
      if (q_.limit && !q_.order.empty() && rows.size() > *q_.limit) NoteCutByLimit(rows, result);
    }
    clock.Mark(q_.with_evidence ? "expand" : "rows");
    return Status::OK();
  }

  // An ordered answer cut by its limit says how many rows it left out, and
  // how many of them rank the same as the last one shown: which of the tied
  // rows made the cut was the store's order, not the query's.
  void NoteCutByLimit(const std::vector<Pending>& ordered, QueryResult& result) const {
    const size_t limit = *q_.limit;
    auto same_rank = [this](const Pending& a, const Pending& b) {
      for (size_t i = 0; i < q_.order.size(); ++i) {
        const SortKey& x = a.keys[i];
        const SortKey& y = b.keys[i];
        if (x.present != y.present || (x.present && (x.number != y.number || x.text != y.text))) return false;
      }
      return true;
    };
    size_t tied = 0;
    while (limit > 0 && limit + tied < ordered.size() && same_rank(ordered[limit - 1], ordered[limit + tied])) ++tied;
    const size_t left = ordered.size() - limit;
    std::string note = "limit " + std::to_string(limit) + ": " + std::to_string(left) + (left == 1 ? " more row" : " more rows") +
                       " matched and " + (left == 1 ? "is" : "are") + " not shown";
    const bool valueless = !ordered[limit - 1].keys.empty() && !ordered[limit - 1].keys[0].present;
    if (tied > 0 && valueless) {
      // Rows without a value come last, in the store's order.
      note += "; " + std::to_string(tied) + " of them " + (tied == 1 ? "has" : "have") + " no " +
              q_.order[0].attribute.label + " either, as the last one shown (" + result.rows.back().name + ")";
    } else if (tied > 0) {
      note += "; " + std::to_string(tied) + " of them " + (tied == 1 ? "ranks" : "rank") +
              " the same as the last one shown (" + result.rows.back().name + "), so which made the cut is " +
              "arbitrary: order by a further attribute, or raise the limit";
    }
    result.notes.push_back(std::move(note));
  }

  // `with evidence` rows: one for each way a matching row's condition holds,
  // its witness's claims as the evidence cell. A large answer is expanded on
  // two threads: the second half on the read-ahead thread, which has nothing
  // to read by now, into rows of its own appended after the first's.
  static constexpr size_t kExpandInTwoFrom = 4096;
  void ExpandWithEvidence(std::vector<Pending>& rows, QueryResult& result) {
    if (q_.limit || rows.size() < kExpandInTwoFrom || on_helper_) {
      ExpandRows(std::span<Pending>(rows), result.rows, result.notes);
      return;
    }
    const size_t half = rows.size() / 2;
    std::vector<Row> later_rows;
    std::vector<std::string> later_notes;
    std::future<void> later = read_ahead_.Submit(
        [&] { ExpandRows(std::span<Pending>(rows).subspan(half), later_rows, later_notes); });
    try {
      ExpandRows(std::span<Pending>(rows).first(half), result.rows, result.notes, /*room_for_more=*/true);
    } catch (...) {
      later.wait();  // it uses `rows` and the evidence texts
      throw;
    }
    later.get();
    result.rows.insert(result.rows.end(), std::make_move_iterator(later_rows.begin()),
                       std::make_move_iterator(later_rows.end()));
    result.notes.insert(result.notes.end(), std::make_move_iterator(later_notes.begin()),
                        std::make_move_iterator(later_notes.end()));
  }

  // The rows of `pending` into `out` (up to the query's limit), a note for
  // each that has more ways than a row lists. Reads only the evidence texts
  // of the evaluation, so two parts can be expanded at once.
  // A witness's fact's number among the evidence texts: the row entity's own
  // claims were read while it was evaluated, and only there (they are not
  // in the index: RememberEvidence); claims about other entities are found
  // through the index.
  size_t EvidenceNumber(uint64_t fact_id, const Pending& p) const {
    for (size_t i = p.evidence_from; i < p.evidence_to; ++i) {
      if (evidence_facts_[i] == fact_id) return i + 1;
    }
    return static_cast<size_t>(evidence_index_.Find(fact_id));
  }

  // With `room_for_more`, `out` is also given room for as many rows again
  // and an eighth: the rows another thread expands at the same time from
  // the other half (of the candidates or of the pending rows), to be
  // appended to these without moving them.
  void ExpandRows(std::span<Pending> pending, std::vector<Row>& out, std::vector<std::string>& notes,
                  bool room_for_more = false) const {
    // Every row's ways first, in one flat list, so that `out` grows once:
    // grown row by row, Q3 of the peer benchmark moved its 205,144 rows
    // three times over, and each row's ways as vectors cost a sixth of its
    // allocations.
    const size_t room = !q_.limit ? std::numeric_limits<size_t>::max() : *q_.limit > out.size() ? *q_.limit - out.size() : 0;
    internal::WitnessLists ways;
    std::vector<uint8_t> truncated;  // by row: more ways than a row lists
    size_t expanded = 0;
    for (size_t k = 0; k < pending.size() && expanded < room; ++k) {
      truncated.push_back(ways.Append(pending[k].row.support, options_.max_witnesses_per_row));
      expanded += ways.size(k);
    }
    expanded = std::min(expanded, room);
    out.reserve(out.size() + expanded + (room_for_more ? expanded + expanded / 8 : 0));
    for (size_t k = 0; k < ways.lists(); ++k) {
      Pending& p = pending[k];
      if (q_.limit && out.size() >= *q_.limit) break;
      const size_t n = ways.size(k);
      for (size_t i = 0; i < n; ++i) {
        if (q_.limit && out.size() >= *q_.limit) break;
        const std::span<const uint64_t> w = ways.at(k, i);
        // The candidate's last row takes its texts and cells (a chip's name
        // is often longer than a string holds in place: a copy allocates).
        const bool last = i + 1 == n && !truncated[k];  // (a truncation note names it after)
        Row& r = out.emplace_back();
        r.entity = last ? std::move(p.row.entity) : p.row.entity;
        r.name = last ? std::move(p.row.name) : p.row.name;
        r.cells.reserve(1 + p.row.cells.size());
        Cell& evidence = r.cells.emplace_back();
        evidence.column = "evidence";
        evidence.state = Cell::State::kText;
        evidence.values.reserve(w.size());
        for (uint64_t id : w) {
          ShownValue& v = evidence.values.emplace_back();
          v.kind = ShownValue::Kind::kText;
          const size_t number = EvidenceNumber(id, p);
          v.text = number != 0 ? evidence_texts_[number - 1] : "fact " + std::to_string(id);
          v.support = Support::Fact(id);
        }
        // A witness's facts are distinct: their conjunction as they are.
        if (w.size() == 1) {
          r.support = evidence.values.front().support;
        } else {
          std::vector<Support> parts;
          parts.reserve(w.size());
          for (const ShownValue& v : evidence.values) parts.push_back(v.support);
          r.support = Support::And(std::move(parts));
        }
        if (last) {
          std::move(p.row.cells.begin(), p.row.cells.end(), std::back_inserter(r.cells));
        } else {
          r.cells.insert(r.cells.end(), p.row.cells.begin(), p.row.cells.end());
        }
      }
      if (truncated[k]) {
        notes.push_back(p.row.name + ": more than " + std::to_string(options_.max_witnesses_per_row) +
                               " ways the condition holds; the rest are not listed");
      }
    }
  }

  Status RunLookup(QueryResult& result) {
    const Entity& e = *q_.entity;
    result.kind = e.kind;
    for (const BoundColumn& c : q_.columns) result.columns.push_back(c.label);
    StartEntity(e.id);
    Row row;
    row.entity = e.id;
    row.name = e.name;
    for (const BoundColumn& col : q_.columns) {
      Result<Cell> cell = ShownCell(col, e.id);
      if (!cell.ok()) return cell.status();
      row.cells.push_back(std::move(*cell));
    }
    result.plan = "entity lookup " + e.id;
    result.rows.push_back(std::move(row));
    return Status::OK();
  }

  // Stated claims of the given facts under the source policy, the order of
  // the input kept. Without `name_entities` (another thread: names come
  // through this evaluator's cache), entity values' texts are left for
  // NameEntityValues, and the policy must select no sources (ClaimsElsewhere).
  Result<std::vector<Claim>> PolicyClaims(std::vector<Fact>& facts, bool name_entities = true) {
    std::vector<Claim> claims;
    claims.reserve(facts.size());
    const PredicateDef* p = nullptr;
    for (Fact& f : facts) {
      Result<bool> admit = Admit(f);
      if (!admit.ok()) return admit.status();
      if (!*admit) continue;
      if (!q_.columns.empty()) {
        bool wanted = false;
        const Qualifiers key = factcheck::ComparisonQualifiers(f.qualifiers, f.value);
        for (const BoundColumn& c : q_.columns) {
          wanted = wanted || (!c.is_call && c.attribute.predicate != nullptr &&
                              c.attribute.predicate->name == f.predicate &&
                              MatchesFilter(f.qualifiers, key, c.attribute.filter));
        }
        if (!wanted) continue;
      }
      // A subject's facts come grouped by predicate: look each one up once.
      if (p == nullptr || p->name != f.predicate) p = schema_.FindPredicate(f.predicate);
      Qualifiers key = factcheck::ComparisonQualifiers(f.qualifiers, f.value);
      FromFact(std::move(f), false, p != nullptr ? p->display_unit : "", std::move(key), claims.emplace_back(),
               name_entities);
    }
    if (!q_.policy.prefer.empty()) {
      // Preferences apply per subject and predicate.
      std::map<std::pair<EntityId, std::string>, std::vector<Claim>> groups;
      std::vector<std::pair<EntityId, std::string>> order;
      for (Claim& c : claims) {
        auto k = std::make_pair(c.subject, c.predicate);
        if (!groups.count(k)) order.push_back(k);
        groups[k].push_back(std::move(c));
      }
      claims.clear();
      for (const auto& k : order) {
        CHIPKG_RETURN_IF_ERROR(ApplyPreference(groups[k]));
        for (Claim& c : groups[k]) claims.push_back(std::move(c));
      }
    }
    return claims;
  }

  // Whether PolicyClaims may run on another thread than this evaluator's:
  // source selectors and preferences read document records through its caches.
  bool ClaimsElsewhere() const { return q_.policy.only.empty() && q_.policy.prefer.empty(); }

  void NameEntityValues(std::vector<Claim>& claims) {
    for (Claim& c : claims) {
      if (c.value.kind == ValueKind::kEntity && !c.computed) c.text = Name(c.value.text);
    }
  }

  // The same value, as stated (a date at its own precision, a quantity per
  // chip where it was normalised): what orients a conflicts pair.
  static bool SameValue(const Claim& a, const Claim& b) {
    const Value& x = a.value;
    const Value& y = b.value;
    if (x.kind != y.kind) return false;
    switch (x.kind) {
      case ValueKind::kQuantity:
        return x.dimension == y.dimension && a.number.value_or(x.number) == b.number.value_or(y.number);
      case ValueKind::kDate:
        return x.date.year == y.date.year && x.date.month == y.date.month && x.date.day == y.date.day &&
               x.date.precision == y.date.precision;
      case ValueKind::kBool:
        return (x.number != 0) == (y.number != 0);
      case ValueKind::kNotPublished:
        return true;
      case ValueKind::kEntity:
      case ValueKind::kText:
        return x.text == y.text;
    }
    return false;
  }

  // An integer or "max" figure, which a comparison in FLOPS leaves aside.
  static bool CountsOperations(const Claim& c) {
    auto format = c.key.find(qualifier::kFormat);
    return format != c.key.end() && Schema::CountsOperations(format->second);
  }

  static std::string AttributeText(const Claim& c) {
    std::string t = c.predicate;
    if (!c.qualifiers.empty()) t += " " + QualifierText(c.qualifiers);
    return t;
  }

  static Cell TextCell(const char* column, std::string text) {
    Cell cell;
    cell.column = column;
    cell.state = Cell::State::kText;
    ShownValue& v = cell.values.emplace_back();
    v.kind = ShownValue::Kind::kText;
    v.text = std::move(text);
    return cell;
  }

  // A cell showing a claim. Where the claim is read no more but for its
  // citation (which takes its value and stated qualifiers, never its text or
  // comparison key), `take_text_and_key` moves those instead of copying.
  static Cell ClaimCell(const char* column, Claim& c, bool take_text_and_key) {
    Cell cell;
    cell.column = column;
    cell.state = c.value.kind == ValueKind::kNotPublished ? Cell::State::kNotPublished : Cell::State::kReported;
    ShownValue& v = cell.values.emplace_back();
    v.kind = c.value.kind == ValueKind::kNotPublished ? ShownValue::Kind::kNotPublished : ShownValue::Kind::kValue;
    if (c.shown == nullptr) {
      auto content = std::make_shared<ShownValue::Content>();
      content->value = c.value;
      content->qualifiers = take_text_and_key ? std::move(c.key) : c.key;
      c.shown = std::move(content);
    }
    v.content = c.shown;  // one record however many cells show the claim
    v.text = take_text_and_key ? std::move(c.text) : c.text;
    v.support = c.support;
    return cell;
  }

  // The claims of a `facts` listing in its order: subject, predicate,
  // stated qualifiers, fact id. Sorted as keys that hold the first 16 bytes
  // of the subject and of the predicate as big-endian integers (every id
  // and predicate name of the peer benchmark fits), so that most
  // comparisons are of integers rather than of strings reached through the
  // claims: sorting Q4's 213 claims at N=100,000 took 11 us of its 175.
  static std::vector<const Claim*> ListingOrder(const std::vector<Claim>& claims) {
    struct Prefix {
      uint64_t high = 0, low = 0;
      uint32_t size = 0;
      explicit Prefix(const std::string& s) : size(static_cast<uint32_t>(std::min<size_t>(s.size(), UINT32_MAX))) {
        unsigned char bytes[16] = {};
        std::memcpy(bytes, s.data(), std::min<size_t>(s.size(), sizeof bytes));
        for (int i = 0; i < 8; ++i) high = high << 8 | bytes[i];
        for (int i = 8; i < 16; ++i) low = low << 8 | bytes[i];
      }
      // <0, 0, >0 as std::string::compare, from the prefixes where they decide.
      static int Compare(const Prefix& x, const std::string& xs, const Prefix& y, const std::string& ys) {
        if (x.high != y.high) return x.high < y.high ? -1 : 1;
        if (x.low != y.low) return x.low < y.low ? -1 : 1;
        // Equal first 16 bytes (zero-padded): strings no longer than that
        // differ only in length ("ab" < "ab\0").
        if (x.size <= 16 && y.size <= 16) return x.size == y.size ? 0 : (x.size < y.size ? -1 : 1);
        return xs.compare(ys);
      }
    };
    struct Key {
      Prefix subject, predicate;
      const Claim* claim;
    };
    std::vector<Key> keys;
    keys.reserve(claims.size());
    for (const Claim& c : claims) keys.push_back(Key{Prefix(c.subject), Prefix(c.predicate), &c});
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
      if (int s = Prefix::Compare(a.subject, a.claim->subject, b.subject, b.claim->subject); s != 0) return s < 0;
      if (int p = Prefix::Compare(a.predicate, a.claim->predicate, b.predicate, b.claim->predicate); p != 0) return p < 0;
      if (a.claim->qualifiers != b.claim->qualifiers) return a.claim->qualifiers < b.claim->qualifiers;
      return a.claim->fact_id < b.claim->fact_id;
    });
    std::vector<const Claim*> sorted;
    sorted.reserve(keys.size());
    for (const Key& k : keys) sorted.push_back(k.claim);
    return sorted;
  }

  Status RunFacts(QueryResult& result) {
    result.columns = {"attribute", "value"};
    PhaseClock clock(result);
    std::vector<Fact> facts;
    if (q_.entity) {
      result.kind = q_.entity->kind;
      result.plan = "subject scan " + q_.entity->id;
      Result<std::vector<Fact>> r = store_.FactsAbout(q_.entity->id, view_);
      if (!r.ok()) return r.status().WithContext("reading facts about " + q_.entity->id);
      facts = std::move(*r);
    } else {
      result.plan = "document scan " + *q_.policy.document;
      Result<std::vector<Fact>> r = store_.FactsFromDocument(*q_.policy.document, std::nullopt, view_);
      if (!r.ok()) return r.status().WithContext("reading facts of document " + *q_.policy.document);
      facts = std::move(*r);
    }
    clock.Mark("read");
    Result<std::vector<Claim>> claims = PolicyClaims(facts);
    if (!claims.ok()) return claims.status();
    std::vector<const Claim*> sorted = ListingOrder(*claims);
    CHIPKG_RETURN_IF_ERROR(ReadNames(*claims));
    // Sized once: grown row by row, the vector moved every row already made at each doubling.
    const size_t shown = q_.limit ? std::min<size_t>(*q_.limit, sorted.size()) : sorted.size();
    result.rows.reserve(shown);
    // Each row cites its own fact, and no other row does: row k's fact is
    // citation k + 1, numbered and kept here as a conflicts pass keeps its
    // own, instead of ResolveCitations numbering the rows through a table
    // by fact id and finding each cited claim in it again (with the sort
    // above, Q4 at N=100,000 in a loop 0.177 -> 0.171 ms).
    const size_t cited = std::min(shown, options_.cite_rows);
    cited_kept_in_order_ = true;
    cite_order_.reserve(cited);
    kept_sources_.Reserve(cited);
    // Rows come sorted by subject: a subject's name is looked up once, and
    // the rows after take it from the row before (Q4 of the peer benchmark,
    // 213 rows of 32 subjects: 0.181-0.191 -> 0.174-0.183 ms in a loop, five
    // pairs; with ReadNames skipping repeats the same way).
    for (size_t k = 0; k < shown; ++k) {
      Claim& c = const_cast<Claim&>(*sorted[k]);  // owned here (`claims`), each shown once
      Row& row = result.rows.emplace_back();
      row.entity = c.subject;
      const Row* before = result.rows.size() >= 2 ? &result.rows[result.rows.size() - 2] : nullptr;
      row.name = before != nullptr && before->entity == c.subject ? before->name : Name(c.subject);
      row.cells.reserve(2);
      row.cells.push_back(TextCell("attribute", AttributeText(c)));
      if (k < cited) {
        cite_order_.push_back(c.fact_id);
        c.support.citation = static_cast<int>(k) + 1;
        const CitedClaim& kept = kept_cited_.emplace_back(CitedClaim{
            c.fact_id, c.subject, c.predicate, CitedText(c.value, c.qualifiers, c.predicate), std::move(c.document_id),
            c.document_version, c.valid_as_of});
        kept_sources_.Add(kept.document_id, kept.document_version);
      }
      row.cells.push_back(ClaimCell("value", c, /*take_text_and_key=*/true));
      row.support = c.support;
    }
    RetireClaims(std::move(*claims));
    clock.Mark("rows");
    return Status::OK();
  }

  Status RunConflicts(QueryResult& result) {
    result.columns = {"attribute", "value", "other value", "difference"};
    // Predicates whose values stand side by side (values=many: regions) have
    // no conflicts. Names compared per group of claims: a lookup in the
    // schema's map per group would be a hash of every predicate of Q5's pass.
    std::vector<std::string_view> side_by_side;
    for (const PredicateDef& p : schema_.predicates()) {
      if (p.many_values) side_by_side.push_back(p.name);
    }
    std::vector<Entity> subjects;
    result.kind = q_.kind;
    if (q_.entity) {
      subjects.push_back(*q_.entity);
      result.kind = q_.entity->kind;
      result.plan = "subject scan " + q_.entity->id;
    } else {
      Result<std::vector<Entity>> all = store_.ListEntities(q_.kind);
      if (!all.ok()) return all.status().WithContext("listing entities");
      subjects = std::move(*all);
      std::erase_if(subjects, [this](const Entity& e) { return !ExistedThen(e); });
      result.plan = "scan of every " + (q_.kind.empty() ? std::string("entity") : q_.kind);
    }
    // Every subject's contested facts (those of predicates whose facts do not
    // all agree word for word: only they can disagree), read for 64 subjects
    // at a time with one iterator: the conflicts of a kind are one ordered
    // pass over subjects.
    // (Small batches: a subject has dozens of facts, and a big batch of Facts
    // costs more in fresh memory than the iterators it saves.)
    // The next batch is read on another thread while this one is compared:
    // reading and decoding is half the work of a pass.
    constexpr size_t kBatch = 64;
    constexpr size_t kEstimateRowsFrom = 1024;  // subjects; fewer make too few rows to matter
    PhaseClock clock(result);
    struct MarkAtEnd {  // the pass has several exits
      PhaseClock& clock;
      ~MarkAtEnd() { clock.Mark("compare"); }
    } mark{clock};
    auto batch_ids = [&subjects](size_t from) {
      std::vector<EntityId> ids;
      for (size_t k = from; k < std::min(subjects.size(), from + kBatch); ++k) ids.push_back(subjects[k].id);
      return ids;
    };
    // What a read hands over: a batch's contested facts, or their claims.
    // Claims are made where the facts are read, on the read-ahead thread,
    // when that reads nothing but the query, the view and the schema
    // (ClaimsElsewhere); entity values are named on this thread. Each batch
    // goes back to that thread with a later read, to be freed where it was
    // made (freed here, each of its blocks was a cross-thread free). Q5 at
    // N=100,000: the read, now of contested pairs only, left that thread
    // idle half the time while this one made every claim.
    struct ReadBatch {
      std::vector<std::vector<Fact>> facts;    // claims not made yet
      std::vector<std::vector<Claim>> claims;  // or made, by subject
    };
    const bool claims_ahead = ClaimsElsewhere();
    // That thread then has the more work (reading is most of it), so one
    // batch in kReadHereEvery is read, and its claims made, on this thread,
    // the two next to each other: the facts are still in this core's cache
    // when their claims are made. (Before, one batch in two was read there
    // and its claims made here, from facts that came over from the other
    // core, and this thread still waited ~100 ms a pass for reads.) Q5 at
    // N=100,000, alternating in a loop: one in six 816-829 ms against
    // 901-919 before; one in three 987-996, four 895, five 846, seven
    // 848-863, eight 876-879.
    constexpr size_t kReadHereEvery = 6;
    auto read_here = [&](size_t from) { return claims_ahead && (from / kBatch) % kReadHereEvery == kReadHereEvery - 1; };
    // The read ahead owns its ids: it may still run when this pass returns early.
    auto read_batch = [this](std::vector<EntityId> ids, bool make_claims) -> Result<ReadBatch> {
      ReadBatch b;
      Result<std::vector<std::vector<Fact>>> facts =
          store_.ContestedFactsAboutEach(ids, view_, q_.policy.ignore_not_published);
      if (!facts.ok()) return facts.status();
      b.facts = std::move(*facts);
      if (!make_claims) return b;
      b.claims.resize(b.facts.size());
      for (size_t i = 0; i < b.facts.size(); ++i) {
        Result<std::vector<Claim>> claims = PolicyClaims(b.facts[i], /*name_entities=*/false);
        if (!claims.ok()) return claims.status();
        b.claims[i] = std::move(*claims);
      }
      b.facts.clear();
      return b;
    };
    ReadBatch batch;
    // Batches in flight on the read-ahead thread: with one, the pass waited
    // for reads whenever a run of subjects with few contested facts was
    // compared faster than the next batch was read (Q5 at N=100,000: ~300 ms).
    constexpr size_t kAhead = 4;
    std::deque<std::future<Result<ReadBatch>>> ahead;
    // Batches this thread read while the read-ahead thread was behind, by
    // their first subject, in order; a few at most, so that the two threads
    // stay near each other in the store and the memory held stays small.
    constexpr size_t kMostTakenOver = 4;
    std::deque<std::pair<size_t, ReadBatch>> taken_over;
    size_t submitted = 0;  // subjects whose read has been asked for, taken over or left to be read here
    std::vector<std::pair<uint64_t, int>> subject_numbers;  // a subject's cited facts and their numbers
    cited_kept_in_order_ = true;
    std::vector<const Claim*> sorted;  // one subject's claims, by attribute; reused
    std::vector<Claim*> cited;         // the claims its rows cite; reused
    std::vector<size_t> first_alike;   // per claim of a group; reused
    std::vector<ReadBatch> to_free;  // batches read ahead, handed back with the next read
    bool batch_read_ahead = false;
    // The rows are sized once, from what the first sixteenth of the subjects
    // gave, scaled to all of them with an eighth to spare: grown by doubling,
    // each doubling moved every row made so far into fresh memory, which on
    // these machines costs more than the moves (Q5 at N=100,000: 337,197
    // rows; tools/bench/HISTORY.md, 2026-12-04). Should the rest give far
    // fewer, the spare is given back at the end; until then it is address
    // space only, its pages untouched (at worst, no rows after the first
    // sixteenth, 18 times the rows' structs).
    const size_t estimate_at = subjects.size() >= kEstimateRowsFrom ? subjects.size() / 16 : 0;
    size_t estimated_rows = 0;
    struct GiveBackSpare {  // the pass has several exits
      std::vector<Row>& rows;
      const size_t& estimated;
      ~GiveBackSpare() {
        if (estimated > 0 && rows.capacity() > rows.size() + rows.size() / 2) rows.shrink_to_fit();
      }
    } give_back{result.rows, estimated_rows};
    for (size_t index = 0; index < subjects.size(); ++index) {
      const Entity& e = subjects[index];
      if (index == estimate_at && index > 0) {
        estimated_rows = result.rows.size() * subjects.size() / index;
        estimated_rows += estimated_rows / 8;
        if (q_.limit) estimated_rows = std::min<size_t>(estimated_rows, *q_.limit);
        if (estimated_rows > result.rows.capacity()) result.rows.reserve(estimated_rows);
      }
      if (index % kBatch == 0) {
        // Batches before `submitted` were read ahead, taken over, or are read here.
        const bool taken = !taken_over.empty() && taken_over.front().first == index;
        const bool here = !taken && (index >= submitted || read_here(index));
        Result<ReadBatch> read = ReadBatch();
        if (taken) {
          read = std::move(taken_over.front().second);
          taken_over.pop_front();
        } else if (here) {
          read = read_batch(batch_ids(index), false);
        } else {
          // Rather than wait for the read-ahead thread, this one reads a
          // later batch itself (and makes its claims), kept until its turn.
          // How the reading is best shared between the two depends on the
          // machine: on one where reading is slow, the fixed share read here
          // left this thread waiting for a quarter of the pass (Q5 at
          // N=100,000: ~300 of 1,260 ms a run).
          while (taken_over.size() < kMostTakenOver && submitted < subjects.size() &&
                 ahead.front().wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
            if (!read_here(submitted)) {
              Result<ReadBatch> later = read_batch(batch_ids(submitted), claims_ahead);
              if (!later.ok()) {
                return later.status().WithContext("reading facts about " + subjects[submitted].id + " and the next subjects");
              }
              taken_over.emplace_back(submitted, std::move(*later));
            }
            submitted += kBatch;
          }
          read = ahead.front().get();
          ahead.pop_front();
        }
        submitted = std::max(submitted, index + kBatch);
        if (!read.ok()) return read.status().WithContext("reading facts about " + e.id + " and the next subjects");
        if (batch_read_ahead) to_free.push_back(std::move(batch));
        batch = std::move(*read);
        batch_read_ahead = !here && !taken;
        while (ahead.size() < kAhead && submitted < subjects.size()) {
          if (read_here(submitted)) {
            submitted += kBatch;
            continue;
          }
          ahead.push_back(read_ahead_.Submit(
              [read_batch, ids = batch_ids(submitted), there = claims_ahead, done = std::move(to_free)]() mutable {
                done.clear();
                return read_batch(ids, there);
              }));
          to_free.clear();  // moved from: valid, unspecified
          submitted += kBatch;
        }
      }
      std::vector<Claim> made_here;
      const bool made_there = !batch.claims.empty();
      if (made_there) {
        NameEntityValues(batch.claims[index % kBatch]);
      } else {
        Result<std::vector<Claim>> claims = PolicyClaims(batch.facts[index % kBatch]);
        if (!claims.ok()) return claims.status();
        made_here = std::move(*claims);
      }
      const std::vector<Claim>* kept = made_there ? &batch.claims[index % kBatch] : &made_here;
      // Pairs of claims on the same predicate and qualifier set that disagree.
      sorted.clear();
      for (const Claim& c : *kept) sorted.push_back(&c);
      StableSortFew(sorted, [](const Claim* a, const Claim* b) {
        if (a->predicate != b->predicate) return a->predicate < b->predicate;
        return factcheck::FigureLess(a->key, b->key);  // an estimate beside the stated figure it may contradict
      });
      // Once the subject's rows are built, their citations are numbered, in
      // order of first use as ResolveCitations would, and each claim they
      // cite is kept for its citation, in that order (kept_cited_[k] is
      // citation k + 1), its strings moved out: a claim can be in several
      // pairs, and the others go with the subject. A fact is about one
      // subject, so the numbers a subject's rows use are its own. Numbered
      // at the end instead, from a table by fact id, 337,000 rows (Q5 at
      // N=100,000) cost ~70 ms of cache misses, and finding each kept claim
      // by fact id as much again.
      cited.clear();  // the claims of the subject's rows, two a row, in row order
      const size_t first_row = result.rows.size();
      auto keep_cited = [&] {
        subject_numbers.clear();
        for (size_t k = 0; k < cited.size(); ++k) {
          const size_t r = first_row + k / 2;
          if (r >= options_.cite_rows) break;
          Claim* c = cited[k];
          int number = 0;
          for (const auto& [fact, n] : subject_numbers) number = fact == c->fact_id ? n : number;
          if (number == 0) {
            cite_order_.push_back(c->fact_id);
            number = static_cast<int>(cite_order_.size());
            subject_numbers.emplace_back(c->fact_id, number);
            const CitedClaim& kept_claim = kept_cited_.emplace_back(
                CitedClaim{c->fact_id, std::move(c->subject), std::move(c->predicate),
                           CitedText(c->value, c->qualifiers, c->predicate), std::move(c->document_id), c->document_version,
                           c->valid_as_of});
            // Its source found here, where this thread would otherwise wait
            // for reads, rather than after the pass (~22 ms of Q5 at
            // N=100,000). The deque keeps the viewed strings in place.
            kept_sources_.Add(kept_claim.document_id, kept_claim.document_version);
          }
          Row& row = result.rows[r];
          row.cells[1 + k % 2].values[0].support.citation = number;
          if (k % 2 == 1) {
            for (Support& arg : row.support.args) {
              for (const auto& [fact, n] : subject_numbers) arg.citation = fact == arg.fact_id ? n : arg.citation;
            }
          }
        }
      };
      for (size_t begin = 0; begin < sorted.size();) {
        size_t end = begin + 1;
        while (end < sorted.size() && sorted[end]->predicate == sorted[begin]->predicate &&
               factcheck::SameFigure(sorted[end]->key, sorted[begin]->key)) {
          ++end;
        }
        const std::span<const Claim* const> g(sorted.data() + begin, end - begin);
        begin = end;
        if (std::find(side_by_side.begin(), side_by_side.end(), g.front()->predicate) != side_by_side.end()) continue;
        std::string attribute;  // the group's, made at its first disagreement
        // Each claim's first claim of the same value (itself when none
        // before it has it): a pair is shown with the value stated first on
        // the left, so that one disagreement reads the same way round in
        // every row (Amazon against Annapurna Labs, never the other way in
        // the next row). By equal values, not by agreement, which is not
        // transitive: "2022" agrees with every day of 2022, and within a
        // tolerance 100 ~ 100.9 ~ 101.8.
        first_alike.resize(g.size());
        for (size_t k = 0; k < g.size(); ++k) {
          first_alike[k] = k;
          for (size_t m = 0; m < k; ++m) {
            if (SameValue(*g[m], *g[k])) {
              first_alike[k] = m;
              break;
            }
          }
        }
        for (size_t i = 0; i < g.size(); ++i) {
          for (size_t j = i + 1; j < g.size(); ++j) {
            factcheck::Comparison cmp = Agree(*g[i], *g[j]);
            if (cmp.agree) continue;
            // One document's two values are a list, not a disagreement (Group::Disputed).
            if (Group::SameDocument(*g[i], *g[j])) continue;
            if (q_.limit && result.rows.size() >= *q_.limit) {
              keep_cited();
              return Status::OK();
            }
            if (attribute.empty()) {
              attribute = g.front()->predicate;
              // The figure's: each value shows its own basis.
              if (!g.front()->key.empty()) {
                const Qualifiers figure = factcheck::WithoutBasis(g.front()->key);
                if (!figure.empty()) attribute += " " + QualifierText(figure);
              }
            }
            // A claim can be in several pairs: cells copy it. (Moving it into
            // its last pair's row was measured: Q5 no faster, the strings of
            // claims made on the read-ahead thread then freed across threads.)
            Claim* a = const_cast<Claim*>(g[i]);  // owned by this pass (`kept`)
            Claim* b = const_cast<Claim*>(g[j]);
            if (first_alike[j] < first_alike[i]) {
              std::swap(a, b);
              // A difference of kinds, or a value against "not published",
              // names its sides in order.
              if (cmp.kind == factcheck::DifferenceKind::kKind || cmp.kind == factcheck::DifferenceKind::kNotPublished) {
                cmp = Agree(*a, *b);
              }
            }
            Row& row = result.rows.emplace_back();
            row.entity = e.id;
            row.name = e.name;
            row.cells.reserve(4);
            row.cells.push_back(TextCell("attribute", attribute));
            row.cells.push_back(ClaimCell("value", *a, /*take_text_and_key=*/false));
            row.cells.push_back(ClaimCell("other value", *b, /*take_text_and_key=*/false));
            // As a find's conflict cell says it (MakeCell): a figure several
            // times another is more often a server's given as the chip's.
            if (cmp.kind == factcheck::DifferenceKind::kQuantity && cmp.relative >= 2.0 &&
                factcheck::ScalesWithChips(a->value.dimension)) {
              cmp.size += ": one may not be a per-chip figure (describe \"" + e.name + "\" says which)";
            }
            row.cells.push_back(TextCell("difference", std::move(cmp.size)));
            row.support = Support::And({a->support, b->support});
            cited.push_back(a);
            cited.push_back(b);
          }
        }
      }
      keep_cited();
    }
    return Status::OK();
  }

  // ---- Citations -------------------------------------------------------------

  // The claim this evaluation read for each citation (by its number less
  // one), null where none: one walk over the claims it kept, looking each
  // up among the cited facts, where indexing every claim by fact id as it
  // was read cost a hash insert per claim, cited or not (Q3 at N=100,000:
  // ~300,000).
  // Looked up a few dozen at a time, their slots in the table asked for
  // first (NumberRowsCitations).
  std::vector<const Claim*> CitedClaimsIn(const internal::FactNumbers& numbers) const {
    std::vector<const Claim*> cited(numbers.size(), nullptr);
    constexpr size_t kAtOnce = 64;
    std::vector<const Claim*> batch;
    batch.reserve(kAtOnce);
    auto look_up_batch = [&] {
      for (const Claim* c : batch) numbers.Prefetch(c->fact_id);
      for (const Claim* c : batch) {
        if (const int number = numbers.Find(c->fact_id); number != 0 && cited[number - 1] == nullptr) {
          cited[number - 1] = c;
        }
      }
      batch.clear();
    };
    auto look_up = [&](const std::vector<Claim>& claims) {
      for (const Claim& c : claims) {
        if (c.computed || c.fact_id == 0) continue;
        batch.push_back(&c);
        if (batch.size() == kAtOnce) look_up_batch();
      }
    };
    for (const std::vector<Claim>& claims : retired_claims_) look_up(claims);
    for (const std::vector<Claim>& claims : helper_claims_) look_up(claims);
    for (const auto& [key, claims] : row_claims_) look_up(claims);
    for (const auto& [key, claims] : other_claims_) look_up(claims);
    look_up_batch();
    return cited;
  }

  // The source of each distinct (document, version) an answer cites: the
  // store's shared records, a large answer's in two halves at once (Q5 at
  // N=100,000 names 22,757 documents: read on two threads where the store
  // has not kept them yet, as in a one-shot command). A document the store
  // does not hold is cited by its id alone, a version it does not hold as
  // fetched at 0.
  struct Source {
    std::shared_ptr<const Document> document;
    int64_t fetched_at = 0;
    std::shared_ptr<const DocumentVersion> version;
  };
  Result<std::vector<Source>> CitedSources(const std::vector<std::pair<std::string, uint32_t>>& distinct) {
    constexpr size_t kInTwoFrom = 512;
    const size_t half = distinct.size() >= kInTwoFrom ? distinct.size() / 2 : distinct.size();
    std::future<Result<std::vector<CitedSource>>> later;
    if (half < distinct.size()) {
      later = read_ahead_.Submit([this, &distinct, half] {
        return store_.GetCitedSources({distinct.begin() + static_cast<std::ptrdiff_t>(half), distinct.end()});
      });
    }
    Result<std::vector<CitedSource>> first =
        store_.GetCitedSources({distinct.begin(), distinct.begin() + static_cast<std::ptrdiff_t>(half)});
    Result<std::vector<CitedSource>> second = later.valid() ? later.get() : std::vector<CitedSource>();
    if (!first.ok()) return first.status().WithContext("reading the cited documents");
    if (!second.ok()) return second.status().WithContext("reading the cited documents");
    std::vector<Source> sources(distinct.size());
    for (size_t i = 0; i < distinct.size(); ++i) {
      CitedSource& read = i < half ? (*first)[i] : (*second)[i - half];
      if (read.document == nullptr) {
        auto only_id = std::make_shared<Document>();
        only_id->id = distinct[i].first;
        read.document = std::move(only_id);
      }
      sources[i] = Source{std::move(read.document), read.fetched_at.value_or(0), std::move(read.version)};
    }
    return sources;
  }

  // Numbers the facts the rows cite, in order of first use over the rows,
  // a few rows at a time: their facts gathered, the table's slots for them
  // asked for, then numbered in the order met. A large answer's table is out
  // of the processor's caches (Q3 of the peer benchmark at N=100,000: 102,000
  // facts in 8 MB), and numbering each fact as the walk met it waited for
  // one miss after another (that step 25 -> 11-13 ms with FactNumbers'
  // memory of the facts it numbered last; 16-17 -> 11-13 of it this).
  // `supports`, when given, collects every fact leaf numbered, in order.
  static void NumberRowsCitations(std::span<Row> rows, internal::FactNumbers& numbers, std::vector<uint64_t>& order,
                                  std::vector<Support*>* supports) {
    constexpr size_t kRowsAtOnce = 32;
    std::vector<Support*> facts;
    auto gather = [&facts](auto& self, Support& s) -> void {
      if (s.op == Support::Op::kFact) facts.push_back(&s);
      for (Support& a : s.args) self(self, a);
    };
    for (size_t from = 0; from < rows.size(); from += kRowsAtOnce) {
      facts.clear();
      for (Row& row : rows.subspan(from, std::min(kRowsAtOnce, rows.size() - from))) {
        for (Cell& cell : row.cells) {
          for (ShownValue& v : cell.values) gather(gather, v.support);
        }
        gather(gather, row.support);
        for (Reason& r : row.reasons) {
          for (auto* list : {&r.supporting, &r.contradicting, &r.undecided}) {
            for (Reason::Evidence& e : *list) gather(gather, e.support);
          }
        }
      }
      for (const Support* s : facts) numbers.Prefetch(s->fact_id);
      for (Support* s : facts) {
        auto [number, first] = numbers.Number(s->fact_id);
        if (first) order.push_back(s->fact_id);
        s->citation = number;
      }
      if (supports != nullptr) supports->insert(supports->end(), facts.begin(), facts.end());
    }
  }

  // A large answer's rows are numbered in two halves at once, the second on
  // the read-ahead thread in a table of its own; its facts then take their
  // numbers in the answer's table in the order that half first used them
  // (so every number is the one a single walk gives). Rewriting the second
  // half's numbers is returned, for that thread to do while this one goes
  // on. Q3 of the peer benchmark at N=100,000: numbering 205,144 rows was
  // ~6.5 ms of its citations step, on this thread alone.
  // (From QueryOptions::number_in_two_from rows.)
  std::function<void()> NumberRowsCitationsInTwo(std::span<Row> rows) {
    const size_t half = rows.size() / 2;
    struct Later {
      explicit Later(size_t rows) : numbers(rows) {}
      internal::FactNumbers numbers;
      std::vector<uint64_t> order;
      std::vector<Support*> supports;
    };
    auto later = std::make_shared<Later>(rows.size() - half);
    std::future<void> numbered = read_ahead_.Submit(
        [later, rows = rows.subspan(half)] { NumberRowsCitations(rows, later->numbers, later->order, &later->supports); });
    try {
      NumberRowsCitations(rows.first(half), *numbers_, cite_order_, nullptr);
    } catch (...) {
      numbered.wait();  // it writes into `rows`
      throw;
    }
    numbered.get();
    auto renumbered = std::make_shared<std::vector<int>>(later->order.size());
    constexpr size_t kAtOnce = 64;
    for (size_t from = 0; from < later->order.size(); from += kAtOnce) {
      const size_t to = std::min(later->order.size(), from + kAtOnce);
      for (size_t j = from; j < to; ++j) numbers_->Prefetch(later->order[j]);
      for (size_t j = from; j < to; ++j) {
        auto [number, first] = numbers_->Number(later->order[j]);
        if (first) cite_order_.push_back(later->order[j]);
        (*renumbered)[j] = number;
      }
    }
    return [later, renumbered] {
      for (Support* s : later->supports) s->citation = (*renumbered)[static_cast<size_t>(s->citation - 1)];
    };
  }

  static constexpr size_t kSizeCitationsElsewhereFrom = 4096;
  Status ResolveCitations(QueryResult& result) {
    const size_t n = std::min(result.rows.size(), options_.cite_rows);
    std::vector<const Claim*> claims;  // the claim this evaluation read for each citation, if any
    if (!cited_kept_in_order_) {
      // Sized for a fact a row (it grows past that): the rows of one answer
      // share facts (Q3's 205,144 rows cite 102,000-odd memory claims and one
      // parameter count), and the table is probed at random: at twice the
      // size, Q2's at N=100,000 was 8 MB, out of the processor's caches.
      numbers_.emplace(n);
      cite_order_.reserve(n);
      std::function<void()> renumber;
      if (n >= std::max<size_t>(2, options_.number_in_two_from)) {
        renumber = NumberRowsCitationsInTwo(std::span<Row>(result.rows).first(n));
      } else {
        NumberRowsCitations(std::span<Row>(result.rows).first(n), *numbers_, cite_order_, nullptr);
      }
      // The citations' vector is sized (every citation value-initialised, a
      // few MB of fresh memory for a large answer) on the read-ahead thread
      // while this one finds the cited claims: Q3 at N=100,000 (102,000-odd
      // citations) citations step 41-43 -> 37-38 ms, Q2 27-30 -> 23 ms
      // (tools/bench/HISTORY.md, "Measured on 2026-12-02 12:59").
      std::future<void> sized;
      if (renumber || cite_order_.size() >= kSizeCitationsElsewhereFrom) {
        sized = read_ahead_.Submit([&result, count = cite_order_.size(), &renumber] {
          if (renumber) renumber();
          result.citations.resize(count);
        });
      }
      try {
        claims = CitedClaimsIn(*numbers_);
      } catch (...) {
        if (sized.valid()) sized.wait();  // it writes into `result`
        throw;
      }
      if (sized.valid()) sized.get();
    } else {
      claims.assign(cite_order_.size(), nullptr);
    }
    const std::vector<uint64_t>& order = cite_order_;  // order[k] is cited as [k + 1]
    result.cited_rows = n;
    result.citations.resize(order.size());

    // Cited claims this evaluation read need only their provenance; the few
    // it did not (none, today) are read whole.
    std::vector<CitedClaim*> kept(order.size(), nullptr);
    std::vector<size_t> known, unknown;  // positions in `order`
    for (size_t k = 0; k < order.size(); ++k) {
      if (claims[k] != nullptr) {
        known.push_back(k);
      } else if (cited_kept_in_order_) {
        kept[k] = &kept_cited_[k];
        known.push_back(k);
      } else {
        unknown.push_back(k);
      }
    }
    if (!unknown.empty()) {
      std::vector<uint64_t> ids;
      for (size_t k : unknown) ids.push_back(order[k]);
      Result<std::vector<Fact>> facts = store_.GetFacts(ids);
      if (!facts.ok()) return facts.status().WithContext("reading the cited facts");
      for (size_t i = 0; i < unknown.size(); ++i) {
        Fact& f = (*facts)[i];
        Citation& c = result.citations[unknown[i]];
        c.subject = f.subject;
        c.predicate = f.predicate;
        c.claim = CitedText(f.value, f.qualifiers, f.predicate);
        c.document_id = f.provenance.document_id;
        c.version = f.provenance.document_version;
        c.valid_as_of = f.valid_as_of;
        TakeProvenance(std::move(f.provenance), c);
      }
    }
    // Documents and fetch times are found once per distinct document and
    // version (an answer of 578,000 citations names 22,000: a hash of views
    // finds them, where copying and sorting every citation's pair cost Q5 at
    // N=100,000 0.2-0.3 s). A conflicts pass found them as it kept each cited
    // claim; otherwise they are found from the citations once their fields are
    // filled: in one pass over the citations, which lie together, rather than
    // one more over the claims, which lie wherever they were read (Q2 at
    // N=100,000: 7.5 ms for that pass, the same at 10k 0.4).
    const bool sources_known = cited_kept_in_order_ && kept_sources_.size() == order.size() && unknown.empty();
    Result<std::vector<Source>> read_sources = std::vector<Source>();
    if (sources_known) {
      read_sources = CitedSources(kept_sources_.distinct());
      if (!read_sources.ok()) return read_sources.status();
    }

    // The known claims' provenance, in fact-id order so that each part reads
    // its own stretch of the store (when excerpts are read; otherwise nothing
    // is read, and citation order is as good: Q5 at N=100,000 sorted 578,000
    // positions for ~10 ms); a large answer is split in two, the second half
    // on the read-ahead thread (its citations cost as much as the rest of the
    // evaluation).
    if (options_.read_excerpts) {
      std::sort(known.begin(), known.end(), [&](size_t a, size_t b) { return order[a] < order[b]; });
    }
    constexpr size_t kParallelFrom = 4096;
    const size_t parts = known.size() >= kParallelFrom ? 2 : 1;
    std::vector<Status> statuses(parts);
    auto resolve = [&](size_t part) {
      try {
        const size_t begin = known.size() * part / parts, end = known.size() * (part + 1) / parts;
        for (size_t i = begin; i < end; ++i) {
          const size_t k = known[i];
          Citation& c = result.citations[k];
          if (CitedClaim* kc = kept[k]; kc != nullptr) {  // cited once: taken, not copied
            c.subject = std::move(kc->subject);
            c.predicate = std::move(kc->predicate);
            c.claim = std::move(kc->claim);
            c.document_id = std::move(kc->document_id);
            c.version = kc->document_version;
            c.valid_as_of = kc->valid_as_of;
          } else {
            const Claim& cl = *claims[k];
            c.subject = cl.subject;
            c.predicate = cl.predicate;
            c.claim = CitedText(cl.value, cl.qualifiers, cl.predicate);
            c.document_id = cl.document_id;
            c.version = cl.document_version;
            c.valid_as_of = cl.valid_as_of;
          }
          if (sources_known) {
            const Source& source = (*read_sources)[kept_sources_.source_of()[k]];
            FinishCitation(k, order[k], source, kept_sources_.source_of()[k], c);
          }
        }
        if (!options_.read_excerpts) return;
        std::vector<uint64_t> ids;
        ids.reserve(end - begin);
        for (size_t i = begin; i < end; ++i) ids.push_back(order[known[i]]);
        statuses[part] = ReadProvenanceInChunks(store_, ids, [&](size_t i, Provenance&& p) {
          TakeProvenance(std::move(p), result.citations[known[begin + i]]);
        });
      } catch (const std::exception& e) {
        statuses[part] = Status::Aborted(std::string("resolving citations: ") + e.what());
      }
    };
    std::future<void> second_half;
    if (parts == 2) second_half = read_ahead_.Submit([&] { resolve(1); });
    try {
      resolve(0);
    } catch (...) {
      if (second_half.valid()) second_half.wait();  // it writes into `result` and `statuses`
      throw;
    }
    if (second_half.valid()) second_half.get();
    for (const Status& st : statuses) CHIPKG_RETURN_IF_ERROR(st);
    if (!sources_known) {
      FindSourcesOfCitations(result.citations);
      read_sources = CitedSources(kept_sources_.distinct());
      if (!read_sources.ok()) return read_sources.status();
      FinishCitations(order, *read_sources, result.citations);
    }
    result.cited_versions.reserve(read_sources->size());
    for (Source& source : *read_sources) result.cited_versions.push_back(std::move(source.version));
    return Status::OK();
  }

  // A large answer's work on all its citations is split in two, the second
  // half on the read-ahead thread: the distinct sources and the citations'
  // finishing touches were a quarter of Q3's citations step at N=100,000
  // (102,000 citations of 17,911 documents), on one thread.
  static constexpr size_t kCitationsInTwoFrom = 4096;

  // kept_sources_ from the citations' documents and versions.
  void FindSourcesOfCitations(const std::vector<Citation>& citations) {
    auto add = [&citations](internal::DistinctSources& sources, size_t begin, size_t end) {
      sources.Reserve(end - begin);
      for (size_t k = begin; k < end; ++k) sources.Add(citations[k].document_id, citations[k].version);
    };
    kept_sources_ = internal::DistinctSources();
    if (citations.size() < kCitationsInTwoFrom) {
      add(kept_sources_, 0, citations.size());
      return;
    }
    const size_t half = citations.size() / 2;
    internal::DistinctSources later;
    std::future<void> later_found = read_ahead_.Submit([&] { add(later, half, citations.size()); });
    try {
      add(kept_sources_, 0, half);
    } catch (...) {
      later_found.wait();  // it reads `citations` and writes `later`
      throw;
    }
    later_found.get();
    kept_sources_.Append(later);
  }

  // FinishCitation for every citation, its source by kept_sources_.
  void FinishCitations(const std::vector<uint64_t>& order, const std::vector<Source>& sources,
                       std::vector<Citation>& citations) {
    const std::vector<uint32_t>& source_of = kept_sources_.source_of();
    auto finish = [&](size_t begin, size_t end) {
      for (size_t k = begin; k < end; ++k) {
        const Source& source = sources[source_of[k]];
        FinishCitation(k, order[k], source, source_of[k], citations[k]);
      }
    };
    if (order.size() < kCitationsInTwoFrom) {
      finish(0, order.size());
      return;
    }
    const size_t half = order.size() / 2;
    std::future<void> later = read_ahead_.Submit([&] { finish(half, order.size()); });
    try {
      finish(0, half);
    } catch (...) {
      later.wait();  // it writes into `citations`
      throw;
    }
    later.get();
  }

  // `source_index`: the source's place among the distinct ones, which become
  // QueryResult::cited_versions in that order.
  static void FinishCitation(size_t position, uint64_t fact_id, const Source& source, uint32_t source_index,
                             Citation& c) {
    c.number = static_cast<int>(position) + 1;
    c.fact_id = fact_id;
    c.document = source.document;
    c.fetched_at = source.fetched_at;
    c.version_record = source.version != nullptr ? static_cast<int32_t>(source_index) : -1;
  }

  const Store& store_;
  const Schema& schema_;
  const BoundQuery& q_;
  const QueryOptions& options_;
  ReadView view_;

  // Documents a source policy (`only`, `prefer`) weighs claims by.
  std::unordered_map<std::string, std::shared_ptr<const Document>> docs_;
  std::unordered_map<EntityId, std::string> names_;
  // Citation numbers by fact id and the facts in citation order, filled by
  // NumberRowsCitations, or by a conflicts pass, which keeps the claims it
  // cites in the same order (kept_cited_[k] is citation k + 1).
  std::optional<internal::FactNumbers> numbers_;
  std::vector<uint64_t> cite_order_;
  bool cited_kept_in_order_ = false;
  std::map<std::string, BoundAttribute> formula_attributes_;
  ClaimsByLabel row_claims_;
  std::unordered_map<std::string, std::vector<Claim>> other_claims_;
  bool index_missed_unknown_ = false;  // the find's index may not have found every candidate it is unknown for
  std::vector<std::vector<Claim>> retired_claims_;  // claims of rows already evaluated, kept for citations
  std::vector<std::vector<Claim>> helper_claims_;   // those the helper of EvaluateInTwo made, on the read-ahead thread
  std::deque<CitedClaim> kept_cited_;  // the claims a conflicts pass cites, in citation order
  internal::DistinctSources kept_sources_;       // their sources, by citation (or, once resolving, every citation's)
  std::vector<EntityId> candidate_ids_;  // of the find being evaluated, in evaluation order
  size_t candidate_pos_ = 0;             // the one being evaluated
  std::unordered_map<std::string, std::unordered_map<EntityId, std::vector<Fact>>> prefetched_;  // by predicate
  struct PendingBatch {
    size_t from = 0;  // position in candidate_ids_ of its first subject
    std::future<Result<std::vector<std::vector<Fact>>>> facts;
  };
  std::unordered_map<std::string, PendingBatch> pending_;  // by predicate; declared after what its reads use
  struct WholeRead {
    std::string predicate;  // empty: none
    std::vector<EntityId> ids;  // read for, in candidate order (candidates are a subsequence)
    std::vector<std::vector<Fact>> facts;  // aligned with ids
    std::vector<bool> taken;
    size_t cursor = 0;
    bool range_only = false;  // the facts in the access path's range only (RangeClaimsDecide)
  } whole_;
  std::map<std::pair<const Expr*, const BoundCall*>, std::vector<Operand>> invariant_operands_;  // TermOperands
  // `with evidence` texts by fact id (RememberEvidence): the index gives
  // each claim about another entity than the row's, as it is first read,
  // the number of its text, evidence_texts_[number - 1].
  // A hash map of strings took a node each (Q2 at N=100,000: 83,044, and 12
  // ms to make them, 20 times the time for 10 times the texts at 10k).
  internal::FactNumbers evidence_index_{0};
  std::deque<std::string> evidence_texts_;
  std::vector<uint64_t> evidence_facts_;  // evidence_facts_[number - 1]: the fact of each text
  EntityId current_entity_;
  bool truncated_combinations_ = false;
  bool need_reasons_ = true;  // rows show why they match (not for `with evidence` rows or counts)
  bool formula_texts_ = true;  // operands carry their text ("70 B x 0.5 (int4) = 35 GB"): false while only truth matters
  // Evaluating on or beside the read-ahead thread (EvaluateInTwo): nothing is
  // handed to that thread, which is running, or would wait on, the other half.
  bool on_helper_ = false;
  // Last: destroyed first, so that no read ahead runs once what it reads with is gone.
  internal::ReadAhead read_ahead_;
};

}  // namespace

namespace {

// A parse or bind error counts lines within the query text ("line 1, column
// 10: ..."; FormatQueryError); a script's reader wants the script's line.
Status AtInputLine(const Status& status, int first_line) {
  const std::string& message = status.message();
  if (first_line <= 1 || !status.IsInvalidArgument() || message.rfind("line ", 0) != 0) return status;
  size_t end = 5;
  int line = 0;
  while (end < message.size() && message[end] >= '0' && message[end] <= '9') line = line * 10 + (message[end++] - '0');
  if (end == 5 || message.compare(end, 9, ", column ") != 0) return status;
  return Status::InvalidArgument("line " + std::to_string(line + first_line - 1) + message.substr(end));
}

}  // namespace

Status ReadExcerpts(const Store& store, QueryResult& result, size_t begin, size_t end) {
  end = std::min(end, result.citations.size());
  std::vector<size_t> unread;  // positions in result.citations, in fact-id order
  for (size_t k = begin; k < end; ++k) {
    if (!result.citations[k].excerpt_read()) unread.push_back(k);
  }
  std::sort(unread.begin(), unread.end(),
            [&](size_t a, size_t b) { return result.citations[a].fact_id < result.citations[b].fact_id; });
  std::vector<uint64_t> ids;
  ids.reserve(unread.size());
  for (size_t k : unread) ids.push_back(result.citations[k].fact_id);
  try {
    return ReadProvenanceInChunks(store, ids, [&](size_t i, Provenance&& p) {
      TakeProvenance(std::move(p), result.citations[unread[i]]);
    });
  } catch (const std::exception& e) {
    return Status::Aborted(std::string("reading excerpts: ") + e.what());
  }
}

Result<QueryResult> RunQuery(const Store& store, const Schema& schema, std::string_view text,
                             const QueryOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  try {
    Result<Query> parsed = ParseQuery(text);
    if (!parsed.ok()) return AtInputLine(parsed.status(), options.first_line);
    Result<BoundQuery> bound = Bind(*parsed, text, store, schema, options);
    if (!bound.ok()) return AtInputLine(bound.status(), options.first_line);
    QueryResult result;
    PhaseClock(result, start).Mark("parse and bind");
    result.query = std::string(text);
    result.statement = bound->statement;
    result.notes = bound->notes;
    std::optional<Evaluator> evaluator(std::in_place, store, schema, *bound, options);
    Result<QueryResult> r = evaluator->Run(result);
    if (!r.ok()) return r.status();
    // Freeing what the evaluation read (its caches of claims, documents and
    // names) is a step of its own on a large answer.
    PhaseClock release(*r);
    evaluator->Release();
    evaluator.reset();
    release.Mark("release");
    r->elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return r;
  } catch (const std::exception& e) {
    // Nothing below should throw; if something does (allocation), the caller
    // still gets a Status, never an exception across the module boundary.
    return Status::Aborted(std::string("query failed: ") + e.what());
  }
}

}  // namespace chipkg::query
