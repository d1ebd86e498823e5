// chipkg: the command-line entry point. With no command it opens the REPL;
// otherwise it runs one command and exits (0 ok, 1 failed, 2 bad usage).
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>

#include "tools/chipkg/cli.h"
#include "tools/heap_policy.h"
#include "tools/startup.h"

namespace {

using chipkg::cli::Args;

// Every option any command takes, and whether it takes a value. One table so
// that a misspelt option is caught with a suggestion whatever the command.
const std::vector<std::pair<std::string, bool>> kKnownOptions = {
    {"db", true},       {"format", true},   {"manifest", true}, {"site", true},   {"kind", true},
    {"title", true},    {"id", true},       {"dataset", true},  {"tolerance", true}, {"help", false},
    {"version", false}, {"quiet", false},   {"corpus", true},
    {"no-ingest", false}, {"timeout", true}, {"retries", true},
    {"parallel", true}, {"accept-shrinking", false}, {"reextract", false}, {"mismatches", false},
    {"max-facts", true}, {"as-at", true}, {"all-warnings", false},
};

void PrintUsage(std::FILE* out) {
  std::fprintf(out,
               "chipkg: a source-tracked knowledge graph about AI hardware\n\n"
               "usage: chipkg [--db PATH] [COMMAND [ARGS...]]\n"
               "  (no command)  open the REPL on the store (filled from the bundled datasets if empty)\n");
  for (const auto& c : chipkg::cli::Registry()) {
    std::fprintf(out, "  %-44s %s\n", c.usage.c_str(), c.summary.c_str());
  }
  std::fprintf(out,
               "\noptions: --db PATH (default $CHIPKG_DB or ~/.chipkg/store), --format text|json|csv\n");
}

// What a command printed must have reached standard output: on a full disk
// the writes fail, and a report (`stats`, `help`) that was never written must
// not pass for one that was.
int AfterWriting(int code) {
  std::cout.flush();
  if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout) {
    chipkg::cli::PrintError("could not write to standard output");
    if (code == 0) code = chipkg::cli::kExitFailed;
  }
  return code;
}

}  // namespace

// Before the program's static constructors run: they are the first code of
// many that a one-shot command runs once (tools/startup.h), and the first
// block of memory the allocator takes from the kernel is the one such a
// command mostly uses, which should come on huge pages (tools/heap_policy.h;
// set in main, one-shot Q1 took 940 page faults instead of 290).
__attribute__((constructor(101))) void PrepareTheProcessBeforeAnyConstructor() {
  chipkg::tools::MapProgramCodeUpFront();  // an optimisation: false changes nothing else
  chipkg::tools::ApplyHeapPolicy();
}

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f, systemd's LimitFSIZE) a write fails
  // with EFBIG, which the store reports with its path as any failed write;
  // the signal's default killed the process without a word instead.
  std::signal(SIGXFSZ, SIG_IGN);
  auto parsed = chipkg::cli::ParseArgs(argc, argv, kKnownOptions, {"manifest"});
  if (!parsed.ok()) {
    chipkg::cli::PrintError(parsed.status());
    std::fprintf(stderr, "run 'chipkg help' for usage\n");
    return chipkg::cli::kExitUsage;
  }
  const Args& args = *parsed;
  if (args.Has("version")) {
    std::printf("chipkg 0.1\n");
    return AfterWriting(0);
  }
  std::string command = args.command.empty() ? "repl" : args.command;
  if (command == "help" || args.Has("help")) {
    PrintUsage(stdout);
    return AfterWriting(0);
  }
  for (const auto& c : chipkg::cli::Registry()) {
    if (c.name != command) continue;
    if (const std::string wrong = chipkg::cli::OptionsNotTaken(c, args); !wrong.empty()) {
      chipkg::cli::PrintError(wrong);
      return chipkg::cli::kExitUsage;
    }
    return AfterWriting(c.run(args));
  }
  // "chipkg --db query '...'": --db took the command for the store's path.
  if (const std::optional<std::string> db = args.Get("db")) {
    for (const auto& c : chipkg::cli::Registry()) {
      if (c.name != *db) continue;
      chipkg::cli::PrintError("unknown command '" + command + "': --db took '" + *db +
                              "' as the store's path; write the path after --db (chipkg --db PATH " + *db + " ...)");
      return chipkg::cli::kExitUsage;
    }
  }
  chipkg::cli::PrintError("unknown command '" + command + "'");
  PrintUsage(stderr);
  return chipkg::cli::kExitUsage;
}
