// verify [DOCUMENT]: recompute every figure a document derives itself and
// say whether the document's own arithmetic holds.
//
// How a stated-derived figure is recomputed, first that applies:
//  1. models_fitting {format}: count the models the document tracks (those it
//     gives a parameter count for) that the schema's `fits` rule passes with
//     the document's own memory figure.
//  2. weight_memory {format}: the left side of `fits` (parameters x bytes per
//     parameter) for the model.
//  3. A dataset cell (rule "dataset:NAME") whose formula names columns of
//     that dataset ("Max performance / TDP (W)"): evaluated on the same row.
//  4. A predicate with a schema `derive` rule of the same name
//     (perf_per_watt, price_per_chip_hour, fits): the rule on the document's
//     own inputs (other sources only when the document states none).
//  5. The page's own formula as written ("210 TFLOPS ÷ 500 W").
// A figure is confirmed when the recomputation rounds to the number shown
// (half a unit of the last digit written; see CheckRounded), or lies within
// the --tolerance given.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#include "query/factcheck.h"
#include "query/factcheck_internal.h"

namespace chipkg::factcheck {

using namespace internal;

namespace {


// ---- a small evaluator for formulas as documents write them -----------------
//
//   expr    := term { ("+" | "-") term }
//   term    := factor { ("*" | "/" | "×" | "÷") factor }
//   factor  := "(" expr ")" | ("max" | "min") "(" expr { "," expr } ")" | OPERAND
//
// An OPERAND is whatever the caller's matcher recognises at that point (a
// quantity with a unit, a column header); a bare number is the fallback.

struct Operand {
  std::optional<double> value;  // nullopt: the operand names something with no figure
  std::string display;
  std::string name;
  std::vector<int> citations;
};

using Matcher = std::function<std::optional<std::pair<size_t, Operand>>(const std::string& text, size_t pos)>;

class TextFormula {
 public:
  TextFormula(const std::string& text, Matcher match) : text_(text), match_(std::move(match)) {}

  // The value, or an error saying where the formula could not be read or
  // which operand had no figure.
  Result<double> Evaluate() {
    auto v = Expression(0);
    if (!v.ok()) return v;
    Skip();
    if (pos_ != text_.size()) return Error("unexpected '" + text_.substr(pos_, 12) + "'");
    return v;
  }
  const std::vector<Operand>& operands() const { return operands_; }

 private:
  static constexpr int kMaxDepth = 32;

  Status Error(const std::string& what) const {
    return Status::InvalidArgument("formula \"" + text_ + "\" at byte " + std::to_string(pos_) + ": " + what);
  }
  void Skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) pos_++;
  }
  bool Take(const char* token) {
    Skip();
    size_t n = std::strlen(token);
    if (text_.compare(pos_, n, token) == 0) {
      pos_ += n;
      return true;
    }
    return false;
  }
  Result<double> Expression(int depth) {
    if (depth > kMaxDepth) return Error("nested too deeply");
    auto left = Term(depth);
    if (!left.ok()) return left;
    double v = *left;
    for (;;) {
      bool add = Take("+");
      if (!add && !Take("-")) break;
      auto right = Term(depth);
      if (!right.ok()) return right;
      v = add ? v + *right : v - *right;
    }
    return v;
  }
  Result<double> Term(int depth) {
    auto left = Factor(depth);
    if (!left.ok()) return left;
    double v = *left;
    for (;;) {
      bool mul = Take("*") || Take("\xC3\x97");
      bool div = !mul && (Take("/") || Take("\xC3\xB7"));
      if (!mul && !div) break;
      auto right = Factor(depth);
      if (!right.ok()) return right;
      if (div && *right == 0) return Error("division by zero");
      v = mul ? v * *right : v / *right;
    }
    return v;
  }
  Result<double> Factor(int depth) {
    Skip();
    if (Take("(")) {
      auto v = Expression(depth + 1);
      if (!v.ok()) return v;
      if (!Take(")")) return Error("expected ')'");
      return v;
    }
    for (const char* fn : {"max(", "min(", "max (", "min ("}) {
      if (!Take(fn)) continue;
      bool is_max = fn[1] == 'a';
      std::optional<double> best;
      do {
        size_t before = pos_;
        auto v = Expression(depth + 1);
        if (!v.ok()) {
          // An argument with no figure is skipped: max over what is known.
          if (v.status().message().find("no figure") == std::string::npos) return v;
          pos_ = before;
          if (!SkipArgument()) return Error("expected ')'");
          continue;
        }
        if (!best || (is_max ? *v > *best : *v < *best)) best = *v;
      } while (Take(","));
      if (!Take(")")) return Error("expected ')'");
      if (!best) return Error("no figure for any argument of " + std::string(is_max ? "max" : "min"));
      return *best;
    }
    if (auto m = match_(text_, pos_)) {
      pos_ += m->first;
      operands_.push_back(m->second);
      if (!m->second.value) return Error("no figure for '" + m->second.name + "'");
      return *m->second.value;
    }
    if (pos_ < text_.size() &&
        (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) {
      size_t end = NumberEnd(pos_);
      auto w = ParseWrittenNumber(text_.substr(pos_, end - pos_));
      if (!w) return Error("expected a number");
      Operand o;
      o.value = w->value;
      o.name = text_.substr(pos_, end - pos_);
      o.display = o.name;
      pos_ = end;
      // Words after a bare number name what it counts ("16 chips"): skipped
      // up to the next operator, comma or parenthesis.
      size_t p = pos_;
      while (p < text_.size() &&
             (std::isalpha(static_cast<unsigned char>(text_[p])) || text_[p] == ' ' || text_[p] == '-')) {
        p++;
      }
      if (p > pos_ && (p == text_.size() || std::strchr("+*/(),", text_[p]) ||
                       text_.compare(p, 2, "\xC3\x97") == 0 || text_.compare(p, 2, "\xC3\xB7") == 0)) {
        pos_ = p;
      }
      operands_.push_back(o);
      return *o.value;
    }
    return Error("expected a figure");
  }
  // End of a number written at `p`: digits, a thousands separator only
  // before exactly three digits, one decimal point, an exponent.
  size_t NumberEnd(size_t p) const {
    auto digit = [&](size_t i) {
      return i < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i]));
    };
    bool point = false;
    while (p < text_.size()) {
      if (digit(p)) {
        p++;
      } else if (text_[p] == ',' && !point && digit(p + 1) && digit(p + 2) && digit(p + 3) && !digit(p + 4)) {
        p++;
      } else if (text_[p] == '.' && !point && digit(p + 1)) {
        point = true;
        p++;
      } else {
        break;
      }
    }
    if (p < text_.size() && (text_[p] == 'e' || text_[p] == 'E')) {
      size_t q = p + 1;
      if (q < text_.size() && (text_[q] == '+' || text_[q] == '-')) q++;
      if (digit(q)) {
        while (digit(q)) q++;
        p = q;
      }
    }
    return p;
  }
  // Skips one argument of max/min up to the next top-level ',' or ')'.
  bool SkipArgument() {
    int depth = 0;
    for (; pos_ < text_.size(); ++pos_) {
      char c = text_[pos_];
      if (c == '(') depth++;
      if (c == ')' && depth-- == 0) return true;
      if (c == ',' && depth == 0) return true;
    }
    return false;
  }

  const std::string& text_;
  Matcher match_;
  size_t pos_ = 0;
  std::vector<Operand> operands_;
};

// "Max performance = 256 TFLOPS, Release price (USD) = 2080 USD": the named inputs, not the constants.
std::string Join(const std::vector<Operand>& operands) {
  std::string out;
  for (const auto& o : operands) {
    if (o.name == o.display) continue;
    out += (out.empty() ? "" : ", ") + o.name + " = " + o.display;
  }
  return out;
}

// Reads everything a document says once, for looking inputs up.
struct DocumentFacts {
  std::vector<Fact> facts;  // live facts of one version
  std::vector<const Fact*> Find(const EntityId& subject, const std::string& predicate) const {
    std::vector<const Fact*> out;
    for (const Fact& f : facts) {
      if (f.subject == subject && f.predicate == predicate) out.push_back(&f);
    }
    return out;
  }
};

class Verifier {
 public:
  Verifier(Library& library, CitationTable& citations, const Options& options, double extra_tolerance)
      : library_(library), citations_(citations), options_(options), extra_(extra_tolerance) {}

  VerifyItem Check(const Fact& fact, const DocumentFacts& doc) {
    VerifyItem item;
    item.subject = fact.subject;
    item.subject_name = library_.EntityName(fact.subject);
    item.predicate = fact.predicate;
    item.qualifiers = fact.qualifiers;
    item.stated = MakeClaim(library_, &citations_, fact);
    const Schema& schema = library_.schema();
    const std::string& rule = fact.provenance.rule;
    bool done = false;
    if (fact.predicate == "models_fitting") {
      done = CountFits(fact, doc, item);
    } else if (fact.predicate == "weight_memory") {
      done = WeightMemory(fact, doc, item);
    }
    if (const std::string dataset = Schema::DatasetOfRule(rule);
        !done && !dataset.empty() && !fact.provenance.formula.empty()) {
      done = DatasetFormula(fact, doc, dataset, item);
    }
    if (!done) {
      if (const DerivationDef* d = schema.FindDerivation(fact.predicate)) done = Rule(fact, doc, *d, item);
    }
    if (!done && !fact.provenance.formula.empty()) done = LiteralFormula(fact, item);
    if (!done) {
      item.status = "unverifiable";
      if (item.reason.empty()) {
        item.reason =
            "no way to recompute " + fact.predicate + ": no derive rule, and the document gives no formula";
      }
    }
    return item;
  }

 private:
  // Sets status from a recomputed number against the stated one.
  void Judge(const Fact& fact, double recomputed, VerifyItem& item) {
    item.recomputed = recomputed;
    const Value& v = fact.value;
    if (v.kind == ValueKind::kBool || (v.kind == ValueKind::kQuantity && v.dimension == "count")) {
      // Marks and counts are exact: there is no rounding to allow for.
      bool mark = v.kind == ValueKind::kBool;
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", recomputed);
      item.recomputed_display = mark ? (recomputed != 0 ? "yes" : "no") : buf;
      item.check.confirmed = mark ? (recomputed != 0) == (v.number != 0) : recomputed == v.number;
      item.check.rule = "exact";
      item.check.relative_difference = item.check.confirmed ? 0 : 1;
    } else {
      std::string dim = v.dimension;
      item.recomputed_display = v.kind == ValueKind::kQuantity
                                    ? library_.FormatCanonical(recomputed, dim, fact.predicate, &fact.qualifiers)
                                    : std::to_string(recomputed);
      const std::string& as_written = v.original.empty() ? fact.provenance.excerpt : v.original;
      auto written = ParseWrittenNumber(as_written);
      item.check = CheckRounded(v.number, written, recomputed, extra_);
      // A dataset cell's digits are in the file's unit, not the one shown
      // ("1 decimal shown: ±0.05" beside "2.403 TOPS/W" read as ±0.05 TOPS/W).
      if (fact.provenance.row >= 0 && written && item.check.rule != "exact") {
        item.check.rule += " in the cell as written, " + as_written;
      }
    }
    item.status = item.check.confirmed ? "confirmed" : "mismatch";
    if (!item.check.confirmed) {
      item.reason = std::string(GivenAs(item)) + " " + item.stated.display + ", recomputed " + item.recomputed_display + " (" +
                    FormatRelative(item.check.relative_difference) + " apart; the digits shown allow " +
                    FormatRelative(item.check.relative_tolerance) + ")";
    }
  }

  // The document's own claims of `predicate` about `subject`, else every
  // source's (noted in `item.method`).
  Result<std::vector<Fact>> Inputs(const EntityId& subject, const std::string& predicate,
                                   const DocumentFacts& doc, VerifyItem& item) {
    std::vector<Fact> out;
    for (const Fact* f : doc.Find(subject, predicate)) out.push_back(*f);
    if (!out.empty()) return out;
    auto all = library_.store().FactsAbout(subject, predicate, options_.view);
    if (!library_.NoteStoreRead(all.status())) return all.status();
    if (!all->empty() && item.method.find("other sources") == std::string::npos) {
      item.method += " (some inputs from other sources: the document does not state them)";
    }
    return std::move(*all);
  }

  // A figure stated for one format is recomputed from inputs of that format.
  static bool FitsKey(const Fact& fact, const DerivedValue& v) {
    const Qualifiers key = ComparisonQualifiers(fact.qualifiers, fact.value);
    for (const auto& [k, val] : v.qualifiers) {
      auto it = key.find(k);
      if (it != key.end() && it->second != val) return false;
    }
    return true;
  }

  // Picks the derived value that matches the stated figure, else the closest.
  bool Conclude(const Fact& fact, const DerivedTrace& d, VerifyItem& item) {
    if (!d.missing.empty() || d.values.empty()) {
      item.reason = d.missing.empty() ? "the inputs cannot be combined" : d.missing;
      return false;
    }
    const DerivedValue* best = nullptr;
    double best_diff = std::numeric_limits<double>::infinity();
    for (const DerivedValue& v : d.values) {
      if (!FitsKey(fact, v)) continue;
      double diff = std::fabs(v.value - fact.value.number);
      if (!best || diff < best_diff) {
        best = &v;
        best_diff = diff;
      }
    }
    if (!best) {
      item.reason = "no input matches the qualifiers " + QualifiersToString(fact.qualifiers);
      return false;
    }
    item.working = best->working;
    for (const auto& alternatives : best->inputs) {
      for (int n : alternatives) item.input_citations.push_back(n);
    }
    item.working_inputs = best->inputs;
    Judge(fact, best->value, item);
    if (item.status != "confirmed") return true;
    constexpr size_t kMostOtherReadings = 3;
    for (const DerivedValue& v : d.values) {
      if (&v == best || item.other_readings.size() == kMostOtherReadings || !FitsKey(fact, v)) continue;
      VerifyItem other = item;
      other.reason.clear();
      Judge(fact, v.value, other);
      if (other.status == "confirmed") continue;
      const bool seen = std::any_of(item.other_readings.begin(), item.other_readings.end(),
                                    [&](const VerifyItem::OtherReading& r) {
                                      return r.recomputed_display == other.recomputed_display;
                                    });
      if (!seen) item.other_readings.push_back({v.working, other.recomputed_display, v.inputs});
    }
    return true;
  }

  std::vector<std::string> ArgumentsFor(const Fact& fact, const DerivationDef& d, VerifyItem& item) {
    std::vector<std::string> args;
    for (const auto& param : d.params) {
      auto it = fact.qualifiers.find(library_.schema().QualifierOfParameter(param));
      if (it == fact.qualifiers.end()) {
        item.reason = "the claim has no " + library_.schema().QualifierOfParameter(param) + " qualifier for " +
                      d.name + "'s " + param;
        return {};
      }
      args.push_back(it->second);
    }
    return args;
  }

  bool Rule(const Fact& fact, const DocumentFacts& doc, const DerivationDef& d, VerifyItem& item) {
    item.method = d.name + (d.params.empty() ? "" : "(" + Params(d) + ")") + " = " + d.formula;
    auto args = ArgumentsFor(fact, d, item);
    if (args.size() != d.params.size()) return false;
    auto subject = library_.store().GetEntity(fact.subject);
    Entity e;
    if (library_.NoteStoreRead(subject.status())) e = *subject;
    e.id = fact.subject;
    auto facts_for = [&](const EntityId& about, const std::string& predicate) {
      return Inputs(about, predicate, doc, item);
    };
    auto traced = TraceDerivation(library_, citations_, d, e, args, options_, facts_for, false);
    if (!library_.NoteStoreRead(traced.status())) {
      item.reason = traced.status().message();
      return false;
    }
    return Conclude(fact, *traced, item);
  }

  static std::string Params(const DerivationDef& d) {
    std::string out;
    for (size_t i = 0; i < d.params.size(); ++i) out += (i ? ", " : "") + d.params[i];
    return out;
  }

  // The models a document tracks: the LLMs it gives a parameter count for,
  // else those it marks in a fit table.
  std::vector<EntityId> TrackedModels(const DocumentFacts& doc) {
    std::vector<EntityId> out;
    std::set<EntityId> seen;
    for (const Fact& f : doc.facts) {
      if (f.predicate == "parameters" && seen.insert(f.subject).second) out.push_back(f.subject);
    }
    if (!out.empty()) return out;
    for (const Fact& f : doc.facts) {
      auto m = f.qualifiers.find("model");
      if (f.predicate == "fits" && m != f.qualifiers.end() && seen.insert(m->second).second)
        out.push_back(m->second);
    }
    return out;
  }

  bool CountFits(const Fact& fact, const DocumentFacts& doc, VerifyItem& item) {
    const DerivationDef* fits = library_.schema().FindDerivation("fits");
    auto format = fact.qualifiers.find(qualifier::kFormat);
    if (!fits || fits->params.size() != 2 || format == fact.qualifiers.end()) {
      item.reason = !fits ? "the schema has no fits rule" : "the count has no format qualifier";
      return false;
    }
    item.method = "count of tracked models for which " + fits->formula + " at " + format->second;
    auto models = TrackedModels(doc);
    if (models.empty()) {
      item.reason = "the document tracks no models (no parameter counts or fit marks)";
      return false;
    }
    auto subject = library_.store().GetEntity(fact.subject);
    Entity chip;
    if (library_.NoteStoreRead(subject.status())) chip = *subject;
    chip.id = fact.subject;
    auto facts_for = [&](const EntityId& about, const std::string& predicate) {
      return Inputs(about, predicate, doc, item);
    };
    size_t count = 0, evaluated = 0, marked = 0;
    std::string fitting;
    // Which parameter takes the model (an entity) and which the format (a table key).
    std::vector<const Expr*> leaves;
    CollectLeaves(fits->expr, leaves);
    std::vector<bool> is_model;
    for (const auto& param : fits->params) {
      bool entity = false;
      for (const Expr* e : leaves) entity |= e->kind == Expr::Kind::kParamPredicate && e->param == param;
      is_model.push_back(entity);
    }
    for (const EntityId& m : models) {
      // Models are bound by id: FindEntityByName takes ids too.
      std::vector<std::string> args;
      for (bool entity : is_model) args.push_back(entity ? m : format->second);
      auto d = TraceDerivation(library_, citations_, *fits, chip, args, options_, facts_for, false);
      if (!library_.NoteStoreRead(d.status()) || d->values.empty()) continue;
      evaluated++;
      const DerivedValue& v = d->values.front();
      if (v.value != 0) {
        count++;
        if (count <= 4) fitting += (fitting.empty() ? "" : ", ") + library_.EntityName(m);
      }
      for (const auto& alternatives : v.inputs) {
        for (int n : alternatives) {
          if (std::find(item.input_citations.begin(), item.input_citations.end(), n) ==
              item.input_citations.end()) {
            item.input_citations.push_back(n);
          }
        }
      }
    }
    for (const Fact& f : doc.facts) {
      auto fmt = f.qualifiers.find(qualifier::kFormat);
      if (f.subject == fact.subject && f.predicate == "fits" && fmt != f.qualifiers.end() &&
          fmt->second == format->second && f.value.kind == ValueKind::kBool && f.value.number != 0) {
        marked++;
      }
    }
    if (evaluated == 0) {
      item.reason = "no tracked model could be evaluated (parameters or memory missing)";
      return false;
    }
    item.working = std::to_string(count) + " of " + std::to_string(evaluated) + " tracked models fit at " +
                   format->second +
                   (fitting.empty() ? "" : " (" + fitting + (count > 4 ? ", ..." : "") + ")") +
                   "; the document's own table marks " + std::to_string(marked);
    Judge(fact, static_cast<double>(count), item);
    return true;
  }

  bool WeightMemory(const Fact& fact, const DocumentFacts& doc, VerifyItem& item) {
    const DerivationDef* fits = library_.schema().FindDerivation("fits");
    auto format = fact.qualifiers.find(qualifier::kFormat);
    if (!fits || fits->expr.kind != Expr::Kind::kCompare || fits->expr.operands.size() != 2 ||
        format == fact.qualifiers.end()) {
      return false;
    }
    // The weights side of the fit rule, e.g. model.parameters * bytes_per_parameter(precision).
    DerivationDef lhs = *fits;
    lhs.name = "weight_memory";
    lhs.expr = fits->expr.operands[0];
    lhs.formula = RenderExpr(lhs.expr, [](const Expr& e) { return LeafName(e); });
    lhs.result_dimension = fact.value.dimension;
    lhs.display_unit.clear();
    // Only the parameters the left side uses.
    std::vector<const Expr*> leaves;
    CollectLeaves(lhs.expr, leaves);
    std::vector<std::string> args;
    std::string model_param;
    for (const auto& param : fits->params) {
      bool entity = false;
      for (const Expr* e : leaves) entity |= e->kind == Expr::Kind::kParamPredicate && e->param == param;
      if (entity) model_param = param;
      args.push_back(entity ? fact.subject : format->second);
    }
    if (model_param.empty()) return false;
    item.method = "weight_memory = " + lhs.formula + " with " + model_param + " = this model";
    Entity none;
    auto facts_for = [&](const EntityId& about, const std::string& predicate) {
      return Inputs(about, predicate, doc, item);
    };
    auto d = TraceDerivation(library_, citations_, lhs, none, args, options_, facts_for, false);
    if (!library_.NoteStoreRead(d.status())) {
      item.reason = d.status().message();
      return false;
    }
    return Conclude(fact, *d, item);
  }

  bool DatasetFormula(const Fact& fact, const DocumentFacts& doc, const std::string& dataset,
                      VerifyItem& item) {
    const Schema& schema = library_.schema();
    auto columns = schema.ColumnsOf(dataset);
    if (columns.empty()) return false;
    std::vector<const ColumnDef*> by_length(columns.begin(), columns.end());
    std::sort(by_length.begin(), by_length.end(),
              [](const ColumnDef* a, const ColumnDef* b) { return a->header.size() > b->header.size(); });
    int64_t row = fact.provenance.row;
    Matcher match = [&](const std::string& text, size_t pos) -> std::optional<std::pair<size_t, Operand>> {
      for (const ColumnDef* c : by_length) {
        if (c->header.empty() || text.compare(pos, c->header.size(), c->header) != 0) continue;
        Operand o;
        o.name = c->header;
        // The same row's cell: of the stated figure's own version and row
        // while that claim stands, else the same chip's row (its name, the
        // section) as the document now gives it. Row numbers alone mix
        // chips across versions: a chip added at the top (as Epoch adds
        // them) makes version 2's row 1 another chip than version 1's.
        const Fact* input = nullptr;
        for (const Fact& f : doc.facts) {
          if (f.provenance.column != c->header || f.value.kind != ValueKind::kQuantity) continue;
          if (f.provenance.document_version == fact.provenance.document_version && f.provenance.row == row) {
            input = &f;
            break;
          }
          if (input == nullptr && f.subject == fact.subject && f.provenance.section == fact.provenance.section) {
            input = &f;
          }
        }
        if (input != nullptr) {
          o.value = input->value.number;
          o.display =
              library_.FormatCanonical(input->value.number, input->value.dimension, input->predicate, &input->qualifiers);
          o.citations.push_back(citations_.Cite(library_, *input));
        }
        if (!o.value) o.display = "(empty)";
        return std::make_pair(c->header.size(), o);
      }
      return std::nullopt;
    };
    item.method = "dataset formula on row " + std::to_string(row) + ": " + fact.provenance.formula;
    TextFormula formula(fact.provenance.formula, match);
    auto v = formula.Evaluate();
    for (const auto& o : formula.operands()) {
      for (int n : o.citations) item.input_citations.push_back(n);
    }
    if (!v.ok()) {
      item.reason = v.status().message();
      // A formula that names the dataset's columns but cannot be evaluated on
      // this row (an input cell is empty) is unverifiable; one that names none
      // of them is left to the other methods.
      if (formula.operands().empty()) return false;
      item.status = "unverifiable";
      return true;
    }
    item.working = Join(formula.operands());
    Judge(fact, *v, item);
    return true;
  }

  bool LiteralFormula(const Fact& fact, VerifyItem& item) {
    const Schema& schema = library_.schema();
    Matcher match = [&](const std::string& text, size_t pos) -> std::optional<std::pair<size_t, Operand>> {
      auto q = schema.ParseQuantity(text.substr(pos));
      if (!q || q->unit.empty()) return std::nullopt;
      Operand o;
      o.value = q->canonical;
      o.name = text.substr(pos, q->consumed);
      while (!o.name.empty() && o.name.back() == ' ') o.name.pop_back();
      o.display = o.name;
      return std::make_pair(q->consumed, o);
    };
    item.method = "the document's own formula: " + fact.provenance.formula;
    TextFormula formula(fact.provenance.formula, match);
    auto v = formula.Evaluate();
    if (!v.ok()) {
      item.reason = v.status().message();
      return false;
    }
    item.working = fact.provenance.formula;
    Judge(fact, *v, item);
    return true;
  }

  Library& library_;
  CitationTable& citations_;
  const Options& options_;
  double extra_;
};

}  // namespace

namespace internal {

std::string WorkingWithSources(const VerifyItem& item) {
  const std::string sources = SupportText(item.working_inputs);
  return sources.empty() ? item.working : item.working + "  from " + sources;
}

const char* GivenAs(const VerifyItem& item) {
  auto basis = item.qualifiers.find(qualifier::kBasis);
  return basis != item.qualifiers.end() && basis->second == "estimate" ? "estimated" : "stated";
}

std::string OtherReadingText(const VerifyItem::OtherReading& reading) {
  const std::string sources = SupportText(reading.inputs);
  return reading.working + " = " + reading.recomputed_display + (sources.empty() ? "" : "  from " + sources);
}

}  // namespace internal

namespace {

// Drops the confirmed figures and the citations only they used; the rest are
// numbered again in order of first use.
void KeepProblemsOnly(VerifyReport& report) {
  std::erase_if(report.items, [](const VerifyItem& i) { return i.status == "confirmed"; });
  std::map<int, int> renumbered;
  auto renumber = [&](int& n) {
    if (n <= 0) return;
    n = renumbered.emplace(n, static_cast<int>(renumbered.size()) + 1).first->second;
  };
  for (VerifyItem& i : report.items) {
    renumber(i.stated.citation);
    for (int& n : i.input_citations) renumber(n);
    for (std::vector<int>& alternatives : i.working_inputs) {
      for (int& n : alternatives) renumber(n);
    }
    for (VerifyItem::OtherReading& r : i.other_readings) {
      for (std::vector<int>& alternatives : r.inputs) {
        for (int& n : alternatives) renumber(n);
      }
    }
  }
  std::vector<Citation> kept;
  for (Citation& c : report.citations) {
    auto it = renumbered.find(c.number);
    if (it == renumbered.end()) continue;
    c.number = it->second;
    kept.push_back(std::move(c));
  }
  std::sort(kept.begin(), kept.end(), [](const Citation& a, const Citation& b) { return a.number < b.number; });
  report.citations = std::move(kept);
}

}  // namespace

Result<VerifyReport> Verify(const Store& store, const Schema& schema, const std::string& document,
                            const Options& options) {
  VerifyReport report;
  std::vector<Document> docs;
  if (!document.empty()) {
    auto d = FindDocument(store, document);
    if (!d.ok()) return d.status();
    docs.push_back(*d);
    report.document = d->id;
  } else {
    auto all = store.ListDocuments();
    if (!all.ok()) return all.status().WithContext("listing documents");
    docs = std::move(*all);
  }
  Library library(store, schema, options.view.as_of_tx);
  CitationTable citations;
  Verifier verifier(library, citations, options, options.verify_tolerance);
  for (const Document& d : docs) {
    auto facts = store.FactsFromDocument(d.id, std::nullopt, options.view);
    if (!facts.ok()) return facts.status().WithContext("facts of " + d.id);
    // In the document's order, version by version (spans index their own version's text).
    std::stable_sort(facts->begin(), facts->end(), [](const Fact& a, const Fact& b) {
      return std::tie(a.provenance.document_version, a.provenance.span_begin, a.id) <
             std::tie(b.provenance.document_version, b.provenance.span_begin, b.id);
    });
    // A figure is checked against the document as it stood with the figure
    // in it: its inputs may be claims of other versions, since a re-ingest
    // keeps an unchanged claim under the version that first stated it (an
    // Epoch row whose TDP changed keeps its stated efficiency in version 1,
    // next to a version-2 TDP: the efficiency is then a mismatch, not a
    // figure with no TDP). A claim standing in the view is checked against
    // the view; a retracted one (history views) against the document just
    // before its retraction, the last state that still stated it.
    auto stands = [&](const Fact& f) {
      return f.retracted_tx == 0 || (options.view.as_of_tx && f.retracted_tx > *options.view.as_of_tx);
    };
    constexpr TxId kTheView = std::numeric_limits<TxId>::max();
    std::map<TxId, std::vector<const Fact*>> derived_by_snapshot;
    for (const Fact& f : *facts) {
      // A count of the page's own fit table is derived whatever the
      // extractor marked it as.
      bool derived = f.provenance.derivation == Derivation::kStatedDerived || f.predicate == "models_fitting";
      if (!derived || f.value.kind == ValueKind::kNotPublished) continue;
      derived_by_snapshot[stands(f) ? kTheView : f.retracted_tx - 1].push_back(&f);
    }
    // Usually (no history view) one snapshot holds every fact: they move
    // into it (a vector's move keeps its buffer, so `derived` still points
    // at them) rather than being copied.
    const bool one_whole_snapshot =
        derived_by_snapshot.size() == 1 && std::all_of(facts->begin(), facts->end(), stands);
    for (const auto& [snapshot, derived] : derived_by_snapshot) {
      DocumentFacts doc;
      if (one_whole_snapshot) {
        doc.facts = std::move(*facts);
      } else {
        for (const Fact& f : *facts) {
          bool in = snapshot == kTheView
                        ? stands(f)
                        : f.asserted_tx <= snapshot && (f.retracted_tx == 0 || f.retracted_tx > snapshot);
          if (in) doc.facts.push_back(f);
        }
      }
      for (const Fact* f : derived) {
        VerifyItem item = verifier.Check(*f, doc);
        if (item.status == "confirmed") {
          report.confirmed++;
          if (!item.other_readings.empty()) report.confirmed_on_one_reading++;
        } else if (item.status == "mismatch") {
          report.mismatched++;
        } else {
          report.unverifiable++;
        }
        report.items.push_back(std::move(item));
      }
    }
  }
  CHIPKG_RETURN_IF_ERROR(library.failure());
  report.citations = citations.Take();
  if (options.verify_problems_only) KeepProblemsOnly(report);
  return report;
}

}  // namespace chipkg::factcheck
