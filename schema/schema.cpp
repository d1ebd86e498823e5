// Schema lookups: names, labels, entities, "not published" phrases, and the
// default schema directory. Loading is in loader.cpp, quantities in quantity.cpp.

#include "schema/schema.h"

#include <algorithm>
#include <cstdlib>

#include "engine/store.h"
#include "schema/text_util.h"

namespace chipkg {

using schema_internal::AsciiLower;
using schema_internal::FoldPhrase;
using schema_internal::NormalizeLabel;

namespace {

template <typename Index, typename T>
const T* Lookup(const Index& index, const std::vector<T>& items, const std::string& key) {
  auto it = index.find(key);
  return it == index.end() ? nullptr : &items[it->second];
}

}  // namespace

std::string Schema::DefaultDirectory() {
  if (const char* env = std::getenv("CHIPKG_SCHEMA_DIR"); env != nullptr && *env != '\0') return env;
#ifdef CHIPKG_SCHEMA_DIR_DEFAULT
  return CHIPKG_SCHEMA_DIR_DEFAULT;
#else
  return "schema";
#endif
}

const PredicateDef* Schema::FindPredicate(const std::string& name) const {
  return Lookup(predicate_index_, predicates_, name);
}

const AttributeDef* Schema::FindAttribute(const std::string& name) const {
  return Lookup(attribute_index_, attributes_, name);
}

const DimensionDef* Schema::FindDimension(const std::string& name) const {
  return Lookup(dimension_index_, dimensions_, name);
}

const DerivationDef* Schema::FindDerivation(const std::string& name) const {
  return Lookup(derivation_index_, derivations_, name);
}

namespace {
constexpr std::string_view kDatasetRulePrefix = "dataset:";
}  // namespace

std::string Schema::DatasetRule(const std::string& dataset) { return std::string(kDatasetRulePrefix) + dataset; }

std::string Schema::DatasetOfRule(const std::string& rule) {
  return rule.starts_with(kDatasetRulePrefix) ? rule.substr(kDatasetRulePrefix.size()) : "";
}

std::string Schema::QualifierOfParameter(const std::string& param) const {
  if (std::find(qualifier_keys_.begin(), qualifier_keys_.end(), param) != qualifier_keys_.end()) return param;
  if (param == "precision") return qualifier::kFormat;
  return param;
}

std::vector<std::string> Schema::SubjectKinds(const std::string& name) const {
  const PredicateDef* p = FindPredicate(name);
  if (p == nullptr) {
    if (const AttributeDef* a = FindAttribute(name)) p = FindPredicate(a->predicate);
  }
  return p != nullptr ? p->subject_kinds : std::vector<std::string>();
}

std::vector<const SynonymDef*> Schema::FindSynonyms(const std::string& word, const std::string& kind) const {
  std::vector<const SynonymDef*> found;
  const std::string lower = AsciiLower(word);
  for (const SynonymDef& s : synonyms_) {
    if (s.word != lower) continue;
    const std::vector<std::string> kinds = SubjectKinds(s.target);
    if (kind.empty() || kinds.empty() || std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) {
      found.push_back(&s);
    }
  }
  return found;
}

const UnitDef* Schema::FindUnit(const std::string& spelling) const { return FindUnit(spelling, ""); }

const UnitDef* Schema::FindUnit(const std::string& spelling, const std::string& dimension) const {
  if (auto it = unit_index_.find(spelling); it != unit_index_.end()) {
    for (size_t i : it->second) {
      if (dimension.empty() || units_[i].dimension == dimension) return &units_[i];
    }
  }
  // Another case: only where case does not change the unit ("Gb" is not
  // "GB"), and only if every unit so written is the same ("gbps": Gbps or GBps).
  auto it = unit_folded_index_.find(AsciiLower(spelling));
  if (it == unit_folded_index_.end()) return nullptr;
  const UnitDef* found = nullptr;
  for (size_t i : it->second) {
    const UnitDef& u = units_[i];
    if (!dimension.empty() && u.dimension != dimension) continue;
    if (!schema_internal::SameUnitSpelling(spelling, u.spelling)) continue;
    if (found != nullptr && (found->dimension != u.dimension || found->factor != u.factor)) return nullptr;
    if (found == nullptr) found = &u;
  }
  return found;
}

std::string Schema::NormalizeLabel(std::string_view label) { return schema_internal::NormalizeLabel(label); }

const LabelDef* Schema::FindLabel(const std::string& label, const std::string& site) const {
  std::string key = NormalizeLabel(label);
  if (key.empty()) return nullptr;
  // The site, then each parent domain with at least two labels, then generic.
  std::string s = AsciiLower(site);
  while (!s.empty()) {
    if (auto it = label_index_.find({s, key}); it != label_index_.end()) return &labels_[it->second];
    size_t dot = s.find('.');
    if (dot == std::string::npos || s.find('.', dot + 1) == std::string::npos) break;
    s = s.substr(dot + 1);
  }
  auto it = label_index_.find({"", key});
  return it == label_index_.end() ? nullptr : &labels_[it->second];
}

const EntityDef* Schema::ResolveEntity(const std::string& name) const {
  if (const EntityDef* e = Lookup(entity_id_index_, entities_, name)) return e;
  std::string key = NormalizeAlias(name);
  if (key.empty()) return nullptr;
  return Lookup(entity_index_, entities_, key);
}

bool Schema::SaysNotPublished(const std::string& text) const {
  if (not_published_folded_.empty()) return false;
  std::string folded = FoldPhrase(text);
  for (const std::string& phrase : not_published_folded_) {
    if (folded.find(phrase) != std::string::npos) return true;
  }
  return false;
}

std::vector<const ColumnDef*> Schema::ColumnsOf(const std::string& dataset) const {
  std::vector<const ColumnDef*> out;
  for (const ColumnDef& c : columns_) {
    if (c.dataset == dataset) out.push_back(&c);
  }
  return out;
}

}  // namespace chipkg
