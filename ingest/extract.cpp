// ExtractDocument: picks the page template, runs it and the generic readers,
// and merges their facts.

#include "ingest/extract.h"

#include <algorithm>
#include <exception>
#include <unordered_map>

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

Status TooManyFacts(const std::string& document_id, size_t limit, const std::string& where) {
  return Status::InvalidArgument(document_id + ": states more than " + std::to_string(limit) +
                                 " facts (extraction stopped at " + where +
                                 "); nothing stored from it (a stored version stands); --max-facts N raises the limit "
                                 "(chipkg ingest, chipkg reinstate)");
}

Result<Extraction> ExtractDocument(const std::string& text, const SourceInfo& source, const Schema& schema,
                                   EntityResolver& resolver, size_t max_facts) {
  try {
    Page page(text, source, schema, resolver);
    page.max_facts = max_facts;
    const TemplateDef* chosen = nullptr;
    double best = 0;
    for (const TemplateDef& t : Templates()) {
      double score = t.score(std::string_view(text).substr(ByteOrderMarkSize(text)));
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
    // A generic reader that read what the template read says nothing new:
    // drop a generic fact whose span overlaps a template fact of the same
    // subject and predicate. Template spans per (subject, predicate), sorted by
    // begin, with the running maximum of their ends.
    struct Spans {
      std::vector<std::pair<uint32_t, uint32_t>> spans;
      std::vector<uint32_t> max_end;
    };
    std::unordered_map<std::string, Spans> template_spans;
    for (size_t i = 0; i < facts.size(); ++i) {
      if (!from_template[i]) continue;
      const Fact& f = facts[i];
      template_spans[f.subject + '\0' + f.predicate].spans.emplace_back(f.provenance.span_begin,
                                                                         f.provenance.span_end);
    }
    for (auto& [key, s] : template_spans) {
      std::sort(s.spans.begin(), s.spans.end());
      uint32_t running = 0;
      for (const auto& span : s.spans) s.max_end.push_back(running = std::max(running, span.second));
    }
    auto overlaps_template = [&](const Fact& f) {
      auto it = template_spans.find(f.subject + '\0' + f.predicate);
      if (it == template_spans.end()) return false;
      const Spans& s = it->second;
      // Template spans that begin before this one ends; one of them must end after it begins.
      auto last = std::lower_bound(s.spans.begin(), s.spans.end(), std::make_pair(f.provenance.span_end, uint32_t{0}));
      if (last == s.spans.begin()) return false;
      return s.max_end[static_cast<size_t>(last - s.spans.begin()) - 1] > f.provenance.span_begin;
    };
    out.facts.reserve(facts.size());
    for (size_t i = 0; i < facts.size(); ++i) {
      if (!from_template[i] && overlaps_template(facts[i])) continue;
      Fact f = std::move(facts[i]);
      if (!f.valid_as_of) f.valid_as_of = page.as_of;
      out.facts.push_back(std::move(f));
    }
    return out;
  } catch (const FactLimitReached& limit) {
    return TooManyFacts(source.document_id, max_facts, "byte " + std::to_string(limit.offset) + " of " +
                                                           std::to_string(text.size()));
  } catch (const std::exception& e) {
    return Status::Aborted("extracting " + source.document_id + ": " + e.what());
  }
}

}  // namespace chipkg
