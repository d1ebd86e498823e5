// The ingest pipeline: fetch each source, store a new document version only
// when its content changed, extract and annotate its facts, and write them
// (with the retractions the change causes) in one atomic write per document.
//
// One failing source never stops the others; its failure is reported.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/fact.h"
#include "engine/status.h"
#include "ingest/extract.h"
#include "ingest/fetch.h"

namespace chipkg {

class Fetcher;
class Schema;
class Store;

struct SourceSpec {
  std::string location;  // local path, file://, http:// or https:// URL
  std::string site;      // e.g. "aws.amazon.com"; derived from the URL host when empty
  std::string kind;      // "vendor", "press", "aggregator", ...
  std::string title;
  std::string format;    // "page" (default: extract as a web page) or a dataset name declared by
                         // `column` lines in schema/ (e.g. "epoch-ml-hardware"), read as CSV
  std::string id;        // document id; derived from the location when empty
  // The manifest that lists it (ManifestName: a file's path made absolute,
  // links as given, or "standard input"); empty for the command line. A run
  // of a manifest forgets the failures of the sources it no longer lists.
  std::string manifest;
};

// Reads a manifest: a JSON array of objects {"location": ..., "site", "kind", "title", "format", "id"}
// (or of plain strings). Relative locations resolve against the manifest's directory; each
// source's `manifest` names the file.
// A path of "-" reads standard input (a list a script makes), named "standard input" in
// errors, its relative locations resolved against the working directory.
Result<std::vector<SourceSpec>> LoadManifest(const std::string& path);

// How LoadManifest names a manifest in its sources' `manifest`: a file's path
// made absolute and normalised, links as given; "-" is "standard input", one
// manifest however many scripts write it (a cron job's generated list: its
// runs forget the failures of sources it no longer lists, as a file's do).
std::string ManifestName(const std::string& path);

struct SourceOutcome {
  std::string location;  // as given, without a user name or password
  std::string document_id;
  enum class State { kNew, kChanged, kUnchanged, kFailed } state = State::kFailed;
  std::string error;  // kFailed: why
  // false: the run stopped before this source, counted as failed: the store
  // failed on an earlier one, which `error` names.
  bool tried = true;
  size_t facts_added = 0;
  size_t facts_retracted = 0;
  // What the extraction of a new or changed text could not read: lines of a
  // page it could not interpret, cells of a dataset that are not what their
  // column holds ("row 12, column \"Memory (GB)\": \"n/a\" not read (not a
  // number)"), rows that merge into one entity.
  std::vector<std::string> warnings;
  // A new document whose text a stored document with standing claims
  // already is: what it repeats, and what to do. Not an extraction warning:
  // shown even by a quiet run, since a cron job is where a renamed manifest
  // id goes unnoticed.
  std::string repeats;
  // A stored document whose kind or site the source now gives otherwise (a
  // manifest corrected from press to vendor): "kind press -> vendor". The
  // record takes the new ones, and with them every answer that prefers or
  // uses a kind or site, including answers as at an earlier run (the record
  // keeps no history). Shown even by a quiet run, like `repeats`.
  std::string relabelled;
  // A retired document (chipkg retire): what was done with its new text
  // (stored without its claims) or its --reextract (nothing), and how to
  // undo the retirement. Shown even by a quiet run, like `repeats`.
  std::string retired;
  // A new document none of whose text chipkg reads (an error or maintenance
  // page met on a first fetch, a layout chipkg does not know): stored, and
  // said even by a quiet run, where a cron job's silence meant success.
  std::string states_nothing;
  // A changed document stored under accept_shrinking that states less than
  // half of what its stored version did: said even by a quiet run, since
  // the option holds for every document of the run, not only the one whose
  // refusal suggested it.
  std::string shrank;
  // An unchanged document whose standing claims were read by other rules
  // than this run's (the schema or the extraction changed since; or read
  // before chipkg recorded which): `--reextract` reads it again.
  bool read_by_other_rules = false;
  // This run read its text with its rules (internal: what is recorded).
  bool read_by_these_rules = false;
  // kFailed: how many runs in a row have failed on it, this one included,
  // and when the first of them did (Unix seconds); 0 when not recorded.
  // Otherwise, for a source that had failed in the runs before this one:
  // how many, and since when (its record is removed: it works again).
  uint64_t failed_runs = 0;
  int64_t failing_since = 0;
};

struct IngestReport {
  std::string run_id;
  std::vector<SourceOutcome> sources;
  std::vector<Entity> new_entities;  // names that matched no known entity
  size_t documents_new = 0, documents_changed = 0, documents_unchanged = 0, documents_failed = 0;
  size_t facts_added = 0, facts_retracted = 0;
  size_t documents_read_by_other_rules = 0;  // unchanged ones (SourceOutcome::read_by_other_rules)
  // Failing sources (FailingSources) whose last manifest this run read and
  // which it no longer lists: their records are removed, as no run will take
  // them (`manifest` names it). One still in another manifest keeps its
  // record, without this one.
  struct Forgotten {
    std::string document_id;
    std::string location;
    std::string manifest;
    uint64_t runs = 0;
  };
  std::vector<Forgotten> failing_forgotten;
  double seconds = 0;
  std::string SummaryLine() const;  // one line for cron logs
};

// Which rules read a text: the schema's fingerprint and ingest's reading
// code's version ("schema 0a1b..., extraction 1.2"), as recorded for each
// document a run reads (user meta "rules-read/ID").
std::string RulesNow(const Schema& schema);

// A source whose ingest failed in the latest runs, as recorded in the store
// (user meta "ingest-failed/ID"): kept until a run next takes it, or a run
// of its manifest no longer lists it.
struct FailingSource {
  std::string document_id;
  std::string location;  // as given, without a user name or password
  // The manifests whose runs it failed in (SourceSpec::manifest), in the
  // order first seen; none for a source tried from the command line alone.
  // A run of one that no longer lists it takes that one out; the record
  // goes with the last.
  std::vector<std::string> manifests;
  int64_t since = 0;     // Unix seconds: the first failure of those in a row
  int64_t last = 0;      // the latest
  uint64_t runs = 0;     // failed runs in a row
  std::string error;     // the latest's
};
Result<std::vector<FailingSource>> FailingSources(const Store& store);
// Removes a failing source's record (`chipkg retire` of a source that was
// never stored: a one-off ingest of a mistyped URL, which no manifest run
// would ever take out).
Status ForgetFailingSource(Store& store, const std::string& document_id);

// "run-20261205T171227Z-19599": the time and the process, as ingest runs are named.
std::string NewRunId();

struct IngestOptions {
  std::string run_id;  // generated from the time when empty
  // For the default fetchers: their limits (FetchOptions::deadline bounds
  // each source), and how many sources are fetched at once (each fetcher on a
  // thread of its own: a `fetch.sleep` hook is called from all of them).
  // Documents are still stored one at a time, in the sources' order.
  FetchOptions fetch;
  int parallel_fetches = 4;
  // Fetching runs ahead of storing while the bodies fetched and not stored
  // yet, and a fetch.max_body_bytes for each fetch in flight, come to no more
  // than this (so at most 12 fetches at once with the defaults' 10 MiB).
  size_t fetch_ahead_bytes = size_t{128} << 20;
  // A changed document whose new text states less than half of what its
  // stored version states (of 10 or more facts) is refused unless this is
  // set: a page cut short would retract what it said. One whose new text
  // states nothing at all (an error or maintenance page) is always refused.
  bool accept_shrinking = false;
  // An unchanged document is read again with the current schema and
  // extraction rules (an unchanged one costs nothing otherwise, so rules
  // improved since it was stored never reach it): what they read differently
  // supersedes the stored version's facts, with no new version
  // (Store::RestateDocumentVersion). A 304 answer reads the stored text.
  bool reextract = false;
  // A document stating more facts than this is refused, the rest of the run
  // going on (see kDefaultMaxFactsPerDocument in ingest/extract.h).
  size_t max_facts_per_document = kDefaultMaxFactsPerDocument;
  // The manifests this run read whole (ManifestName), besides those its
  // sources name: a failing source one of them no longer lists is
  // forgotten (IngestReport::failing_forgotten). It names a manifest that
  // lists no source at all, whose last dead source was taken out.
  std::vector<std::string> manifests_read;
};

// Ingests `sources` into `store`, fetching through `fetcher` one source at a
// time. Returns an error only when nothing could be attempted (e.g. the store
// is read-only); per-source failures are in the report.
Result<IngestReport> IngestSources(Store& store, const Schema& schema, const std::vector<SourceSpec>& sources,
                                   Fetcher& fetcher, const IngestOptions& options = {});

// The same with options.parallel_fetches default fetchers (libcurl for URLs,
// the file system for paths) fetching at once.
Result<IngestReport> IngestSources(Store& store, const Schema& schema, const std::vector<SourceSpec>& sources,
                                   const IngestOptions& options = {});

// A retired document (Store::RetireDocument) made a source again: its
// latest stored version is read again with the current schema and rules (as
// it was read when stored: a page, or the dataset it was read as) and what it
// states is asserted, in one transaction that clears the retirement (new
// entities it names are written before it). Nothing is fetched. Of
// `options`, run_id, max_facts_per_document and accept_shrinking count. Like
// a changed text at ingest, a text that states nothing, or (without
// accept_shrinking) less than half of what the retirement withdrew, is
// refused: InvalidArgument, nothing written. InvalidArgument too for a
// document that is not retired; NotFound for one the store does not hold.
struct ReinstateReport {
  TxId tx = 0;
  uint32_t version = 0;  // the version read again
  size_t facts_added = 0;
  std::vector<Entity> new_entities;
  std::vector<std::string> warnings;  // what the extraction could not read, as ingest reports it
  std::string repeats;  // another document with standing claims has the same text (as SourceOutcome::repeats)
};
Result<ReinstateReport> ReinstateDocument(Store& store, const Schema& schema, const std::string& document_id,
                                          const IngestOptions& options = {});

// The bundled corpus: datasets/manifest.json of the source tree or install.
std::string DefaultManifestPath();

}  // namespace chipkg
