// trace ENTITY.ATTR: every claim behind a figure, re-read from the stored
// document version, and for a derived figure the formula with each input
// traced the same way.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "query/factcheck.h"
#include "query/factcheck_internal.h"

namespace chipkg::factcheck {

using namespace internal;

namespace {

constexpr size_t kContextBytes = 120;  // text shown either side of a span
constexpr size_t kMaxCombinations = 256;

}  // namespace

TracedClaim internal::TraceFact(Library& library, CitationTable& citations, const Fact& fact) {
  TracedClaim t;
  t.claim = MakeClaim(library, &citations, fact);
  t.citation = citations.list()[t.claim.citation - 1];
  const Provenance& p = fact.provenance;
  const DocumentVersion* v = library.GetVersion(p.document_id, p.document_version);
  if (!v) {
    t.text_problem =
        "version " + std::to_string(p.document_version) + " of " + p.document_id + " is not stored";
  } else if (p.span_end < p.span_begin || p.span_end > v->text.size()) {
    t.text_problem = "span [" + std::to_string(p.span_begin) + ", " + std::to_string(p.span_end) +
                     ") lies outside the stored text (" + std::to_string(v->text.size()) + " bytes)";
  } else {
    const std::string& text = v->text;
    t.at = text.substr(p.span_begin, p.span_end - p.span_begin);
    t.excerpt_verified = t.at == p.excerpt;
    if (!t.excerpt_verified) t.text_problem = "the stored text at the span differs from the recorded excerpt";
    size_t from = Utf8Ceil(text, p.span_begin > kContextBytes ? p.span_begin - kContextBytes : 0);
    size_t to = Utf8Floor(text, std::min(text.size(), static_cast<size_t>(p.span_end) + kContextBytes));
    if (to < p.span_end) to = p.span_end;
    t.before = text.substr(from, p.span_begin - from);
    t.after = text.substr(p.span_end, to - p.span_end);
  }
  if (auto tx = library.GetTransaction(fact.asserted_tx)) {
    t.asserted = *tx;
  } else {
    t.asserted.id = fact.asserted_tx;
  }
  if (library.RetractedAsSeen(fact.retracted_tx) == 0) {
    t.retracted_later = fact.retracted_tx;
    const DocumentVersion* latest = library.LatestVersion(p.document_id);
    if (latest != nullptr && latest->version > p.document_version) t.still_stated_by = *latest;
  } else {
    if (auto tx = library.GetTransaction(fact.retracted_tx)) {
      t.retracted = *tx;
    } else {
      Transaction unknown;
      unknown.id = fact.retracted_tx;
      t.retracted = unknown;
    }
  }
  return t;
}

namespace {

// One way of filling a leaf: claims that agree, with their per-chip number.
struct Choice {
  Qualifiers key;
  double value = 0;
  std::string display;
  std::vector<const Fact*> members;  // cited only when a value uses them
};

struct Leaf {
  const Expr* expr = nullptr;
  std::optional<double> constant;
  // Owns what the choices point at. Moving a Leaf moves the vector's buffer,
  // so the pointers stay valid.
  std::vector<Fact> facts;
  std::vector<Choice> choices;
};

std::vector<int> CiteAll(Library& library, CitationTable& citations, const Choice& choice) {
  std::vector<int> out;
  for (const Fact* f : choice.members) {
    int n = citations.Cite(library, *f);
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

// Clusters numeric claims the way describe does and gives each cluster as a
// choice, except that an estimate stays apart from a stated value it agrees
// with: a figure computed from it carries its basis=estimate mark.
std::vector<Choice> Choices(Library& library, const std::vector<Fact>& facts, const CompareOptions& compare) {
  struct Cluster {
    Qualifiers key;
    const Fact* rep;
    double value;
    std::vector<const Fact*> members;
  };
  std::vector<Cluster> clusters;
  for (const Fact& f : facts) {
    if (library.RetractedAsSeen(f.retracted_tx) != 0) continue;  // as the report's point in time sees it
    std::optional<double> n;
    if (f.value.kind == ValueKind::kQuantity) n = PerChipNumber(f.value, f.qualifiers);
    if (f.value.kind == ValueKind::kBool) n = f.value.number;
    if (!n) continue;  // not published, or a scope that cannot be normalised
    Qualifiers key = ComparisonQualifiers(f.qualifiers, f.value);
    bool placed = false;
    for (auto& c : clusters) {
      if (c.key == key &&
          CompareValues(c.rep->value, c.rep->qualifiers, f.value, f.qualifiers, compare).agree) {
        c.members.push_back(&f);
        placed = true;
        break;
      }
    }
    if (!placed) clusters.push_back({key, &f, *n, {&f}});
  }
  std::vector<Choice> out;
  for (const auto& c : clusters) {
    Choice ch;
    ch.key = c.key;
    ch.value = c.value;
    std::string per_chip = library.PerChipDisplay(c.rep->value, c.rep->qualifiers, c.rep->predicate);
    ch.display = per_chip.empty() ? library.Display(c.rep->value, c.rep->predicate, c.rep->provenance.row < 0, &c.rep->qualifiers)
                                  : per_chip;
    ch.members = c.members;
    out.push_back(std::move(ch));
  }
  return out;
}


// Whether two choices' qualifiers can describe the same figure (no key with two values).
bool Compatible(const Qualifiers& a, const Qualifiers& b) {
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it != b.end() && it->second != v) return false;
  }
  return true;
}

const char* CompareOperator(Expr::Op op) {
  switch (op) {
    case Expr::Op::kLess:
      return "<";
    case Expr::Op::kLessEqual:
      return "<=";
    case Expr::Op::kGreater:
      return ">";
    case Expr::Op::kGreaterEqual:
      return ">=";
    default:
      return "vs";
  }
}

// The dimension a side of a comparison is in: a plain predicate leaf's.
std::string SideDimension(const Schema& schema, const Expr& e) {
  if (e.kind == Expr::Kind::kPredicate) {
    if (const PredicateDef* p = schema.FindPredicate(e.name)) return p->dimension;
    if (const AttributeDef* a = schema.FindAttribute(e.name)) {
      if (const PredicateDef* p = schema.FindPredicate(a->predicate)) return p->dimension;
    }
  }
  return "";
}

}  // namespace

namespace internal {

std::string SupportText(const std::vector<std::vector<int>>& inputs) {
  std::string out;
  for (const auto& alternatives : inputs) {
    if (alternatives.empty()) continue;
    std::string one;
    for (size_t i = 0; i < alternatives.size(); ++i) {
      // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "[" + std::string.
      one.append(i ? " or [" : "[").append(std::to_string(alternatives[i])).append("]");
    }
    if (alternatives.size() > 1 && inputs.size() > 1) one = "(" + one + ")";
    out += (out.empty() ? "" : " and ") + one;
  }
  return out;
}

Result<DerivedTrace> TraceDerivation(
    Library& library, CitationTable& citations, const DerivationDef& derivation, const Entity& subject,
    const std::vector<std::string>& arguments, const Options& options,
    const std::function<Result<std::vector<Fact>>(const EntityId&, const std::string&)>& facts_for,
    bool trace_claims) {
  const Schema& schema = library.schema();
  DerivedTrace d;
  d.name = derivation.name;
  d.formula = derivation.formula;
  if (arguments.size() != derivation.params.size()) {
    std::string params;
    for (size_t i = 0; i < derivation.params.size(); ++i) params += (i ? ", " : "") + derivation.params[i];
    return Status::InvalidArgument(
        derivation.name + " takes " + std::to_string(derivation.params.size()) + " argument" +
        (derivation.params.size() == 1 ? "" : "s") + (params.empty() ? "" : " (" + params + ")") + ", got " +
        std::to_string(arguments.size()) +
        (derivation.params.empty() ? ""
                                   : ", e.g. trainium2." + derivation.name + "(\"Llama 3.1 70B\", int8)"));
  }
  std::map<std::string, std::string> args;
  for (size_t i = 0; i < arguments.size(); ++i) {
    args[derivation.params[i]] = arguments[i];
    d.arguments.emplace_back(derivation.params[i], arguments[i]);
  }
  std::vector<const Expr*> leaf_exprs;
  CollectLeaves(derivation.expr, leaf_exprs);
  std::vector<Leaf> leaves;
  std::map<std::string, Entity> bound;  // param -> entity
  for (const Expr* e : leaf_exprs) {
    Leaf leaf;
    leaf.expr = e;
    DerivedInput input;
    input.leaf = LeafName(*e);
    if (e->kind == Expr::Kind::kTableLookup) {
      std::string key = args[e->param];
      for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      auto table = schema.tables().find(e->name);
      if (table == schema.tables().end()) return Status::NotFound("no table '" + e->name + "' in the schema");
      auto entry = table->second.find(key);
      if (entry == table->second.end()) {
        std::string keys;
        for (const auto& [k, v] : table->second) keys += (keys.empty() ? "" : ", ") + k;
        return Status::InvalidArgument("'" + args[e->param] + "' is not a " + e->param + " of " + e->name +
                                       " (one of " + keys + ")");
      }
      leaf.constant = entry->second;
      input.about = key;
      input.constant = entry->second;
    } else {
      EntityId about = subject.id;
      std::string predicate = e->name;
      Qualifiers fixed;
      if (e->kind == Expr::Kind::kParamPredicate) {
        auto it = bound.find(e->param);
        if (it == bound.end()) {
          auto ent = FindEntityByName(library.store(), schema, args[e->param]);
          if (!ent.ok()) return ent.status().WithContext(derivation.name + " argument " + e->param);
          it = bound.emplace(e->param, *ent).first;
        }
        about = it->second.id;
      }
      if (const AttributeDef* a = schema.FindAttribute(predicate)) {
        predicate = a->predicate;
        fixed = a->qualifiers;
      }
      input.about = library.EntityName(about);
      auto facts = facts_for(about, predicate);
      if (!facts.ok()) return facts.status();
      std::vector<Fact> kept;
      for (Fact& f : *facts) {
        if (HasQualifiers(f.qualifiers, fixed)) kept.push_back(std::move(f));
      }
      if (trace_claims) {
        for (const Fact& f : kept) input.claims.push_back(TraceFact(library, citations, f));
      }
      leaf.facts = std::move(kept);
      leaf.choices = Choices(library, leaf.facts, options.compare);
      if (leaf.choices.empty()) {
        d.missing += (d.missing.empty() ? "" : "; ") + std::string("no figure for ") + input.about + " " +
                     LeafName(*e);
      }
    }
    d.inputs.push_back(std::move(input));
    leaves.push_back(std::move(leaf));
  }
  if (!d.missing.empty()) return d;

  // Every combination of one choice per leaf whose qualifiers agree.
  std::vector<size_t> pick(leaves.size(), 0);
  size_t combos = 0;
  bool compare_top = derivation.expr.kind == Expr::Kind::kCompare && derivation.expr.operands.size() == 2;
  while (combos < kMaxCombinations) {
    Qualifiers merged;
    bool ok = true;
    for (size_t i = 0; i < leaves.size() && ok; ++i) {
      if (leaves[i].constant) continue;
      const Choice& c = leaves[i].choices[pick[i]];
      if (!Compatible(merged, c.key)) ok = false;
      for (const auto& [k, v] : c.key) merged[k] = v;
    }
    if (ok) {
      auto value_of = [&](const Expr& leaf) -> std::optional<double> {
        for (size_t i = 0; i < leaves.size(); ++i) {
          if (LeafName(*leaves[i].expr) != LeafName(leaf)) continue;
          if (leaves[i].constant) return leaves[i].constant;
          return leaves[i].choices[pick[i]].value;
        }
        return std::nullopt;
      };
      auto show = [&](const Expr& leaf) -> std::string {
        for (size_t i = 0; i < leaves.size(); ++i) {
          if (LeafName(*leaves[i].expr) != LeafName(leaf)) continue;
          if (leaves[i].constant) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%g", *leaves[i].constant);
            return buf;
          }
          return leaves[i].choices[pick[i]].display;
        }
        return LeafName(leaf);
      };
      auto v = EvaluateExpr(derivation.expr, value_of);
      if (v) {
        DerivedValue out;
        out.qualifiers = merged;
        out.value = *v;
        out.working = RenderExpr(derivation.expr, show);
        if (compare_top) {
          const Expr& lhs = derivation.expr.operands[0];
          const Expr& rhs = derivation.expr.operands[1];
          std::string dim = SideDimension(schema, rhs);
          if (dim.empty()) dim = SideDimension(schema, lhs);
          auto l = EvaluateExpr(lhs, value_of);
          auto r = EvaluateExpr(rhs, value_of);
          out.display = *v != 0 ? "yes" : "no";
          if (l && r && !dim.empty()) {
            out.working += std::string(" \xE2\x86\x92 ") + library.FormatCanonical(*l, dim) + " " +
                           CompareOperator(derivation.expr.op) + " " + library.FormatCanonical(*r, dim);
          }
        } else {
          std::string unit = derivation.display_unit;
          std::string dim = derivation.result_dimension;
          std::string shown = dim.empty() ? "" : library.schema().FormatQuantity(*v, dim, unit, &merged);
          if (shown.empty()) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.4g", *v);
            shown = buf;
          }
          out.display = shown;
        }
        for (size_t i = 0; i < leaves.size(); ++i) {
          if (!leaves[i].constant)
            out.inputs.push_back(CiteAll(library, citations, leaves[i].choices[pick[i]]));
        }
        out.support = SupportText(out.inputs);
        d.values.push_back(std::move(out));
      }
    }
    combos++;
    // Next combination (odometer over the leaves' choices).
    size_t i = 0;
    for (; i < leaves.size(); ++i) {
      size_t n = leaves[i].constant ? 1 : leaves[i].choices.size();
      if (++pick[i] < n) break;
      pick[i] = 0;
    }
    if (i == leaves.size()) break;
  }
  return d;
}

}  // namespace internal

Result<TraceReport> Trace(const Store& store, const Schema& schema, const std::string& target,
                          const Options& options) {
  auto t = ParseTarget(store, schema, target);
  if (!t.ok()) return t.status();
  CHIPKG_RETURN_IF_ERROR(CheckStoredThen(t->entity, options.view));
  Library library(store, schema, options.view.as_of_tx);
  CitationTable citations;
  TraceReport report;
  report.entity = t->entity;
  report.attribute = t->attribute;
  report.predicate = t->predicate;
  report.fixed = t->fixed;
  Qualifiers filter = t->fixed;
  if (t->derivation && !t->arguments.empty() && t->arguments.size() == t->derivation->params.size()) {
    // trace X.fits("Llama 3.1 70B", int8) shows the page marks for that model
    // and format only: bind each argument to the qualifier the marks carry.
    std::vector<const Expr*> leaves;
    CollectLeaves(t->derivation->expr, leaves);
    for (size_t i = 0; i < t->arguments.size(); ++i) {
      const std::string& param = t->derivation->params[i];
      std::string value = t->arguments[i];
      bool entity = std::any_of(leaves.begin(), leaves.end(), [&](const Expr* e) {
        return e->kind == Expr::Kind::kParamPredicate && e->param == param;
      });
      if (entity) {
        auto e = FindEntityByName(store, schema, value);
        if (!e.ok()) return e.status().WithContext(t->derivation->name + " argument " + param);
        value = e->id;
      } else {
        for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
      filter[schema.QualifierOfParameter(param)] = value;
    }
  }
  if (!t->predicate.empty()) {
    // Retracted claims are part of the trace: what was said, and when it was withdrawn.
    ReadView view = options.view;
    view.include_retracted = true;
    auto facts = store.FactsAbout(t->entity.id, t->predicate, view);
    if (!facts.ok()) return facts.status().WithContext("facts about " + t->entity.id + "." + t->predicate);
    std::stable_sort(facts->begin(), facts->end(), [](const Fact& a, const Fact& b) {
      return std::tie(a.provenance.document_id, a.provenance.document_version, a.provenance.span_begin,
                      a.id) <
             std::tie(b.provenance.document_id, b.provenance.document_version, b.provenance.span_begin, b.id);
    });
    for (const Fact& f : *facts) {
      if (HasQualifiers(f.qualifiers, filter)) {
        report.claims.push_back(TraceFact(library, citations, f));
      } else {
        ++report.set_aside;
      }
    }
  }
  if (t->derivation && (t->predicate.empty() || t->derivation->params.empty() || t->call)) {
    auto facts_for = [&](const EntityId& about, const std::string& predicate) {
      return store.FactsAbout(about, predicate, options.view);
    };
    auto d = TraceDerivation(library, citations, *t->derivation, t->entity, t->arguments, options, facts_for,
                             /*trace_claims=*/true);
    if (!d.ok()) return d.status();
    // The computed figures the qualifiers asked for (perf_per_watt{basis=stated}
    // listed the figure computed from an estimated TDP), a figure that does
    // not say a key read as a query reads it.
    std::erase_if(d->values, [&](const DerivedValue& v) {
      for (const auto& [k, want] : t->fixed) {
        auto it = v.qualifiers.find(k);
        if (it != v.qualifiers.end() ? it->second != want
                                     : (k == qualifier::kBasis && want != "stated") ||
                                           (k == qualifier::kScope && want != "chip") ||
                                           (k == qualifier::kSparsity && want != "dense")) {
          return true;
        }
      }
      return false;
    });
    report.derived = std::move(*d);
  }
  CHIPKG_RETURN_IF_ERROR(library.failure());
  return report;
}

}  // namespace chipkg::factcheck
