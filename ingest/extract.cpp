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

namespace {

// The text a template's score reads: its start (the scores read 64 KiB)
// without headings' marks, as Page's lines are read (an HTML page's <h2>
// section title is the line its text rendering has: "## Key facts" is the
// catalog's "Key facts"), and without a byte order mark.
std::string TextToScore(std::string_view text) {
  text = text.substr(ByteOrderMarkSize(text));
  text = text.substr(0, std::min<size_t>(text.size(), 64 * 1024));
  std::string out;
  out.reserve(text.size());
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    size_t marks = 0;
    while (start + marks < end && text[start + marks] == '#') ++marks;
    const bool heading = marks >= 1 && marks <= 6 && start + marks < end &&
                         (text[start + marks] == ' ' || text[start + marks] == '\t');
    out.append(text.substr(heading ? start + marks + 1 : start, end - (heading ? start + marks + 1 : start)));
    start = end;
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, double>> ScoreTemplates(const std::string& text) {
  std::vector<std::pair<std::string, double>> out;
  const std::string scored = TextToScore(text);
  for (const TemplateDef& t : Templates()) out.emplace_back(t.name, t.score(scored));
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
    const std::string scored = TextToScore(text);
    for (const TemplateDef& t : Templates()) {
      double score = t.score(scored);
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
