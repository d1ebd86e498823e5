// The fact-checker's one-shot commands: the same statements the REPL runs
// (tools/chipkg/repl.h), with --format, --tolerance and --as-at from the command line.
// Exit status 0 on success, 1 when the statement failed, 2 on bad usage.
#include "tools/chipkg/repl.h"

namespace chipkg::cli {
namespace {

Command Statement(const std::string& word, const std::string& usage, const std::string& summary,
                  std::vector<std::string> options) {
  return {word, usage, summary, [word](const Args& args) { return RunOneShot(args, word); }, std::move(options)};
}

const RegisterCommand kDescribe(Statement("describe", "describe ENTITY [--tolerance P%] [--as-at WHEN]",
                                          "every attribute with values, citations and conflicts", {"format", "tolerance", "as-at"}));
const RegisterCommand kTrace(Statement("trace", "trace ENTITY.ATTR[{KEY=VALUE,...}] [--tolerance P%] [--as-at WHEN]",
                                       "every claim behind a figure, back to the document text", {"format", "tolerance", "as-at"}));
const RegisterCommand kVerify(Statement("verify", "verify [DOCUMENT] [--tolerance P%] [--mismatches] [--as-at WHEN]",
                                        "recompute the figures documents derive themselves (--mismatches: "
                                        "list only those not confirmed)",
                                        {"format", "tolerance", "mismatches", "as-at"}));
const RegisterCommand kConflicts(Statement("conflicts", "conflicts [ENTITY] [--tolerance P%] [--as-at WHEN]",
                                           "where sources disagree, and by how much", {"format", "tolerance", "as-at"}));
const RegisterCommand kSources(Statement("sources", "sources [DOCUMENT] [--as-at WHEN]",
                                         "the documents, their versions and fact counts (one DOCUMENT: as source)",
                                         {"format", "as-at"}));
const RegisterCommand kSource(Statement("source", "source DOCUMENT [--as-at WHEN]", "one document and every fact it gave",
                                        {"format", "as-at"}));
const RegisterCommand kAttributes(Statement("attributes", "attributes [KIND]",
                                            "what a query can ask about a kind: attributes, units, rules", {"format"}));
const RegisterCommand kHistory(Statement("history", "history ENTITY.ATTR",
                                         "claims asserted and retracted over time", {"format"}));
const RegisterCommand kMatches(Statement("matches", "matches [confirm|reject KIND NAME]",
                                         "automatic entity matches for review", {"format"}));

}  // namespace
}  // namespace chipkg::cli
