// Statements: what the REPL reads and what `chipkg describe X`, `chipkg
// query '...'` and the other one-shot commands run. One code path for both,
// so a statement behaves the same typed at the prompt or given on the
// command line.
//
//   describe ENTITY            trace ENTITY.ATTR          verify [DOCUMENT]
//   conflicts [ENTITY] [--tolerance P%]                   sources
//   source DOCUMENT            history ENTITY.ATTR        matches [confirm|reject KIND NAME]
//   query TEXT (or any statement that starts with no command word: a query)
//   format text|json|csv       tolerance P%               refresh        help
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "engine/store.h"
#include "query/factcheck.h"
#include "query/result.h"
#include "schema/schema.h"
#include "tools/chipkg/cli.h"

namespace chipkg::cli {

// What a session keeps between statements.
struct Session {
  std::string store_path;
  std::unique_ptr<Store> store;  // open for reading (Store::OpenReader)
  const Schema* schema = nullptr;
  factcheck::Format format = factcheck::Format::kText;
  double tolerance = 0.01;      // conflicts: relative difference that counts as a disagreement
  double verify_tolerance = 0;  // verify: slack beyond the digits shown
  std::vector<query::Phase> last_phases;  // of the last query answered (CHIPKG_TIMINGS)
  // Where a query's answer is written as it is rendered, when nothing else is
  // in the statement's output yet: one-shot commands stream a large answer to
  // stdout instead of holding its whole text. Null: into the output string.
  std::ostream* answer_stream = nullptr;
  // The input line on which the statement being run begins (scripts read
  // from stdin), so that query errors name the script's line; 1 otherwise.
  int statement_line = 1;
};

// Runs one statement. The answer goes to `out`, messages to `err`; returns
// an exit status (kExitOk, kExitFailed for a failed statement, kExitUsage for
// a malformed command). Never throws.
int RunStatement(Session& session, const std::string& statement, std::string& out, std::string& err);

struct StatementDoc {
  std::string word;     // "describe"
  std::string usage;    // "describe ENTITY"
  std::string summary;  // one line
  std::vector<std::string> examples;
};
// Every statement word, in help order.
const std::vector<StatementDoc>& StatementDocs();

// Curly double quotes outside straight ones made straight, as names pasted
// from documents come: describe “AWS Trainium 2” is describe "AWS Trainium 2".
std::string StraightenQuotes(const std::string& text);

// "2%" -> 0.02, "0.5%" -> 0.005, "0.02" -> 0.02. InvalidArgument otherwise
// (negative, not a number, over 1000%, a bare number of 1 or more: "10").
Result<double> ParseTolerance(const std::string& text);

// Applies --format and --tolerance from the command line to a session.
Status ApplyOptions(const Args& args, Session& session);

// Runs `word` with the command line's positional arguments as one statement,
// printing the answer on stdout and errors on stderr: `chipkg describe X`.
int RunOneShot(const Args& args, const std::string& word);

}  // namespace chipkg::cli
