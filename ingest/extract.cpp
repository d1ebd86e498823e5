// ExtractDocument: picks the page template, runs it and the generic readers,
// and merges their facts.

#include <algorithm>
#include <exception>

#include "ingest/extract.h"
#include "ingest/extract_internal.h"

namespace chipkg {

namespace extract_internal {

const std::vector<TemplateDef>& Templates() {
  static const std::vector<TemplateDef> kTemplates = {
      {"chip-catalog", &ScoreCatalog, &RunCatalog},
      {"chip-dossier", &ScoreDossier, &RunDossier},
  };
  return kTemplates;
}

}  // namespace extract_internal

using namespace extract_internal;

std::vector<std::pair<std::string, double>> ScoreTemplates(const std::string& text) {
  std::vector<std::pair<std::string, double>> out;
  for (const TemplateDef& t : Templates()) out.emplace_back(t.name, t.score(text));
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

Result<Extraction> ExtractDocument(const std::string& text, const SourceInfo& source, const Schema& schema,
                                   EntityResolver& resolver) {
  try {
    Page page(text, source, schema, resolver);
    const TemplateDef* chosen = nullptr;
    double best = 0;
    for (const TemplateDef& t : Templates()) {
      double score = t.score(text);
      if (score >= kTemplateThreshold && score > best) {
        best = score;
        chosen = &t;
      }
    }
    page.template_name = chosen ? chosen->name : "generic";
    page.Prepare();
    if (chosen) chosen->run(page);
    if (!page.error().ok()) return page.error().WithContext("extracting " + source.document_id);
    RunGeneric(page);
    if (!page.error().ok()) return page.error().WithContext("extracting " + source.document_id);

    Extraction out;
    out.template_name = page.template_name;
    out.title = page.title;
    out.as_of = page.as_of;
    out.warnings = std::move(page.warnings());
    std::vector<Fact>& facts = page.facts();
    const std::vector<bool>& from_template = page.from_template();
    // A generic reader that read what the template read says nothing new.
    for (size_t i = 0; i < facts.size(); ++i) {
      if (!from_template[i]) {
        bool duplicate = false;
        for (size_t j = 0; j < facts.size() && !duplicate; ++j) {
          if (!from_template[j]) continue;
          const Fact& a = facts[i];
          const Fact& b = facts[j];
          duplicate = a.subject == b.subject && a.predicate == b.predicate &&
                      a.provenance.span_begin < b.provenance.span_end &&
                      b.provenance.span_begin < a.provenance.span_end;
        }
        if (duplicate) continue;
      }
      Fact f = std::move(facts[i]);
      if (!f.valid_as_of) f.valid_as_of = page.as_of;
      out.facts.push_back(std::move(f));
    }
    return out;
  } catch (const std::exception& e) {
    return Status::Aborted("extracting " + source.document_id + ": " + e.what());
  }
}

}  // namespace chipkg
