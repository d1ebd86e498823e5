// The fact-checker's one-shot commands: the same statements the REPL runs
// (tools/chipkg/repl.h), with --format, --tolerance and --as-at from the command line.
// Exit status 0 on success, 1 when the statement failed, 2 on bad usage.
#include "tools/chipkg/repl.h"

namespace chipkg::cli {
namespace {

Command Statement(const std::string& word, const std::string& usage, const std::string& summary) {
  return {word, usage, summary, [word](const Args& args) { return RunOneShot(args, word); }};
}

const RegisterCommand kDescribe(Statement("describe", "describe ENTITY [--tolerance P%] [--as-at WHEN]",
                                          "every attribute with values, citations and conflicts"));
const RegisterCommand kTrace(Statement("trace", "trace ENTITY.ATTR[{KEY=VALUE,...}] [--tolerance P%] [--as-at WHEN]",
                                       "every claim behind a figure, back to the document text"));
const RegisterCommand kVerify(Statement("verify", "verify [DOCUMENT] [--tolerance P%] [--mismatches] [--as-at WHEN]",
                                        "recompute the figures documents derive themselves (--mismatches: "
                                        "list only those not confirmed)"));
const RegisterCommand kConflicts(Statement("conflicts", "conflicts [ENTITY] [--tolerance P%] [--as-at WHEN]",
                                           "where sources disagree, and by how much"));
const RegisterCommand kSources(Statement("sources", "sources [--as-at WHEN]",
                                         "the documents, their versions and fact counts"));
const RegisterCommand kSource(Statement("source", "source DOCUMENT [--as-at WHEN]", "one document and every fact it gave"));
const RegisterCommand kAttributes(Statement("attributes", "attributes [KIND]",
                                            "what a query can ask about a kind: attributes, units, rules"));
const RegisterCommand kHistory(Statement("history", "history ENTITY.ATTR",
                                         "claims asserted and retracted over time"));
const RegisterCommand kMatches(Statement("matches", "matches [confirm|reject KIND NAME]",
                                         "automatic entity matches for review"));

}  // namespace
}  // namespace chipkg::cli
