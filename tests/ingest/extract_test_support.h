// Test helpers for the extractor tests: a resolver over the schema alone (the
// extractor depends only on the EntityResolver interface), the real schema,
// seed loading, and the golden-line rendering of a fact.
#pragma once

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/fact.h"
#include "engine/status.h"
#include "ingest/extract.h"
#include "ingest/resolve.h"
#include "schema/schema.h"

namespace chipkg::extract_test {

// Exact matches through Schema::ResolveEntity (kind must agree); anything else
// becomes a new entity "<prefix>:<slug>".
class SchemaOnlyResolver : public EntityResolver {
 public:
  explicit SchemaOnlyResolver(const Schema& schema) : schema_(schema) {}

  Result<Resolution> Resolve(const std::string& name, const std::string& kind) override {
    if (name.empty()) return Status::InvalidArgument("empty " + kind + " name");
    Resolution r;
    if (const EntityDef* e = schema_.ResolveEntity(name); e != nullptr && e->kind == kind) {
      r.id = e->id;
      r.method = "alias";
      r.matched = name;
      return r;
    }
    static const std::map<std::string, std::string> kPrefix = {{"organization", "org"},
                                                               {"process_node", "node"},
                                                               {"instance_type", "instance"},
                                                               {"data_center", "dc"},
                                                               {"rack_design", "rack"}};
    auto it = kPrefix.find(kind);
    std::string slug;
    for (char c : name) {
      unsigned char u = static_cast<unsigned char>(c);
      if (std::isalnum(u) || c == '.') {
        slug += static_cast<char>(std::tolower(u));
      } else if (!slug.empty() && slug.back() != '-') {
        slug += '-';
      }
    }
    while (!slug.empty() && slug.back() == '-') slug.pop_back();
    r.id = (it == kPrefix.end() ? kind : it->second) + ":" + slug;
    r.created = true;
    r.exact = false;
    r.method = "new";
    Entity e;
    e.id = r.id;
    e.kind = kind;
    e.name = name;
    created_.push_back(e);
    return r;
  }
  std::vector<Entity> NewEntities() const override { return created_; }
  std::vector<MatchRecord> NewMatches() const override { return {}; }

 private:
  const Schema& schema_;
  std::vector<Entity> created_;
};

inline std::string SourceDir() { return CHIPKG_SOURCE_DIR; }

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline const Schema& RealSchema() {
  static Result<Schema>* schema = new Result<Schema>(Schema::LoadDirectory(SourceDir() + "/schema"));
  if (!schema->ok()) {
    std::fprintf(stderr, "schema/ does not load: %s\n", schema->status().ToString().c_str());
    std::abort();
  }
  return schema->value();
}

inline std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      out += c;
    }
  }
  return out;
}

inline std::string Number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.15g", v);
  return buf;
}

inline std::string RenderValue(const Value& v) {
  switch (v.kind) {
    case ValueKind::kQuantity:
      return "quantity " + Number(v.number) + " " + v.dimension;
    case ValueKind::kDate:
      return "date " + v.date.ToString();
    case ValueKind::kEntity:
      return "entity " + v.text;
    case ValueKind::kText:
      return "text " + v.text;
    case ValueKind::kBool:
      return std::string("bool ") + (v.number != 0 ? "true" : "false");
    case ValueKind::kNotPublished:
      return "not_published";
  }
  return "?";
}

// One golden line: subject, predicate, value, qualifiers, derivation,
// valid_as_of, citations, excerpt; tab-separated.
inline std::string GoldenLine(const Fact& f) {
  std::string q;
  for (const auto& [k, v] : f.qualifiers) q += (q.empty() ? "" : ",") + k + "=" + v;
  std::string derivation =
      f.provenance.derivation == Derivation::kStatedDerived ? "derived: " + f.provenance.formula : "stated";
  std::string cites;
  for (const std::string& c : f.provenance.citations) cites += (cites.empty() ? "" : ",") + c;
  return f.subject + "\t" + f.predicate + "\t" + RenderValue(f.value) + "\t" + (q.empty() ? "-" : q) + "\t" +
         derivation + "\t" + (f.valid_as_of ? f.valid_as_of->ToString() : "-") + "\t" +
         (cites.empty() ? "-" : cites) + "\t" + Escape(f.provenance.excerpt);
}

}  // namespace chipkg::extract_test
