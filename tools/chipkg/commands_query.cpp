// chipkg query 'TEXT': one query of the chipkg query language (query/README.md),
// answered with citations. Exit status 0 on success, 1 on a malformed query or
// a failed read, 2 on bad usage.
#include "tools/chipkg/repl.h"

namespace chipkg::cli {
namespace {

int RunQueryCommand(const Args& args) {
  if (args.positional.empty()) {
    PrintError("usage: chipkg query 'find chip where memory >= 64 GB'");
    return kExitUsage;
  }
  return RunOneShot(args, "query");
}

const RegisterCommand kQuery({"query", "query 'TEXT'",
                              "answer a query, with citations (--format text|json|csv)", RunQueryCommand,
                              {"format"}});

}  // namespace
}  // namespace chipkg::cli
