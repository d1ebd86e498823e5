// Extraction: reading the facts a web page states, each with the exact bytes
// it was read from.
//
// ExtractDocument recognises the page's template (a registry of extractors,
// each scoring how well a page matches it; the best one above its threshold
// runs), then runs the generic extractors over every line the template did not
// interpret: markdown tables, "- Label" / "- value" line pairs, "Label: value"
// lines, and sentences that state a value next to a label. Generic facts whose
// span overlaps a template fact of the same subject and predicate are dropped.
//
// Which label means which predicate, and which phrases mean "not published",
// is data: `label` and `not_published` lines in schema/labels.schema and
// schema/sites/*.schema. A label's site= may name a host ("aws.amazon.com",
// matched against SourceInfo::site) or a template ("chip-catalog"); lookups try
// the site, then the template, then generic labels. Word lists the extractors
// use are schema tables (see schema/labels.schema): `words_<predicate>` lists
// words that are themselves values of a text predicate ("HBM2e" is a
// memory_type), `words_scope` the scopes of "per core", "per 16-chip server".
// A label of the predicate record_as_of ("Record as of") sets Extraction::as_of
// and is not returned as a fact.
//
// Guarantees for every returned fact:
//   - text.substr(span_begin, span_end - span_begin) == provenance.excerpt;
//     prefix is up to ~32 bytes before the span and suffix up to ~32 bytes
//     after it, cut on UTF-8 character boundaries;
//   - section, rule and rule_version are non-empty; document_id is
//     SourceInfo::document_id; document_version and run_id are left for the
//     store to set;
//   - quantities are in the schema's canonical unit with `original` as written;
//     "not published" claims are ValueKind::kNotPublished; "unknown", "none"
//     and the like are never stored;
//   - valid_as_of is the date of the row the fact came from if it has one,
//     else the page's own as-of date (Extraction::as_of), else unset.
// Nothing about the input can crash it: lines it cannot interpret become
// warnings; lines longer than kMaxInterpretedLine bytes are not interpreted.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/fact.h"
#include "engine/status.h"
#include "ingest/resolve.h"
#include "schema/schema.h"

namespace chipkg {

struct SourceInfo {
  std::string document_id;  // becomes provenance.document_id of every fact
  std::string url;
  std::string site;  // host, e.g. "aws.amazon.com"; selects site-specific labels
  std::string kind;  // "vendor", "press", "aggregator", ...
};

struct Extraction {
  // Which extractor recognised the page: "chip-catalog", "chip-dossier", or
  // "generic" when no template matched.
  std::string template_name;
  std::string title;                  // the page's title or subject name, if found
  std::optional<Date> as_of;          // the page's own "Record as of" / publication date
  std::vector<Fact> facts;            // complete claims (see the guarantees above)
  std::vector<std::string> warnings;  // "line N: what could not be interpreted"
};

// Longest line the extractors interpret; longer ones are reported and skipped.
inline constexpr size_t kMaxInterpretedLine = 64 * 1024;

// Most facts one document may state before its extraction stops and the
// document is refused. A fact costs ~2.7 KB of memory on its way to the store,
// so a 10 MiB page of table rows (a million facts) took 2.8 GB, enough for the
// OOM killer to end a cron run on a small host; the bundled pages state under
// 200 facts and Epoch's CSV 3,200, so legitimate documents are far below it.
inline constexpr size_t kDefaultMaxFactsPerDocument = 100000;

// The error a document over the limit gets: what, where extraction stopped,
// and how to raise the limit.
Status TooManyFacts(const std::string& document_id, size_t limit, const std::string& where);

// Version of the extraction rules; stored as provenance.rule_version. Bump when
// a rule's output changes, so re-extraction retracts and re-asserts cleanly.
inline constexpr const char* kExtractRuleVersion = "1";

// Reads every fact `text` states. Entity names go through `resolver` (kinds
// chip, organization, process_node, data_center, instance_type, rack_design,
// llm); entities it creates are the resolver's NewEntities(). Returns an error
// only if the resolver fails for a reason other than a bad name (e.g. the
// store cannot be read): bad input is never an error, it yields warnings,
// except a page that states more than `max_facts` facts (TooManyFacts).
Result<Extraction> ExtractDocument(const std::string& text, const SourceInfo& source, const Schema& schema,
                                   EntityResolver& resolver, size_t max_facts = kDefaultMaxFactsPerDocument);

// The registered page templates, best first when scored against `text`:
// (name, score in [0, 1]). For diagnostics (`chipkg extract --explain`).
std::vector<std::pair<std::string, double>> ScoreTemplates(const std::string& text);

}  // namespace chipkg
