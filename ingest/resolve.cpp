#include "ingest/resolve.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "engine/store.h"
#include "ingest/text_util.h"
#include "schema/schema.h"

namespace chipkg {
namespace {

using ingest_internal::CollapseSpaces;
using ingest_internal::Trim;

constexpr const char* kMatchPrefix = "match/";
constexpr const char* kOrganization = "organization";

// A key that is never empty, so names written only in punctuation still map
// to themselves rather than all to one empty key.
std::string NameKey(const std::string& name) {
  std::string key = NormalizeAlias(name);
  return key.empty() ? "=" + CollapseSpaces(Trim(name)) : key;
}

std::string MatchKey(const std::string& kind, const std::string& name, const EntityId& entity) {
  return std::string(kMatchPrefix) + kind + "/" + NameKey(name) + "/" + entity;
}

std::string MatchNamePrefix(const std::string& kind, const std::string& name) {
  return std::string(kMatchPrefix) + kind + "/" + NameKey(name) + "/";
}

std::string EncodeMatch(const MatchRecord& m) {
  nlohmann::json j = {{"kind", m.kind},
                      {"name", m.name},
                      {"entity", m.entity},
                      {"method", m.method},
                      {"decision", m.decision.empty() ? "pending" : m.decision}};
  return j.dump();
}

Result<MatchRecord> DecodeMatch(const std::string& key, const std::string& value) {
  try {
    nlohmann::json j = nlohmann::json::parse(value);
    MatchRecord m;
    m.kind = j.at("kind").get<std::string>();
    m.name = j.at("name").get<std::string>();
    m.entity = j.at("entity").get<std::string>();
    m.method = j.value("method", "");
    m.decision = j.value("decision", "pending");
    return m;
  } catch (const std::exception& e) {
    return Status::Corruption("match record " + key + " is not a valid JSON match: " + e.what());
  }
}

// Removes every parenthesised part, and an unclosed "(" with what follows it.
std::string DropParenthesised(const std::string& name) {
  std::string out;
  int depth = 0;
  for (char c : name) {
    if (c == '(') {
      ++depth;
    } else if (c == ')' && depth > 0) {
      --depth;
    } else if (depth == 0) {
      out.push_back(c);
    }
  }
  return CollapseSpaces(Trim(out));
}

// "NVIDIA H200 SXM" -> "NVIDIA H200", "NVIDIA H100 SXM5 80GB" -> "NVIDIA H100":
// the form factor and memory size a dataset names a chip's variant by.
std::string DropFormFactor(const std::string& name) {
  static constexpr std::string_view kFormFactors[] = {"sxm", "sxm2", "sxm3", "sxm4", "sxm5", "sxm6", "pcie", "nvl", "oam"};
  std::string s = name;
  for (bool dropped = true; dropped;) {
    dropped = false;
    const size_t space = s.rfind(' ');
    if (space == std::string::npos) break;
    std::string last = s.substr(space + 1);
    for (char& c : last) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string before = s.substr(0, space);
    // "80GB", or "80 GB" as two words.
    if (last == "gb" && !before.empty() && std::isdigit(static_cast<unsigned char>(before.back()))) {
      const size_t number = before.rfind(' ');
      if (number == std::string::npos) break;
      s = before.substr(0, number);
      dropped = true;
      continue;
    }
    const bool size = last.size() > 2 && last.ends_with("gb") &&
                      std::all_of(last.begin(), last.end() - 2, [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (size || std::find(std::begin(kFormFactors), std::end(kFormFactors), last) != std::end(kFormFactors)) {
      s = before;
      dropped = true;
    }
  }
  return CollapseSpaces(Trim(s));
}

// "NVIDIA H100 SXM5 80GB" -> "NVIDIA H100 SXM": the form factor without its
// generation and the memory size, as a cloud's price list writes the chip.
// The name itself where it has no "SXMn".
std::string FormFactorFamily(const std::string& name) {
  const std::string bare = DropFormFactor(name);
  if (bare == CollapseSpaces(Trim(name))) return name;
  std::string family;
  for (size_t at = bare.size(); at < name.size();) {
    while (at < name.size() && name[at] == ' ') ++at;
    size_t end = name.find(' ', at);
    if (end == std::string::npos) end = name.size();
    std::string word = name.substr(at, end - at);
    std::string lower = word;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.size() == 4 && lower.starts_with("sxm") && std::isdigit(static_cast<unsigned char>(lower[3]))) {
      family = word.substr(0, 3);
    }
    at = end;
  }
  return family.empty() ? name : bare + " " + family;
}

// "Trainium1" -> "Trainium", "Inferentia 1" -> "Inferentia": a first generation
// written out. Only after a word of three or more letters, so "TPU v1" and
// "MI1" are left alone.
std::string DropGenerationOne(const std::string& name) {
  std::string s = Trim(name);
  if (s.size() < 4 || s.back() != '1') return s;
  size_t end = s.size() - 1;
  if (std::isdigit(static_cast<unsigned char>(s[end - 1]))) return s;  // "100", "MI21"
  size_t word_end = end;
  if (s[word_end - 1] == ' ' || s[word_end - 1] == '-') --word_end;
  size_t word_begin = word_end;
  while (word_begin > 0 && std::isalpha(static_cast<unsigned char>(s[word_begin - 1]))) --word_begin;
  if (word_end - word_begin < 3) return s;
  if (word_begin > 0 && !std::isspace(static_cast<unsigned char>(s[word_begin - 1])) && s[word_begin - 1] != '-') {
    return s;  // the letters are the tail of a longer token ("X9abc1")
  }
  return Trim(s.substr(0, word_end));
}

// "AMD Instinct MI355X GPU" -> "AMD Instinct MI355X": a noun for what the
// chip is, after its designation (a word with a digit), as a datasheet's
// column header writes it. Not "Data Center GPU" (no designation before it).
std::string DropTrailingChipNoun(const std::string& name) {
  static constexpr std::string_view kNouns[] = {"gpu", "accelerator", "chip", "processor"};
  const std::string s = Trim(name);
  const size_t space = s.rfind(' ');
  if (space == std::string::npos) return s;
  std::string last = s.substr(space + 1);
  for (char& c : last) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (std::find(std::begin(kNouns), std::end(kNouns), last) == std::end(kNouns)) return s;
  const std::string before = Trim(s.substr(0, space));
  const size_t word = before.rfind(' ');
  const std::string designation = word == std::string::npos ? before : before.substr(word + 1);
  if (std::none_of(designation.begin(), designation.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    return s;
  }
  return before;
}

// "Google TPU v7 Ironwood" -> "Google TPU v7", "NVIDIA RTX 6000 Ada
// Generation" -> "NVIDIA RTX 6000": the words without a digit after the last
// word with one. The name itself when nothing follows its designation.
std::string DropCodename(const std::string& name) {
  size_t end = name.size();
  size_t cut = name.size();
  while (end > 0) {
    const size_t space = name.rfind(' ', end - 1);
    const size_t begin = space == std::string::npos ? 0 : space + 1;
    const std::string_view word(name.data() + begin, end - begin);
    if (std::any_of(word.begin(), word.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      return cut == name.size() ? name : CollapseSpaces(Trim(name.substr(0, cut)));
    }
    if (space == std::string::npos) break;
    cut = space;
    end = space;
  }
  return name;
}

// "AMD Instinct MI300X" -> "Instinct MI300X", "MI300X"; "NVIDIA GeForce RTX
// 4090" -> ..., "RTX 4090": the trailing words by which a page names a chip
// whose dataset name carries brand and series words no schema lists. A tail
// must start with a letter and hold a digit, and be at least four characters
// once normalised, so a lone number ("4090", "70B") or version ("v4") never
// stands for a name.
std::vector<std::string> DesignationTails(const std::string& name) {
  std::vector<std::string> tails;
  for (size_t space = name.find(' '); space != std::string::npos; space = name.find(' ', space + 1)) {
    std::string tail = name.substr(space + 1);
    if (tail.empty() || !std::isalpha(static_cast<unsigned char>(tail.front()))) continue;
    if (std::none_of(tail.begin(), tail.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      continue;
    }
    if (NormalizeAlias(tail).size() < 4) continue;
    tails.push_back(tail);
  }
  return tails;
}

// `name` holds `key` (a NameKey) as whole words somewhere: "NVIDIA RTX 6000
// Ada Generation" holds "rtx6000"; "NVIDIA GH100" does not hold "h100".
bool HoldsAsWords(const std::string& name, const std::string& key) {
  std::vector<std::string> words;
  std::string word;
  for (char c : name) {
    const std::string k = NormalizeAlias(std::string(1, c));
    if (k.empty()) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += k;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  for (size_t i = 0; i < words.size(); ++i) {
    std::string joined;
    for (size_t j = i; j < words.size() && joined.size() < key.size(); ++j) {
      joined += words[j];
      if (joined == key) return true;
    }
  }
  return false;
}

bool IsSeparator(char c) { return std::isspace(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '/'; }

bool StartsWithWordIgnoringCase(const std::string& s, const std::string& prefix) {
  if (prefix.empty() || s.size() <= prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return IsSeparator(s[prefix.size()]);
}

class Resolver : public EntityResolver {
 public:
  Resolver(const Schema& schema, const Store* store) : schema_(schema), store_(store) {}

  Result<Resolution> Resolve(const std::string& raw_name, const std::string& kind) override {
    std::string name = CollapseSpaces(Trim(raw_name));
    if (name.empty()) return Status::InvalidArgument("cannot resolve an empty " + kind + " name");
    if (!KnownKind(kind)) {
      return Status::InvalidArgument("cannot resolve '" + name + "': entity kind '" + kind +
                                     "' is not declared in the schema");
    }
    const std::string key = kind + "\n" + NameKey(name);
    if (auto it = session_.find(key); it != session_.end()) {
      Resolution again = it->second;
      again.created = false;
      return again;
    }
    Result<std::optional<Resolution>> exact = FindExact(name, kind);
    if (!exact.ok()) return exact.status();
    Resolution resolution;
    if (exact->has_value()) {
      resolution = **exact;
    } else {
      Result<std::optional<Resolution>> normalised = Normalise(name, kind);
      if (!normalised.ok()) return normalised.status();
      if (normalised->has_value()) {
        resolution = **normalised;
      } else {
        Result<Resolution> created = Create(name, kind);
        if (!created.ok()) return created.status();
        resolution = *created;
      }
    }
    session_[key] = resolution;
    if (IsDistinct(name, kind)) claimed_[kind].emplace(resolution.id, NameKey(name));
    return resolution;
  }

  std::vector<Entity> NewEntities() const override { return created_; }
  std::vector<MatchRecord> NewMatches() const override { return new_matches_; }

  Status DeclareDistinct(const std::string& kind, const std::vector<std::string>& names) override {
    for (const std::string& raw : names) {
      std::string name = CollapseSpaces(Trim(raw));
      if (name.empty()) continue;
      distinct_[kind].insert(NameKey(name));
      Result<std::optional<Resolution>> exact = FindExact(name, kind);
      if (!exact.ok()) return exact.status();
      if (exact->has_value()) claimed_[kind].emplace((*exact)->id, NameKey(name));
    }
    return Status::OK();
  }

 private:
  struct Candidate {
    EntityId id;
    std::string matched;  // the name or alias the key came from
    bool prefix_dropped;  // the key is that name with its vendor prefix dropped
    std::string shortened = {};  // what else was dropped from it ("form factor"), empty if nothing
    int shortened_weight = 0;    // 2 for a parenthesis or form factor, 4 for leading words
    // How far the key is from the name: a match at the least distance wins
    // ("A100" is "NVIDIA A100", not "NVIDIA A100 SXM4 80 GB" shortened).
    int Distance() const { return (prefix_dropped ? 1 : 0) + shortened_weight; }
  };

  bool KnownKind(const std::string& kind) const {
    const auto& kinds = schema_.entity_kinds();
    return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
  }

  bool IsDistinct(const std::string& name, const std::string& kind) const {
    auto it = distinct_.find(kind);
    return it != distinct_.end() && it->second.count(NameKey(name)) > 0;
  }

  // Exact lookups only; no side effects, so DeclareDistinct can use it too.
  Result<std::optional<Resolution>> FindExact(const std::string& name, const std::string& kind) {
    if (const EntityDef* def = schema_.ResolveEntity(name); def != nullptr && def->kind == kind) {
      Resolution r;
      r.id = def->id;
      r.method = "alias";
      r.matched = MatchedSpelling(name, def->id, def->name, def->aliases);
      return std::optional<Resolution>(r);
    }
    if (store_ != nullptr) {
      Result<Entity> found = store_->FindEntity(name);
      if (found.ok() && found->kind == kind) {
        Resolution r;
        r.id = found->id;
        r.method = "store";
        r.matched = MatchedSpelling(name, found->id, found->name, found->aliases);
        return std::optional<Resolution>(r);
      }
      if (!found.ok() && !found.status().IsNotFound()) {
        return found.status().WithContext("resolving " + kind + " '" + name + "'");
      }
    }
    CHIPKG_RETURN_IF_ERROR(LoadMatches());
    for (const MatchRecord& m : RecordsOf(kind, name)) {
      if (m.decision == "confirmed") {
        Resolution r;
        r.id = m.entity;
        r.method = "confirmed match";
        r.matched = m.name;
        return std::optional<Resolution>(r);
      }
    }
    return std::optional<Resolution>();
  }

  static std::string MatchedSpelling(const std::string& name, const EntityId& id, const std::string& entity_name,
                                     const std::vector<std::string>& aliases) {
    std::string key = NormalizeAlias(name);
    if (NormalizeAlias(entity_name) == key) return entity_name;
    for (const std::string& a : aliases) {
      if (NormalizeAlias(a) == key) return a;
    }
    return id;
  }

  Status LoadMatches() {
    if (matches_loaded_) return Status::OK();
    matches_loaded_ = true;
    if (store_ == nullptr) return Status::OK();
    Result<std::vector<MatchRecord>> all = ListMatches(*store_);
    if (!all.ok()) {
      matches_loaded_ = false;
      return all.status().WithContext("loading entity-match decisions");
    }
    for (MatchRecord& m : *all) recorded_[m.kind + "\n" + NameKey(m.name)].push_back(std::move(m));
    return Status::OK();
  }

  std::vector<MatchRecord> RecordsOf(const std::string& kind, const std::string& name) const {
    auto it = recorded_.find(kind + "\n" + NameKey(name));
    return it == recorded_.end() ? std::vector<MatchRecord>{} : it->second;
  }

  // Organization names and aliases, longest first, so "Amazon Web Services"
  // is dropped whole rather than leaving "Web Services".
  Result<const std::vector<std::string>*> VendorPrefixes() {
    if (!prefixes_loaded_) {
      std::set<std::string> names;
      for (const EntityDef& e : schema_.entities()) {
        if (e.kind != kOrganization) continue;
        names.insert(e.name);
        for (const auto& a : e.aliases) names.insert(a);
      }
      if (store_ != nullptr) {
        Result<std::vector<Entity>> orgs = store_->ListEntities(kOrganization);
        if (!orgs.ok()) return orgs.status().WithContext("listing organizations for vendor prefixes");
        for (const Entity& e : *orgs) {
          names.insert(e.name);
          for (const auto& a : e.aliases) names.insert(a);
        }
      }
      for (const Entity& e : created_) {
        if (e.kind == kOrganization) names.insert(e.name);
      }
      prefixes_.clear();
      for (const std::string& n : names) {
        std::string t = CollapseSpaces(Trim(n));
        if (!t.empty()) prefixes_.push_back(t);
      }
      std::stable_sort(prefixes_.begin(), prefixes_.end(),
                       [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
      prefixes_loaded_ = true;
    }
    return &prefixes_;
  }

  static std::string DropVendorPrefix(const std::string& name, const std::vector<std::string>& prefixes) {
    std::string s = name;
    bool changed = true;
    while (changed) {
      changed = false;
      for (const std::string& p : prefixes) {
        if (StartsWithWordIgnoringCase(s, p)) {
          size_t i = p.size();
          while (i < s.size() && IsSeparator(s[i])) ++i;
          if (i == s.size()) continue;
          s = s.substr(i);
          changed = true;
          break;
        }
      }
    }
    return s;
  }

  // A word of the schema's tables system_words_SCOPE ("DGX", "HGX", "NVL72")
  // is in `name`: a system built of chips, not a chip.
  bool NamesASystem(const std::string& name) const {
    for (const auto& [table, listed] : schema_.tables()) {
      if (!table.starts_with("system_words_")) continue;
      for (const auto& [word, unused] : listed) {
        if (HoldsAsWords(name, NameKey(word))) return true;
      }
    }
    return false;
  }

  void AddCandidate(std::map<std::string, std::vector<Candidate>>& index, const EntityId& id, const std::string& spelling,
                    bool is_org, const std::vector<std::string>& prefixes) {
    index[NameKey(spelling)].push_back({id, spelling, false});
    if (is_org) return;
    std::string dropped = DropVendorPrefix(spelling, prefixes);
    if (dropped != spelling) index[NameKey(dropped)].push_back({id, spelling, true});
    // A page names a chip without the dataset's parenthesis or form factor:
    // "Maia 100" for "Maia 100 (M100)", "H200" for "NVIDIA H200 SXM".
    // "Google TPU v7" for "Google TPU v7 Ironwood": a codename after the designation, farther.
    const std::string bare = DropFormFactor(DropParenthesised(spelling));
    struct Shorter {
      std::string text;
      std::string rule;
      int weight;
    };
    for (const Shorter& shorter : {Shorter{DropParenthesised(spelling), "parenthesised text", 2},
                                   Shorter{bare, "form factor", 2},
                                   Shorter{FormFactorFamily(DropParenthesised(spelling)), "form factor generation and size", 2},
                                   Shorter{DropCodename(bare), "codename", 3}}) {
      if (shorter.text.empty() || NameKey(shorter.text) == NameKey(spelling)) continue;
      index[NameKey(shorter.text)].push_back({id, spelling, false, shorter.rule, shorter.weight});
      std::string both = DropVendorPrefix(shorter.text, prefixes);
      if (both != shorter.text) index[NameKey(both)].push_back({id, spelling, true, shorter.rule, shorter.weight});
    }
    // "MI300X" for "AMD Instinct MI300X", "Gaudi 2" for "Intel Habana Gaudi2":
    // the farthest match, taken only when nothing nearer names the chip.
    // Not a system's name: "H200" is not the "NVIDIA HGX H200" baseboard.
    if (NamesASystem(spelling)) return;
    for (const std::string& tail : DesignationTails(DropFormFactor(DropParenthesised(spelling)))) {
      index[NameKey(tail)].push_back({id, spelling, false, "leading words", 4});
    }
  }

  // Built once per kind and kept up to date as entities are created; a new
  // organization changes the vendor prefixes, so it drops every index.
  Result<const std::map<std::string, std::vector<Candidate>>*> CandidatesOf(const std::string& kind) {
    if (auto built = candidates_.find(kind); built != candidates_.end()) return &built->second;
    Result<const std::vector<std::string>*> prefixes = VendorPrefixes();
    if (!prefixes.ok()) return prefixes.status();
    bool is_org = kind == kOrganization;
    std::map<std::string, std::vector<Candidate>> index;
    for (const EntityDef& e : schema_.entities()) {
      if (e.kind != kind) continue;
      AddCandidate(index, e.id, e.name, is_org, **prefixes);
      for (const auto& a : e.aliases) AddCandidate(index, e.id, a, is_org, **prefixes);
    }
    if (store_ != nullptr) {
      Result<std::vector<Entity>> listed = store_->ListEntities(kind);
      if (!listed.ok()) return listed.status().WithContext("listing " + kind + " entities");
      for (const Entity& e : *listed) {
        AddCandidate(index, e.id, e.name, is_org, **prefixes);
        for (const auto& a : e.aliases) AddCandidate(index, e.id, a, is_org, **prefixes);
      }
    }
    for (const Entity& e : created_) {
      if (e.kind == kind) AddCandidate(index, e.id, e.name, is_org, **prefixes);
    }
    return &(candidates_[kind] = std::move(index));
  }

  bool Excluded(const std::string& name, const std::string& kind, const EntityId& id) const {
    for (const MatchRecord& m : RecordsOf(kind, name)) {
      if (m.entity == id && m.decision == "rejected") return true;
    }
    if (IsDistinct(name, kind)) {
      auto it = claimed_.find(kind);
      if (it != claimed_.end()) {
        auto owner = it->second.find(id);
        if (owner != it->second.end() && owner->second != NameKey(name)) return true;
      }
    }
    return false;
  }

  Result<std::optional<Resolution>> Normalise(const std::string& name, const std::string& kind) {
    CHIPKG_RETURN_IF_ERROR(LoadMatches());
    Result<const std::vector<std::string>*> prefixes = VendorPrefixes();
    if (!prefixes.ok()) return prefixes.status();
    Result<const std::map<std::string, std::vector<Candidate>>*> index = CandidatesOf(kind);
    if (!index.ok()) return index.status();

    // Each step builds on the previous one; the method names every rule that
    // changed the name on the way to the match.
    struct Variant {
      std::string text;
      std::vector<std::string> rules;
      std::string vendor;  // when set, only a name of this vendor's matches
    };
    std::vector<Variant> variants;
    Variant v{name, {}, {}};
    variants.push_back(v);
    auto step = [&](const std::string& text, const std::string& rule) {
      if (text.empty() || NameKey(text) == NameKey(v.text)) return;
      v.text = text;
      v.rules.push_back(rule);
      variants.push_back(v);
    };
    bool is_org = kind == kOrganization;
    if (!is_org) step(DropVendorPrefix(v.text, **prefixes), "dropped vendor prefix");
    step(DropGenerationOne(v.text), "dropped generation suffix 1");
    step(DropParenthesised(v.text), "dropped parenthesised text");
    // What was inside the parentheses may have hidden a prefix or a suffix.
    if (!is_org) step(DropVendorPrefix(v.text, **prefixes), "dropped vendor prefix");
    step(DropGenerationOne(v.text), "dropped generation suffix 1");
    if (!is_org) step(DropTrailingChipNoun(v.text), "dropped trailing chip noun");
    // "Nvidia Blackwell B200": a series or architecture word between the
    // vendor and the designation, which the dataset's "NVIDIA B200" leaves
    // out. The designation alone, matched only to that vendor's names.
    if (!is_org) {
      const std::string written = CollapseSpaces(Trim(name));
      const std::string rest = DropVendorPrefix(written, **prefixes);
      const size_t last_space = rest.rfind(' ');
      if (rest != written && last_space != std::string::npos) {
        const std::string designation = rest.substr(last_space + 1);
        const std::string series = rest.substr(0, last_space);
        auto has_digit = [](const std::string& w) {
          return std::any_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
        };
        // Not a system's word ("NVIDIA DGX B200" is a server, not the B200;
        // schema tables system_words_SCOPE).
        if (!NamesASystem(series) && has_digit(designation) && !has_digit(series) &&
            std::isalpha(static_cast<unsigned char>(designation[0])) && NormalizeAlias(designation).size() >= 4) {
          Variant series_dropped{designation, {}, Trim(written.substr(0, written.size() - rest.size()))};
          series_dropped.rules.push_back("dropped series word '" + series + "'");
          variants.push_back(std::move(series_dropped));
        }
      }
    }

    for (const Variant& variant : variants) {
      auto hit = (*index)->find(NameKey(variant.text));
      if (hit == (*index)->end()) continue;
      std::map<EntityId, const Candidate*> ids;
      int nearest = std::numeric_limits<int>::max();
      auto eligible = [&](const Candidate& c) {
        return !Excluded(name, kind, c.id) &&
               (variant.vendor.empty() || StartsWithWordIgnoringCase(c.matched, variant.vendor));
      };
      for (const Candidate& c : hit->second) {
        if (eligible(c)) nearest = std::min(nearest, c.Distance());
      }
      for (const Candidate& c : hit->second) {
        if (!eligible(c) || c.Distance() != nearest) continue;
        ids.emplace(c.id, &c);
      }
      if (ids.size() != 1) continue;  // none, or ambiguous: do not guess
      const Candidate& c = *ids.begin()->second;
      // The farthest match, only where no other entity's name holds the
      // page's words: "RTX 6000" is "NVIDIA Quadro RTX 6000" or "NVIDIA RTX
      // 6000 Ada Generation", so it is neither.
      if (c.shortened_weight >= 3) {
        const std::string key = NameKey(variant.text);
        bool held_elsewhere = false;
        for (const auto& [unused, listed] : **index) {
          for (const Candidate& other : listed) {
            if (other.id == c.id || other.prefix_dropped || !other.shortened.empty() || Excluded(name, kind, other.id)) continue;
            held_elsewhere = held_elsewhere || HoldsAsWords(other.matched, key);
          }
        }
        if (held_elsewhere) continue;
      }
      std::vector<std::string> rules = variant.rules;
      if (!c.shortened.empty()) rules.push_back("dropped " + c.shortened + " of '" + c.matched + "'");
      if (c.prefix_dropped) rules.push_back("dropped vendor prefix of '" + c.matched + "'");
      std::string method = "normalised: ";
      if (rules.empty()) {
        method += "case and punctuation";
      } else {
        for (size_t i = 0; i < rules.size(); ++i) method += (i ? ", " : "") + rules[i];
      }
      Resolution r;
      r.id = c.id;
      r.exact = false;
      r.method = method;
      r.matched = c.matched;
      bool recorded = false;
      for (const MatchRecord& m : RecordsOf(kind, name)) recorded = recorded || m.entity == r.id;
      if (!recorded) new_matches_.push_back({kind, name, r.id, method, "pending"});
      return std::optional<Resolution>(r);
    }
    return std::optional<Resolution>();
  }

  Result<bool> IdTaken(const EntityId& id) const {
    for (const EntityDef& e : schema_.entities()) {
      if (e.id == id) return true;
    }
    for (const Entity& e : created_) {
      if (e.id == id) return true;
    }
    if (store_ == nullptr) return false;
    Result<Entity> got = store_->GetEntity(id);
    if (got.ok()) return true;
    if (got.status().IsNotFound()) return false;
    return got.status().WithContext("checking whether entity id " + id + " is free");
  }

  Result<Resolution> Create(const std::string& name, const std::string& kind) {
    EntityId base = MakeEntityId(kind, name);
    EntityId id = base;
    for (int n = 2;; ++n) {
      Result<bool> taken = IdTaken(id);
      if (!taken.ok()) return taken.status();
      if (!*taken) break;
      id = base + "-" + std::to_string(n);
    }
    Entity e;
    e.id = id;
    e.kind = kind;
    e.name = name;
    created_.push_back(e);
    if (kind == kOrganization) {
      prefixes_loaded_ = false;
      candidates_.clear();
    } else if (auto built = candidates_.find(kind); built != candidates_.end() && prefixes_loaded_) {
      AddCandidate(built->second, e.id, e.name, false, prefixes_);
    }
    Resolution r;
    r.id = id;
    r.created = true;
    r.exact = false;
    r.method = "new";
    r.matched = name;
    return r;
  }

  const Schema& schema_;
  const Store* store_;
  std::map<std::string, Resolution> session_;  // kind + "\n" + NameKey(name) -> what it resolved to
  std::vector<Entity> created_;
  std::vector<MatchRecord> new_matches_;
  bool matches_loaded_ = false;
  std::map<std::string, std::vector<MatchRecord>> recorded_;  // kind + "\n" + NameKey(name)
  bool prefixes_loaded_ = false;
  std::vector<std::string> prefixes_;
  std::map<std::string, std::map<std::string, std::vector<Candidate>>> candidates_;
  std::map<std::string, std::set<std::string>> distinct_;               // kind -> NameKeys declared distinct
  std::map<std::string, std::map<EntityId, std::string>> claimed_;      // kind -> entity -> distinct NameKey
};

}  // namespace

std::unique_ptr<EntityResolver> MakeEntityResolver(const Schema& schema, const Store* store) {
  return std::make_unique<Resolver>(schema, store);
}

EntityId MakeEntityId(const std::string& kind, const std::string& name) {
  static const std::map<std::string, std::string> kPrefixes = {
      {"organization", "org"}, {"process_node", "node"}, {"instance_type", "instance"},
      {"data_center", "dc"},   {"rack_design", "rack"},
  };
  auto it = kPrefixes.find(kind);
  std::string prefix = it == kPrefixes.end() ? kind : it->second;
  std::string slug;
  auto alnum = [](unsigned char c) { return std::isalnum(c) || c >= 0x80; };
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (alnum(c)) {
      slug.push_back(static_cast<char>(c >= 0x80 ? c : std::tolower(c)));
    } else if (c == '.' && !slug.empty() && slug.back() != '-' && i + 1 < name.size() &&
               alnum(static_cast<unsigned char>(name[i + 1]))) {
      slug.push_back('.');
    } else if (!slug.empty() && slug.back() != '-') {
      slug.push_back('-');
    }
  }
  while (!slug.empty() && (slug.back() == '-' || slug.back() == '.')) slug.pop_back();
  if (slug.empty()) slug = Sha256Hex(name).substr(0, 12);
  return prefix + ":" + slug;
}

Result<std::vector<MatchRecord>> ListMatches(const Store& store) {
  Result<std::vector<std::pair<std::string, std::string>>> meta = store.ListMeta(kMatchPrefix);
  if (!meta.ok()) return meta.status().WithContext("listing entity matches");
  std::vector<MatchRecord> out;
  for (const auto& [key, value] : *meta) {
    Result<MatchRecord> m = DecodeMatch(key, value);
    if (!m.ok()) return m.status();
    out.push_back(std::move(m).value());
  }
  return out;
}

Status RecordMatches(Store& store, const std::vector<MatchRecord>& matches) {
  for (const MatchRecord& m : matches) {
    if (m.kind.empty() || m.name.empty() || m.entity.empty()) {
      return Status::InvalidArgument("match record needs kind, name and entity (got kind '" + m.kind + "', name '" +
                                     m.name + "', entity '" + m.entity + "')");
    }
    if (!m.decision.empty() && m.decision != "pending" && m.decision != "confirmed" && m.decision != "rejected") {
      return Status::InvalidArgument("match record for '" + m.name + "': unknown decision '" + m.decision + "'");
    }
    std::string key = MatchKey(m.kind, m.name, m.entity);
    Result<std::string> existing = store.GetMeta(key);
    if (existing.ok()) {
      Result<MatchRecord> old = DecodeMatch(key, *existing);
      if (old.ok() && old->decision != "pending") continue;  // a person's decision outlives re-ingests
    } else if (!existing.status().IsNotFound()) {
      return existing.status().WithContext("reading " + key);
    }
    CHIPKG_RETURN_IF_ERROR(store.PutMeta(key, EncodeMatch(m)));
  }
  return Status::OK();
}

Status DecideMatch(Store& store, const std::string& kind, const std::string& name, bool confirm) {
  std::string prefix = MatchNamePrefix(kind, name);
  Result<std::vector<std::pair<std::string, std::string>>> meta = store.ListMeta(prefix);
  if (!meta.ok()) return meta.status().WithContext("listing matches of " + kind + " '" + name + "'");
  std::vector<std::pair<std::string, MatchRecord>> records;
  for (const auto& [key, value] : *meta) {
    Result<MatchRecord> m = DecodeMatch(key, value);
    if (!m.ok()) return m.status();
    records.emplace_back(key, std::move(m).value());
  }
  if (records.empty()) return Status::NotFound("no recorded match for " + kind + " '" + name + "'");
  std::vector<std::pair<std::string, MatchRecord>*> chosen;
  for (auto& r : records) {
    if (r.second.decision == "pending") chosen.push_back(&r);
  }
  if (chosen.empty()) {
    if (records.size() > 1) {
      return Status::InvalidArgument("several decided matches for " + kind + " '" + name +
                                     "' and none pending; nothing changed");
    }
    chosen.push_back(&records.front());
  }
  for (auto* r : chosen) {
    r->second.decision = confirm ? "confirmed" : "rejected";
    CHIPKG_RETURN_IF_ERROR(store.PutMeta(r->first, EncodeMatch(r->second)));
  }
  return Status::OK();
}

}  // namespace chipkg
