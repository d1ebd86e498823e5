// Shared pieces of the chipkg command: parsed arguments, store opening, and
// the command table. Each command is a function returning the process exit
// status: 0 success, 1 the operation failed (some sources failed, a query
// error), 2 bad usage or configuration.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/store.h"
#include "schema/schema.h"

namespace chipkg::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

struct Args {
  std::string command;
  std::vector<std::string> positional;
  // --name value or --name=value; a flag without a value maps to "".
  std::vector<std::pair<std::string, std::string>> options;

  bool Has(const std::string& name) const;
  std::optional<std::string> Get(const std::string& name) const;
  std::vector<std::string> GetAll(const std::string& name) const;
};

// Splits argv into the command, its positional arguments and its options.
// `value_options` lists the options that take a value. Unknown options are
// reported against `known` (name -> takes value) with the nearest name.
// An option that takes a value may be given twice with two values only if it
// is `repeatable` (--manifest): otherwise which one counts would be a guess
// (`--id a --id b` stored the document as b).
Result<Args> ParseArgs(int argc, char** argv, const std::vector<std::pair<std::string, bool>>& known,
                       const std::vector<std::string>& repeatable = {});

// The store path: --db, else $CHIPKG_DB, else ~/.chipkg/store.
std::string StorePath(const Args& args);

// Loads the schema from $CHIPKG_SCHEMA_DIR or the source tree's schema/.
Result<Schema> LoadSchema();

// Opens the store for reading while another process may write
// (Store::OpenReader), caught up.
Result<std::unique_ptr<Store>> OpenForReading(const std::string& path, const StoreOptions& options = {});
// Ends a process that has only read: flushes stdout and stderr and exits
// without closing stores or running
// destructors. A reader has nothing to save, and closing RocksDB and tearing
// down its static state was ~2 ms of a 25 ms one-shot `chipkg query`.
[[noreturn]] void ExitAfterReading(int code);

// Prints "chipkg: <message>" on stderr.
void PrintError(const std::string& message);
void PrintError(const Status& status);  // as ErrorText says it
// A failure's message, and for a damaged store (Corruption: a record or a
// table block that fails its check) what to do about it, once.
std::string ErrorText(const Status& status);
// A store's table file missing or cut short, said in chipkg's words ("table
// file 000023.sst is missing"), from RocksDB's ("While open a file for random
// read: .../000023.ldb: No such file", the name it tries after the .sst);
// empty for any other failure.
std::string TableFileProblem(const std::string& error);

using CommandFn = std::function<int(const Args&)>;
struct Command {
  std::string name;
  std::string usage;    // "ingest [--manifest FILE] PATH|URL..."
  std::string summary;  // one line
  CommandFn run;
  // The options it takes, beyond --db, --help and --version (which every
  // command takes): any other is refused, not ignored, since the user would
  // take the answer for one given with it (`export --as-at 'tx 5'` wrote
  // the whole store as it is now, exit 0).
  std::vector<std::string> options = {};
};

// Empty when every option in `args` is one `command` takes; otherwise what
// is wrong, naming the commands that take the option.
std::string OptionsNotTaken(const Command& command, const Args& args);

// Commands registered by the command files (ingest, query, repl, ...).
std::vector<Command>& Registry();
struct RegisterCommand {
  explicit RegisterCommand(Command command) { Registry().push_back(std::move(command)); }
};

}  // namespace chipkg::cli
