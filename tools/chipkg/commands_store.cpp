// Store-level commands: stats, export, import.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "ingest/bulk_import.h"
#include "query/citation_json.h"
#include "tools/chipkg/cli.h"

namespace chipkg::cli {
namespace {
namespace fs = std::filesystem;

// JSON for monitors, whatever bytes a store path or a stored name holds: a
// byte that is not UTF-8 is replaced, not thrown over (it aborted `check`).
std::string JsonText(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

int RunStats(const Args& args) {
  if (!args.positional.empty()) {
    PrintError("unexpected argument '" + args.positional[0] + "': usage: chipkg stats");
    return kExitUsage;
  }
  // Text for people; JSON for the cron jobs and monitors that watch a store.
  const std::string format = args.Get("format").value_or("text");
  if (format != "text" && format != "json") {
    PrintError("stats prints --format text or json, not '" + format + "'");
    return kExitUsage;
  }
  // A monitor parsing stdout gets an object whatever happens, as from `check`.
  auto fail = [&](const Status& status) {
    if (format == "json") {
      const nlohmann::ordered_json j = {{"store", StorePath(args)}, {"opened", false}, {"error", ErrorText(status)}};
      std::printf("%s\n", JsonText(j).c_str());
    }
    PrintError(status);
    return kExitFailed;
  };
  auto store = OpenForReading(StorePath(args));
  if (!store.ok()) return fail(store.status());
  auto stats = (*store)->Statistics();
  if (!stats.ok()) return fail(stats.status());
  const StoreStats& s = *stats;
  if (format == "json") {
    const nlohmann::ordered_json j = {{"store", StorePath(args)},
                                      {"opened", true},
                                      {"facts", s.facts},
                                      {"live_facts", s.live_facts},
                                      {"retracted_facts", s.retracted_facts},
                                      {"not_published_facts", s.not_published_facts},
                                      {"entities", s.entities},
                                      {"documents", s.documents},
                                      {"document_versions", s.document_versions},
                                      {"transactions", s.transactions},
                                      {"last_tx", (*store)->LastTx()},
                                      {"disk_bytes", s.disk_bytes}};
    std::printf("%s\n", JsonText(j).c_str());
    return kExitOk;
  }
  std::printf("store              %s\n", StorePath(args).c_str());
  std::printf("facts              %llu (%llu live, %llu retracted, %llu not published)\n",
              (unsigned long long)s.facts, (unsigned long long)s.live_facts,
              (unsigned long long)s.retracted_facts, (unsigned long long)s.not_published_facts);
  std::printf("entities           %llu\n", (unsigned long long)s.entities);
  std::printf("documents          %llu (%llu versions)\n", (unsigned long long)s.documents,
              (unsigned long long)s.document_versions);
  std::printf("transactions       %llu\n", (unsigned long long)s.transactions);
  std::printf("size on disk       %.1f MB\n", s.disk_bytes / 1e6);
  return kExitOk;
}

// What the store holds that this chipkg's schema does not describe: live
// facts of a predicate it does not define (not-published markers too) or
// whose values have another form than the definition's, entities of a kind
// it does not define. Queries cannot ask for them by attribute or kind, or
// read them as what the schema describes (a quantity of seconds shown in
// bytes). Not damage (a store imported from a chipkg with another schema, a
// schema edited since), so said beside the check's verdict, not in it.
struct SchemaMismatch {
  std::string text;             // for people
  nlohmann::ordered_json json;  // the same, for monitors
};

Result<std::vector<SchemaMismatch>> SchemaMismatches(const Store& store, const Schema& schema) {
  auto uses = store.PredicateUses();
  if (!uses.ok()) return uses.status();
  std::vector<SchemaMismatch> out;
  auto facts = [](uint64_t n) { return std::to_string(n) + (n == 1 ? " live fact" : " live facts"); };
  auto form = [](ValueKind kind, const std::string& dimension) {
    if (kind == ValueKind::kQuantity) return "quantities of " + (dimension.empty() ? std::string("no dimension") : dimension);
    if (kind == ValueKind::kEntity) return std::string("entities");
    if (kind == ValueKind::kBool) return std::string("yes/no values");
    return std::string(ValueKindName(kind)) + (kind == ValueKind::kText ? "" : "s");
  };
  // Uses come in predicate order: an unknown predicate's forms are summed.
  for (size_t i = 0; i < uses->size();) {
    const PredicateUse& use = (*uses)[i];
    const PredicateDef* def = schema.FindPredicate(use.predicate);
    if (def == nullptr) {
      uint64_t count = 0;
      size_t j = i;
      for (; j < uses->size() && (*uses)[j].predicate == use.predicate; ++j) count += (*uses)[j].facts;
      out.push_back({"predicate '" + use.predicate + "' is not in the schema: " + facts(count) + " (the first about " +
                         use.first_subject + ")",
                     {{"what", "unknown_predicate"},
                      {"predicate", use.predicate},
                      {"live_facts", count},
                      {"first_subject", use.first_subject}}});
      i = j;
      continue;
    }
    ++i;
    if (use.kind == ValueKind::kNotPublished) continue;  // a marker, of any predicate the schema defines
    if (def->type == use.kind && (use.kind != ValueKind::kQuantity || def->dimension == use.dimension)) continue;
    out.push_back({use.predicate + ": " + facts(use.facts) + (use.facts == 1 ? " holds " : " hold ") +
                       form(use.kind, use.dimension) + ", where the schema's values are " +
                       form(def->type, def->dimension) + " (the first about " + use.first_subject + ")",
                   {{"what", "value_form"},
                    {"predicate", use.predicate},
                    {"kind", ValueKindName(use.kind)},
                    {"dimension", use.dimension},
                    {"schema_kind", ValueKindName(def->type)},
                    {"schema_dimension", def->dimension},
                    {"live_facts", use.facts},
                    {"first_subject", use.first_subject}}});
  }
  auto entities = store.ListEntities();
  if (!entities.ok()) return entities.status();
  std::map<std::string, std::pair<uint64_t, std::string>> unknown_kinds;  // kind: how many, the first
  const auto& kinds = schema.entity_kinds();
  for (const Entity& e : *entities) {
    if (std::find(kinds.begin(), kinds.end(), e.kind) != kinds.end()) continue;
    auto& [count, first] = unknown_kinds[e.kind];
    if (count++ == 0) first = e.id;
  }
  for (const auto& [kind, seen] : unknown_kinds) {
    out.push_back({"entity kind '" + kind + "' is not in the schema: " + std::to_string(seen.first) +
                       (seen.first == 1 ? " entity (" : " entities (the first ") + seen.second + ")",
                   {{"what", "unknown_entity_kind"},
                    {"kind", kind},
                    {"entities", seen.first},
                    {"first_entity", seen.second}}});
  }
  return out;
}

constexpr char kMismatchesMean[] =
    "queries cannot ask for them, or read them as what the schema describes";

// chipkg check: for monitors and for after a crash or a disk error. Exit 0
// only for a store read whole and found sound; a store that cannot even be
// opened is reported in the same shape (JSON "sound": false), so a monitor
// parses one answer whatever went wrong.
int RunCheck(const Args& args) {
  if (!args.positional.empty()) {
    PrintError("unexpected argument '" + args.positional[0] + "': usage: chipkg check [--format json]");
    return kExitUsage;
  }
  const std::string format = args.Get("format").value_or("text");
  if (format != "text" && format != "json") {
    PrintError("check prints --format text or json, not '" + format + "'");
    return kExitUsage;
  }
  const std::string path = StorePath(args);
  std::vector<std::string> damaged_files;  // when the store would not open
  auto fail = [&](const Status& status) {
    if (format == "json") {
      nlohmann::ordered_json j = {{"store", path},
                                  {"sound", false},
                                  {"opened", false},
                                  {"error", ErrorText(status)},
                                  {"schema_mismatches", nullptr}};
      if (!damaged_files.empty()) j["damaged_table_files"] = damaged_files;
      std::printf("%s\n", JsonText(j).c_str());
    } else {
      for (const std::string& d : damaged_files) std::printf("  - %s\n", d.c_str());
    }
    PrintError(status);
    return kExitFailed;
  };
  if (!std::filesystem::exists(path)) return fail(Status::NotFound("no store at " + path));
  StoreOptions options;
  options.fill_block_cache = false;  // every block is read once
  auto store = OpenForReading(path, options);
  if (!store.ok()) {
    // RocksDB's open names the first damaged file it met, or only the
    // MANIFEST: every table file is read on its own to name them all.
    if (store.status().IsCorruption()) {
      if (auto files = Store::DamagedTableFiles(path); files.ok()) damaged_files = std::move(*files);
    }
    return fail(store.status());
  }
  auto checked = (*store)->Check();
  if (!checked.ok()) return fail(checked.status());
  const StoreCheck& c = *checked;
  const bool sound = c.problem_count == 0;
  // Held against the schema only when sound: a damaged store's records may
  // not decode, and its verdict is what a monitor needs.
  std::string schema_error;
  std::vector<SchemaMismatch> mismatches;
  if (sound) {
    auto schema = LoadSchema();
    auto found = schema.ok() ? SchemaMismatches(**store, *schema) : Result<std::vector<SchemaMismatch>>(schema.status());
    if (found.ok()) {
      mismatches = std::move(*found);
    } else {
      schema_error = ErrorText(found.status());
    }
  }
  if (format == "json") {
    const nlohmann::ordered_json j = {{"store", path},
                                      {"sound", sound},
                                      {"opened", true},
                                      {"table_files", c.table_files},
                                      {"table_bytes", c.table_bytes},
                                      {"records", c.records},
                                      {"facts", c.facts},
                                      {"documents", c.documents},
                                      {"document_versions", c.document_versions},
                                      {"entities", c.entities},
                                      {"transactions", c.transactions},
                                      {"problem_count", c.problem_count},
                                      {"problems", c.problems}};
    nlohmann::ordered_json out = j;
    // null: not checked (a damaged store, or no schema to check it against).
    out["schema_mismatches"] = nullptr;
    if (sound && schema_error.empty()) {
      out["schema_mismatches"] = nlohmann::ordered_json::array();
      for (const SchemaMismatch& m : mismatches) out["schema_mismatches"].push_back(m.json);
    }
    if (!schema_error.empty()) out["schema_error"] = schema_error;
    std::printf("%s\n", JsonText(out).c_str());
  } else {
    std::printf("store              %s\n", path.c_str());
    std::printf("read               %llu table files (%.1f MB), every block against its checksum; %llu records\n",
                (unsigned long long)c.table_files, c.table_bytes / 1e6, (unsigned long long)c.records);
    std::printf("cross-checked      %llu facts, %llu documents (%llu versions), %llu entities, %llu transactions\n",
                (unsigned long long)c.facts, (unsigned long long)c.documents, (unsigned long long)c.document_versions,
                (unsigned long long)c.entities, (unsigned long long)c.transactions);
    if (sound) {
      std::printf("result             sound: no damage found\n");
      if (!schema_error.empty()) {
        std::printf("schema             not held against it: %s\n", schema_error.c_str());
      } else if (mismatches.empty()) {
        std::printf("schema             every live fact's predicate and value, and every entity's kind, are "
                    "this chipkg's schema's\n");
      } else {
        std::printf("schema             %zu thing%s this chipkg's schema does not describe (%s):\n",
                    mismatches.size(), mismatches.size() == 1 ? "" : "s", kMismatchesMean);
        for (const SchemaMismatch& m : mismatches) std::printf("  - %s\n", m.text.c_str());
      }
    } else {
      std::printf("result             DAMAGED: %llu problem%s\n", (unsigned long long)c.problem_count,
                  c.problem_count == 1 ? "" : "s");
      for (const std::string& p : c.problems) std::printf("  - %s\n", p.c_str());
    }
  }
  if (!sound) {
    PrintError(Status::Corruption("store " + path + " is damaged (" + std::to_string(c.problem_count) +
                                  " problem" + (c.problem_count == 1 ? "" : "s") + " found)"));
    return kExitFailed;
  }
  return kExitOk;
}

// What a chipkg process killed mid-way (a cron job's timeout, a reboot)
// left beside `path`: files and directories named `path` + `marker` + its
// process id, and whatever follows ("x.jsonl.partial-4242",
// "NEW.salvage-4242.store"). Each whose process is gone is removed and named
// on stderr; one of a process still running (another export of the same
// file) is left alone. A nightly export killed night after night left a
// store-sized file each time. (A process of another pid namespace writing
// into the same directory would lose its file and fail cleanly on renaming
// it.)
void RemoveLeftBehind(const std::string& path, const std::string& marker, const std::string& command) {
  fs::path target = fs::path(path).lexically_normal();
  if (!target.has_filename() && target.has_parent_path()) target = target.parent_path();
  const std::string prefix = target.filename().string() + marker;
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  std::vector<std::pair<fs::path, long>> found;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    size_t digits = prefix.size();
    while (digits < name.size() && digits - prefix.size() < 10 && name[digits] >= '0' && name[digits] <= '9') {
      ++digits;
    }
    if (digits == prefix.size() || (digits < name.size() && name[digits] != '.')) continue;
    found.emplace_back(it->path(), std::strtol(name.c_str() + prefix.size(), nullptr, 10));
  }
  for (const auto& [left, pid] : found) {
    if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code removed;
    fs::remove_all(left, removed);
    const char* article = std::strchr("aeiou", command.front()) != nullptr ? "an" : "a";
    if (removed) {
      std::fprintf(stderr, "chipkg %s: cannot remove %s, left by %s %s that did not finish: %s\n", command.c_str(),
                   left.c_str(), article, command.c_str(), removed.message().c_str());
    } else {
      std::fprintf(stderr, "chipkg %s: removed %s, left by %s %s that did not finish (process %ld is gone)\n",
                   command.c_str(), left.c_str(), article, command.c_str(), pid);
    }
  }
}

// Whether `path` (a link followed) is the store's directory or inside it.
bool InsideStore(const std::string& store_path, const std::string& path) {
  std::error_code ec;
  auto canonical = [&ec](const std::string& p) {
    fs::path c = fs::weakly_canonical(p, ec);
    if (!c.has_filename() && c.has_parent_path()) c = c.parent_path();  // "store/" is "store"
    return c;
  };
  const fs::path store_dir = canonical(store_path);
  if (ec) return false;
  const fs::path target = canonical(path);
  if (ec) return false;
  return std::mismatch(store_dir.begin(), store_dir.end(), target.begin(), target.end()).first == store_dir.end();
}

// Writes the export beside `file` and renames it over `file` once it is
// whole and on disk: a failed export (a full disk, a damaged block) leaves
// the file it would have replaced, often the previous backup, as it was.
// A symbolic link is followed: the file it names is the one replaced (the
// link, often "latest.jsonl", stays). What is not a regular file (a FIFO, a
// device such as /dev/stdout) is written into as it is: renaming over it
// would replace the node with a file.
Status ExportToFile(const Store& store, const std::string& file_as_given, LeftOut* left_out = nullptr) {
  std::error_code ec;
  std::string file = file_as_given;
  if (fs::is_symlink(fs::symlink_status(file, ec))) {
    const fs::path target = fs::weakly_canonical(file, ec);
    if (ec) return Status::IOError("cannot follow the link " + file + ": " + ec.message());
    file = target.string();
  }
  const fs::file_status st_file = fs::status(file, ec);
  if (fs::is_directory(st_file)) return Status::InvalidArgument("cannot export to " + file + ": it is a directory");
  if (fs::exists(st_file) && !fs::is_regular_file(st_file)) {
    std::ofstream out(file, std::ios::binary);
    if (!out) return Status::IOError("cannot write " + file + ": " + std::strerror(errno));
    Status st = store.Export(out, left_out);
    out.close();
    if (st.ok() && !out) st = Status::IOError("writing " + file + " failed: " + std::strerror(errno));
    return st.WithContext("exporting to " + file);
  }
  RemoveLeftBehind(file, ".partial-", "export");
  const std::string partial = file + ".partial-" + std::to_string(::getpid());
  std::ofstream out(partial, std::ios::binary);
  if (!out) return Status::IOError("cannot write " + partial + ": " + std::strerror(errno));
  Status st = store.Export(out, left_out);
  out.close();
  if (st.ok() && !out) st = Status::IOError("writing " + partial + " failed: " + std::strerror(errno));
  if (st.ok()) {
    const int fd = ::open(partial.c_str(), O_RDONLY);
    if (fd < 0 || ::fsync(fd) != 0) st = Status::IOError("syncing " + partial + ": " + std::strerror(errno));
    if (fd >= 0) ::close(fd);
  }
  if (st.ok() && std::rename(partial.c_str(), file.c_str()) != 0) {
    st = Status::IOError("cannot rename " + partial + " to " + file + ": " + std::strerror(errno));
  }
  if (!st.ok()) {
    std::remove(partial.c_str());
    return st.WithContext("exporting to " + file + " (left as it was)");
  }
  return Status::OK();
}

int RunExport(const Args& args) {
  if (args.positional.size() > 1) {
    PrintError("unexpected argument '" + args.positional[1] + "': usage: chipkg export [FILE]");
    return kExitUsage;
  }
  if (!args.positional.empty() && args.positional[0].empty()) {
    PrintError("export to an empty path: usage: chipkg export [FILE] (standard output without FILE)");
    return kExitUsage;
  }
  // Renamed over one of the store's own files (its CURRENT, a table file),
  // the export left a store no command could open again, and exited 0.
  if (!args.positional.empty() && args.positional[0] != "-" && InsideStore(StorePath(args), args.positional[0])) {
    PrintError("cannot export to " + args.positional[0] + ": it is inside the store " + StorePath(args) +
               ", whose files it would replace; give a path outside it");
    return kExitUsage;
  }
  auto store = OpenForReading(StorePath(args));
  if (!store.ok()) {
    PrintError(store.status());
    return kExitFailed;
  }
  Status st;
  if (args.positional.empty() || args.positional[0] == "-") {
    st = (*store)->Export(std::cout);
    std::cout.flush();
  } else {
    st = ExportToFile(**store, args.positional[0]);
  }
  if (!st.ok()) {
    PrintError(st);
    return kExitFailed;
  }
  return kExitOk;
}

// A failed import writes nothing, so a store the command created for it holds
// nothing either: it is removed, and a retry (or the REPL's first start)
// finds the path as it was, absent or an empty directory.
class StoreCreatedForImport {
 public:
  explicit StoreCreatedForImport(std::string path) : path_(std::move(path)) {
    std::error_code ec;
    existed_ = std::filesystem::exists(path_, ec);
    was_empty_ = existed_ && std::filesystem::is_directory(path_, ec) && std::filesystem::is_empty(path_, ec);
  }
  void Undo(std::unique_ptr<Store>& store) const {
    if (existed_ && !was_empty_) return;
    store.reset();  // closed before its files go
    std::error_code ec;
    if (!existed_) {
      std::filesystem::remove_all(path_, ec);
      return;
    }
    for (const auto& entry : std::filesystem::directory_iterator(path_, ec)) std::filesystem::remove_all(entry.path(), ec);
  }

 private:
  std::string path_;
  bool existed_ = false, was_empty_ = false;
};

// chipkg salvage NEWDIR: a store whose write-ahead log is damaged before its
// end opens for nothing (engine/store.h, StoreOptions::DamagedLog). What can
// be read is copied into a new store through export and import, first as the
// store was at its last write before the damage (consistent: every write is
// one batch); only if RocksDB refuses that (a column family flushed past the
// damage) with the damaged records skipped, checked, and said so. The
// damaged store is only read: its files stay as they were, for a second try
// or for someone who can do better.
int RunSalvage(const Args& args) {
  if (args.positional.size() != 1 || args.positional[0].empty()) {
    PrintError("usage: chipkg --db DAMAGED salvage NEWDIR (a new store for what can be read)");
    return kExitUsage;
  }
  const std::string path = StorePath(args);
  // "NEWDIR/" (a shell's completion) names NEWDIR: the export beside it
  // would otherwise go inside it.
  fs::path into_path = fs::path(args.positional[0]).lexically_normal();
  if (!into_path.has_filename() && into_path.has_parent_path()) into_path = into_path.parent_path();
  const std::string into = into_path.string();
  RemoveLeftBehind(into, ".salvage-", "salvage");
  std::error_code ec;
  if (fs::exists(into, ec) && !(fs::is_directory(into, ec) && fs::is_empty(into, ec))) {
    PrintError("cannot salvage into " + into + ": it exists and is not an empty directory");
    return kExitUsage;
  }
  // Nothing may be written in the damaged store's directory: it stays as it
  // was, for a second try.
  const fs::path target = fs::weakly_canonical(into, ec);
  if (InsideStore(path, into)) {
    PrintError("cannot salvage " + path + " into " + into + ": it is inside the damaged store, which is left as it was");
    return kExitUsage;
  }
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec) || ::access(parent.c_str(), W_OK) != 0) {
    PrintError("cannot salvage into " + into + ": " + parent.string() + " is not a directory this process can write");
    return kExitUsage;
  }
  // A store that opens may still hold a damaged table block (a flipped
  // byte on disk): its export stopped there, so that one block cost every
  // record after it. Such a store is salvaged as it is, around the damage.
  std::optional<StoreCheck> damaged_tables;
  if (auto as_is = OpenForReading(path); as_is.ok()) {
    auto checked = (*as_is)->Check();
    if (!checked.ok()) {
      PrintError(checked.status());
      return kExitFailed;
    }
    if (!checked->tables_damaged) {
      PrintError("store " + path + " opens as it is and its table files read whole: there is nothing to salvage "
                 "('chipkg check' says whether it is sound; 'chipkg export | chipkg --db NEWDIR import -' copies it)");
      return kExitFailed;
    }
    damaged_tables = std::move(*checked);
  } else if (!as_is.status().IsCorruption()) {
    PrintError(as_is.status());
    return kExitFailed;
  }
  auto open_with = [&](StoreOptions::DamagedLog mode) {
    StoreOptions options;
    options.fill_block_cache = false;
    options.damaged_log = mode;
    return Store::OpenReader(path, options);
  };
  // Where reading up to the damage is refused, a copy beside the new store
  // is read instead (Store::OpenRepairedCopy); it goes whatever happens.
  struct Scratch {
    std::string dir;
    ~Scratch() {
      std::error_code ignored;
      if (!dir.empty()) fs::remove_all(dir, ignored);
    }
  } scratch;
  bool skipped = false;
  auto damaged = open_with(StoreOptions::DamagedLog::kUpToTheDamage);
  // A store busy under a writer (its files changing under every open) is no
  // damage: a copy of its files taken meanwhile could miss writes.
  if (!damaged.ok() && damaged.status().IsBusy()) {
    PrintError(damaged.status());
    return kExitFailed;
  }
  if (!damaged.ok()) {
    const Status up_to_the_damage = damaged.status();
    const std::string scratch_dir = into + ".salvage-" + std::to_string(::getpid()) + ".store";
    if (fs::exists(scratch_dir, ec)) {
      PrintError("cannot salvage into " + into + ": " + scratch_dir + ", where the copy to read goes, exists (left by "
                 "an earlier salvage that was stopped?); remove it and run salvage again");
      return kExitFailed;
    }
    damaged = Store::OpenRepairedCopy(path, scratch_dir);
    if (fs::exists(scratch_dir, ec)) scratch.dir = scratch_dir;
    skipped = true;
    if (!damaged.ok()) {
      // Salvage reads around a damaged log and damaged table blocks; the
      // message blamed the log for a table file gone.
      const std::string table = TableFileProblem(up_to_the_damage.message());
      PrintError("nothing can be salvaged: " + (table.empty() ? "" : table + ", which salvage cannot read around; ") +
                 "the store does not open around its damage (read up to the damage of its log: " +
                 up_to_the_damage.ToString() + "; a copy keeping the log's whole writes: " +
                 damaged.status().ToString() +
                 "); restore its directory from a copy, or its contents from an export made before the damage "
                 "(chipkg import FILE into a new store), or ingest its sources again into a new store");
      return kExitFailed;
    }
  }
  Store& from = **damaged;
  // What the damage costs: the transactions that skipping the damage reads
  // beyond those read up to it.
  std::vector<Transaction> lost;
  if (!skipped) {
    if (auto beyond = open_with(StoreOptions::DamagedLog::kSkipTheDamage); beyond.ok()) {
      if (auto txs = (*beyond)->ListTransactions(); txs.ok()) {
        for (auto& t : *txs) {
          if (t.id > from.LastTx()) lost.push_back(std::move(t));
        }
      }
    }
  }
  auto checked = from.Check();
  if (!checked.ok()) {
    PrintError(checked.status());
    return kExitFailed;
  }
  if (damaged_tables) {
    std::printf("the store opens, but table blocks of it are damaged: what reads is copied around them; lost: the "
                "records in the damaged blocks (below)\n");
  } else if (skipped) {
    // The transactions missing from what was read: those in the damaged records.
    std::string missing;
    size_t missing_count = 0;
    if (auto txs = from.ListTransactions(); txs.ok()) {
      TxId expected = 1;
      for (const Transaction& t : *txs) {
        for (; expected < t.id; ++expected) {
          if (++missing_count <= 10) missing += (missing.empty() ? "" : ", ") + std::to_string(expected);
        }
        expected = t.id + 1;
      }
    }
    if (missing_count > 10) missing += ", ... (" + std::to_string(missing_count) + " in all)";
    std::printf("read from a copy whose log keeps only the writes that read whole (RocksDB would not read the log "
                "up to the damage, as a table file holds writes made after it); lost: the writes in the damaged "
                "records%s, and what later writes built on them (below)\n",
                missing.empty() ? "" : (" (tx " + missing + ")").c_str());
  } else {
    std::printf("read as the store was at tx %llu, its last write before the damage\n",
                (unsigned long long)from.LastTx());
    if (!lost.empty()) {
      const TxId first_lost = from.LastTx() + 1;
      std::printf("lost: tx %llu to %llu, every write from the damage on:\n", (unsigned long long)first_lost,
                  (unsigned long long)lost.back().id);
      if (lost.front().id > first_lost) {
        const TxId last_unread = lost.front().id - 1;
        std::printf("  tx %s in the damaged log records: not readable\n",
                    (first_lost == last_unread ? std::to_string(first_lost)
                                               : std::to_string(first_lost) + " to " + std::to_string(last_unread))
                        .c_str());
      }
      for (size_t i = 0; i < lost.size() && i < 10; ++i) {
        std::printf("  tx %llu %s %s\n", (unsigned long long)lost[i].id,
                    query::IsoTime(lost[i].time_micros / 1'000'000).c_str(), lost[i].description.c_str());
      }
      if (lost.size() > 10) std::printf("  ... and %zu more\n", lost.size() - 10);
    } else {
      std::printf("lost: every write after tx %llu; how many there were cannot be told (the log cannot be read past "
                  "the damage even skipping the damaged records)\n",
                  (unsigned long long)from.LastTx());
    }
  }
  if (checked->problem_count > 0 && skipped && !damaged_tables) {
    // Each is a record kept that names a lost one: the records left out
    // below say the same of the copy.
    std::printf("what was read has %llu problem%s (chipkg check), from writes that built on lost ones\n",
                (unsigned long long)checked->problem_count, checked->problem_count == 1 ? "" : "s");
  } else if (checked->problem_count > 0) {
    std::printf("what was read has %llu problem%s (chipkg check):\n", (unsigned long long)checked->problem_count,
                checked->problem_count == 1 ? "" : "s");
    for (const std::string& p : checked->problems) std::printf("  - %s\n", p.c_str());
  }
  // The export goes through a file beside the new store: a pipe between two
  // threads would have to survive either side failing first.
  const std::string exported = fs::path(into).lexically_normal().string() + ".salvage-" + std::to_string(::getpid());
  LeftOut left_out;
  const bool around_damage = skipped || damaged_tables;
  Status st = ExportToFile(from, exported, around_damage ? &left_out : nullptr);
  damaged->reset();
  if (!st.ok()) {
    std::remove(exported.c_str());
    PrintError(st.WithContext("salvaging " + path));
    return kExitFailed;
  }
  const StoreCreatedForImport created(into);
  auto store = Store::Open(into);
  if (!store.ok()) {
    std::remove(exported.c_str());
    PrintError(store.status());
    return kExitFailed;
  }
  std::ifstream in(exported, std::ios::binary);
  auto stats = (*store)->Import(in, around_damage ? &left_out : nullptr);
  std::remove(exported.c_str());
  if (!stats.ok()) {
    created.Undo(*store);
    PrintError(stats.status().WithContext("importing what was read from " + path + " into " + into +
                                          " (nothing written there)"));
    return kExitFailed;
  }
  if (left_out.count > 0) {
    std::printf("left out, as they cannot be read or name what was lost (%llu):\n",
                (unsigned long long)left_out.count);
    for (const std::string& what : left_out.first) std::printf("  - %s\n", what.c_str());
    if (left_out.count > left_out.first.size()) {
      std::printf("  ... and %llu more\n", (unsigned long long)(left_out.count - left_out.first.size()));
    }
  }
  auto copy_checked = (*store)->Check();
  if (!copy_checked.ok()) {
    PrintError(copy_checked.status());
    return kExitFailed;
  }
  std::printf("salvaged into %s: %llu facts, %llu documents, %llu entities; chipkg check: %s\n", into.c_str(),
              (unsigned long long)stats->facts, (unsigned long long)stats->documents,
              (unsigned long long)stats->entities,
              copy_checked->problem_count == 0 ? "sound" : "DAMAGED");
  for (const std::string& p : copy_checked->problems) std::printf("  - %s\n", p.c_str());
  std::printf("%s is left as it was; once the new store is what you need, move it into its place\n", path.c_str());
  return copy_checked->problem_count == 0 ? kExitOk : kExitFailed;
}

// chipkg import --corpus DIR: the peer-benchmark corpus (tools/bench/gen.py's
// facts.jsonl and sources.jsonl) as it is, through the bulk path.
int RunImportCorpus(const Args& args, const std::string& dir) {
  if (!args.positional.empty()) {
    PrintError("usage: chipkg import --corpus DIR (a directory with facts.jsonl and sources.jsonl)");
    return kExitUsage;
  }
  // Checked before the store is opened (and created): a mistyped corpus
  // directory should leave nothing behind.
  for (const char* name : {"sources.jsonl", "facts.jsonl"}) {
    const std::string file = (std::filesystem::path(dir) / name).string();
    if (std::ifstream probe(file); !probe) {
      PrintError("cannot read " + file + ": " + std::strerror(errno) +
                 " (chipkg import --corpus DIR takes the directory tools/bench/gen.py wrote)");
      return kExitFailed;
    }
  }
  auto schema = LoadSchema();
  if (!schema.ok()) {
    PrintError(schema.status());
    return kExitFailed;
  }
  const StoreCreatedForImport created(StorePath(args));
  auto store = Store::Open(StorePath(args));
  if (!store.ok()) {
    PrintError(store.status());
    return kExitFailed;
  }
  if ((*store)->LastTx() != 0) {
    // A second load would assert every fact again, from documents that already exist.
    PrintError("store " + StorePath(args) + " is not empty; import the corpus into a new store (--db DIR)");
    return kExitFailed;
  }
  auto stats = ImportGeneratedCorpus(**store, *schema, dir);
  if (!stats.ok()) {
    created.Undo(*store);
    PrintError(stats.status());
    return kExitFailed;
  }
  std::fprintf(stderr, "imported %llu facts (%llu not published), %llu documents, %llu entities in %.2f s (%.0f facts/s)\n",
               (unsigned long long)stats->facts, (unsigned long long)stats->not_published,
               (unsigned long long)stats->documents, (unsigned long long)stats->entities, stats->seconds,
               stats->seconds > 0 ? static_cast<double>(stats->facts) / stats->seconds : 0.0);
  if (const char* t = std::getenv("CHIPKG_TIMINGS"); t != nullptr && *t != '\0' && std::string(t) != "0") {
    std::fprintf(stderr, "chipkg timings: first pass %.2f s, facts %.2f s, finish %.2f s\n", stats->first_pass_seconds,
                 stats->seconds - stats->first_pass_seconds - stats->finish_seconds, stats->finish_seconds);
  }
  return kExitOk;
}

int RunImport(const Args& args) {
  if (auto corpus = args.Get("corpus")) return RunImportCorpus(args, *corpus);
  if (args.positional.size() != 1) {
    PrintError("usage: chipkg import FILE.jsonl|- (into an empty store), or chipkg import --corpus DIR");
    return kExitUsage;
  }
  const std::string& file = args.positional[0];
  // A directory opens as a stream and fails at its first read: say what it
  // is before a store is created for nothing.
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    const bool corpus = std::filesystem::exists(std::filesystem::path(file) / "facts.jsonl", ec);
    PrintError(file + " is a directory; chipkg import FILE takes a file written by chipkg export" +
               (corpus ? " (for the peer-benchmark corpus in it: chipkg import --corpus " + file + ")" : ""));
    return kExitUsage;
  }
  // "-": standard input, so that `chipkg export | chipkg --db NEW import -`
  // copies a store. Read as a file (std::cin, kept in step with stdio, reads
  // ~30x slower).
  const bool from_stdin = file == "-";
  std::ifstream in(from_stdin ? "/dev/stdin" : file, std::ios::binary);
  if (!in) {
    PrintError("cannot read " + (from_stdin ? std::string("standard input") : file) + ": " + std::strerror(errno));
    return kExitFailed;
  }
  const StoreCreatedForImport created(StorePath(args));
  auto store = Store::Open(StorePath(args));
  if (!store.ok()) {
    PrintError(store.status());
    return kExitFailed;
  }
  auto stats = (*store)->Import(in);
  if (!stats.ok()) {
    created.Undo(*store);
    // Undecodable bytes here are the file's (a text that no longer matches
    // its hash), not the store's: no advice to restore the store.
    PrintError(stats.status().WithContext(from_stdin ? "standard input" : file).message());
    return kExitFailed;
  }
  std::fprintf(stderr, "imported %llu facts, %llu documents, %llu entities\n",
               (unsigned long long)stats->facts, (unsigned long long)stats->documents,
               (unsigned long long)stats->entities);
  // Kept as the export has it (a copy is a copy), but said: an export of a
  // chipkg with another schema holds facts this one's queries never find.
  auto schema = LoadSchema();
  auto mismatches = schema.ok() ? SchemaMismatches(**store, *schema) : Result<std::vector<SchemaMismatch>>(schema.status());
  if (!mismatches.ok()) {
    std::fprintf(stderr, "warning: the imported store was not held against the schema: %s\n",
                 ErrorText(mismatches.status()).c_str());
  } else if (!mismatches->empty()) {
    std::fprintf(stderr, "warning: the store holds what this chipkg's schema does not describe (%s; chipkg check "
                 "lists it):\n", kMismatchesMean);
    constexpr size_t kShown = 10;
    for (size_t i = 0; i < mismatches->size() && i < kShown; ++i) {
      std::fprintf(stderr, "  - %s\n", (*mismatches)[i].text.c_str());
    }
    if (mismatches->size() > kShown) std::fprintf(stderr, "  ... and %zu more\n", mismatches->size() - kShown);
  }
  return kExitOk;
}

const RegisterCommand kStats({"stats", "stats [--format json]", "counts of facts, entities, documents; size on disk",
                              RunStats, {"format"}});
const RegisterCommand kCheck({"check", "check [--format json]",
                              "read the whole store and cross-check it: exit 0 sound, 1 damaged (for monitors)",
                              RunCheck, {"format"}});
const RegisterCommand kSalvage({"salvage", "salvage NEWDIR",
                                "copy what a store whose write-ahead log or table blocks are damaged still holds into a new store",
                                RunSalvage});
const RegisterCommand kExport({"export", "export [FILE]", "the whole store as JSON Lines (stdout by default)",
                               RunExport});
const RegisterCommand kImport({"import", "import FILE|- | import --corpus DIR",
                               "load a JSON Lines export, or the peer-benchmark corpus, into an empty store",
                               RunImport, {"corpus"}});

}  // namespace
}  // namespace chipkg::cli
