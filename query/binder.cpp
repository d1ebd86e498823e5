#include "query/binder.h"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <optional>
#include <cmath>
#include <deque>
#include <ctime>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "query/parser.h"
#include "query/query.h"
#include "query/suggest.h"

namespace chipkg::query {

namespace {

// "a chip", "an llm", "an organization": a kind as a sentence names it.
std::string WithArticle(const std::string& kind) {
  const bool vowel_sound = !kind.empty() && (std::string_view("aeiou").find(kind[0]) != std::string_view::npos || kind == "llm");
  return (vowel_sound ? "an " : "a ") + kind;
}

}  // namespace
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string QualifierSuffix(const Qualifiers& q) {
  if (q.empty()) return "";
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : q) {
    if (!first) out += ", ";
    first = false;
    out += k + "=" + v;
  }
  return out + "}";
}

// Formats a number the way a person would write it back: 64, 2.5, 1e+15.
std::string ShortNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Collects what the derive formula does with each parameter.
void ParamRoles(const Expr& e, std::map<std::string, std::string>& entity_params,
                std::map<std::string, std::string>& table_params) {
  if (e.kind == Expr::Kind::kParamPredicate) entity_params.emplace(e.param, e.name);
  if (e.kind == Expr::Kind::kTableLookup) table_params.emplace(e.param, e.name);
  for (const Expr& o : e.operands) ParamRoles(o, entity_params, table_params);
}

class Binder {
 public:
  Binder(std::string_view text, const Store& store, const Schema& schema, const QueryOptions& options)
      : text_(text), store_(store), schema_(schema), options_(options) {}

  Result<BoundQuery> Bind(const Query& q) {
    BoundQuery b;
    b.statement = q.statement;
    b.compare.tolerance = options_.tolerance;
    b.with_evidence = q.with_evidence;
    b.limit = q.limit;

    // Subjects: a kind, or one entity.
    if (q.statement == StatementKind::kFind || q.statement == StatementKind::kCount ||
        (q.statement == StatementKind::kConflicts && !q.kind.empty())) {
      Result<std::string> kind = BindKind(q.kind, q.kind_pos);
      if (!kind.ok()) return kind.status();
      b.kind = *kind;
    }
    if (!q.entity.empty()) {
      Result<Entity> e = ResolveEntityName(store_, schema_, q.entity, "", NoteSlot());
      if (!e.ok()) return Error(q.entity_pos, e.status().message());
      if (!b.kind.empty() && e->kind != b.kind) {
        return Error(q.entity_pos, "'" + q.entity + "' is " + WithArticle(e->kind) + ", not " + WithArticle(b.kind));
      }
      b.entity = *e;
    }
    const std::string subject_kind = b.entity ? b.entity->kind : b.kind;

    if (q.member) {
      Result<BoundColumn> m = BindColumn(*q.member, subject_kind);
      if (!m.ok()) return m.status();
      b.member = *m;
    }
    if (q.where) {
      Result<BoundCondition> w = BindCondition(*q.where, subject_kind);
      if (!w.ok()) return w.status();
      b.where = std::move(*w);
      b.where_text = q.where_text;
    }
    // Every predicate of the schema (50) fits many times over; thousands of
    // columns (a runaway script) would cost seconds and gigabytes of cells.
    constexpr size_t kMaxShownColumns = 256;
    if (q.show.size() > kMaxShownColumns) {
      return Error(q.show[kMaxShownColumns].pos, "at most " + std::to_string(kMaxShownColumns) +
                                                     " columns can be shown, this is column " +
                                                     std::to_string(kMaxShownColumns + 1));
    }
    // A row's cells are keyed by column label (JSON objects, CSV's column
    // field): two columns of one label would keep one of them.
    auto taken = [&](const std::string& label) -> std::string {
      if (q.with_evidence && label == "evidence") return "'with evidence' adds a column named evidence";
      if (q.statement == StatementKind::kLookup && b.member && b.member->label == label) {
        return "the lookup already shows " + label;
      }
      for (const BoundColumn& earlier : b.columns) {
        if (earlier.label == label) return "column " + label + " is shown twice";
      }
      return "";
    };
    for (const Column& c : q.show) {
      Result<BoundColumn> col = BindColumn(c, subject_kind);
      if (!col.ok()) return col.status();
      if (std::string clash = taken(col->label); !clash.empty()) {
        return Error(c.pos, clash + ": each column of a row needs its own name, so show it once");
      }
      b.columns.push_back(std::move(*col));
    }
    b.show_given = !q.show.empty();
    if (q.statement == StatementKind::kLookup && b.member) {
      b.columns.insert(b.columns.begin(), *b.member);
    } else if (!b.show_given && b.where && q.statement == StatementKind::kFind && !q.with_evidence) {
      // By default a row shows what its condition talks about.
      DefaultColumns(*b.where, b.columns);
    }
    for (const OrderKey& k : q.order) {
      BoundOrder o;
      o.descending = k.descending;
      if (Lower(k.attribute.name) == "name" && k.attribute.qualifiers.empty()) {
        o.by_name = true;
      } else {
        Result<BoundAttribute> a = BindAttribute(k.attribute, subject_kind);
        if (!a.ok()) return a.status();
        if (a->type != ValueKind::kQuantity && a->type != ValueKind::kDate && a->type != ValueKind::kText &&
            a->type != ValueKind::kEntity) {
          return Error(k.attribute.pos, "cannot order by " + a->label + ": it is not a number, date, text or name");
        }
        o.attribute = *a;
        // By default a row shows what it is ordered by, as it shows what its
        // condition talks about: rows in an order nobody can see read as
        // arbitrary, and the figures they are ordered by carry citations.
        const bool shown = std::any_of(b.columns.begin(), b.columns.end(),
                                       [&](const BoundColumn& c) { return c.label == a->label; });
        if (!b.show_given && q.statement == StatementKind::kFind && !q.with_evidence && !shown) {
          BoundColumn col;
          col.attribute = *a;
          col.label = a->label;
          b.columns.push_back(std::move(col));
        }
      }
      b.order.push_back(std::move(o));
    }
    if (q.group_by) {
      if (q.statement != StatementKind::kCount) {
        return Error(q.group_by->pos, "'by ATTRIBUTE' groups a count: count " +
                                          (q.kind.empty() ? std::string("chip") : q.kind) + " by " +
                                          q.group_by->name + " (to sort rows, write 'order by')");
      }
      if (q.with_evidence) {
        return Error(q.group_by->pos, "a count by " + q.group_by->name + " counts entities: 'with evidence' counts "
                                      "the ways a condition holds, and the two do not mix");
      }
      if (!q.show.empty()) {
        return Error(q.show.front().pos, "a count by " + q.group_by->name + " shows one number per group: to see "
                                         "other attributes, find " + (q.kind.empty() ? std::string("chip") : q.kind) +
                                         " where " + q.group_by->name + " = VALUE show ...");
      }
      Column c;
      c.attribute = *q.group_by;
      c.pos = q.group_by->pos;
      Result<BoundColumn> col = BindColumn(c, subject_kind);
      if (!col.ok()) return col.status();
      b.group_by = std::move(*col);
    }
    // Accepted, a count's `show` was dropped without a word.
    if (q.statement == StatementKind::kCount && !q.group_by && !q.show.empty()) {
      const std::string kind = q.kind.empty() ? std::string("chip") : q.kind;
      return Error(q.show.front().pos, "a count shows one number: to see attributes, find " + kind +
                                           (q.where ? " where ..." : "") + " show ...");
    }
    if (q.statement != StatementKind::kFind && !q.order.empty()) {
      return Error(q.order.front().attribute.pos, "'order by' applies to find queries only");
    }
    if (q.statement == StatementKind::kFacts && !b.entity && !q.document) {
      return Error(PositionAt(text_, 0),
                   "'facts' needs 'about ENTITY' or 'from document ID' (every fact of the store is a lot)");
    }
    if (q.with_evidence && q.statement != StatementKind::kFind && q.statement != StatementKind::kCount) {
      return Error(PositionAt(text_, 0), "'with evidence' applies to find and count queries");
    }
    if (q.with_evidence && !q.where) {
      return Error(PositionAt(text_, 0), "'with evidence' needs a 'where' condition to give evidence for");
    }

    CHIPKG_RETURN_IF_ERROR(BindPolicy(q, b));
    CHIPKG_RETURN_IF_ERROR(BindTimes(q, b));
    if (q.tolerance_percent) {
      if (*q.tolerance_percent < 0 || *q.tolerance_percent > 1000) {
        return Error(q.tolerance_pos, "tolerance must be between 0% and 1000%");
      }
      b.compare.tolerance = *q.tolerance_percent / 100.0;
      b.notes.push_back("tolerance " + ShortNumber(*q.tolerance_percent) + "%: quantities further apart disagree");
    }
    for (const std::string& note : short_name_notes_) {
      if (!note.empty() && std::find(b.notes.begin(), b.notes.end(), note) == b.notes.end()) b.notes.push_back(note);
    }
    return b;
  }

 private:
  Status Error(const SourcePos& pos, const std::string& message) const {
    return Status::InvalidArgument(FormatQueryError(text_, pos, message));
  }

  Result<std::string> BindKind(const std::string& written, const SourcePos& pos) const {
    const auto& kinds = schema_.entity_kinds();
    const std::string lower = Lower(written);
    for (const std::string& k : kinds) {
      if (k == lower) return k;
    }
    // Plurals read naturally: "find chips", "count llms".
    if (lower.size() > 1 && lower.back() == 's') {
      for (const std::string& k : kinds) {
        if (k == lower.substr(0, lower.size() - 1)) return k;
      }
    }
    std::string all;
    for (const std::string& k : kinds) all += (all.empty() ? "" : ", ") + k;
    return Error(pos, "unknown kind '" + written + "'" + DidYouMean(written, kinds) + "; kinds: " + all);
  }

  // The attributes a query may name for entities of `subject_kind` (any kind
  // when empty): a suggestion of another kind's ("power" -> power_envelope,
  // a data center's) was refused once taken.
  std::vector<std::string> AttributeNames(const std::string& subject_kind = "") const {
    auto applies = [&](const PredicateDef* p) {
      return subject_kind.empty() || p == nullptr || p->subject_kinds.empty() ||
             std::find(p->subject_kinds.begin(), p->subject_kinds.end(), subject_kind) != p->subject_kinds.end();
    };
    std::vector<std::string> names;
    for (const PredicateDef& p : schema_.predicates()) {
      if (applies(&p)) names.push_back(p.name);
    }
    for (const AttributeDef& a : schema_.attributes()) {
      if (applies(schema_.FindPredicate(a.predicate))) names.push_back(a.name);
    }
    for (const DerivationDef& d : schema_.derivations()) names.push_back(d.name);
    return names;
  }

  static BoundAttribute EntityNameAttribute(const AttributeRef& ref) {
    BoundAttribute a;
    a.pos = ref.pos;
    a.label = "name";
    a.type = ValueKind::kText;
    a.entity_name = true;
    return a;
  }

  Result<BoundAttribute> BindAttribute(const AttributeRef& ref, const std::string& subject_kind) const {
    BoundAttribute a;
    a.pos = ref.pos;
    a.label = ref.name + QualifierSuffix(ref.qualifiers);
    const std::string name = Lower(ref.name);
    if (const AttributeDef* view = schema_.FindAttribute(name)) {
      a.predicate = schema_.FindPredicate(view->predicate);
      a.filter = view->qualifiers;
    } else {
      a.predicate = schema_.FindPredicate(name);
    }
    const DerivationDef* d = schema_.FindDerivation(name);
    if (d != nullptr && d->params.empty()) a.derivation = d;
    if (d != nullptr && !d->params.empty() && a.predicate == nullptr) {
      return Error(ref.pos, "'" + ref.name + "' is a test with parameters: write it as a call, e.g. " + d->name +
                                "(" + Join(d->params) + ")");
    }
    if (a.predicate == nullptr && a.derivation == nullptr) {
      // Another word for an attribute (schema/synonyms.schema): "power" is a chip's tdp.
      std::vector<const SynonymDef*> meant = schema_.FindSynonyms(name, subject_kind);
      if (meant.size() == 1) {
        AttributeRef target = ref;
        target.name = meant.front()->target;
        return BindAttribute(target, subject_kind);
      }
      if (meant.size() > 1) {
        std::string targets;
        for (const SynonymDef* s : meant) targets += (targets.empty() ? "" : " or ") + s->target;
        return Error(ref.pos, "'" + ref.name + "' may mean " + targets + ": write which");
      }
      if (name == "name") {
        // Conditions and `order by` take the entity's own name, without
        // qualifiers; `show`, `count ... by` and tests read attributes.
        return Error(ref.pos, "'" + ref.name + "' is each entity's own name, not an attribute" +
                                  (ref.qualifiers.empty() ? DidYouMean(ref.name, AttributeNames(subject_kind))
                                                          : std::string(", and takes no qualifiers")));
      }
      return Error(ref.pos, "unknown attribute '" + ref.name + "'" + DidYouMean(ref.name, AttributeNames(subject_kind)));
    }
    for (const auto& [k, written] : ref.qualifiers) {
      const auto& keys = schema_.qualifier_keys();
      const std::vector<std::string>* values = schema_.QualifierValues(k);
      const std::string v = values != nullptr ? ThroughSynonym(schema_, Lower(written), *values) : written;
      if (values != nullptr && v != Lower(written)) {
        *NoteSlot() = k + "=" + written + " read as " + k + "=" + v + " (documents' " + written + " figures are stored as " + v + ")";
      }
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) {
        return Error(ref.pos, "unknown qualifier '" + k + "'" + DidYouMean(k, keys));
      }
      const auto it = a.filter.find(k);
      if (it != a.filter.end() && it->second != Lower(v)) {
        return Error(ref.pos, ref.name + " already means " + k + "=" + it->second + "; it cannot also be " + k +
                                  "=" + v);
      }
      // A closed key's unlisted value ({format=fp17}) matches nothing: say so rather than answer "no source".
      if (values != nullptr && std::find(values->begin(), values->end(), v) == values->end()) {
        return Error(ref.pos, "unknown " + k + " '" + v + "'" + DidYouMean(Lower(v), *values) + "; " + k +
                                  " takes " + Join(*values));
      }
      // An entity's id is stored ({model=llm:llama-3.1-70b}); a query may name
      // the entity as `fits("Llama 3.1 70B", ...)` does. Unresolved, the name
      // matched no claim and answered "no source".
      if (const std::string* kind = schema_.QualifierObjectKind(k)) {
        Result<Entity> ent = ResolveEntityName(store_, schema_, v, *kind, NoteSlot());
        if (!ent.ok()) return Error(ref.pos, k + "=" + v + ": " + ent.status().message());
        a.filter[k] = ent->id;
        continue;
      }
      a.filter[k] = Lower(v);
    }
    if (a.predicate != nullptr) {
      a.type = a.predicate->type;
      a.dimension = a.predicate->dimension;
      a.display_unit = a.predicate->display_unit;
      const auto& kinds = a.predicate->subject_kinds;
      if (!subject_kind.empty() && !kinds.empty() &&
          std::find(kinds.begin(), kinds.end(), subject_kind) == kinds.end() && a.derivation == nullptr) {
        return Error(ref.pos, "'" + ref.name + "' is not an attribute of " + subject_kind + " (it applies to " +
                                  Join(kinds) + ")");
      }
    } else {
      a.type = ValueKind::kQuantity;
      a.dimension = a.derivation->result_dimension;
    }
    if (a.derivation != nullptr && !a.derivation->display_unit.empty()) a.display_unit = a.derivation->display_unit;
    if (a.display_unit.empty() && a.type == ValueKind::kQuantity) {
      if (const DimensionDef* dim = schema_.FindDimension(a.dimension)) a.display_unit = dim->display_unit;
    }
    return a;
  }

  static std::string Join(const std::vector<std::string>& v, const std::string& separator = ", ") {
    std::string out;
    for (const std::string& s : v) out += (out.empty() ? "" : separator) + s;
    return out;
  }

  // The units that measure `dimension`, for messages: those a query can
  // hold (a spelling with a space, "$ per hour", is for reading pages).
  std::vector<std::string> UnitsOf(const std::string& dimension) const {
    std::vector<std::string> out;
    for (const UnitDef& u : schema_.units()) {
      const bool typed = u.spelling == "%" || (!u.spelling.empty() && u.spelling.find(' ') == std::string::npos &&
                                                (std::isalpha(static_cast<unsigned char>(u.spelling[0])) ||
                                                 u.spelling[0] == '$'));
      if (u.dimension == dimension && typed) out.push_back(u.spelling);
    }
    return out;
  }

  Result<BoundValue> BindValue(const BoundAttribute& a, CompareOp op, const Literal& lit) const {
    BoundValue v;
    v.kind = a.type;
    v.source = lit.source;
    if (op == CompareOp::kContains && a.type != ValueKind::kText) {
      return Error(lit.pos, "'contains' compares text, and " + a.label + " is not text");
    }
    switch (a.type) {
      case ValueKind::kQuantity: {
        if (lit.kind != Literal::Kind::kNumber) {
          return Error(lit.pos, a.label + " is a quantity: compare it with a number and a unit, e.g. 64 " +
                                    (a.display_unit.empty() ? std::string("GB") : a.display_unit));
        }
        v.dimension = a.dimension;
        const DimensionDef* dim = schema_.FindDimension(a.dimension);
        if (lit.unit.empty()) {
          if (dim != nullptr && dim->canonical_unit != "1") {
            return Error(lit.pos, a.label + " is measured in " + a.dimension + ": add a unit, e.g. " +
                                      lit.source + " " + a.display_unit);
          }
          v.number = lit.number;
          return v;
        }
        if (lit.unit == "%") return Error(lit.pos, a.label + " is not a percentage");
        const UnitDef* unit = schema_.FindUnit(lit.unit, a.dimension);
        if (unit == nullptr) {
          const UnitDef* other = schema_.FindUnit(lit.unit);
          if (other != nullptr) {
            return Error(lit.pos, "unit '" + lit.unit + "' measures " + other->dimension + ", but " + a.label +
                                      " is in " + a.dimension + " (units: " + Join(UnitsOf(a.dimension)) + ")");
          }
          std::vector<std::string> same_letters;
          for (const std::string& declared : UnitsOf(a.dimension)) {
            if (Lower(declared) == Lower(lit.unit)) same_letters.push_back("'" + declared + "'");
          }
          if (same_letters.size() > 1) {
            return Error(lit.pos, "unit '" + lit.unit + "' could be " + Join(same_letters, " or ") +
                                      " (b is a bit, B a byte): write the one meant");
          }
          if (same_letters.size() == 1) {
            return Error(lit.pos, "unit '" + lit.unit + "' is not " + same_letters.front() +
                                      ": in a unit, case tells b (bit) from B (byte) and m (milli) from M (mega); "
                                      "write " + same_letters.front() + " if that is meant");
          }
          return Error(lit.pos, "unknown unit '" + lit.unit + "'" + DidYouMean(lit.unit, UnitsOf(a.dimension)) +
                                    "; " + a.label + " takes " + Join(UnitsOf(a.dimension)));
        }
        // Written without capitals, a unit is read whatever its case ("64 gb"),
        // but for an m where the unit has M: "mw" is how milliwatts are often
        // written, and read as MW it was a factor of 1e9 ("tdp < 500 mw"
        // matched every chip).
        // (Watts only: no query means millihertz or millibytes by "mhz" or "mb".)
        if (unit->dimension == "watts" &&
            std::none_of(lit.unit.begin(), lit.unit.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; }) &&
            lit.unit.size() == unit->spelling.size()) {
          for (size_t i = 0; i < lit.unit.size(); ++i) {
            if (lit.unit[i] == 'm' && unit->spelling[i] == 'M') {
              return Error(lit.pos, "unit '" + lit.unit + "' could be milli or mega: in a unit, case tells m (milli) "
                                    "from M (mega); write '" + unit->spelling + "' if that is meant");
            }
          }
        }
        v.number = lit.number * unit->factor;
        if (!std::isfinite(v.number)) return Error(lit.pos, "number out of range: " + lit.source);
        // Only for an attribute shown in FLOPs, whose figures carry their
        // format: one a dataset computes over every format (max_performance,
        // shown in TOPS) or gives only as "max" (price_performance, GOPS/USD)
        // has no floating-point figure to keep.
        const auto flop_at = [](const std::string& spelling) { return Lower(spelling).find("flop"); };
        if (flop_at(unit->spelling) != std::string::npos && flop_at(a.display_unit) != std::string::npos &&
            !a.filter.count(qualifier::kFormat)) {
          v.floating_point_only = true;
          // Answers show such figures in the display unit's OPS twin (TOPS for TFLOPS).
          std::string ops = a.display_unit;
          ops.erase(flop_at(ops), 2);
          const UnitDef* as_ops = schema_.FindUnit(ops, a.dimension);
          const std::string shown_as = as_ops != nullptr ? as_ops->spelling : "OPS";
          *NoteSlot() = a.label + " " + CompareOpText(op) + " " + lit.source +
                        " compares floating-point figures only: integer and {format=max} ones (shown in " +
                        shown_as + ") are left aside" +
                        (as_ops != nullptr ? "; compare in " + as_ops->spelling + " to count them" : "");
        }
        return v;
      }
      case ValueKind::kDate: {
        std::optional<Date> d;
        if (lit.kind == Literal::Kind::kDate) {
          d = Date::Parse(lit.text);
        } else if (lit.kind == Literal::Kind::kNumber && lit.unit.empty() && lit.number >= 1 &&
                   lit.number <= 9999 && lit.number == std::floor(lit.number)) {
          d = Date::Parse(std::to_string(static_cast<int>(lit.number)));
        } else if (lit.kind == Literal::Kind::kString) {
          d = Date::Parse(lit.text);
        }
        if (!d) {
          return Error(lit.pos, a.label + " is a date: compare it with 2024, 2024-06 or 2024-06-01 (got " +
                                    lit.source + ")");
        }
        v.date = *d;
        return v;
      }
      case ValueKind::kEntity: {
        if (op != CompareOp::kEq && op != CompareOp::kNe) {
          return Error(lit.pos, a.label + " names an entity: compare it with = or !=");
        }
        if (lit.kind != Literal::Kind::kWord && lit.kind != Literal::Kind::kString) {
          return Error(lit.pos, a.label + " names an entity: compare it with a name such as TSMC");
        }
        const std::string object_kind = a.predicate != nullptr ? a.predicate->object_kind : "";
        Result<Entity> e = ResolveEntityName(store_, schema_, lit.text, object_kind, NoteSlot());
        if (!e.ok()) return Error(lit.pos, e.status().message());
        v.entity = e->id;
        v.text = e->name;
        return v;
      }
      case ValueKind::kBool: {
        if (op != CompareOp::kEq && op != CompareOp::kNe) return Error(lit.pos, a.label + " is yes/no: use = or !=");
        if (lit.kind != Literal::Kind::kBool) return Error(lit.pos, a.label + " is yes/no: compare it with true or false");
        v.number = lit.boolean ? 1 : 0;
        return v;
      }
      case ValueKind::kText:
      case ValueKind::kNotPublished:
        if (op != CompareOp::kEq && op != CompareOp::kNe && op != CompareOp::kContains) {
          return Error(lit.pos, a.label + " is text: compare it with =, != or contains");
        }
        if (lit.kind == Literal::Kind::kNumber) {
          v.text = lit.source;
        } else if (lit.kind == Literal::Kind::kBool) {
          v.text = lit.boolean ? "true" : "false";
        } else {
          v.text = lit.text;
        }
        v.kind = ValueKind::kText;
        return v;
    }
    return v;
  }

  // An "and" of comparisons of one attribute asks for a claim that meets
  // them all (BoundCondition::same_claim): each comparison after the first
  // is kept on the first. A nested "and" is opened up first, and being
  // associative means the same. Not for an attribute of many values (the
  // regions an instance is offered in: "available_in contains us and
  // available_in contains mumbai" asks for two claims side by side), nor for
  // the entity's name, which no claim holds.
  static BoundCondition OneClaimForEachAttribute(BoundCondition b) {
    auto joins = [](const BoundCondition& c) {
      return c.kind == Condition::Kind::kComparison && !c.attribute.entity_name &&
             (c.attribute.predicate == nullptr || !c.attribute.predicate->many_values);
    };
    auto same_attribute = [](const BoundAttribute& x, const BoundAttribute& y) {
      return x.label == y.label && x.predicate == y.predicate && x.derivation == y.derivation && x.filter == y.filter;
    };
    std::vector<BoundCondition> flat;
    for (BoundCondition& child : b.children) {
      if (child.kind != Condition::Kind::kAnd) {
        flat.push_back(std::move(child));
        continue;
      }
      for (BoundCondition& grandchild : child.children) flat.push_back(std::move(grandchild));
    }
    std::vector<BoundCondition> kept;
    for (BoundCondition& c : flat) {
      BoundCondition* first = nullptr;
      if (joins(c)) {
        for (BoundCondition& k : kept) {
          if (joins(k) && same_attribute(k.attribute, c.attribute)) {
            first = &k;
            break;
          }
        }
      }
      if (first == nullptr) {
        kept.push_back(std::move(c));
        continue;
      }
      first->label += " and " + c.label;
      // Its own words: its label without those of the comparisons kept on it.
      std::string joined;
      for (const BoundCondition& m : c.same_claim) joined += " and " + m.label;
      c.label.resize(c.label.size() - joined.size());
      std::vector<BoundCondition> more = std::move(c.same_claim);
      c.same_claim.clear();
      first->same_claim.push_back(std::move(c));
      for (BoundCondition& m : more) first->same_claim.push_back(std::move(m));
    }
    if (kept.size() == 1) return std::move(kept.front());
    b.children = std::move(kept);
    return b;
  }

  Result<BoundCondition> BindCondition(const Condition& c, const std::string& subject_kind) const {
    BoundCondition b;
    b.kind = c.kind;
    switch (c.kind) {
      case Condition::Kind::kAnd:
      case Condition::Kind::kOr:
      case Condition::Kind::kNot:
        for (const Condition& child : c.children) {
          Result<BoundCondition> bc = BindCondition(child, subject_kind);
          if (!bc.ok()) return bc.status();
          b.children.push_back(std::move(*bc));
        }
        return c.kind == Condition::Kind::kAnd ? OneClaimForEachAttribute(std::move(b)) : b;
      case Condition::Kind::kComparison: {
        const AttributeRef& ref = c.comparison.attribute;
        Result<BoundAttribute> a = Lower(ref.name) == "name" && ref.qualifiers.empty() &&
                                           schema_.FindPredicate("name") == nullptr &&
                                           schema_.FindAttribute("name") == nullptr
                                       ? Result<BoundAttribute>(EntityNameAttribute(ref))
                                       : BindAttribute(ref, subject_kind);
        if (!a.ok()) return a.status();
        b.attribute = *a;
        b.op = c.comparison.op;
        Result<BoundValue> v = BindValue(*a, c.comparison.op, c.comparison.value);
        if (!v.ok()) return v.status();
        b.value = *v;
        std::string shown = v->kind == ValueKind::kEntity ? v->text : c.comparison.value.source;
        b.label = a->label + " " + CompareOpText(b.op) + " " + shown;
        return b;
      }
      case Condition::Kind::kCall: {
        Result<BoundCall> call = BindCall(c.call, subject_kind);
        if (!call.ok()) return call.status();
        b.call = *call;
        b.label = call->label;
        return b;
      }
    }
    return b;
  }

  Result<BoundCall> BindCall(const Call& c, const std::string& subject_kind) const {
    BoundCall b;
    b.pos = c.pos;
    const std::string name = Lower(c.name);
    static const std::vector<std::pair<std::string, BoundCall::Builtin>> kBuiltins = {
        {"reported", BoundCall::Builtin::kReported},
        {"not_published", BoundCall::Builtin::kNotPublished},
        {"unknown", BoundCall::Builtin::kUnknown},
        {"conflicting", BoundCall::Builtin::kConflicting}};
    for (const auto& [word, builtin] : kBuiltins) {
      if (name != word) continue;
      if (c.args.size() != 1 || !c.args[0].option.empty() || c.args[0].value.kind != Literal::Kind::kWord) {
        return Error(c.pos, word + "() takes one attribute, e.g. " + word + "(foundry)");
      }
      AttributeRef ref;
      ref.name = c.args[0].value.text;
      ref.qualifiers = c.args[0].qualifiers;
      ref.pos = c.args[0].pos;
      Result<BoundAttribute> a = BindAttribute(ref, subject_kind);
      if (!a.ok()) return a.status();
      b.builtin = builtin;
      b.attribute = *a;
      b.label = word + "(" + a->label + ")";
      return b;
    }
    const DerivationDef* d = schema_.FindDerivation(name);
    if (d == nullptr || d->params.empty()) {
      std::vector<std::string> tests = {"reported", "not_published", "unknown", "conflicting"};
      for (const DerivationDef& dd : schema_.derivations()) {
        if (!dd.params.empty()) tests.push_back(dd.name);
      }
      if (d != nullptr) {
        return Error(c.pos, "'" + c.name + "' is an attribute, not a test: compare it, e.g. " + c.name + " > 1");
      }
      return Error(c.pos, "unknown test '" + c.name + "'" + DidYouMean(c.name, tests) + "; tests: " + Join(tests));
    }
    b.derivation = d;
    std::map<std::string, std::string> entity_params, table_params;
    ParamRoles(d->expr, entity_params, table_params);
    size_t positional = 0;
    std::vector<std::string> shown_args;
    for (const Argument& arg : c.args) {
      if (!arg.option.empty()) {
        if (Lower(arg.option) != "headroom") {
          return Error(arg.pos, "unknown option '" + arg.option + "'" + DidYouMean(arg.option, {"headroom"}) +
                                    "; " + d->name + " takes headroom P%");
        }
        if (arg.value.kind != Literal::Kind::kNumber || arg.value.unit != "%" || arg.value.number < 0 ||
            arg.value.number > 1000) {
          return Error(arg.value.pos, "headroom is a percentage between 0% and 1000%, e.g. headroom 15%");
        }
        // The last of two would hold silently, as a repeated clause is refused.
        if (std::any_of(shown_args.begin(), shown_args.end(),
                        [](const std::string& a) { return a.starts_with("headroom "); })) {
          return Error(arg.pos, "headroom is given twice; give one");
        }
        b.headroom = arg.value.number / 100.0;
        shown_args.push_back("headroom " + ShortNumber(arg.value.number) + "%");
        continue;
      }
      if (positional >= d->params.size()) {
        // A bare percentage after the arguments is a headroom without its word.
        const bool percentage = arg.value.kind == Literal::Kind::kNumber && arg.value.unit == "%";
        return Error(arg.pos, d->name + "() takes " + std::to_string(d->params.size()) + " arguments: " +
                                  d->name + "(" + Join(d->params) + ")" +
                                  (percentage ? ", and an option: write headroom " + ShortNumber(arg.value.number) + "%" : ""));
      }
      const std::string& param = d->params[positional++];
      const std::string text = arg.value.kind == Literal::Kind::kNumber ? arg.value.source : arg.value.text;
      if (const auto t = table_params.find(param); t != table_params.end()) {
        const auto table = schema_.tables().find(t->second);
        std::vector<std::string> keys;
        if (table != schema_.tables().end()) {
          for (const auto& [k, unused] : table->second) keys.push_back(k);
        }
        const std::string key = ThroughSynonym(schema_, Lower(text), keys);
        if (key != Lower(text)) *NoteSlot() = text + " read as " + key + " (documents' " + text + " figures are stored as " + key + ")";
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
          return Error(arg.pos, "unknown " + param + " '" + text + "'" + DidYouMean(text, keys) + "; " + param +
                                    " is one of " + Join(keys));
        }
        b.table_args[param] = key;
        shown_args.push_back(key);
      } else {
        // An entity parameter: its kind is the subject kind of the predicate the formula reads from it.
        std::string kind;
        if (const auto e = entity_params.find(param); e != entity_params.end()) {
          if (const PredicateDef* p = schema_.FindPredicate(e->second); p != nullptr && p->subject_kinds.size() == 1) {
            kind = p->subject_kinds.front();
          }
        }
        Result<Entity> ent = ResolveEntityName(store_, schema_, text, kind, NoteSlot());
        if (!ent.ok()) return Error(arg.pos, ent.status().message());
        b.entity_args[param] = ent->id;
        b.entity_names[param] = ent->name;
        shown_args.push_back(ent->name);
      }
    }
    if (positional < d->params.size()) {
      return Error(c.pos, d->name + "() needs " + std::to_string(d->params.size()) + " arguments: " + d->name + "(" +
                              Join(d->params) + ")");
    }
    b.label = d->name + "(" + Join(shown_args) + ")";
    if (const PredicateDef* p = schema_.FindPredicate(d->name); p != nullptr && b.headroom == 0) {
      BoundAttribute& stated = b.stated.emplace();
      stated.label = b.label + " as stated";
      stated.predicate = p;
      stated.type = p->type;
      stated.dimension = p->dimension;
      stated.pos = c.pos;
      for (const auto& [param, id] : b.entity_args) stated.filter[schema_.QualifierOfParameter(param)] = id;
      for (const auto& [param, key] : b.table_args) {
        // A page's "fits at MXFP4" mark is stored as fp4 (the format's values, through the schema's synonyms).
        const std::string qualifier = schema_.QualifierOfParameter(param);
        const std::vector<std::string>* values = schema_.QualifierValues(qualifier);
        stated.filter[qualifier] = values != nullptr ? ThroughSynonym(schema_, key, *values) : key;
      }
    }
    return b;
  }

  Result<BoundColumn> BindColumn(const Column& c, const std::string& subject_kind) const {
    BoundColumn b;
    b.is_call = c.is_call;
    if (c.is_call) {
      Result<BoundCall> call = BindCall(c.call, subject_kind);
      if (!call.ok()) return call.status();
      b.call = *call;
      b.label = call->label;
    } else {
      Result<BoundAttribute> a = BindAttribute(c.attribute, subject_kind);
      if (!a.ok()) return a.status();
      b.attribute = *a;
      b.label = a->label;
    }
    return b;
  }

  // The attributes and tests a condition names, each once, in order.
  static void DefaultColumns(const BoundCondition& c, std::vector<BoundColumn>& out) {
    auto add = [&out](BoundColumn col) {
      for (const BoundColumn& existing : out) {
        if (existing.label == col.label) return;
      }
      out.push_back(std::move(col));
    };
    switch (c.kind) {
      case Condition::Kind::kAnd:
      case Condition::Kind::kOr:
      case Condition::Kind::kNot:
        for (const BoundCondition& child : c.children) DefaultColumns(child, out);
        return;
      case Condition::Kind::kComparison: {
        if (c.attribute.entity_name) return;  // the row's name column shows it
        BoundColumn col;
        col.attribute = c.attribute;
        col.label = c.attribute.label;
        add(std::move(col));
        return;
      }
      case Condition::Kind::kCall: {
        BoundColumn col;
        if (c.call.builtin != BoundCall::Builtin::kNone) {
          col.attribute = c.call.attribute;
          col.label = c.call.attribute.label;
        } else {
          col.is_call = true;
          col.call = c.call;
          col.label = c.call.label;
        }
        add(std::move(col));
        return;
      }
    }
  }

  Status BindPolicy(const Query& q, BoundQuery& b) const {
    b.policy.only = q.using_sources;
    b.policy.prefer = q.prefer;
    b.policy.ignore_not_published = q.ignoring_not_published;
    for (auto* list : {&b.policy.only, &b.policy.prefer}) {
      for (SourceSelector& s : *list) s.name = Lower(s.name);
    }
    auto describe = [](const std::vector<SourceSelector>& list) {
      std::string out;
      for (const SourceSelector& s : list) out += std::string(out.empty() ? "" : ", ") + (s.is_site ? "site " : "") + s.name;
      return out;
    };
    if (!q.using_sources.empty()) b.notes.push_back("using only " + describe(b.policy.only) + " sources");
    if (!q.prefer.empty()) {
      // Said as what it does: where no preferred source has a claim, the
      // claims (and a conflict) stand as they are.
      b.notes.push_back("conflicts resolved by preferring " + describe(b.policy.prefer) +
                        " (in that order) where one of them has a claim");
    }
    CHIPKG_RETURN_IF_ERROR(CheckSelectorsNameDocuments(b));
    if (q.ignoring_not_published) b.notes.push_back("\"not published\" claims ignored");
    if (q.document) {
      Result<Document> d = FindDocument(*q.document);
      if (!d.ok()) return Error(q.document_pos, d.status().message());
      b.policy.document = d->id;
      b.notes.push_back("only claims of document " + d->id + (d->title.empty() ? "" : " (" + d->title + ")"));
    }
    return Status::OK();
  }

  // A selector no stored document matches is most likely misspelt ("using
  // vendr" answered nothing, silently): under `using` it is an error that names
  // what the store holds, under `prefer` (a ranking that may be written for
  // sources a store lacks yet) a note.
  Status CheckSelectorsNameDocuments(BoundQuery& b) const {
    if (b.policy.only.empty() && b.policy.prefer.empty()) return Status::OK();
    Result<std::vector<Document>> docs = store_.ListDocuments();
    if (!docs.ok()) return docs.status().WithContext("listing documents for the source policy");
    std::set<std::string> kinds, sites;
    for (const Document& d : *docs) {
      if (!d.kind.empty()) kinds.insert(Lower(d.kind));
      if (!d.site.empty()) sites.insert(Lower(d.site));
    }
    auto unmatched = [&](const SourceSelector& s) -> std::string {
      for (const Document& d : *docs) {
        if (SelectsDocument(s, d)) return "";
      }
      const std::set<std::string>& held = s.is_site ? sites : kinds;
      std::string what = "no stored document is " + std::string(s.is_site ? "from site '" : "of kind '") + s.name + "'";
      std::string suggestion = DidYouMean(s.name, std::vector<std::string>(held.begin(), held.end()));
      if (!suggestion.empty()) return what + suggestion;
      if (held.empty()) return what + " (no document has a " + (s.is_site ? "site" : "kind") + ")";
      std::string list;
      size_t shown = 0;
      for (const std::string& h : held) {
        if (shown++ == 10) {
          list += ", ...";
          break;
        }
        list += (list.empty() ? "" : ", ") + h;
      }
      return what + " (" + (s.is_site ? "sites: " : "kinds: ") + list + ")";
    };
    for (const SourceSelector& s : b.policy.only) {
      if (std::string why = unmatched(s); !why.empty()) return Error(s.pos, why);
    }
    for (const SourceSelector& s : b.policy.prefer) {
      if (std::string why = unmatched(s); !why.empty()) b.notes.push_back("prefer: " + why);
    }
    return Status::OK();
  }

  Result<Document> FindDocument(const std::string& name) const {
    Result<Document> direct = store_.GetDocument(name);
    if (direct.ok()) return direct;
    if (!direct.status().IsNotFound()) return direct.status();
    Result<std::vector<Document>> docs = store_.ListDocuments();
    if (!docs.ok()) return docs.status();
    std::vector<const Document*> hits;
    std::vector<std::string> names;
    const std::string want = Lower(name);
    for (const Document& d : *docs) {
      names.push_back(d.id);
      const std::string url = Lower(d.url);
      const bool tail = url.size() >= want.size() && url.compare(url.size() - want.size(), want.size(), want) == 0 &&
                        (url.size() == want.size() || url[url.size() - want.size() - 1] == '/');
      if (Lower(d.id) == want || url == want || Lower(d.title) == want || tail) hits.push_back(&d);
    }
    if (hits.size() == 1) return *hits.front();
    if (hits.size() > 1) {
      std::string all;
      for (const Document* d : hits) all += (all.empty() ? "" : ", ") + d->id;
      return Status::InvalidArgument("'" + name + "' names several documents: " + all);
    }
    return Status::NotFound("no document '" + name + "'" + DidYouMean(name, names));
  }

  Status BindTimes(const Query& q, BoundQuery& b) const {
    if (q.valid_on) {
      std::optional<Date> d = Date::Parse(*q.valid_on);
      if (!d) return Error(q.valid_on_pos, "not a valid date: " + *q.valid_on);
      b.view.valid_on = *d;
      // Said in full: a dataset row dated by its last edit holds nothing
      // before it, and "— (no source)" then read as if no source had the figure.
      b.notes.push_back("as of " + d->ToString() + ": only claims dated on or before it (a page's own date, a "
                        "dataset row's last-modified date); a figure recorded later is left out, and shows as "
                        "'no source' where nothing else gives it");
    }
    if (!q.as_at) return Status::OK();
    Result<AsAtPoint> at = ResolveAsAt(store_, *q.as_at);
    if (!at.ok()) {
      if (!at.status().IsInvalidArgument() && !at.status().IsNotFound()) return at.status();
      return Error(q.as_at->pos, at.status().message());
    }
    b.view.as_of_tx = at->tx;
    b.notes.push_back(at->note);
    return Status::OK();
  }

  // Where a name read the short way is noted; Bind adds the notes to the answer's.
  std::string* NoteSlot() const { return &short_name_notes_.emplace_back(); }

  std::string_view text_;
  const Store& store_;
  const Schema& schema_;
  const QueryOptions& options_;
  mutable std::deque<std::string> short_name_notes_;  // a deque: slots handed out stay where they are
};

}  // namespace

namespace {

// Unix microseconds of the instant just after `text`: the end of a day
// written as a date, the given second of a timestamp. A timestamp is UTC:
// "2025-01-31T12:00", "...T12:00:00", with a space for the T, a fraction of
// a second, and "Z" or "+00:00" at the end if at all; another offset is
// refused rather than read as UTC (it was, silently, hours off).
Result<int64_t> ParseInstant(const std::string& text) {
  const std::optional<Date> day = Date::Parse(text.substr(0, 10));
  if (!day || day->precision != DatePrecision::kDay) return Status::InvalidArgument("not a valid date: " + text);
  int64_t seconds = static_cast<int64_t>(day->FirstDay()) * 86400;
  if (text.size() <= 10) return (seconds + 86400) * 1000000;
  const Status not_a_time = Status::InvalidArgument(
      "not a valid time: " + text + " (a UTC timestamp: 2025-01-31T12:00:00Z, 2025-01-31 12:00 or 2025-01-31 12:00 UTC)");
  const char sep = text[10];
  if (sep != 'T' && sep != 't' && sep != ' ') return not_a_time;
  std::string_view rest = std::string_view(text).substr(11);
  auto two_digits = [&rest](int& out) {
    if (rest.size() < 2 || !std::isdigit(static_cast<unsigned char>(rest[0])) ||
        !std::isdigit(static_cast<unsigned char>(rest[1]))) {
      return false;
    }
    out = (rest[0] - '0') * 10 + (rest[1] - '0');
    rest.remove_prefix(2);
    return true;
  };
  int h = 0, m = 0, s = 0;
  if (rest.size() >= 2 && std::isdigit(static_cast<unsigned char>(rest[0])) && rest[1] == ':') {
    h = rest[0] - '0';  // 9:00, as people write it
    rest.remove_prefix(1);
  } else if (!two_digits(h)) {
    return not_a_time;
  }
  if (rest.empty() || rest[0] != ':') return not_a_time;
  rest.remove_prefix(1);
  if (!two_digits(m)) return not_a_time;
  if (!rest.empty() && rest[0] == ':') {
    rest.remove_prefix(1);
    if (!two_digits(s)) return not_a_time;
    if (!rest.empty() && rest[0] == '.') {
      rest.remove_prefix(1);
      const size_t digits = rest.find_first_not_of("0123456789");
      if (digits == 0) return not_a_time;
      rest.remove_prefix(digits == std::string_view::npos ? rest.size() : digits);
    }
  }
  // "UTC" after a space is how `date -u` and chipkg's own listings write it.
  auto is_utc_word = [](std::string_view word) {
    const size_t from = word.find_first_not_of(' ');
    if (from == 0 || from == std::string_view::npos) return false;
    word.remove_prefix(from);
    return word.size() == 3 && std::tolower(static_cast<unsigned char>(word[0])) == 'u' &&
           std::tolower(static_cast<unsigned char>(word[1])) == 't' &&
           std::tolower(static_cast<unsigned char>(word[2])) == 'c';
  };
  if (rest == "Z" || rest == "z" || rest == "+00:00" || rest == "-00:00" || rest == "+0000" || rest == "+00" ||
      is_utc_word(rest)) {
    rest = {};
  }
  if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) {
    return Status::InvalidArgument("not a UTC time: " + text + " (write it in UTC, ending in Z)");
  }
  if (!rest.empty() || h > 23 || m > 59 || s > 60) return not_a_time;
  seconds += h * 3600 + m * 60 + s;
  return (seconds + 1) * 1000000;
}

}  // namespace

// The second an ingest run started, from its id (NewRunId's form,
// "run-20261205T220254Z-5572"), as "2026-12-05T22:02:54Z"; nullopt for an
// id of another form.
std::optional<std::string> RunTime(const std::string& run) {
  // The exact form: sscanf alone would take spaces and signs.
  constexpr std::string_view kForm = "run-DDDDDDDDTDDDDDDZ-";
  if (run.size() <= kForm.size()) return std::nullopt;
  for (size_t i = 0; i < run.size(); ++i) {
    const char want = i < kForm.size() ? kForm[i] : 'D';
    if (want == 'D' ? !std::isdigit(static_cast<unsigned char>(run[i])) : run[i] != want) return std::nullopt;
  }
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, used = 0;
  if (std::sscanf(run.c_str(), "run-%4d%2d%2dT%2d%2d%2dZ-%*d%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6 ||
      used != static_cast<int>(run.size())) {
    return std::nullopt;
  }
  char iso[32];
  std::snprintf(iso, sizeof iso, "%04d-%02d-%02dT%02d:%02d:%02dZ", y, mo, d, h, mi, sec);
  return std::string(iso);
}

// A point the store has no transaction for (a number past its last, a run
// that never wrote, a time before its first write) is NotFound: what the
// store holds, as a missing entity is, where a point written wrongly is
// InvalidArgument (a usage error of the command that took it).
Result<AsAtPoint> ResolveAsAt(const Store& store, const TransactionPoint& t) {
  Result<std::vector<Transaction>> txs = store.ListTransactions();
  if (!txs.ok()) return txs.status().WithContext("reading the transaction log");
  switch (t.kind) {
    case TransactionPoint::Kind::kTx: {
      const TxId last = store.LastTx();
      if (t.tx == 0 || t.tx > last) {
        return Status::NotFound("no transaction " + std::to_string(t.tx) + ": the store has transactions 1 to " +
                                       std::to_string(last));
      }
      return AsAtPoint{t.tx, "as at tx " + std::to_string(t.tx) + ": the store as it was after that transaction"};
    }
    case TransactionPoint::Kind::kRun: {
      std::optional<TxId> found;
      std::vector<std::string> runs;
      for (const Transaction& tx : *txs) {
        if (tx.run_id == t.run) found = std::max(found.value_or(0), tx.id);
        if (std::find(runs.begin(), runs.end(), tx.run_id) == runs.end()) runs.push_back(tx.run_id);
      }
      if (found) return AsAtPoint{*found, "as at run " + t.run + " (tx " + std::to_string(*found) + ")"};
      // A run that wrote nothing (every document unchanged, or every one
      // failed) is in no transaction, but cron logs print its id too: its
      // id says when it ran, and nothing was written while it held the
      // store, so the store as at it is the store at that second.
      // Not for an id whose second a logged run has (another pid): a
      // mistyped id of a run that wrote would read the store before its
      // writes. (Ids of other seconds are not compared: cron runs minutes
      // apart differ in a few digits.)
      const std::string second = t.run.substr(0, t.run.rfind('-') + 1);
      const bool same_second = std::any_of(runs.begin(), runs.end(), [&](const std::string& r) {
        return second.size() > 4 && r.rfind(second, 0) == 0;
      });
      const std::string near = DidYouMean(t.run, runs);
      if (const std::optional<std::string> when = same_second ? std::nullopt : RunTime(t.run)) {
        Result<int64_t> micros = ParseInstant(*when);
        // A run cannot have happened after now: an id dated later is a
        // mistyped one, which read as "a run that changed nothing" was the
        // store as it is, under a name no run has.
        const int64_t now_micros = std::chrono::duration_cast<std::chrono::microseconds>(
                                       std::chrono::system_clock::now().time_since_epoch())
                                       .count();
        // (ParseInstant gives the end of the second named; the run began at its start.)
        if (micros.ok() && *micros - 1000000 > now_micros) {
          return Status::NotFound("no run '" + t.run + "' is recorded, and the time its id names (" + *when +
                                  ") is still to come" + near);
        }
        if (micros.ok()) {
          for (const Transaction& tx : *txs) {
            if (tx.time_micros < *micros) found = std::max(found.value_or(0), tx.id);
          }
          if (!found) {
            return Status::NotFound("no transaction of run '" + t.run + "', and the store was empty at " +
                                           *when + ", the time its id names");
          }
          return AsAtPoint{*found, "as at run " + t.run + " (no transaction of its own, as for a run that changed "
                                   "nothing: the store as it was at " + *when + ", tx " + std::to_string(*found) + ")"};
        }
      }
      if (same_second && RunTime(t.run)) {
        // Its second is no point: another run wrote in it. Said so, with the
        // point before that run's writes, rather than "no such run" and that
        // run offered as the spelling meant (read as at it, the store showed
        // the other run's changes).
        std::optional<Transaction> first_then;
        for (const Transaction& tx : *txs) {
          if (tx.run_id.rfind(second, 0) == 0 && (!first_then || tx.id < first_then->id)) first_then = tx;
        }
        std::string before = first_then && first_then->id > 1
                                 ? "; the store as it was before that run's writes is --as-at tx " +
                                       std::to_string(first_then->id - 1) + " (as at tx " +
                                       std::to_string(first_then->id - 1) + " in a query)"
                                 : "";
        return Status::NotFound("no transaction of run '" + t.run + "' (a run that changed nothing writes none), "
                                       "and its second cannot stand for it: run '" +
                                       (first_then ? first_then->run_id : std::string("?")) +
                                       "' wrote in the same second" + before);
      }
      return Status::NotFound("no ingest run '" + t.run + "'" + near);
    }
    case TransactionPoint::Kind::kTime: {
      Result<int64_t> micros = ParseInstant(t.time);
      if (!micros.ok()) return micros.status();
      std::optional<TxId> found;
      for (const Transaction& tx : *txs) {
        if (tx.time_micros < *micros) found = std::max(found.value_or(0), tx.id);
      }
      if (!found) return Status::NotFound("the store was empty at " + t.time);
      return AsAtPoint{*found, "as at " + t.time + " (tx " + std::to_string(*found) + ")"};
    }
  }
  return Status::InvalidArgument("unknown kind of point in time");
}

Result<AsAtPoint> ResolveAsAt(const Store& store, const std::string& when_as_given) {
  auto trim = [](const std::string& x) {
    const size_t b = x.find_first_not_of(" \t");
    return b == std::string::npos ? std::string() : x.substr(b, x.find_last_not_of(" \t") - b + 1);
  };
  const std::string when = trim(when_as_given);
  auto word = [&](std::string_view w) {
    return when.size() > w.size() && Lower(when.substr(0, w.size())) == w &&
           std::isspace(static_cast<unsigned char>(when[w.size()]));
  };
  TransactionPoint t;
  if (word("tx")) {
    const std::string n = trim(when.substr(2));
    uint64_t tx = 0;
    auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), tx);
    if (n.empty() || ec != std::errc() || end != n.data() + n.size()) {
      return Status::InvalidArgument("'" + when + "': after 'tx', a transaction number (tx 12)");
    }
    t.kind = TransactionPoint::Kind::kTx;
    t.tx = tx;
  } else if (word("run")) {
    std::string run = trim(when.substr(3));
    if (run.size() >= 2 && (run.front() == '"' || run.front() == '\'') && run.back() == run.front()) {
      run = run.substr(1, run.size() - 2);
    }
    t.kind = TransactionPoint::Kind::kRun;
    t.run = run;
  } else if (!when.empty() && std::isdigit(static_cast<unsigned char>(when[0]))) {
    t.kind = TransactionPoint::Kind::kTime;
    t.time = when;
  } else {
    return Status::InvalidArgument("'" + when + "' is not a point in time: tx N, run RUN-ID, a date (2025-01-31) or "
                                   "a timestamp (2025-01-31T12:00:00Z)");
  }
  return ResolveAsAt(store, t);
}

Result<Entity> ResolveEntityName(const Store& store, const Schema& schema, const std::string& name,
                                 const std::string& kind, std::string* short_name_note) {
  Result<Entity> e = store.FindEntity(name);
  if (e.ok() && (kind.empty() || e->kind == kind)) return e;
  if (!e.ok() && !e.status().IsNotFound()) return e.status();
  if (const EntityDef* def = schema.ResolveEntity(name); def != nullptr && (kind.empty() || def->kind == kind)) {
    Result<Entity> stored = store.GetEntity(def->id);
    if (stored.ok()) return stored;
    Entity out;
    out.id = def->id;
    out.kind = def->kind;
    out.name = def->name;
    out.aliases = def->aliases;
    return out;
  }
  if (e.ok()) return Status::NotFound("'" + name + "' is " + WithArticle(e->kind) + ", not " + WithArticle(kind));
  Result<std::optional<Entity>> by_words = ResolveByNameWords(store, schema, name, kind);
  if (!by_words.ok()) return by_words.status();
  if (by_words->has_value()) {
    if (short_name_note != nullptr) *short_name_note = "'" + name + "' read as " + (*by_words)->name;
    return std::move(**by_words);
  }
  // Nothing matched: suggest names of the same kind.
  std::vector<std::string> names;
  Result<std::vector<Entity>> all = store.ListEntities(kind);
  if (all.ok()) {
    for (const Entity& ent : *all) {
      names.push_back(ent.name);
      for (const std::string& a : ent.aliases) names.push_back(a);
    }
  }
  for (const EntityDef& def : schema.entities()) {
    if (!kind.empty() && def.kind != kind) continue;
    names.push_back(def.name);
    for (const std::string& a : def.aliases) names.push_back(a);
  }
  return Status::NotFound("unknown " + (kind.empty() ? std::string("entity") : kind) + " '" + name + "'" +
                          DidYouMean(name, names));
}

namespace {

// Lower-case runs of letters and digits (a hyphen between them joins them):
// "Google TPU v5p" is {google, tpu, v5p}, "Sunway SW26010-Pro" {sunway,
// sw26010pro}. Without `parenthesised`, what is in parentheses is left out:
// "Moore Threads (Tencent)" is {moore, threads}.
std::vector<std::string> NameWords(std::string_view name, bool parenthesised = true) {
  std::vector<std::string> words;
  std::string word;
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    // A hyphen joins a model name into one word: "SW26010-Pro" is not the
    // SW26010, "MLU370-X4" not an "X4".
    const bool joins = c == '-' && !word.empty() && i + 1 < name.size() &&
                       std::isalnum(static_cast<unsigned char>(name[i + 1]));
    if (joins) continue;
    if (std::isalnum(static_cast<unsigned char>(c)) && (parenthesised || depth == 0)) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

bool HasWordRun(const std::vector<std::string>& words, const std::string& key) {
  for (size_t i = 0; i < words.size(); ++i) {
    std::string run;
    for (size_t j = i; j < words.size() && run.size() < key.size(); ++j) {
      run += words[j];
      if (run == key) return true;
    }
  }
  return false;
}

// Whether the last words of the name, joined, are `key`: "MI300X" ends
// "AMD Instinct MI300X", "Rubin" does not end "NVIDIA Rubin CPX".
bool EndsWithWords(const std::vector<std::string>& words, const std::string& key) {
  std::string run;
  for (size_t i = words.size(); i > 0 && run.size() < key.size(); --i) {
    run = words[i - 1] + run;
    if (run == key) return true;
  }
  return false;
}

// Whether `wanted` are words of the name in order, others between allowed
// ("AMD MI300X" in "AMD Instinct MI300X"); with `prefix_last`, the last may
// be the start of a longer word ("MI300" of "MI300X").
bool HasWordsInOrder(const std::vector<std::string>& words, const std::vector<std::string>& wanted, bool prefix_last) {
  size_t k = 0;
  for (size_t i = 0; i < words.size() && k < wanted.size(); ++i) {
    const bool last = k + 1 == wanted.size();
    if (words[i] == wanted[k] || (last && prefix_last && words[i].size() > wanted[k].size() &&
                                  words[i].compare(0, wanted[k].size(), wanted[k]) == 0)) {
      ++k;
    }
  }
  return k == wanted.size();
}

}  // namespace

Result<std::optional<Entity>> ResolveByNameWords(const Store& store, const Schema& schema, const std::string& name,
                                                 const std::string& kind) {
  const std::vector<std::string> wanted = NameWords(name);
  std::string key;
  for (const std::string& w : wanted) key += w;
  // A bare number ("100") or a single letter names nothing by itself.
  if (key.size() < 2 || std::none_of(key.begin(), key.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); })) {
    return std::optional<Entity>();
  }
  // Every name of the entity: a short name must end one of them (its
  // parenthesised part aside) to stand for it; one that is only part of some
  // names ("Rubin", "Llama 3", "H100") lists them instead of picking.
  auto names_of = [](const std::string& entity_name, const std::vector<std::string>& aliases) {
    std::vector<std::string> all = aliases;
    all.insert(all.begin(), entity_name);
    return all;
  };
  // `containing`: every entity the words could mean, also where the last
  // is only the start of a word ("MI300" could be MI300X or MI300A).
  std::vector<Entity> ending, containing;
  size_t holding = 0;  // of `containing`, those with the words themselves
  auto consider = [&](Entity ent) {
    bool ends = false, contains = false, near = false;
    for (const std::string& n : names_of(ent.name, ent.aliases)) {
      const std::vector<std::string> words = NameWords(n);
      ends = ends || EndsWithWords(NameWords(n, /*parenthesised=*/false), key);
      contains = contains || HasWordRun(words, key) || HasWordsInOrder(words, wanted, false);
      near = near || HasWordsInOrder(words, wanted, true);
    }
    if (ends) ending.push_back(ent);
    if (contains || ends || near) {
      holding += contains || ends;
      containing.push_back(std::move(ent));
    }
  };
  Result<std::vector<Entity>> stored = store.ListEntities(kind);
  if (!stored.ok()) return stored.status();
  std::set<EntityId> seen;
  for (Entity& ent : *stored) {
    seen.insert(ent.id);
    consider(std::move(ent));
  }
  for (const EntityDef& def : schema.entities()) {
    if ((!kind.empty() && def.kind != kind) || seen.count(def.id) != 0) continue;
    consider(Entity{def.id, def.kind, def.name, def.aliases});
  }
  // Only when no other entity's name holds the words either ("Data Center"
  // ends one data center's alias and is in the other's name). A model
  // number (a word with a digit) held by one name alone is that entity
  // wherever it stands in the name ("H200" of "NVIDIA H200 SXM"); words
  // without one are not ("Rubin" of "NVIDIA Rubin CPX").
  const bool model_number = std::any_of(key.begin(), key.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (containing.size() == 1 && (ending.size() == 1 || (model_number && holding == 1))) {
    return std::optional<Entity>(std::move(containing.front()));
  }
  std::vector<Entity>& found = containing;
  if (found.empty()) return std::optional<Entity>();
  std::sort(found.begin(), found.end(), [](const Entity& a, const Entity& b) { return a.name < b.name; });
  constexpr size_t kListed = 8;
  std::string list;
  for (size_t i = 0; i < found.size() && i < kListed; ++i) {
    // Two entities of one name (a corpus's own and the schema's) are told apart by id.
    const bool shared = (i > 0 && found[i - 1].name == found[i].name) ||
                        (i + 1 < found.size() && found[i + 1].name == found[i].name);
    list += (i == 0 ? "'" : ", '") + (shared ? found[i].id : found[i].name) + "'";
  }
  if (found.size() > kListed) list += " and " + std::to_string(found.size() - kListed) + " more";
  const bool one_kind = std::all_of(found.begin(), found.end(),
                                   [&found](const Entity& e) { return e.kind == found.front().kind; });
  const std::string what = std::to_string(found.size()) + " " +
                           (one_kind ? found.front().kind + (found.size() == 1 ? "" : "s")
                                     : std::string(found.size() == 1 ? "entity" : "entities"));
  return Status::NotFound("'" + name + "' is part of the name of " + what + ": " + list + "; write the whole name" +
                          (one_kind && found.size() > 1 ? ", or put them side by side: find " + found.front().kind +
                                                              " where name contains \"" + name + "\""
                                                        : std::string()));
}

bool SelectsDocument(const SourceSelector& selector, const Document& document) {
  if (!selector.is_site) return Lower(document.kind) == selector.name;
  const std::string site = Lower(document.site);
  const std::string& want = selector.name;
  return site == want || (site.size() > want.size() && site.compare(site.size() - want.size(), want.size(), want) == 0 &&
                          site[site.size() - want.size() - 1] == '.');
}

Result<BoundQuery> Bind(const Query& query, std::string_view text, const Store& store, const Schema& schema,
                        const QueryOptions& options) {
  Binder binder(text, store, schema, options);
  return binder.Bind(query);
}

}  // namespace chipkg::query
