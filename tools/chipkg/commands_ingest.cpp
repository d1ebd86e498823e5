// chipkg ingest: the cron entry point.
//
//   chipkg ingest PATH|URL... [--site S] [--kind K] [--title T] [--dataset NAME] [--id ID (one PATH|URL)]
//   chipkg ingest --manifest FILE
//   either with [--timeout SECONDS] [--retries N] [--parallel N] [--accept-shrinking] [--reextract]
//               [--max-facts N]
//
// Exit status: 0 every source fetched, 1 some sources failed, 2 bad usage or
// configuration (including another ingest holding the store). One summary
// line per run and one line per failure, on stderr.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>

#include "ingest/fetch.h"
#include "ingest/lock.h"
#include "ingest/pipeline.h"
#include "query/citation_json.h"
#include "query/factcheck.h"
#include "query/suggest.h"
#include "tools/chipkg/cli.h"

namespace chipkg::cli {
namespace {

// Lines of warnings shown a source: a few, and how many more, unless
// --all-warnings (a page read wrong is worked on with every one of them).
size_t WarningsShown(const Args& args) {
  return args.Has("all-warnings") ? std::numeric_limits<size_t>::max() : 3;
}

// Whether a local file's text starts as a JSON array does ('[' after
// spaces), as a manifest's does: only such a file is read whole as one.
bool StartsLikeAJsonArray(const std::string& location) {
  std::error_code probe_error;  // a link loop or an overlong name: left for the fetch to report
  if (!std::filesystem::is_regular_file(location, probe_error)) return false;
  std::ifstream in(location, std::ios::binary);
  char c = 0;
  for (int read = 0; read < 4096 && in.get(c); ++read) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return c == '[';
  }
  return false;
}

// --NAME's value as a whole number in [min, max]; nullopt (and the error
// printed) if it is not one.
std::optional<int> WholeNumberOption(const Args& args, const std::string& name, int fallback, int min, int max) {
  const auto text = args.Get(name);
  if (!text) return fallback;
  int value = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end || value < min || value > max) {
    PrintError("--" + name + " \"" + *text + "\": expected a whole number from " + std::to_string(min) + " to " +
               std::to_string(max));
    return std::nullopt;
  }
  return value;
}

// A store's writer and the run lock that names this process to others.
struct HeldStore {
  std::unique_ptr<Store> store;
  RunLock lock;
};

// Opens the writer and takes the run lock; says why not (and returns
// nothing) when another process has the store. RocksDB's own lock already
// refuses a second writer; the run lock (held for the whole run, pid
// inside) is what tells a person which process has it.
// Empty when the store cannot be held; `exit_code` then says why: 2 for a
// path that is no store or a store another run holds (the crontab's to fix:
// runs that overlap), 1 for a store damaged or unwritable (the job failed;
// it was 2, which sent a cron monitor to the crontab for a full disk).
std::optional<HeldStore> HoldForWriting(const std::string& path, int& exit_code) {
  exit_code = kExitFailed;
  auto held_by = [&](const std::string& pid) {
    PrintError("store " + path + " is held by pid " + pid + ": another ingest run is in progress");
    exit_code = kExitUsage;
  };
  // On a store that exists the run lock comes first: taken after the open,
  // a second run started while the first was opening met RocksDB's lock
  // before the first had written its pid, and could not name it. (A new
  // store's directory must stay empty until the store is made in it.)
  // Only where a chipkg writer has been (its lock file, never deleted: see
  // ingest/lock.h) does the lock come first; elsewhere the open decides
  // whether the directory is a store before anything is made in it, so
  // another application's RocksDB gets no lock file of ours.
  std::optional<RunLock> lock;
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::path(path) / "CURRENT", ec) &&
      std::filesystem::exists(RunLock::PathFor(path), ec)) {
    auto first = RunLock::Acquire(RunLock::PathFor(path));
    if (!first.ok()) {
      const std::string pid = RunLock::HolderPid(RunLock::PathFor(path));
      if (first.status().IsBusy() && !pid.empty()) {
        held_by(pid);
      } else {
        if (first.status().IsBusy()) exit_code = kExitUsage;
        PrintError(first.status());
      }
      return std::nullopt;
    }
    lock.emplace(std::move(*first));
  }
  auto store = Store::Open(path);
  if (!store.ok()) {
    // Another writer: if it is an ingest, its run lock's file names its pid
    // (unless the run lock is this process's: then the writer is no ingest).
    if (store.status().IsBusy() && !lock) {
      if (const std::string pid = RunLock::HolderPid(RunLock::PathFor(path)); !pid.empty()) {
        held_by(pid);
        return std::nullopt;
      }
    }
    if (store.status().IsInvalidArgument() || store.status().IsBusy()) exit_code = kExitUsage;
    PrintError(store.status());
    return std::nullopt;
  }
  if (!lock) {
    auto after = RunLock::Acquire(RunLock::PathFor(path));
    if (!after.ok()) {
      PrintError(after.status());
      return std::nullopt;
    }
    lock.emplace(std::move(*after));
  }
  return HeldStore{std::move(*store), std::move(*lock)};
}

// A source's kind is any word (a store may rank "blog" or "analyst"), but
// one that is new to the store and a letter or two from a kind it has, or
// from the usual three, is likely a typo, which `prefer vendor` and `using
// vendor` would then pass over: said before anything is stored, even with
// --quiet, as cron is where a manifest's typo goes unseen.
void WarnOfKindsNearOthers(const Store& store, const std::vector<SourceSpec>& sources) {
  std::vector<std::string> known = {"vendor", "press", "aggregator"};
  bool read = false;
  std::set<std::string> warned;
  for (const SourceSpec& spec : sources) {
    if (spec.kind.empty() || std::find(known.begin(), known.end(), spec.kind) != known.end()) continue;
    if (!read) {
      read = true;
      auto documents = store.ListDocuments();
      if (!documents.ok()) return;  // the ingest itself will say what is wrong with the store
      for (const Document& d : *documents) {
        if (!d.kind.empty() && std::find(known.begin(), known.end(), d.kind) == known.end()) known.push_back(d.kind);
      }
      if (std::find(known.begin(), known.end(), spec.kind) != known.end()) continue;
    }
    const std::string near = query::DidYouMean(spec.kind, known);
    if (near.empty() || !warned.insert(spec.kind).second) continue;
    std::fprintf(stderr,
                 "chipkg ingest: %s: kind '%s' is new to this store%s: stored as given, so 'prefer' and 'using' "
                 "see it as a kind of its own\n",
                 spec.location.c_str(), spec.kind.c_str(), near.c_str());
  }
}

int RunIngest(const Args& args) {
  IngestOptions options;
  const auto deadline_s = WholeNumberOption(
      args, "timeout", static_cast<int>(options.fetch.deadline.count() / 1000), 1, 3600);
  const auto retries = WholeNumberOption(args, "retries", options.fetch.max_retries, 0, 10);
  const auto parallel = WholeNumberOption(args, "parallel", options.parallel_fetches, 1, 32);
  const auto max_facts = WholeNumberOption(args, "max-facts", static_cast<int>(options.max_facts_per_document), 1,
                                           10000000);
  if (!deadline_s || !retries || !parallel || !max_facts) return kExitUsage;
  options.max_facts_per_document = static_cast<size_t>(*max_facts);
  options.fetch.deadline = std::chrono::seconds(*deadline_s);
  // A longer deadline is for slow large files: one attempt may use all of it.
  options.fetch.total_timeout = std::max<std::chrono::milliseconds>(options.fetch.total_timeout,
                                                                    options.fetch.deadline);
  options.fetch.max_retries = *retries;
  options.parallel_fetches = *parallel;
  options.accept_shrinking = args.Has("accept-shrinking");
  options.reextract = args.Has("reextract");

  std::vector<SourceSpec> sources;
  const auto manifests = args.GetAll("manifest");
  if (std::count(manifests.begin(), manifests.end(), "-") > 1) {
    PrintError("--manifest - reads standard input, which holds one manifest: give it once");
    return kExitUsage;
  }
  for (const auto& manifest : manifests) {
    auto loaded = LoadManifest(manifest);
    if (!loaded.ok()) {
      PrintError(loaded.status());
      return kExitUsage;
    }
    options.manifests_read.push_back(ManifestName(manifest));
    // Said even quiet: from this run on the cron job ingests nothing.
    if (loaded->empty()) {
      std::fprintf(stderr, "chipkg ingest: %s lists no sources\n", manifest == "-" ? "standard input" : manifest.c_str());
    }
    sources.insert(sources.end(), loaded->begin(), loaded->end());
  }
  if (args.positional.empty()) {
    for (const char* flag : {"site", "kind", "title", "dataset", "id"}) {
      if (args.Has(flag)) {
        PrintError(std::string("--") + flag + " applies to PATH|URL arguments, and none was given (a manifest sets "
                   "it for each of its sources)");
        return kExitUsage;
      }
    }
  }
  const auto id = args.Get("id");
  if (id && args.positional.size() != 1) {
    PrintError("--id names one document: give exactly one PATH|URL with it, not " +
               std::to_string(args.positional.size()));
    return kExitUsage;
  }
  for (const auto& location : args.positional) {
    // A manifest given as a document would be stored as a page of JSON text
    // that states nothing: almost certainly a missing --manifest, whatever
    // the file is called (MANIFEST.JSON, sources).
    if (!args.Has("dataset") && StartsLikeAJsonArray(location) && LoadManifest(location).ok()) {
      PrintError(location + " is a manifest, not a document: chipkg ingest --manifest " + location);
      return kExitUsage;
    }
    SourceSpec spec;
    spec.id = id.value_or("");
    spec.location = location;
    spec.site = args.Get("site").value_or("");
    spec.kind = args.Get("kind").value_or("");
    spec.format = args.Get("dataset").value_or("");
    spec.title = args.Get("title").value_or("");
    sources.push_back(spec);
  }
  // A manifest that lists nothing is read all the same: its last dead
  // source taken out, the run forgets that source's failures.
  if (sources.empty() && options.manifests_read.empty()) {
    PrintError("usage: chipkg ingest [--manifest FILE] [PATH|URL...]: nothing to ingest");
    return kExitUsage;
  }
  auto schema = LoadSchema();
  if (!schema.ok()) {
    PrintError(schema.status());
    return kExitUsage;
  }
  // A misspelt dataset or a URL with a password is a mistake in the command
  // or the manifest, not a failed fetch.
  for (const auto& spec : sources) {
    if (WithoutCredentials(spec.location) != spec.location) {
      PrintError(WithoutCredentials(spec.location) + ": a URL with a user name or password is not ingested (it would "
                 "be stored and exported with the document)");
      return kExitUsage;
    }
    if (!spec.format.empty() && spec.format != "page" && schema->ColumnsOf(spec.format).empty()) {
      PrintError(spec.location + ": unknown dataset \"" + spec.format + "\" (no `column " + spec.format +
                 " ...` line in schema/; \"page\" reads the source as a web page)");
      return kExitUsage;
    }
  }
  const std::string path = StorePath(args);
  std::error_code ec;
  const bool new_store = !std::filesystem::exists(std::filesystem::path(path) / "CURRENT", ec);
  // As every other command says it: a file is no store (a cron line's --db
  // naming the export beside it), and the store's path is no usage error.
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec)) {
    PrintError(path + " is a file, not a store directory (--db names a directory)");
    return kExitFailed;
  }
  std::filesystem::create_directories(path, ec);
  if (ec) {
    PrintError("cannot create store directory " + path + ": " + ec.message());
    return kExitFailed;
  }
  int held_code = kExitOk;
  std::optional<HeldStore> held = HoldForWriting(path, held_code);
  if (!held) return held_code;
  // Said even under --quiet: a cron line whose --db is mistyped fills a new
  // store every run, and its summary reads as an ordinary first run.
  // Whole, so that a relative --db says where cron's working directory put it.
  if (new_store) {
    std::error_code canonical_ec;  // the directory exists by now: links resolved, ".." taken as the system does
    const std::filesystem::path whole = std::filesystem::canonical(path, canonical_ec);
    std::fprintf(stderr, "chipkg ingest: a new store at %s\n", (canonical_ec ? path : whole.string()).c_str());
  }
  WarnOfKindsNearOthers(*held->store, sources);
  auto report = IngestSources(*held->store, *schema, sources, options);
  if (!report.ok()) {
    PrintError(report.status());
    return kExitFailed;
  }
  size_t untried = 0;
  const SourceOutcome* first_untried = nullptr;
  for (const auto& s : report->sources) {
    if (!s.tried) {
      if (untried++ == 0) first_untried = &s;  // one line for the lot, below
    } else if (s.state == SourceOutcome::State::kFailed) {
      // Most errors name the location already ("URL: HTTP 404 Not Found").
      const bool named = s.error.rfind(s.location + ": ", 0) == 0;
      std::fprintf(stderr, "chipkg ingest: failed %s\n", (named ? s.error : s.location + ": " + s.error).c_str());
      if (s.failed_runs > 1) {
        std::fprintf(stderr, "chipkg ingest: %s has failed in %llu runs in a row, since %s ('chipkg sources' lists "
                     "the sources failing)\n", s.document_id.c_str(), static_cast<unsigned long long>(s.failed_runs),
                     query::IsoTime(s.failing_since).c_str());
      }
    }
  }
  if (first_untried != nullptr) {
    std::fprintf(stderr, "chipkg ingest: %zu %s not tried: %s\n", untried, untried == 1 ? "source" : "sources",
                 first_untried->error.c_str());
  }
  for (const auto& s : report->sources) {
    if (!s.repeats.empty()) std::fprintf(stderr, "chipkg ingest: %s: %s\n", s.location.c_str(), s.repeats.c_str());
    if (!s.retired.empty()) std::fprintf(stderr, "chipkg ingest: %s: %s\n", s.location.c_str(), s.retired.c_str());
    if (!s.states_nothing.empty()) {
      std::fprintf(stderr, "chipkg ingest: %s: %s\n", s.location.c_str(), s.states_nothing.c_str());
    }
    if (!s.shrank.empty()) std::fprintf(stderr, "chipkg ingest: %s: %s\n", s.location.c_str(), s.shrank.c_str());
    // Said even quiet, once: the runs that failed on it were mailed.
    if (s.state != SourceOutcome::State::kFailed && s.failed_runs > 0) {
      std::fprintf(stderr, "chipkg ingest: %s (%s) works again, after %llu failed %s since %s\n",
                   s.document_id.c_str(), s.location.c_str(), static_cast<unsigned long long>(s.failed_runs),
                   s.failed_runs == 1 ? "run" : "runs in a row", query::IsoTime(s.failing_since).c_str());
    }
    if (!s.relabelled.empty() && s.state != SourceOutcome::State::kFailed) {
      std::fprintf(stderr,
                   "chipkg ingest: %s: %s (answers that prefer or use a kind or site follow it, as of earlier runs "
                   "too: the record keeps no history of it)\n",
                   s.document_id.c_str(), s.relabelled.c_str());
    }
  }
  // Said even quiet, as the failures were: a source taken out of the
  // manifest by mistake would otherwise stop failing without a word.
  for (const auto& f : report->failing_forgotten) {
    std::fprintf(stderr, "chipkg ingest: %s (%s) is no longer in %s: its record of %llu failed %s is removed\n",
                 f.document_id.c_str(), f.location.c_str(), f.manifest.c_str(),
                 static_cast<unsigned long long>(f.runs), f.runs == 1 ? "run" : "runs in a row");
  }
  if (!args.Has("quiet")) {
    // A few of each source's, and how many more: a dataset can have
    // hundreds of cells that are not what their column holds.
    const size_t shown = WarningsShown(args);
    for (const auto& s : report->sources) {
      for (size_t i = 0; i < s.warnings.size() && i < shown; ++i) {
        std::fprintf(stderr, "chipkg ingest: %s: %s\n", s.location.c_str(), s.warnings[i].c_str());
      }
      if (s.warnings.size() > shown) {
        std::fprintf(stderr, "chipkg ingest: %s: %zu more not shown (--all-warnings shows them)\n",
                     s.location.c_str(), s.warnings.size() - shown);
      }
    }
    // A first run over a dataset makes a new entity of every row.
    constexpr size_t kEntitiesShown = 10;
    for (size_t i = 0; i < report->new_entities.size() && i < kEntitiesShown; ++i) {
      const Entity& e = report->new_entities[i];
      std::fprintf(stderr, "chipkg ingest: new entity %s (%s) \"%s\": add an alias in schema/ if it is known\n",
                   e.id.c_str(), e.kind.c_str(), e.name.c_str());
    }
    if (report->new_entities.size() > kEntitiesShown) {
      std::fprintf(stderr, "chipkg ingest: %zu more new entities not shown\n",
                   report->new_entities.size() - kEntitiesShown);
    }
  }
  // Quiet, a run that changed no claim and met no failure says nothing:
  // cron mails whatever a job prints, and a summary every hour buried the
  // runs that mattered. That includes a changed text whose claims all stand
  // (a page whose timestamp or build id ticks): its new version is stored,
  // but mailed every run it read as a figure that changed.
  const bool stored = report->documents_new > 0 || report->facts_added + report->facts_retracted > 0;
  if (!args.Has("quiet") || stored || report->documents_failed > 0) {
    // Which documents the counts are (a mail saying "1 changed" sent the
    // operator to `sources` and `history` to find out); a first run over
    // hundreds of pages lists a few.
    constexpr size_t kDocumentsListed = 20;
    size_t listed = 0, more = 0;
    for (const auto& s : report->sources) {
      const bool is_new = s.state == SourceOutcome::State::kNew;
      if (!is_new && !(s.state == SourceOutcome::State::kChanged && s.facts_added + s.facts_retracted > 0)) continue;
      if (listed == kDocumentsListed) {
        ++more;
        continue;
      }
      ++listed;
      std::fprintf(stderr, "chipkg ingest: %s %s (%s): %zu %s added, %zu retracted\n", is_new ? "new" : "changed",
                   s.document_id.c_str(), s.location.c_str(), s.facts_added, s.facts_added == 1 ? "fact" : "facts",
                   s.facts_retracted);
    }
    if (more > 0) {
      std::fprintf(stderr, "chipkg ingest: %zu more new or changed %s (chipkg sources lists every document)\n", more,
                   more == 1 ? "document" : "documents");
    }
    std::fprintf(stderr, "%s\n", report->SummaryLine().c_str());
  }
  // Quiet, only beside a summary: said every run until they are read again,
  // it would bury the runs that matter as a summary did.
  if ((!args.Has("quiet") || stored || report->documents_failed > 0) && report->documents_read_by_other_rules > 0) {
    std::string first;
    for (const auto& s : report->sources) {
      if (s.read_by_other_rules) {
        first = s.document_id;
        break;
      }
    }
    std::fprintf(stderr,
                 "chipkg ingest: %zu unchanged %s (%s%s) %s read by other rules than this chipkg's (its schema or "
                 "extraction changed since, or they were read before chipkg recorded which); 'chipkg ingest "
                 "--reextract' reads them again with the current rules\n",
                 report->documents_read_by_other_rules,
                 report->documents_read_by_other_rules == 1 ? "document" : "documents", first.c_str(),
                 report->documents_read_by_other_rules > 1 ? ", ..." : "",
                 report->documents_read_by_other_rules == 1 ? "was" : "were");
  }
  return report->documents_failed > 0 ? kExitFailed : kExitOk;
}

// The document `args` names whole, for a command that changes what it
// asserts: by its id, else by a URL or title no other document has. A part
// of a name is enough to read a document, not to withdraw or assert its
// claims, and a copy shares its original's URL or title. Prints why not and
// sets `exit_code` when there is no such one document.
std::optional<Document> WholeDocumentNamed(const Store& store, const std::string& name, const char* command,
                                           int& exit_code) {
  auto lower = [](std::string t) {
    for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return t;
  };
  const std::string asked = lower(name);
  auto documents = store.ListDocuments();
  if (!documents.ok()) {
    PrintError(documents.status());
    exit_code = kExitFailed;
    return std::nullopt;
  }
  std::vector<const Document*> by_id, by_other;
  for (const Document& d : *documents) {
    if (lower(d.id) == asked) {
      by_id.push_back(&d);
    } else if (lower(d.url) == asked || lower(d.title) == asked) {
      by_other.push_back(&d);
    }
  }
  const std::vector<const Document*>& matches = by_id.empty() ? by_other : by_id;
  if (matches.size() == 1) return *matches.front();
  std::string ids;
  for (const Document* d : matches) ids += (ids.empty() ? "" : ", ") + d->id;
  if (matches.empty()) {
    auto near = factcheck::FindDocument(store, name);
    PrintError(near.ok() ? "'" + name + "' is only part of " + near->id + ": " + command +
                               " takes a document's whole id, URL or title (chipkg " + command + " " + near->id + ")"
                         : near.status().message());
    // No such document fails as `source`'s does; a part of a name is a usage slip.
    exit_code = near.ok() || near.status().IsInvalidArgument() ? kExitUsage : kExitFailed;
    return std::nullopt;
  } else {
    PrintError("'" + name + "' is the URL or title of " + std::to_string(matches.size()) + " documents (" + ids +
               "): " + command + " one by its id");
  }
  exit_code = kExitUsage;
  return std::nullopt;
}

// The writer of an existing store for `command`; nullopt (the error said)
// for a --db that is not one: opening the writer would make a new store of
// a mistyped path.
std::optional<HeldStore> HoldExistingForWriting(const Args& args, int& exit_code) {
  const std::string path = StorePath(args);
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::path(path) / "CURRENT", ec)) {
    PrintError("no store at " + path);
    exit_code = kExitUsage;
    return std::nullopt;
  }
  return HoldForWriting(path, exit_code);
}

// A document that should not be a source (a copy ingested under a second id,
// a wrong page) loses every claim it made, in one write that history keeps:
// deleting it would lose what answers said before, and a fact-checker could
// no longer see why they changed. It stays retired: later versions of it are
// stored without claims, until `chipkg reinstate`.
int RunRetire(const Args& args) {
  if (args.positional.size() != 1) {
    PrintError("usage: chipkg retire DOCUMENT (its id or title, as 'chipkg sources' lists it)");
    return kExitUsage;
  }
  int held_code = kExitOk;
  std::optional<HeldStore> held = HoldExistingForWriting(args, held_code);
  if (!held) return held_code;
  std::unique_ptr<Store>& store = held->store;
  // A source that failed and was never stored (a one-off ingest of a
  // mistyped URL) has only its failure record, which `sources` listed for
  // ever: retiring it removes the record.
  if (auto failing = FailingSources(*store); failing.ok()) {
    for (const FailingSource& f : *failing) {
      if (f.document_id != args.positional[0] && f.location != args.positional[0]) continue;
      if (!store->GetDocument(f.document_id).status().IsNotFound()) break;
      if (Status forgotten = ForgetFailingSource(*store, f.document_id); !forgotten.ok()) {
        PrintError(forgotten);
        return kExitFailed;
      }
      std::fprintf(stderr, "chipkg retire: %s (%s) was never stored: its record of %llu failed %s is removed\n",
                   f.document_id.c_str(), f.location.c_str(), static_cast<unsigned long long>(f.runs),
                   f.runs == 1 ? "run" : "runs in a row");
      return kExitOk;
    }
  }
  int exit_code = kExitOk;
  const std::optional<Document> doc = WholeDocumentNamed(*store, args.positional[0], "retire", exit_code);
  if (!doc) return exit_code;
  if (doc->retired_tx != 0) {
    std::fprintf(stderr, "chipkg retire: %s was retired by tx %llu already: nothing written\n", doc->id.c_str(),
                 (unsigned long long)doc->retired_tx);
    return kExitOk;
  }
  const std::string run_id = NewRunId();
  auto retired = store->RetireDocument(doc->id, run_id);
  if (!retired.ok()) {
    PrintError(retired.status());
    return kExitFailed;
  }
  const std::string later = "Its later versions are stored without claims; 'chipkg reinstate " + doc->id +
                            "' asserts what its latest version states.";
  if (retired->facts_retracted == 0) {
    std::fprintf(stderr, "chipkg retire %s: %s: no claim of it stood; marked retired (tx %llu). %s\n",
                 run_id.c_str(), doc->id.c_str(), (unsigned long long)retired->tx, later.c_str());
    return kExitOk;
  }
  std::fprintf(stderr,
               "chipkg retire %s: %s: %zu claim%s withdrawn (tx %llu). History keeps them: 'chipkg history "
               "ENTITY.ATTR' lists them, and '--as-at tx %llu' reads the store as it was just before. %s\n",
               run_id.c_str(), doc->id.c_str(), retired->facts_retracted, retired->facts_retracted == 1 ? "" : "s",
               (unsigned long long)retired->tx, (unsigned long long)(retired->tx - 1), later.c_str());
  return kExitOk;
}

// Undoes `chipkg retire`: the latest stored version is read again (nothing
// is fetched) and its claims asserted, in one write that clears the mark.
int RunReinstate(const Args& args) {
  if (args.positional.size() != 1) {
    PrintError("usage: chipkg reinstate DOCUMENT [--max-facts N] [--accept-shrinking] [--all-warnings] (a retired document's id or "
               "title, as 'chipkg sources' lists it)");
    return kExitUsage;
  }
  IngestOptions options;
  const auto max_facts = WholeNumberOption(args, "max-facts", static_cast<int>(options.max_facts_per_document), 1,
                                           10000000);
  if (!max_facts) return kExitUsage;
  options.max_facts_per_document = static_cast<size_t>(*max_facts);
  options.accept_shrinking = args.Has("accept-shrinking");
  int held_code = kExitOk;
  std::optional<HeldStore> held = HoldExistingForWriting(args, held_code);
  if (!held) return held_code;
  std::unique_ptr<Store>& store = held->store;
  int exit_code = kExitOk;
  const std::optional<Document> doc = WholeDocumentNamed(*store, args.positional[0], "reinstate", exit_code);
  if (!doc) return exit_code;
  if (doc->retired_tx == 0) {  // as retiring a retired one: nothing to do
    std::fprintf(stderr,
                 "chipkg reinstate: %s is not retired: nothing written (its claims stand as its latest version "
                 "states them; 'chipkg ingest --reextract' reads it again)\n",
                 doc->id.c_str());
    return kExitOk;
  }
  auto schema = LoadSchema();
  if (!schema.ok()) {
    PrintError(schema.status());
    return kExitFailed;
  }
  options.run_id = NewRunId();
  auto reinstated = ReinstateDocument(*store, *schema, doc->id, options);
  if (!reinstated.ok()) {
    PrintError(reinstated.status());
    return kExitFailed;
  }
  if (!reinstated->repeats.empty()) {
    std::fprintf(stderr, "chipkg reinstate: %s: %s\n", doc->id.c_str(), reinstated->repeats.c_str());
  }
  if (!args.Has("quiet")) {
    const size_t shown = WarningsShown(args);
    const std::vector<std::string>& warnings = reinstated->warnings;
    for (size_t i = 0; i < warnings.size() && i < shown; ++i) {
      std::fprintf(stderr, "chipkg reinstate: %s: %s\n", doc->id.c_str(), warnings[i].c_str());
    }
    if (warnings.size() > shown) {
      std::fprintf(stderr, "chipkg reinstate: %s: %zu more not shown (--all-warnings shows them)\n",
                   doc->id.c_str(), warnings.size() - shown);
    }
  }
  std::fprintf(stderr,
               "chipkg reinstate %s: %s: version %u read again, %zu claim%s asserted (tx %llu), %zu new entit%s\n",
               options.run_id.c_str(), doc->id.c_str(), reinstated->version, reinstated->facts_added,
               reinstated->facts_added == 1 ? "" : "s", (unsigned long long)reinstated->tx,
               reinstated->new_entities.size(), reinstated->new_entities.size() == 1 ? "y" : "ies");
  return kExitOk;
}

const RegisterCommand kReinstate({"reinstate", "reinstate DOCUMENT [--max-facts N] [--accept-shrinking] [--all-warnings]",
                                  "make a retired document a source again: its latest version read again and its "
                                  "claims asserted",
                                  RunReinstate, {"max-facts", "accept-shrinking", "all-warnings"}});

const RegisterCommand kRetire({"retire", "retire DOCUMENT",
                               "withdraw every claim a document makes (a copy or a wrong page); history keeps them",
                               RunRetire});

const RegisterCommand kIngest({"ingest", "ingest [--manifest FILE] [PATH|URL...]",
                               "fetch, extract and store documents (incremental; for cron; --manifest - reads the list from "
                               "standard input; with PATH|URL "
                               "--id, --site, --kind, --title, --dataset; --timeout S a source, --retries N, "
                               "--parallel N fetches, --reextract unchanged ones with the current rules, "
                               "--max-facts N a document, --accept-shrinking, --all-warnings, --quiet)",
                               RunIngest,
                               {"manifest", "id", "site", "kind", "title", "dataset", "timeout", "retries", "parallel",
                                "reextract", "max-facts", "accept-shrinking", "all-warnings", "quiet"}});

}  // namespace
}  // namespace chipkg::cli
