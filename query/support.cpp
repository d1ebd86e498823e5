// Support expressions (query/result.h): building, printing, expanding.

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "query/result.h"
#include "query/witness_lists.h"

namespace chipkg::query {
namespace {

// Flattens nested nodes of the same operator into `out`.
void Flatten(Support::Op op, std::vector<Support>& args, std::vector<Support>& out) {
  for (Support& a : args) {
    if (a.op == op) {
      Flatten(op, a.args, out);
    } else {
      out.push_back(std::move(a));
    }
  }
}

// `args` joined by `op` as they are: the one operand itself, or kTrue for none.
Support Joined(Support::Op op, std::vector<Support> args) {
  if (args.empty()) return Support::True();
  if (args.size() == 1) return std::move(args.front());
  Support s;
  s.op = op;
  s.args = std::move(args);
  return s;
}

bool SameFactLeaf(const Support& a, const Support& b) {
  return a.op == Support::Op::kFact && b.op == Support::Op::kFact && a.fact_id == b.fact_id;
}

void AppendText(const Support& s, bool nested, std::string& out) {
  switch (s.op) {
    case Support::Op::kTrue:
      out += "(no source needed)";
      return;
    case Support::Op::kFact:
      // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "[" + std::string.
      if (s.citation > 0) {
        out.append("[").append(std::to_string(s.citation)).append("]");
      } else {
        out.append("#").append(std::to_string(s.fact_id));
      }
      return;
    case Support::Op::kAnd:
    case Support::Op::kOr: {
      const char* word = s.op == Support::Op::kAnd ? " and " : " or ";
      if (nested) out += "(";
      for (size_t i = 0; i < s.args.size(); ++i) {
        if (i > 0) out += word;
        AppendText(s.args[i], true, out);
      }
      if (nested) out += ")";
      return;
    }
  }
}

}  // namespace

Support Support::Fact(uint64_t fact_id) {
  Support s;
  s.op = Op::kFact;
  s.fact_id = fact_id;
  return s;
}

Support Support::And(std::vector<Support> args) {
  // Most conjunctions are of distinct claims already (a row's two claims, a
  // witness's facts): kept as given, without the copies below.
  bool as_given = true;
  for (size_t i = 0; i < args.size() && as_given; ++i) {
    as_given = args[i].op != Op::kAnd && !args[i].IsTrue();
    for (size_t j = 0; j < i && as_given; ++j) as_given = !SameFactLeaf(args[j], args[i]);
  }
  if (as_given) return Joined(Op::kAnd, std::move(args));
  std::vector<Support> flat;
  Flatten(Op::kAnd, args, flat);
  std::vector<Support> kept;
  for (Support& a : flat) {
    if (a.IsTrue()) continue;  // needs nothing: drop from a conjunction
    bool dup = false;
    for (const Support& k : kept) dup = dup || SameFactLeaf(k, a);
    if (!dup) kept.push_back(std::move(a));
  }
  return Joined(Op::kAnd, std::move(kept));
}

Support Support::Or(std::vector<Support> args) {
  // Alternatives that are distinct claims (a value several sources state)
  // have nothing to flatten, drop or factor out: kept as given.
  bool as_given = !args.empty();
  for (size_t i = 0; i < args.size() && as_given; ++i) {
    as_given = args[i].op == Op::kFact;
    for (size_t j = 0; j < i && as_given; ++j) as_given = args[j].fact_id != args[i].fact_id;
  }
  if (as_given) return Joined(Op::kOr, std::move(args));
  std::vector<Support> flat;
  Flatten(Op::kOr, args, flat);
  std::vector<Support> kept;
  for (Support& a : flat) {
    // A disjunct that needs nothing makes the whole disjunction need nothing.
    if (a.IsTrue()) return True();
    bool dup = false;
    for (const Support& k : kept) dup = dup || SameFactLeaf(k, a);
    if (!dup) kept.push_back(std::move(a));
  }
  if (kept.empty()) return True();
  if (kept.size() == 1) return std::move(kept.front());
  // Factor out claims every alternative needs: (a and b) or (a and c) is
  // a and (b or c), which says what the row rests on.
  std::vector<uint64_t> common;
  bool first = true;
  for (const Support& a : kept) {
    std::vector<uint64_t> leaves;
    if (a.op == Op::kFact) leaves.push_back(a.fact_id);
    if (a.op == Op::kAnd) {
      for (const Support& x : a.args) {
        if (x.op == Op::kFact) leaves.push_back(x.fact_id);
      }
    }
    std::sort(leaves.begin(), leaves.end());
    if (first) {
      common = leaves;
      first = false;
    } else {
      std::vector<uint64_t> both;
      std::set_intersection(common.begin(), common.end(), leaves.begin(), leaves.end(), std::back_inserter(both));
      common = std::move(both);
    }
  }
  if (!common.empty()) {
    std::vector<Support> rests;
    bool absorbed = false;  // an alternative that is only the common part
    for (Support& a : kept) {
      std::vector<Support> rest;
      if (a.op == Op::kAnd) {
        for (Support& x : a.args) {
          if (!(x.op == Op::kFact && std::binary_search(common.begin(), common.end(), x.fact_id))) {
            rest.push_back(std::move(x));
          }
        }
      }
      if (rest.empty()) absorbed = true;
      rests.push_back(And(std::move(rest)));
    }
    std::vector<Support> parts;
    for (uint64_t id : common) parts.push_back(Fact(id));
    if (!absorbed) parts.push_back(Or(std::move(rests)));
    return And(std::move(parts));
  }
  return Joined(Op::kOr, std::move(kept));
}

std::string Support::ToString() const {
  std::string out;
  AppendText(*this, false, out);
  return out;
}

std::vector<uint64_t> Support::Facts() const {
  std::vector<uint64_t> out;
  std::set<uint64_t> seen;
  std::vector<const Support*> stack = {this};
  // Depth-first, left to right, so numbering follows reading order.
  while (!stack.empty()) {
    const Support* s = stack.back();
    stack.pop_back();
    if (s->op == Op::kFact) {
      if (seen.insert(s->fact_id).second) out.push_back(s->fact_id);
    }
    for (auto it = s->args.rbegin(); it != s->args.rend(); ++it) stack.push_back(&*it);
  }
  return out;
}

namespace {

std::vector<std::vector<uint64_t>> WaysOf(const Support& s, size_t max_witnesses, bool* truncated,
                                          internal::WitnessLists& scratch);
std::vector<std::vector<uint64_t>> GeneralWitnesses(const Support& s, size_t max_witnesses, bool* truncated,
                                                    internal::WitnessLists& scratch);

}  // namespace

// A product of distinct claims ("[1]", "[1] or [2]", "([1] or [2]) and ([3]
// or [4] or [5])"): first factor outermost, as the general case makes it,
// without its temporaries or its search for duplicates (a product of
// distinct claims has none).
bool internal::WitnessLists::AppendProductOfDistinctClaims(const Support& s, size_t max_witnesses) {
  using Op = Support::Op;
  if (s.op == Op::kTrue) return false;
  factors_.clear();  // each a claim or alternatives of claims
  if (s.op == Op::kAnd) {
    for (const Support& a : s.args) factors_.push_back(&a);
  } else {
    factors_.push_back(&s);
  }
  all_.clear();
  size_t product = 1;
  for (const Support* f : factors_) {
    if (f->op == Op::kFact) {
      all_.push_back(f->fact_id);
      continue;
    }
    if (f->op != Op::kOr || f->args.empty()) return false;
    for (const Support& a : f->args) {
      if (a.op != Op::kFact) return false;
      all_.push_back(a.fact_id);
    }
    product *= f->args.size();
    if (product > max_witnesses) return false;
  }
  std::sort(all_.begin(), all_.end());
  if (std::adjacent_find(all_.begin(), all_.end()) != all_.end()) return false;
  auto choices = [](const Support* f) { return f->op == Op::kFact ? size_t{1} : f->args.size(); };
  auto choice = [](const Support* f, size_t i) { return f->op == Op::kFact ? f->fact_id : f->args[i].fact_id; };
  choice_.assign(factors_.size(), 0);  // the choice in each factor, last one fastest
  for (size_t n = 0; n < product; ++n) {
    const size_t begin = ids_.size();
    for (size_t k = 0; k < factors_.size(); ++k) ids_.push_back(choice(factors_[k], choice_[k]));
    std::sort(ids_.begin() + static_cast<std::ptrdiff_t>(begin), ids_.end());
    witness_end_.push_back(ids_.size());
    for (size_t k = factors_.size(); k-- > 0;) {
      if (++choice_[k] < choices(factors_[k])) break;
      choice_[k] = 0;
    }
  }
  list_end_.push_back(witness_end_.size());
  return true;
}

bool internal::WitnessLists::Append(const Support& s, size_t max_witnesses) {
  if (AppendProductOfDistinctClaims(s, max_witnesses)) return false;
  bool truncated = false;
  if (scratch_ == nullptr) scratch_ = std::make_unique<WitnessLists>();
  for (const std::vector<uint64_t>& w : GeneralWitnesses(s, max_witnesses, &truncated, *scratch_)) {
    ids_.insert(ids_.end(), w.begin(), w.end());
    witness_end_.push_back(ids_.size());
  }
  list_end_.push_back(witness_end_.size());
  return truncated;
}

void internal::WitnessLists::Clear() {
  ids_.clear();
  witness_end_.clear();
  list_end_.clear();
}

std::vector<std::vector<uint64_t>> Support::Witnesses(size_t max_witnesses, bool* truncated) const {
  internal::WitnessLists scratch;
  return WaysOf(*this, max_witnesses, truncated, scratch);
}

namespace {

// The witnesses of `s`, with `scratch` (emptied) for a product of distinct
// claims, which the general case below meets at every operand: a fresh list
// each time cost six allocations an operand.
std::vector<std::vector<uint64_t>> WaysOf(const Support& s, size_t max_witnesses, bool* truncated,
                                          internal::WitnessLists& scratch) {
  if (s.op == Support::Op::kTrue) return {std::vector<uint64_t>{}};
  if (s.op == Support::Op::kFact) return {std::vector<uint64_t>{s.fact_id}};
  scratch.Clear();
  if (!scratch.AppendProductOfDistinctClaims(s, max_witnesses)) {
    return GeneralWitnesses(s, max_witnesses, truncated, scratch);
  }
  std::vector<std::vector<uint64_t>> out;
  out.reserve(scratch.size(0));
  for (size_t i = 0; i < scratch.size(0); ++i) {
    const std::span<const uint64_t> w = scratch.at(0, i);
    out.emplace_back(w.begin(), w.end());
  }
  return out;
}

// Any support's witnesses: the ways of its operands combined, duplicates dropped.
std::vector<std::vector<uint64_t>> GeneralWitnesses(const Support& s, size_t max_witnesses, bool* truncated,
                                                    internal::WitnessLists& scratch) {
  using Set = std::vector<uint64_t>;
  using Op = Support::Op;
  // A row's support has a handful of ways to hold (Q3 of the peer benchmark:
  // 205,144 witnesses over 48,000 rows), so duplicates are found by a scan of
  // those kept; a std::set of them, a node per witness, only past a few dozen.
  struct Distinct {
    std::vector<Set>& kept;
    std::set<Set> index;
    bool Add(Set&& w) {
      constexpr size_t kScanUpTo = 32;
      if (kept.size() < kScanUpTo) {
        if (std::find(kept.begin(), kept.end(), w) != kept.end()) return false;
      } else {
        if (index.empty()) index.insert(kept.begin(), kept.end());
        if (!index.insert(w).second) return false;
      }
      kept.push_back(std::move(w));
      return true;
    }
  };
  switch (s.op) {
    case Op::kTrue:
      return {Set{}};
    case Op::kFact:
      return {Set{s.fact_id}};
    case Op::kOr: {
      std::vector<Set> out;
      Distinct distinct{out, {}};
      for (const Support& a : s.args) {
        for (Set& w : WaysOf(a, max_witnesses, truncated, scratch)) {
          if (out.size() >= max_witnesses) {
            *truncated = true;
            return out;
          }
          distinct.Add(std::move(w));
        }
      }
      return out;
    }
    case Op::kAnd: {
      std::vector<Set> acc = {Set{}};
      for (const Support& a : s.args) {
        const std::vector<Set> part = WaysOf(a, max_witnesses, truncated, scratch);
        std::vector<Set> next;
        Distinct distinct{next, {}};
        for (const Set& x : acc) {
          for (const Set& y : part) {
            if (next.size() >= max_witnesses) {
              *truncated = true;
              break;
            }
            Set merged;
            merged.reserve(x.size() + y.size());
            std::set_union(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(merged));
            distinct.Add(std::move(merged));
          }
        }
        acc = std::move(next);
      }
      return acc;
    }
  }
  return {};
}

}  // namespace

}  // namespace chipkg::query
