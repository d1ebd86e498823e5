#include "tools/chipkg/cli.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "ingest/pipeline.h"
#include "query/suggest.h"

namespace chipkg::cli {

bool Args::Has(const std::string& name) const {
  return std::any_of(options.begin(), options.end(), [&](const auto& o) { return o.first == name; });
}

std::optional<std::string> Args::Get(const std::string& name) const {
  for (auto it = options.rbegin(); it != options.rend(); ++it) {
    if (it->first == name) return it->second;
  }
  return std::nullopt;
}

std::vector<std::string> Args::GetAll(const std::string& name) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : options) {
    if (k == name) out.push_back(v);
  }
  return out;
}

Result<Args> ParseArgs(int argc, char** argv, const std::vector<std::pair<std::string, bool>>& known,
                       const std::vector<std::string>& repeatable) {
  Args args;
  bool only_positional = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (only_positional || a.size() < 2 || a.rfind("--", 0) != 0) {
      if (a == "-" || only_positional || a.empty() || a[0] != '-') {
        // An empty argument is nearly always an unset variable in a script
        // ("chipkg conflicts \"$CHIP\""), which read as no argument widened the
        // command to the whole store.
        if (a.find_first_not_of(" \t") == std::string::npos) {
          // Named by what comes before it: nobody counts a command line's words.
          return Status::InvalidArgument("argument " + std::to_string(i) +
                                         (i > 1 ? " (the one after '" + std::string(argv[i - 1]) + "')" : "") +
                                         " is empty (an unset shell variable?)");
        }
        if (args.command.empty() && args.positional.empty() && !only_positional) {
          args.command = a;
        } else {
          args.positional.push_back(a);
        }
        continue;
      }
      return Status::InvalidArgument("unknown option '" + a + "' (options are spelled --name)");
    }
    if (a == "--") {
      only_positional = true;
      continue;
    }
    std::string name = a.substr(2), value;
    bool has_inline_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_inline_value = true;
    }
    auto it = std::find_if(known.begin(), known.end(), [&](const auto& k) { return k.first == name; });
    if (it == known.end()) {
      std::string best;
      size_t best_d = 3;
      for (const auto& k : known) {
        size_t d = query::EditDistance(name, k.first);
        if (d < best_d) best_d = d, best = k.first;
      }
      return Status::InvalidArgument("unknown option '--" + name + "'" +
                                     (best.empty() ? "" : " (did you mean '--" + best + "'?)"));
    }
    if (it->second && !has_inline_value) {
      if (i + 1 >= argc) return Status::InvalidArgument("option '--" + name + "' needs a value");
      value = argv[++i];
      // A point in time is written as a query writes it, `--as-at tx 12` or
      // `--as-at run nightly`: two words, the second no positional argument.
      if (name == "as-at" && (value == "tx" || value == "run") && i + 1 < argc) value += std::string(" ") + argv[++i];
    } else if (!it->second && has_inline_value) {
      return Status::InvalidArgument("option '--" + name + "' takes no value");
    }
    if (it->second && std::find(repeatable.begin(), repeatable.end(), name) == repeatable.end()) {
      if (auto before = args.Get(name); before && *before != value) {
        return Status::InvalidArgument("option '--" + name + "' given twice ('" + *before + "', then '" + value +
                                       "'): give it once");
      }
    }
    args.options.emplace_back(name, value);
  }
  return args;
}

std::string StorePath(const Args& args) {
  if (auto db = args.Get("db")) return *db;
  if (const char* env = std::getenv("CHIPKG_DB"); env && *env) return env;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.chipkg/store";
}

Result<Schema> LoadSchema() { return Schema::LoadDirectory(Schema::DefaultDirectory()); }

void ExitAfterReading(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

Result<std::unique_ptr<Store>> OpenForReading(const std::string& path, const StoreOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) return Status::InvalidArgument("the store path is empty (--db PATH or $CHIPKG_DB)");
  // A directory this user may not read or list was told it held no store,
  // or a damaged one, and sent to restore a store that is whole.
  const bool current = fs::exists(fs::path(path) / "CURRENT", ec);
  if (ec || (current && ::access(path.c_str(), R_OK | X_OK) != 0)) {
    const int err = ec ? ec.value() : errno;
    return Status::IOError("cannot read the store directory " + path + ": " + std::strerror(err) +
                           (err == EACCES ? " (a store is read by a user who may read and list its directory)" : ""));
  }
  if (!current) {
    // Say which of three things it is: each needs something else done.
    if (fs::exists(path, ec) && !fs::is_directory(path, ec)) {
      return Status::InvalidArgument(path + " is a file, not a store directory (--db names a directory)");
    }
    CHIPKG_RETURN_IF_ERROR(CurrentFileLost(path));
    if (fs::is_directory(path, ec) && !fs::is_empty(path, ec)) {
      return Status::InvalidArgument(path + " is not a chipkg store: a directory with files but no RocksDB CURRENT "
                                     "file (a damaged store, or another directory; restore a store from an export "
                                     "with 'chipkg --db NEWDIR import FILE')");
    }
    // A new user's first command is often not the REPL: say how to fill
    // the store, with the bundled datasets named.
    return Status::NotFound("no chipkg store at " + path + " (the REPL, 'chipkg --db " + path +
                            "', fills it from the bundled datasets on its first start; or 'chipkg --db " + path +
                            " ingest --manifest " + DefaultManifestPath() + "')");
  }
  // Opening reads what the writer has committed (manifest and logs): no
  // CatchUp is needed until the reader has been open a while (the REPL).
  return Store::OpenReader(path, options);
}

void PrintError(const std::string& message) { std::fprintf(stderr, "chipkg: %s\n", message.c_str()); }
void PrintError(const Status& status) { PrintError(ErrorText(status)); }

std::string TableFileProblem(const std::string& error) {
  // The file's name: the path's last component in the words after `marker`.
  auto file_after = [&error](std::string_view marker) -> std::string {
    const size_t at = error.find(marker);
    if (at == std::string::npos) return "";
    size_t begin = at + marker.size();
    size_t end = begin;
    while (end < error.size() && error[end] != ':' && error[end] != ' ' && error[end] != ';' && error[end] != ')') ++end;
    std::string path = error.substr(begin, end - begin);
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  };
  if (error.find("No such file or directory") != std::string::npos) {
    std::string file = file_after("While open a file for random read: ");
    if (file.size() > 4 && file.compare(file.size() - 4, 4, ".ldb") == 0) file.replace(file.size() - 4, 4, ".sst");
    if (!file.empty()) return "table file " + file + " is missing";
  }
  if (error.find("to be an sstable") != std::string::npos) {
    const std::string file = file_after("to be an sstable");
    return file.empty() ? "a table file is cut short" : "table file " + file + " is cut short";
  }
  return "";
}

std::string ErrorText(const Status& status) {
  constexpr std::string_view kDamaged = "the store is damaged";
  if (const std::string table = TableFileProblem(status.message()); !table.empty() && status.IsCorruption()) {
    return table + " (" + status.message() + ")";
  }
  if (!status.IsCorruption() || status.message().find(kDamaged) != std::string::npos) return status.message();
  // An export reads every record and stops at the first damaged one, so it
  // is a way out only when made before the damage; salvage reads around it.
  // Which record a read failed on says little of where the damage is (a
  // damaged block was blamed on the document an ingest was storing): check
  // reads every file and names each damaged one.
  return status.message() + "; " + std::string(kDamaged) +
         ": restore it from a copy or an export made before the damage, copy what still reads into a new store "
         "('chipkg salvage NEWDIR'), or ingest its sources again into a new store ('chipkg check' reads every "
         "file and names what is damaged)";
}

std::vector<Command>& Registry() {
  static std::vector<Command> commands;
  return commands;
}

std::string OptionsNotTaken(const Command& command, const Args& args) {
  for (const auto& [name, value] : args.options) {
    if (name == "db" || name == "help" || name == "version") continue;
    if (std::find(command.options.begin(), command.options.end(), name) != command.options.end()) continue;
    std::vector<std::string> takers;
    for (const Command& c : Registry()) {
      if (std::find(c.options.begin(), c.options.end(), name) != c.options.end()) takers.push_back(c.name);
    }
    std::sort(takers.begin(), takers.end());
    std::string message = "--" + name + " is not an option of " + command.name;
    if (!takers.empty()) {
      message += ": it is an option of ";
      for (size_t i = 0; i < takers.size(); ++i) {
        message += (i == 0 ? "" : i + 1 == takers.size() ? " and " : ", ") + takers[i];
      }
    }
    if (command.name == "query" && name == "as-at") message += "; a query says it itself: ... as at run RUN-ID";
    if (command.name == "query" && name == "tolerance") message += "; a query says it itself: conflicts ... tolerance 5%";
    if (command.options.empty()) {
      message += " (" + command.name + " takes none but --db)";
    } else {
      message += " (" + command.name + " takes";
      for (size_t i = 0; i < command.options.size(); ++i) message += (i == 0 ? " --" : ", --") + command.options[i];
      message += ")";
    }
    return message;
  }
  return "";
}

}  // namespace chipkg::cli
