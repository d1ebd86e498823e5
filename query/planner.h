// The planner: picks how to find the entities a condition can hold for,
// before the evaluator checks each one. Internal to the query module.
//
// Every access path yields a superset of the entities for which the
// condition can be true (never misses one); the evaluator then decides each
// candidate exactly. Paths, best first:
//   range        a comparison >, >= or = on a stated quantity or date:
//                Store::FactsInRange on the value index from the bound up
//                (per-chip values are never above the figure stored, so a
//                lower bound on the stored figure loses nothing; dates start a
//                year early so coarse dates that may match are seen)
//   not_published  not_published(attr): FactsInRange of the marker kind only
//   referencing  attr = ENTITY: Store::FactsReferencing the entity
//   derived_range  a schema test whose formula compares an expression of its
//                parameters with one attribute of the subject (fits: the
//                model's parameters x bytes per parameter <= memory): the
//                parameter side is computed first, then a range scan from its
//                smallest value
//   subjects_with  any other test that needs a claim of the attribute
//                (reported, conflicting, comparisons <, <=, !=, text):
//                Store::SubjectsWith
//   union        'or' of children that all have a path
//   kind_scan    otherwise (not, unknown(), derived attributes): every entity
//                of the kind
// 'and' takes the best path among its children.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/store.h"
#include "query/binder.h"

namespace chipkg::query {

struct AccessPath {
  enum class Kind { kKindScan, kRange, kNotPublished, kReferencing, kDerivedRange, kSubjectsWith, kUnion };
  Kind kind = Kind::kKindScan;
  std::string predicate;
  // The attribute as the condition names it ("bf16", a view of
  // peak_throughput): a chip with other throughput figures has no bf16 one,
  // so the note on unknowns must name it, not the predicate.
  std::string attribute;
  ValueRange range;                      // kRange
  EntityId object;                       // kReferencing
  const BoundCall* call = nullptr;       // kDerivedRange
  size_t subject_side = 0;               // kDerivedRange: operand of the comparison that reads the subject
  std::vector<AccessPath> parts;         // kUnion
  // Whether an entity the path does not find may be one for which the
  // condition is unknown rather than false: one with no claim of the
  // attribute, for a comparison or a schema test (reported(), not_published()
  // and conflicting() are false without a claim). The evaluator names the
  // unknown ones it examines; of these it can only say that they exist.
  bool misses_unknown = false;
  // The attributes whose missing claims leave the condition unknown, for that
  // note: `attribute`, or the predicate where the path has no attribute.
  std::vector<std::string> UnknownWithout() const;
  std::string Describe(const std::string& kind_name) const;  // for QueryResult::plan
};

// nullopt: no index helps; scan the kind.
std::optional<AccessPath> ChooseAccessPath(const BoundCondition& condition);

// Two figures within this fraction of the larger compare as the same figure
// (`<=`, `>=`, `!=`): what rounding leaves of a unit conversion.
inline constexpr double kNumbersAlikeWithin = 1e-9;

// How far from `asked` a quantity may be and still equal it: half a unit in
// its fourth significant digit, the precision answers show numbers at (32 GiB
// is shown "34.36 GB", and `memory = 34.36 GB` must find it). 0 for 0.
double EqualityHalfWidth(double asked);

}  // namespace chipkg::query
