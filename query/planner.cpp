#include "query/planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace chipkg::query {
namespace {

// How much a path narrows the search, smaller is better: exact value
// indexes first, then the computed range, then "has the attribute at all".
int Rank(const AccessPath& p) {
  switch (p.kind) {
    case AccessPath::Kind::kRange:
    case AccessPath::Kind::kNotPublished:
    case AccessPath::Kind::kReferencing:
      return 1;
    case AccessPath::Kind::kDerivedRange:
      return 2;
    case AccessPath::Kind::kSubjectsWith:
      return 3;
    case AccessPath::Kind::kUnion: {
      int worst = 1;
      for (const AccessPath& c : p.parts) worst = std::max(worst, Rank(c));
      return worst + 1;
    }
    case AccessPath::Kind::kKindScan:
      return 9;
  }
  return 9;
}

bool ReadsSubject(const Expr& e) {
  if (e.kind == Expr::Kind::kPredicate) return true;
  for (const Expr& o : e.operands) {
    if (ReadsSubject(o)) return true;
  }
  return false;
}

std::optional<AccessPath> ForOneComparison(const BoundCondition& c) {
  const BoundAttribute& a = c.attribute;
  if (a.predicate == nullptr || a.derivation != nullptr) return std::nullopt;  // computed values are in no index
  AccessPath p;
  p.predicate = a.predicate->name;
  p.attribute = a.label;
  p.misses_unknown = true;
  const bool from_below = c.op == CompareOp::kGe || c.op == CompareOp::kGt || c.op == CompareOp::kEq;
  if (a.type == ValueKind::kQuantity && from_below) {
    p.kind = AccessPath::Kind::kRange;
    double lower = c.value.number;
    if (c.op == CompareOp::kEq) lower -= EqualityHalfWidth(lower);  // the evaluator's equality allows that much
    // `>=` holds for a figure a rounding below the bound ("4.1 GB" is stored
    // as 4.1 x 1e9, a hair under `4100 MB`'s 4.1e9); twice that, so that the
    // subtraction's own rounding cannot leave it out.
    if (c.op == CompareOp::kGe) lower -= 2 * kNumbersAlikeWithin * std::abs(lower);
    p.range.lower = Value::Quantity(lower, c.value.dimension, "");
    p.range.kind = ValueKind::kQuantity;
    return p;
  }
  if (a.type == ValueKind::kDate && from_below) {
    p.kind = AccessPath::Kind::kRange;
    // A year-precision claim starts up to a year before a bound it may match.
    p.range.lower = Value::OfDate(Date::FromDays(c.value.date.FirstDay() - 366), "");
    p.range.kind = ValueKind::kDate;
    return p;
  }
  if (a.type == ValueKind::kEntity && c.op == CompareOp::kEq) {
    p.kind = AccessPath::Kind::kReferencing;
    p.object = c.value.entity;
    return p;
  }
  p.kind = AccessPath::Kind::kSubjectsWith;
  return p;
}

// Whether range `p` starts above range `q`, both from a bound up.
bool StartsHigher(const AccessPath& p, const AccessPath& q) {
  if (p.kind != AccessPath::Kind::kRange || q.kind != AccessPath::Kind::kRange || !p.range.lower || !q.range.lower ||
      p.range.lower->kind != q.range.lower->kind) {
    return false;
  }
  if (p.range.lower->kind == ValueKind::kDate) return p.range.lower->date.FirstDay() > q.range.lower->date.FirstDay();
  return p.range.lower->number > q.range.lower->number;
}

// Comparisons one claim must meet together: any one's path finds every
// candidate, so the narrowest.
std::optional<AccessPath> ForComparison(const BoundCondition& c) {
  std::optional<AccessPath> best = ForOneComparison(c);
  for (const BoundCondition& also : c.same_claim) {
    std::optional<AccessPath> p = ForOneComparison(also);
    if (p && (!best || Rank(*p) < Rank(*best) || (Rank(*p) == Rank(*best) && StartsHigher(*p, *best)))) {
      best = std::move(p);
    }
  }
  return best;
}

std::optional<AccessPath> ForCall(const BoundCall& call) {
  if (call.builtin != BoundCall::Builtin::kNone) {
    const BoundAttribute& a = call.attribute;
    if (a.predicate == nullptr || a.derivation != nullptr) return std::nullopt;
    AccessPath p;
    p.predicate = a.predicate->name;
    switch (call.builtin) {
      case BoundCall::Builtin::kNotPublished:
        p.kind = AccessPath::Kind::kNotPublished;
        p.range.kind = ValueKind::kNotPublished;
        return p;
      case BoundCall::Builtin::kReported:
      case BoundCall::Builtin::kConflicting:
        p.kind = AccessPath::Kind::kSubjectsWith;
        return p;
      case BoundCall::Builtin::kUnknown:
      case BoundCall::Builtin::kNone:
        return std::nullopt;
    }
    return std::nullopt;
  }
  const Expr& e = call.derivation->expr;
  if (e.kind != Expr::Kind::kCompare || e.operands.size() != 2) return std::nullopt;
  for (size_t side = 0; side < 2; ++side) {
    const Expr& subject = e.operands[side];
    const Expr& other = e.operands[1 - side];
    if (subject.kind != Expr::Kind::kPredicate || ReadsSubject(other)) continue;
    // The subject side must be bounded from below: other <= subject, or subject >= other.
    const bool below = side == 1 ? (e.op == Expr::Op::kLessEqual || e.op == Expr::Op::kLess)
                                 : (e.op == Expr::Op::kGreaterEqual || e.op == Expr::Op::kGreater);
    AccessPath p;
    p.predicate = subject.name;
    p.attribute = subject.name;  // a formula term: a predicate or a view (FormulaAttribute)
    p.misses_unknown = true;
    if (!below) {
      p.kind = AccessPath::Kind::kSubjectsWith;
      return p;
    }
    p.kind = AccessPath::Kind::kDerivedRange;
    p.call = &call;
    p.subject_side = side;
    return p;
  }
  return std::nullopt;
}

std::string Number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::optional<AccessPath> ChooseAccessPath(const BoundCondition& c) {
  switch (c.kind) {
    case Condition::Kind::kComparison:
      return ForComparison(c);
    case Condition::Kind::kCall:
      return ForCall(c.call);
    case Condition::Kind::kNot:
      return std::nullopt;
    case Condition::Kind::kAnd: {
      std::optional<AccessPath> best;
      for (const BoundCondition& child : c.children) {
        std::optional<AccessPath> p = ChooseAccessPath(child);
        if (p && (!best || Rank(*p) < Rank(*best))) best = std::move(p);
      }
      return best;
    }
    case Condition::Kind::kOr: {
      AccessPath u;
      u.kind = AccessPath::Kind::kUnion;
      for (const BoundCondition& child : c.children) {
        std::optional<AccessPath> p = ChooseAccessPath(child);
        if (!p) return std::nullopt;
        u.misses_unknown = u.misses_unknown || p->misses_unknown;
        u.parts.push_back(std::move(*p));
      }
      return u;
    }
  }
  return std::nullopt;
}

std::vector<std::string> AccessPath::UnknownWithout() const {
  std::vector<std::string> out;
  if (!misses_unknown) return out;
  if (kind != Kind::kUnion) return {attribute.empty() ? predicate : attribute};
  for (const AccessPath& part : parts) {
    for (std::string& p : part.UnknownWithout()) {
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(std::move(p));
    }
  }
  return out;
}

std::string AccessPath::Describe(const std::string& kind_name) const {
  switch (kind) {
    case Kind::kKindScan:
      return "scan of every " + kind_name;
    case Kind::kRange: {
      std::string bound;
      if (range.lower) {
        bound = range.lower->kind == ValueKind::kDate ? range.lower->date.ToString()
                                                      : Number(range.lower->number) + " " + range.lower->dimension;
      }
      return "index range scan " + predicate + " >= " + bound;
    }
    case Kind::kNotPublished:
      return "index scan " + predicate + " = not published";
    case Kind::kReferencing:
      return "index scan " + predicate + " = " + object;
    case Kind::kDerivedRange:
      return "index range scan " + predicate + " from " + (call != nullptr ? call->label : std::string("?"));
    case Kind::kSubjectsWith:
      return "index scan of subjects with " + predicate;
    case Kind::kUnion: {
      std::string out = "union of (";
      for (size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i].Describe(kind_name);
      return out + ")";
    }
  }
  return "?";
}

double EqualityHalfWidth(double asked) {
  if (asked == 0 || !std::isfinite(asked)) return 0;
  return 0.5 * std::pow(10.0, std::floor(std::log10(std::abs(asked))) - 3);
}

}  // namespace chipkg::query
