// The fact-checker's shared machinery (citations, grouping, targets) and the
// describe, conflicts, sources, source and history reports. Trace, verify and
// the renderers live in factcheck_trace.cpp, factcheck_verify.cpp and
// factcheck_render.cpp.
#include "query/factcheck.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

#include "query/binder.h"
#include "query/factcheck_internal.h"
#include "query/suggest.h"

namespace chipkg::factcheck {

namespace internal {
namespace {

constexpr size_t kMaxTarget = 4096;       // bytes of an ENTITY.ATTR(...) target
constexpr size_t kMaxAttributeName = 64;  // longer than any attribute name

std::string Lower(const std::string& s) {
  std::string out = s;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) b++;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) e--;
  return s.substr(b, e - b);
}

std::string Unquote(const std::string& s) {
  std::string t = Trim(s);
  if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'') && t.back() == t.front()) {
    return t.substr(1, t.size() - 2);
  }
  return t;
}

// Splits "a, \"b, c\", d" on commas outside quotes.
std::vector<std::string> SplitArguments(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  char quote = 0;
  for (char c : s) {
    if (quote) {
      cur.push_back(c);
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
      cur.push_back(c);
    } else if (c == ',') {
      out.push_back(Unquote(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!Trim(cur).empty() || !out.empty()) out.push_back(Unquote(cur));
  return out;
}

// "memory bandwidth" -> "memory_bandwidth"; "Memory-Bandwidth" likewise.
std::string AttributeSpelling(const std::string& s) {
  std::string out;
  for (char c : Trim(s)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isspace(u) || c == '-') {
      if (!out.empty() && out.back() != '_') out.push_back('_');
    } else {
      out.push_back(static_cast<char>(std::tolower(u)));
    }
  }
  return out;
}

bool KnownAttribute(const Schema& schema, const std::string& name) {
  return schema.FindPredicate(name) || schema.FindAttribute(name) || schema.FindDerivation(name);
}

std::vector<std::string> EntityNames(const Store& store) {
  std::vector<std::string> names;
  auto entities = store.ListEntities();
  if (!entities.ok()) return names;
  for (const auto& e : *entities) {
    names.push_back(e.name);
    for (const auto& a : e.aliases) names.push_back(a);
  }
  return names;
}

}  // namespace

// ---- Library ------------------------------------------------------------------

bool Library::Note(const Status& status) {
  if (status.ok()) return true;
  if (failure_.ok() && !status.IsNotFound()) failure_ = status;
  return false;
}

std::string Library::EntityName(const EntityId& id) {
  auto it = names_.find(id);
  if (it != names_.end()) return it->second;
  std::string name = id;
  auto e = store_.GetEntity(id);
  if (Note(e.status()) && !e->name.empty()) {
    name = e->name;
  } else if (const EntityDef* def = schema_.ResolveEntity(id); def && !def->name.empty()) {
    name = def->name;
  }
  names_[id] = name;
  return name;
}

const Document* Library::GetDocument(const std::string& id) {
  auto it = documents_.find(id);
  if (it != documents_.end()) return it->second.get();
  auto doc = store_.GetDocument(id);
  auto& slot = documents_[id];
  if (Note(doc.status())) slot = std::make_unique<Document>(std::move(*doc));
  return slot.get();
}

const DocumentVersion* Library::GetVersion(const std::string& id, uint32_t version) {
  auto key = std::make_pair(id, version);
  auto it = versions_.find(key);
  if (it != versions_.end()) return it->second.get();
  auto v = store_.GetDocumentVersion(id, version);
  auto& slot = versions_[key];
  if (Note(v.status())) {
    slot = std::make_unique<DocumentVersion>(std::move(*v));
  }
  return slot.get();
}

const DocumentVersion* Library::LatestVersion(const std::string& id) {
  auto it = latest_versions_.find(id);
  if (it == latest_versions_.end()) {
    std::optional<DocumentVersion> latest;
    auto versions = store_.ListDocumentVersions(id, /*with_text=*/false);
    if (Note(versions.status())) {
      for (DocumentVersion& v : *versions) {
        if (as_of_tx_ && v.tx > *as_of_tx_) continue;
        if (!latest || v.version > latest->version) latest = std::move(v);
      }
    }
    it = latest_versions_.emplace(id, std::move(latest)).first;
  }
  return it->second ? &*it->second : nullptr;
}

std::optional<Transaction> Library::GetTransaction(TxId tx) {
  if (!transactions_) {
    transactions_.emplace();
    if (auto list = store_.ListTransactions(); Note(list.status())) {
      for (auto& t : *list) (*transactions_)[t.id] = t;
    }
  }
  auto it = transactions_->find(tx);
  if (it == transactions_->end()) return std::nullopt;
  return it->second;
}

std::string Library::FormatCanonical(double canonical, const std::string& dimension,
                                     const std::string& predicate, const Qualifiers* qualifiers, bool written) {
  std::string unit;
  if (!predicate.empty()) {
    if (const PredicateDef* p = schema_.FindPredicate(predicate); p && p->dimension == dimension) {
      unit = p->display_unit;
    }
  }
  std::string out = written ? schema_.FormatWrittenFigure(canonical, dimension, unit, qualifiers)
                            : schema_.FormatQuantity(canonical, dimension, unit, qualifiers);
  if (!out.empty()) return out;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", canonical);
  return buf;
}

std::string Library::Display(const Value& value, const std::string& predicate, bool as_written,
                             const Qualifiers* qualifiers) {
  switch (value.kind) {
    case ValueKind::kNotPublished:
      return "not published";
    case ValueKind::kEntity:
      return EntityName(value.text);
    case ValueKind::kDate:
      return value.date.ToString();
    case ValueKind::kBool:
      return value.number != 0 ? "yes" : "no";
    case ValueKind::kText:
      return value.text;
    case ValueKind::kQuantity: {
      // The figure as the page wrote it ("32 GiB", "2,900 GB/s") when it reads
      // as a quantity with a unit and a number people write; a dataset cell
      // in base units ("9800000000000.0 byte/s") is shown in the display unit.
      if (as_written && !value.original.empty()) {
        auto parsed = schema_.ParseQuantity(value.original, value.dimension);
        if (parsed && !parsed->unit.empty() && std::fabs(parsed->number) < 1e6) {
          std::string text = value.original.substr(0, parsed->consumed);
          while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
          size_t b = 0;
          while (b < text.size() && std::isspace(static_cast<unsigned char>(text[b]))) b++;
          return text.substr(b);
        }
      }
      return FormatCanonical(value.number, value.dimension, predicate, qualifiers,
                             /*written=*/!value.original.empty());
    }
  }
  return value.ToString();
}

std::string Library::PerChipDisplay(const Value& value, const Qualifiers& qualifiers,
                                    const std::string& predicate) {
  if (value.kind != ValueKind::kQuantity || !ScalesWithChips(value.dimension)) return "";
  auto chips = ScopeChips(qualifiers);
  if (!chips || *chips == 1) return "";
  return FormatCanonical(value.number / *chips, value.dimension, predicate, &qualifiers) + " per chip";
}

std::vector<std::pair<double, std::string>> Library::KnownChipCounts(const EntityId& chip,
                                                                     const ReadView& view) {
  std::vector<std::pair<double, std::string>> out;
  auto add = [&](double n, const std::string& where) {
    if (!(n > 1) || !std::isfinite(n)) return;
    for (const auto& [m, w] : out) {
      if (m == n && w == where) return;
    }
    out.emplace_back(n, where);
  };
  if (auto refs = store_.FactsReferencing(chip, view); Note(refs.status())) {
    for (const Fact& f : *refs) {
      if (f.predicate != "accelerator") continue;
      auto chips = store_.FactsAbout(f.subject, "chips", view);
      if (!Note(chips.status())) continue;
      for (const Fact& c : *chips) {
        if (c.value.kind == ValueKind::kQuantity) add(c.value.number, EntityName(f.subject));
      }
    }
  }
  if (auto own = store_.FactsAbout(chip, view); Note(own.status())) {
    for (const Fact& f : *own) {
      auto it = f.qualifiers.find(qualifier::kScopeCount);
      if (it == f.qualifiers.end()) continue;
      auto n = ScopeChips(f.qualifiers);
      auto scope = f.qualifiers.find(qualifier::kScope);
      std::string what = scope == f.qualifiers.end() ? "unit" : scope->second;
      if (n) add(*n, it->second + "-chip " + what);
    }
  }
  return out;
}

// ---- citations and claims -----------------------------------------------------

Citation MakeCitation(Library& library, const Fact& fact) {
  Citation c;
  c.fact_id = fact.id;
  const Provenance& p = fact.provenance;
  c.document_id = p.document_id;
  c.version = p.document_version;
  c.valid_as_of = fact.valid_as_of;
  if (const Document* d = library.GetDocument(p.document_id)) {
    c.title = d->title;
    c.url = d->url;
    c.site = d->site;
    c.kind = d->kind;
  }
  if (const DocumentVersion* v = library.GetVersion(p.document_id, p.document_version)) {
    // The version's own place and title, where it keeps them (re-ingested from elsewhere).
    if (!v->url.empty()) c.url = v->url;
    if (!v->title.empty()) c.title = v->title;
    c.content_hash = v->content_hash;
    c.fetched_at = v->fetched_at;
    c.document_as_of = v->as_of;
  }
  c.section = p.section;
  c.span_begin = p.span_begin;
  c.span_end = p.span_end;
  c.excerpt = p.excerpt;
  c.attribution = p.attribution;
  c.cited = p.citations;
  c.row = p.row;
  c.column = p.column;
  c.note = p.note;
  c.rule = p.rule;
  c.rule_version = p.rule_version;
  c.derivation = p.derivation;
  c.formula = p.formula;
  return c;
}

int CitationTable::Cite(Library& library, const Fact& fact) {
  const Provenance& p = fact.provenance;
  auto key = std::make_tuple(p.document_id, p.document_version, p.span_begin, p.span_end,
                             fact.valid_as_of ? fact.valid_as_of->ToString() : std::string());
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  Citation c = MakeCitation(library, fact);
  c.number = static_cast<int>(list_.size()) + 1;
  list_.push_back(std::move(c));
  index_[key] = list_.back().number;
  return list_.back().number;
}

Claim MakeClaim(Library& library, CitationTable* citations, const Fact& fact) {
  Claim c;
  c.fact_id = fact.id;
  if (citations) c.citation = citations->Cite(library, fact);
  c.value = fact.value;
  c.qualifiers = fact.qualifiers;
  // Dataset cells are numbers in base units: shown in the display unit.
  c.display = library.Display(fact.value, fact.predicate, fact.provenance.row < 0, &fact.qualifiers);
  c.per_chip_display = library.PerChipDisplay(fact.value, fact.qualifiers, fact.predicate);
  c.valid_as_of = fact.valid_as_of;
  c.document_id = fact.provenance.document_id;
  c.asserted_tx = fact.asserted_tx;
  c.retracted_tx = library.RetractedAsSeen(fact.retracted_tx);
  return c;
}

bool HasQualifiers(const Qualifiers& fact_qualifiers, const Qualifiers& fixed) {
  for (const auto& [k, v] : fixed) {
    auto it = fact_qualifiers.find(k);
    if (it == fact_qualifiers.end()) {
      // As a query reads a claim that does not say (query/evaluator.cpp, MatchesFilter).
      if (k == qualifier::kSparsity && v == "dense") continue;
      if (k == qualifier::kBasis && v == "stated") continue;
      if (k == qualifier::kScope && v == "chip") continue;
      return false;
    }
    if (it->second != v) return false;
  }
  return true;
}

// ---- grouping -----------------------------------------------------------------

std::vector<AttributeSummary> Summarise(Library& library, CitationTable& citations, std::vector<Fact> facts,
                                        const Options& options, bool conflicts_only) {
  const Schema& schema = library.schema();
  // The core predicates (schema/predicates.schema) in their declared order,
  // then those other schema files add (dataset columns, site extras).
  std::map<std::string, size_t> order;
  const auto& predicates = schema.predicates();
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& p : predicates) {
      bool core = p.file.size() >= 17 && p.file.compare(p.file.size() - 17, 17, "predicates.schema") == 0 &&
                  (p.file.size() == 17 || p.file[p.file.size() - 18] == '/');
      if (core == (pass == 0)) order.emplace(p.name, order.size());
    }
  }
  auto rank = [&](const std::string& p) {
    auto it = order.find(p);
    return it == order.end() ? order.size() : it->second;
  };
  std::stable_sort(facts.begin(), facts.end(), [](const Fact& a, const Fact& b) {
    return std::tie(a.provenance.document_id, a.provenance.document_version, a.provenance.span_begin, a.id) <
           std::tie(b.provenance.document_id, b.provenance.document_version, b.provenance.span_begin, b.id);
  });

  // A source's estimate of a figure is in the same bucket as the stated
  // values it may contradict (SameFigure); a bucket of estimates alone keeps
  // {basis=estimate} in its label, one of both marks each estimate.
  struct Bucket {
    EntityId subject;
    std::string predicate;
    Qualifiers key;  // its first claim's
    bool mixed_basis = false;
    std::vector<std::vector<const Fact*>> clusters;
  };
  std::map<std::tuple<EntityId, size_t, std::string, std::string>, Bucket> buckets;
  for (const Fact& f : facts) {
    Qualifiers key = ComparisonQualifiers(f.qualifiers, f.value);
    auto id = std::make_tuple(f.subject, rank(f.predicate), f.predicate, QualifiersToString(WithoutBasis(key)));
    Bucket& b = buckets[id];
    if (b.clusters.empty()) {
      b.subject = f.subject;
      b.predicate = f.predicate;
      b.key = key;
    } else if (b.key != key) {
      b.mixed_basis = true;
    }
    // A claim joins the values it agrees with, every one of them: a year
    // agrees with two days of it that disagree with each other.
    bool placed = false;
    for (auto& cluster : b.clusters) {
      const bool agrees = std::all_of(cluster.begin(), cluster.end(), [&](const Fact* member) {
        return EstimateOfTheUnpublished(member->value, member->qualifiers, f.value, f.qualifiers) ||
               CompareValues(member->value, member->qualifiers, f.value, f.qualifiers, options.compare).agree;
      });
      if (agrees) {
        cluster.push_back(&f);
        placed = true;
        break;
      }
    }
    if (!placed) b.clusters.push_back({&f});
  }

  std::vector<AttributeSummary> out;
  for (auto& [id, b] : buckets) {
    // Differences first: a conflicts-only report cites nothing it does not show.
    std::vector<Difference> differences;
    // Values side by side (values=many: regions, descriptions) add up rather than compete.
    const PredicateDef* declared = schema.FindPredicate(b.predicate);
    if (declared == nullptr || !declared->many_values) {
      // One document giving two values (a cell listing two foundries) is not
      // two sources disagreeing: a difference needs claims from two documents.
      auto only_document = [](const std::vector<const Fact*>& cluster) -> std::optional<std::string> {
        for (const Fact* f : cluster) {
          if (f->provenance.document_id != cluster.front()->provenance.document_id) return std::nullopt;
        }
        return cluster.front()->provenance.document_id;
      };
      for (size_t i = 0; i < b.clusters.size(); ++i) {
        for (size_t j = i + 1; j < b.clusters.size(); ++j) {
          auto di = only_document(b.clusters[i]), dj = only_document(b.clusters[j]);
          if (di && dj && *di == *dj) continue;
          // The first two members that disagree (the clusters' first members may not).
          bool found = false;
          for (size_t xi = 0; xi < b.clusters[i].size() && !found; ++xi) {
            for (size_t yi = 0; yi < b.clusters[j].size() && !found; ++yi) {
              const Fact* x = b.clusters[i][xi];
              const Fact* y = b.clusters[j][yi];
              // Pair by pair, as the query language does: a cluster with two
              // documents may hold the one whose own two values disagree.
              if (x->provenance.document_id == y->provenance.document_id) continue;
              if (EstimateOfTheUnpublished(x->value, x->qualifiers, y->value, y->qualifiers)) continue;
              Comparison c = CompareValues(x->value, x->qualifiers, y->value, y->qualifiers, options.compare);
              if (c.agree) continue;
              differences.push_back({i, j, xi, yi, c});
              found = true;
            }
          }
        }
      }
    }
    if (conflicts_only && differences.empty()) continue;
    AttributeSummary s;
    s.differences = std::move(differences);
    s.subject = b.subject;
    s.subject_name = library.EntityName(b.subject);
    s.predicate = b.predicate;
    s.key = b.mixed_basis ? WithoutBasis(b.key) : b.key;
    // People read "model=Llama 3.1 70B", not the id; the key keeps the id.
    Qualifiers shown = s.key;
    for (auto& [k, v] : shown) {
      if (v.find(':') != std::string::npos) v = library.EntityName(v);
    }
    s.label = b.predicate + (shown.empty() ? "" : " {" + QualifiersToString(shown) + "}");
    for (const auto& cluster : b.clusters) {
      ValueGroup g;
      std::set<std::string> docs;
      for (const Fact* f : cluster) {
        g.claims.push_back(MakeClaim(library, &citations, *f));
        if (b.mixed_basis && IsEstimate(f->qualifiers)) g.claims.back().display += " (estimate)";
        docs.insert(f->provenance.document_id);
      }
      g.display = g.claims.front().display;
      g.documents = docs.size();
      s.groups.push_back(std::move(g));
    }
    out.push_back(std::move(s));
  }
  return out;
}

void AddSanityFlags(Library& library, AttributeSummary& summary, const ReadView& view) {
  if (summary.groups.size() < 2) return;
  constexpr double kImplausibleRatio = 3.0;
  constexpr double kExplainedWithin = 1.5;  // per-chip figure within this factor of the others
  std::vector<std::optional<double>> per_chip;
  for (const auto& g : summary.groups) {
    const Claim& c = g.claims.front();
    auto n = PerChipNumber(c.value, c.qualifiers);
    per_chip.push_back(n && *n > 0 ? n : std::nullopt);
  }
  std::optional<std::vector<std::pair<double, std::string>>> counts;
  std::map<size_t, SanityFlag> flags;
  for (size_t i = 0; i < per_chip.size(); ++i) {
    for (size_t j = i + 1; j < per_chip.size(); ++j) {
      if (!per_chip[i] || !per_chip[j]) continue;
      size_t hi = *per_chip[i] >= *per_chip[j] ? i : j;
      size_t lo = hi == i ? j : i;
      double ratio = *per_chip[hi] / *per_chip[lo];
      if (ratio < kImplausibleRatio) continue;
      // The suspect is the figure fewer documents support; on a tie, the
      // larger one (a total passed off as a per-chip figure is the common slip).
      size_t suspect = summary.groups[lo].documents < summary.groups[hi].documents ? lo : hi;
      size_t other = suspect == hi ? lo : hi;
      const Value& sv = summary.groups[suspect].claims.front().value;
      std::string dim = sv.dimension;
      std::string s_text = library.FormatCanonical(*per_chip[suspect], dim, summary.predicate, &summary.key);
      std::string o_text = library.FormatCanonical(*per_chip[other], dim, summary.predicate, &summary.key);
      SanityFlag flag;
      flag.group = suspect;
      flag.ratio = *per_chip[suspect] / *per_chip[other];
      size_t other_docs = summary.groups[other].documents;
      char rbuf[32];
      std::snprintf(rbuf, sizeof rbuf, "%.3g", ratio);
      flag.message = "implausible for one chip: " + s_text + (suspect == hi ? " is " : " is 1/") + rbuf +
                     "x the " + o_text + " of " + std::to_string(other_docs) + " other source" +
                     (other_docs == 1 ? "" : "s");
      if (suspect == hi && ScalesWithChips(dim)) {
        if (!counts) counts = library.KnownChipCounts(summary.subject, view);
        double best = std::numeric_limits<double>::infinity();
        for (const auto& [n, where] : *counts) {
          double miss = std::fabs(std::log(*per_chip[hi] / n / *per_chip[lo]));
          if (miss < best) {
            best = miss;
            flag.chips = n;
            flag.where = where;
          }
        }
        if (flag.chips && best <= std::log(kExplainedWithin)) {
          char nbuf[32];
          std::snprintf(nbuf, sizeof nbuf, "%g", *flag.chips);
          flag.message += "; " + s_text + " / " + nbuf + " (" + flag.where + ") = " +
                          library.FormatCanonical(*per_chip[hi] / *flag.chips, dim, summary.predicate, &summary.key) +
                          " per chip: likely a per-server/instance figure";
        } else {
          flag.chips.reset();
          flag.where.clear();
        }
      }
      auto it = flags.find(suspect);
      if (it == flags.end() || std::fabs(std::log(it->second.ratio)) < std::fabs(std::log(flag.ratio))) {
        flags[suspect] = flag;
      }
    }
  }
  for (auto& [g, f] : flags) summary.flags.push_back(std::move(f));
}

// ---- targets and names ----------------------------------------------------------

Result<Target> ParseTarget(const Store& store, const Schema& schema, const std::string& text) {
  if (text.size() > kMaxTarget) {
    return Status::InvalidArgument("target of " + std::to_string(text.size()) +
                                   " bytes is too long (at most " + std::to_string(kMaxTarget) + ")");
  }
  std::string head = Trim(text);
  Target t;
  // ENTITY.ATTRIBUTE{key=value, ...}: qualifiers narrowing the attribute, as
  // in a query (trace "TPU v4.tdp{basis=estimate}").
  Qualifiers asked;
  auto listed = [](const std::vector<std::string>& words) {
    std::string out;
    for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
    return out;
  };
  if (const size_t brace = head.find('{'); brace != std::string::npos && head.back() != '}') {
    return Status::InvalidArgument("'{' at byte " + std::to_string(brace + 1) + " of '" + text +
                                   "' is not closed: expected ENTITY.ATTRIBUTE{KEY=VALUE, ...}");
  }
  if (!head.empty() && head.back() == '}') {
    const size_t open = head.rfind('{');
    if (open == std::string::npos) return Status::InvalidArgument("unbalanced braces in '" + text + "'");
    std::string inner = head.substr(open + 1, head.size() - open - 2);
    head = Trim(head.substr(0, open));
    if (Trim(inner).empty()) return Status::InvalidArgument("'{}' in '" + text + "' narrows nothing: give KEY=VALUE");
    for (size_t at = 0; at <= inner.size();) {
      size_t comma = inner.find(',', at);
      if (comma == std::string::npos) comma = inner.size();
      const std::string pair = Trim(inner.substr(at, comma - at));
      at = comma + 1;
      if (pair.empty()) continue;
      const size_t eq = pair.find('=');
      const std::string key = eq == std::string::npos ? pair : Trim(pair.substr(0, eq));
      std::string value = eq == std::string::npos ? "" : Trim(pair.substr(eq + 1));
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
        value = value.substr(1, value.size() - 2);
      }
      const auto& keys = schema.qualifier_keys();
      if (value.empty()) {
        return Status::InvalidArgument("'{" + inner + "}' in '" + text + "': expected {KEY=VALUE, ...} with KEY one of " +
                                       listed(keys));
      }
      // A misspelt key or value is a name not found, as in a query's braces
      // (exit 1, with the nearest names), not a malformed command line.
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        return Status::NotFound("unknown qualifier '" + key + "'" + query::DidYouMean(key, keys) + " in '" + text +
                                "': expected {KEY=VALUE, ...} with KEY one of " + listed(keys));
      }
      if (const std::vector<std::string>* values = schema.QualifierValues(key)) {
        for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        value = query::ThroughSynonym(schema, value, *values);  // "{format=bfloat16}" as a query reads it
        if (std::find(values->begin(), values->end(), value) == values->end()) {
          return Status::NotFound("unknown " + key + " '" + value + "'" + query::DidYouMean(value, *values) + " in '" +
                                  text + "': " + key + " is one of " + listed(*values));
        }
      }
      if (const std::string* kind = schema.QualifierObjectKind(key)) {
        // Its values are entity ids: a model written by name, as a query takes it.
        auto named = FindEntityByName(store, schema, value);
        if (!named.ok()) return named.status().WithContext("'" + key + "=" + value + "' in '" + text + "'");
        if (named->kind != *kind) {
          return Status::InvalidArgument("'" + key + "=" + value + "' in '" + text + "': " + value + " is a " +
                                         named->kind + ", and " + key + " names a " + *kind);
        }
        value = named->id;
      }
      if (!asked.emplace(key, value).second) {
        return Status::InvalidArgument("'" + key + "' given twice in '{" + inner + "}' of '" + text + "'");
      }
    }
  }
  if (!head.empty() && head.back() == ')') {
    // ENTITY.fits("Llama 3.1 70B", int8): the arguments' parenthesis is the
    // last top-level one; names may themselves contain parentheses.
    int depth = 0;
    char quote = 0;
    size_t open = std::string::npos;
    for (size_t i = head.size(); i-- > 0;) {
      char c = head[i];
      if (quote) {
        if (c == quote) quote = 0;
        continue;
      }
      if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == ')') {
        depth++;
      } else if (c == '(' && --depth == 0) {
        open = i;
        break;
      }
    }
    if (open == std::string::npos) return Status::InvalidArgument("unbalanced parentheses in '" + text + "'");
    std::string inner = head.substr(open + 1, head.size() - open - 2);
    std::string before = Trim(head.substr(0, open));
    // Only a derivation takes arguments; "AWS Trainium (Trn1).memory" has none.
    size_t cut = before.find_last_of(". ");
    std::string name = cut == std::string::npos ? before : before.substr(cut + 1);
    if (schema.FindDerivation(AttributeSpelling(name))) {
      t.arguments = SplitArguments(inner);
      t.call = true;
      head = before;
    }
  }
  // Try every split point from the right: the attribute is the last word
  // (possibly after a dot), the entity everything before it.
  std::vector<size_t> cuts;
  for (size_t i = head.size(); i-- > 0;) {
    if (head[i] == '.' || head[i] == ' ') cuts.push_back(i);
  }
  std::string first_attr, first_entity;
  for (size_t cut : cuts) {
    // Cuts run right to left, so the attribute part only grows: past the
    // longest name anyone declares, no later cut can name an attribute.
    if (head.size() - cut - 1 > kMaxAttributeName) break;
    std::string entity = Trim(head.substr(0, cut));
    std::string attr = AttributeSpelling(head.substr(cut + 1));
    if (entity.empty() || attr.empty()) continue;
    if (first_attr.empty()) {
      first_attr = attr;
      first_entity = entity;
    }
    // Another word for an attribute (schema/synonyms.schema), read for the entity's kind: trainium2.power.
    const bool synonym = !KnownAttribute(schema, attr) && !schema.FindSynonyms(attr, "").empty();
    if (!KnownAttribute(schema, attr) && !synonym) continue;
    auto e = FindEntityByName(store, schema, entity);
    if (!e.ok()) {
      if (cut == cuts.front()) return e.status();
      continue;
    }
    if (synonym) {
      const std::vector<const SynonymDef*> meant = schema.FindSynonyms(attr, e->kind);
      if (meant.size() != 1) {
        return Status::NotFound("'" + attr + "' names no attribute of " + e->kind + " in '" + text + "'");
      }
      attr = meant.front()->target;
    }
    t.entity = *e;
    t.attribute = attr;
    if (const AttributeDef* a = schema.FindAttribute(attr)) {
      t.predicate = a->predicate;
      t.fixed = a->qualifiers;
    } else if (schema.FindPredicate(attr)) {
      t.predicate = attr;
    }
    t.derivation = schema.FindDerivation(attr);
    if (!t.arguments.empty() && !t.derivation) {
      return Status::InvalidArgument("'" + attr + "' takes no arguments");
    }
    for (const auto& [key, value] : asked) {
      if (auto it = t.fixed.find(key); it != t.fixed.end() && it->second != value) {
        return Status::InvalidArgument("'" + attr + "' is " + key + "=" + it->second + " already; {" + key + "=" +
                                       value + "} asks for other claims in '" + text + "'");
      }
      t.fixed[key] = value;
    }
    return t;
  }
  if (first_attr.empty()) {
    return Status::InvalidArgument("expected ENTITY.ATTRIBUTE (e.g. trainium.memory_bandwidth), got '" +
                                   text + "'");
  }
  // "trainium.memory extra": an attribute the schema knows, then words after
  // it. Said as an unknown attribute 'extra', it sent the user to the schema.
  if (const size_t dot = head.rfind('.'); dot != std::string::npos) {
    const size_t space = head.find(' ', dot);
    if (space != std::string::npos && KnownAttribute(schema, AttributeSpelling(head.substr(dot + 1, space - dot - 1)))) {
      return Status::InvalidArgument("unexpected '" + Trim(head.substr(space)) + "' after '" + head.substr(0, space) +
                                     "': one ENTITY.ATTRIBUTE, nothing after it");
    }
  }
  return Status::NotFound("unknown attribute '" + first_attr + "'" +
                          query::DidYouMean(first_attr, AttributeNames(schema)) + " in '" + text + "'");
}

size_t Utf8Floor(const std::string& text, size_t pos) {
  pos = std::min(pos, text.size());
  while (pos > 0 && pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) pos--;
  return pos;
}

size_t Utf8Ceil(const std::string& text, size_t pos) {
  pos = std::min(pos, text.size());
  while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) pos++;
  return pos;
}

void CollectLeaves(const Expr& expr, std::vector<const Expr*>& leaves) {
  switch (expr.kind) {
    case Expr::Kind::kNumber:
      return;
    case Expr::Kind::kPredicate:
    case Expr::Kind::kParamPredicate:
    case Expr::Kind::kTableLookup:
      for (const Expr* l : leaves) {
        if (LeafName(*l) == LeafName(expr)) return;
      }
      leaves.push_back(&expr);
      return;
    case Expr::Kind::kBinary:
    case Expr::Kind::kCompare:
      for (const Expr& o : expr.operands) CollectLeaves(o, leaves);
      return;
  }
}

std::string LeafName(const Expr& leaf) {
  switch (leaf.kind) {
    case Expr::Kind::kPredicate:
      return leaf.name;
    case Expr::Kind::kParamPredicate:
      return leaf.param + "." + leaf.name;
    case Expr::Kind::kTableLookup:
      return leaf.name + "(" + leaf.param + ")";
    default:
      return leaf.ToString();
  }
}

std::string RenderExpr(const Expr& expr, const std::function<std::string(const Expr&)>& show) {
  auto op = [](Expr::Op o) -> const char* {
    switch (o) {
      case Expr::Op::kAdd:
        return " + ";
      case Expr::Op::kSub:
        return " - ";
      case Expr::Op::kMul:
        return " \xC3\x97 ";
      case Expr::Op::kDiv:
        return " / ";
      case Expr::Op::kLess:
        return " < ";
      case Expr::Op::kLessEqual:
        return " <= ";
      case Expr::Op::kGreater:
        return " > ";
      case Expr::Op::kGreaterEqual:
        return " >= ";
      case Expr::Op::kNone:
        return " ? ";
    }
    return " ? ";
  };
  switch (expr.kind) {
    case Expr::Kind::kNumber: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", expr.number);
      return buf;
    }
    case Expr::Kind::kBinary:
    case Expr::Kind::kCompare: {
      if (expr.operands.size() != 2) return expr.ToString();
      auto side = [&](const Expr& e) {
        std::string s = RenderExpr(e, show);
        bool wrap = e.kind == Expr::Kind::kBinary && (e.op == Expr::Op::kAdd || e.op == Expr::Op::kSub) &&
                    (expr.op == Expr::Op::kMul || expr.op == Expr::Op::kDiv);
        return wrap ? "(" + s + ")" : s;
      };
      return side(expr.operands[0]) + op(expr.op) + side(expr.operands[1]);
    }
    default:
      return show(expr);
  }
}

}  // namespace internal

using namespace internal;

// ---- public helpers -------------------------------------------------------------

Result<Format> ParseFormat(const std::string& name) {
  std::string n = Lower(name);
  if (n == "text") return Format::kText;
  if (n == "json") return Format::kJson;
  if (n == "csv") return Format::kCsv;
  return Status::InvalidArgument("unknown format '" + name + "' (choose text, json or csv)");
}

const char* FormatName(Format format) {
  switch (format) {
    case Format::kText:
      return "text";
    case Format::kJson:
      return "json";
    case Format::kCsv:
      return "csv";
  }
  return "text";
}

std::vector<std::string> AttributeNames(const Schema& schema) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  auto add = [&](const std::string& n) {
    if (seen.insert(n).second) names.push_back(n);
  };
  for (const auto& p : schema.predicates()) add(p.name);
  for (const auto& a : schema.attributes()) add(a.name);
  for (const auto& d : schema.derivations()) add(d.name);
  return names;
}

Result<Entity> FindEntityByName(const Store& store, const Schema& schema, const std::string& name) {
  std::string n = Unquote(name);
  if (n.empty()) return Status::InvalidArgument("an entity name is needed (e.g. Trainium)");
  auto found = store.FindEntity(n);
  if (found.ok()) return found;
  if (!found.status().IsNotFound()) return found.status();
  if (const EntityDef* def = schema.ResolveEntity(n)) {
    auto stored = store.GetEntity(def->id);
    if (stored.ok()) return stored;
    Entity e;
    e.id = def->id;
    e.kind = def->kind;
    e.name = def->name;
    e.aliases = def->aliases;
    return e;
  }
  Result<std::optional<Entity>> by_words = query::ResolveByNameWords(store, schema, n, "");
  if (!by_words.ok()) return by_words.status();
  if (by_words->has_value()) return std::move(**by_words);
  std::vector<std::string> names = EntityNames(store);
  for (const auto& e : schema.entities()) {
    names.push_back(e.name);
    for (const auto& a : e.aliases) names.push_back(a);
  }
  return Status::NotFound("no entity named '" + n + "'" + query::DidYouMean(n, names));
}

Result<Document> FindDocument(const Store& store, const std::string& name) {
  std::string n = Unquote(name);
  auto docs = store.ListDocuments();
  if (!docs.ok()) return docs.status();
  for (const auto& d : *docs) {
    if (d.id == n || d.url == n || d.title == n) return d;
  }
  std::string ln = Lower(n);
  for (const auto& d : *docs) {
    if (Lower(d.id) == ln || Lower(d.url) == ln || Lower(d.title) == ln) return d;
  }
  std::vector<const Document*> partial;
  for (const auto& d : *docs) {
    if (Lower(d.id).find(ln) != std::string::npos || Lower(d.url).find(ln) != std::string::npos ||
        Lower(d.title).find(ln) != std::string::npos) {
      partial.push_back(&d);
    }
  }
  if (partial.size() == 1) return *partial.front();
  std::vector<std::string> ids;
  for (const auto& d : *docs) ids.push_back(d.id);
  if (partial.size() > 1) {
    std::string list;
    for (const Document* d : partial) list += (list.empty() ? "" : ", ") + d->id;
    return Status::InvalidArgument("'" + n + "' matches several documents: " + list);
  }
  return Status::NotFound("no document '" + n + "'" + query::DidYouMean(n, ids) +
                          (docs->empty() ? " (the store has no documents)" : ""));
}

// ---- describe -------------------------------------------------------------------

namespace internal {

Status CheckStoredThen(const Entity& entity, const ReadView& view) {
  if (!view.as_of_tx || entity.created_tx <= *view.as_of_tx) return Status::OK();
  return Status::NotFound(entity.name + " (" + entity.id + ") was not stored yet at tx " +
                          std::to_string(*view.as_of_tx) + " (first stored by tx " +
                          std::to_string(entity.created_tx) + ")");
}

}  // namespace internal

Result<Profile> Describe(const Store& store, const Schema& schema, const std::string& entity,
                         const Options& options) {
  auto e = FindEntityByName(store, schema, entity);
  if (!e.ok()) return e.status();
  CHIPKG_RETURN_IF_ERROR(internal::CheckStoredThen(*e, options.view));
  Library library(store, schema, options.view.as_of_tx);
  CitationTable citations;
  Profile profile;
  profile.entity = *e;
  auto facts = store.FactsAbout(e->id, options.view);
  if (!facts.ok()) return facts.status().WithContext("facts about " + e->id);
  profile.attributes = Summarise(library, citations, std::move(*facts), options);
  for (auto& a : profile.attributes) {
    if (a.conflict()) AddSanityFlags(library, a, options.view);
  }
  auto refs = store.FactsReferencing(e->id, options.view);
  if (!refs.ok()) return refs.status().WithContext("facts referencing " + e->id);
  std::map<std::pair<EntityId, std::string>, size_t> index;
  for (const Fact& f : *refs) {
    auto key = std::make_pair(f.subject, f.predicate);
    auto it = index.find(key);
    if (it == index.end()) {
      index[key] = profile.referenced_by.size();
      profile.referenced_by.push_back({f.subject, library.EntityName(f.subject), f.predicate, {}});
      it = index.find(key);
    }
    int n = citations.Cite(library, f);
    auto& list = profile.referenced_by[it->second].citations;
    if (std::find(list.begin(), list.end(), n) == list.end()) list.push_back(n);
  }
  CHIPKG_RETURN_IF_ERROR(library.failure());
  profile.citations = citations.Take();
  return profile;
}

// ---- conflicts ------------------------------------------------------------------

Result<ConflictReport> Conflicts(const Store& store, const Schema& schema, const std::string& entity,
                                 const Options& options) {
  ConflictReport report;
  report.options = options.compare;
  std::vector<Entity> subjects;
  if (!entity.empty()) {
    auto e = FindEntityByName(store, schema, entity);
    if (!e.ok()) return e.status();
    subjects.push_back(*e);
    report.entity = e->id;
  } else {
    auto all = store.ListEntities();
    if (!all.ok()) return all.status().WithContext("listing entities");
    subjects = std::move(*all);
  }
  Library library(store, schema, options.view.as_of_tx);
  CitationTable citations;
  for (const Entity& s : subjects) {
    auto facts = store.FactsAbout(s.id, options.view);
    if (!facts.ok()) return facts.status().WithContext("facts about " + s.id);
    if (facts->empty()) continue;
    report.subjects_checked++;
    auto summaries = Summarise(library, citations, std::move(*facts), options, /*conflicts_only=*/true);
    for (auto& a : summaries) {
      AddSanityFlags(library, a, options.view);
      report.conflicts.push_back(std::move(a));
    }
  }
  CHIPKG_RETURN_IF_ERROR(library.failure());
  report.citations = citations.Take();
  return report;
}

// ---- sources --------------------------------------------------------------------

namespace {

// The documents retired at `as_of_tx`, from the log; none asked (now): the
// records' marks say it.
Result<std::map<std::string, TxId>> RetiredThen(const Store& store, std::optional<TxId> as_of_tx) {
  if (!as_of_tx) return std::map<std::string, TxId>{};
  auto retired = store.RetiredAsOf(as_of_tx);
  if (!retired.ok()) return retired.status().WithContext("reading the retirements in the log");
  return retired;
}

// A document as it stood after `as_of_tx` (now when none): its versions and
// facts until then, a later retraction not yet made, and its retirement then
// (`retired_then`: RetiredThen's), which a later reinstatement has since
// cleared from its record, or a later retirement set.
Result<SourceSummary> Summarise(const Store& store, const Document& doc, std::optional<TxId> as_of_tx,
                                const std::map<std::string, TxId>& retired_then) {
  SourceSummary s;
  s.document = doc;
  if (as_of_tx) {
    auto it = retired_then.find(doc.id);
    s.document.retired_tx = it != retired_then.end() ? it->second : 0;
  }
  auto versions = store.ListDocumentVersions(doc.id, false);
  if (!versions.ok()) return versions.status().WithContext("versions of " + doc.id);
  s.versions = std::move(*versions);
  if (as_of_tx) {
    std::erase_if(s.versions, [&](const DocumentVersion& v) { return v.tx > *as_of_tx; });
  }
  ReadView all;
  all.include_retracted = true;
  all.as_of_tx = as_of_tx;
  auto facts = store.FactsFromDocument(doc.id, std::nullopt, all);
  if (!facts.ok()) return facts.status().WithContext("facts of " + doc.id);
  std::set<EntityId> subjects;
  for (const Fact& f : *facts) {
    if (f.retracted_tx == 0 || (as_of_tx && f.retracted_tx > *as_of_tx)) {
      s.live_facts++;
      if (f.value.kind == ValueKind::kNotPublished) s.not_published++;
      subjects.insert(f.subject);
    } else {
      s.retracted_facts++;
    }
  }
  s.subjects = subjects.size();
  // A chipkg of format 2 let a retired document's changed text assert claims
  // again without a reinstatement in the log: claims standing then say it
  // was not retired then.
  if (as_of_tx && s.live_facts > 0) s.document.retired_tx = 0;
  return s;
}

}  // namespace

Result<SourcesReport> Sources(const Store& store, const Options& options) {
  SourcesReport report;
  auto docs = store.ListDocuments();
  if (!docs.ok()) return docs.status().WithContext("listing documents");
  auto retired_then = RetiredThen(store, options.view.as_of_tx);
  if (!retired_then.ok()) return retired_then.status();
  for (const Document& d : *docs) {
    auto s = Summarise(store, d, options.view.as_of_tx, *retired_then);
    if (!s.ok()) return s.status();
    // A document first stored after the report's point in time was not there yet.
    if (options.view.as_of_tx && s->versions.empty()) continue;
    report.sources.push_back(std::move(*s));
  }
  return report;
}

Result<SourceReport> Source(const Store& store, const std::string& document, const Options& options) {
  auto doc = FindDocument(store, document);
  if (!doc.ok()) return doc.status();
  SourceReport report;
  auto retired_then = RetiredThen(store, options.view.as_of_tx);
  if (!retired_then.ok()) return retired_then.status();
  auto s = Summarise(store, *doc, options.view.as_of_tx, *retired_then);
  if (!s.ok()) return s.status();
  if (options.view.as_of_tx && s->versions.empty()) {
    return Status::NotFound("document " + doc->id + " was not stored yet at tx " + std::to_string(*options.view.as_of_tx));
  }
  report.source = std::move(*s);
  auto facts = store.FactsFromDocument(doc->id, std::nullopt, options.view);
  if (!facts.ok()) return facts.status().WithContext("facts of " + doc->id);
  // The schema is not needed to list facts; values are shown as written.
  std::sort(facts->begin(), facts->end(), [](const Fact& a, const Fact& b) {
    return std::tie(a.provenance.document_version, a.provenance.span_begin, a.id) <
           std::tie(b.provenance.document_version, b.provenance.span_begin, b.id);
  });
  std::map<EntityId, std::string> names;
  auto name = [&](const EntityId& id) -> std::string {
    auto it = names.find(id);
    if (it != names.end()) return it->second;
    auto e = store.GetEntity(id);
    return names[id] = e.ok() && !e->name.empty() ? e->name : id;
  };
  for (const Fact& f : *facts) {
    SourceFact sf;
    sf.claim.fact_id = f.id;
    sf.claim.value = f.value;
    sf.claim.qualifiers = f.qualifiers;
    sf.claim.display = f.value.kind == ValueKind::kEntity         ? name(f.value.text)
                       : f.value.kind == ValueKind::kNotPublished ? std::string("not published")
                       : f.value.kind == ValueKind::kDate         ? f.value.date.ToString()
                       : f.value.kind == ValueKind::kBool ? std::string(f.value.number != 0 ? "yes" : "no")
                                                          : f.value.ToString();
    sf.claim.valid_as_of = f.valid_as_of;
    sf.claim.document_id = f.provenance.document_id;
    sf.claim.asserted_tx = f.asserted_tx;
    sf.claim.retracted_tx = options.view.as_of_tx && f.retracted_tx > *options.view.as_of_tx ? 0 : f.retracted_tx;
    sf.subject = f.subject;
    sf.subject_name = name(f.subject);
    sf.predicate = f.predicate;
    sf.version = f.provenance.document_version;
    sf.section = f.provenance.section;
    sf.excerpt = f.provenance.excerpt;
    sf.derivation = f.provenance.derivation;
    report.facts.push_back(std::move(sf));
  }
  return report;
}

// ---- history --------------------------------------------------------------------

Result<HistoryReport> History(const Store& store, const Schema& schema, const std::string& target) {
  auto t = ParseTarget(store, schema, target);
  if (!t.ok()) return t.status();
  if (t->call) {
    return Status::InvalidArgument("history takes ENTITY.ATTR without arguments: the history of '" +
                                   t->attribute + "' covers every model and format");
  }
  if (t->predicate.empty()) {
    return Status::InvalidArgument(
        "'" + t->attribute + "' is computed, not stated: it has no history of its own (trace it instead)");
  }
  Library library(store, schema);
  CitationTable citations;
  HistoryReport report;
  report.entity = t->entity;
  report.predicate = t->predicate;
  report.fixed = t->fixed;
  auto facts = store.History(t->entity.id, t->predicate);
  if (!facts.ok()) return facts.status().WithContext("history of " + t->entity.id + "." + t->predicate);
  for (const Fact& f : *facts) {
    if (!HasQualifiers(f.qualifiers, t->fixed)) continue;
    HistoryEvent e;
    e.claim = MakeClaim(library, &citations, f);
    e.version = f.provenance.document_version;
    e.tx = f.asserted_tx;
    if (auto tx = library.GetTransaction(f.asserted_tx)) {
      e.time_micros = tx->time_micros;
      e.run_id = tx->run_id;
    }
    report.events.push_back(e);
    if (f.retracted_tx != 0) {
      e.asserted = false;
      e.tx = f.retracted_tx;
      e.time_micros = 0;
      e.run_id.clear();
      if (auto tx = library.GetTransaction(f.retracted_tx)) {
        e.time_micros = tx->time_micros;
        e.run_id = tx->run_id;
      }
      report.events.push_back(e);
    }
  }
  std::stable_sort(
      report.events.begin(), report.events.end(), [](const HistoryEvent& a, const HistoryEvent& b) {
        return std::make_tuple(a.tx, a.asserted ? 1 : 0) < std::make_tuple(b.tx, b.asserted ? 1 : 0);
      });
  CHIPKG_RETURN_IF_ERROR(library.failure());
  report.citations = citations.Take();
  return report;
}

}  // namespace chipkg::factcheck
