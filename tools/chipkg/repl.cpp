// The REPL: `chipkg` with no command, or `chipkg repl`.
//
// On a terminal it edits lines with libedit (history in ~/.chipkg/history,
// TAB completion of statement words, attribute names and entity names);
// otherwise it reads statements line by line (scripts) and exits non-zero if
// any statement failed. A statement continues on the next line when a line
// ends in '\', in a word it cannot end with (where, and, or, not, show, by,
// using, prefer) or a comma, or leaves a parenthesis or quote open, and in a
// script also when the next line opens with a clause (StartsAsContinuation);
// '#' starts a comment. An
// error is printed and the session carries on.
//
// It reads the store as a reader (Store::OpenReader), catching up before every
// statement, so a cron ingest can write meanwhile. An empty or absent store
// is first filled from the bundled datasets (unless --no-ingest).
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

// libedit's readline emulation; <cstdio> must come first.
#include <editline/readline.h>

#include "ingest/lock.h"
#include "ingest/pipeline.h"
#include "query/factcheck.h"
#include "query/parser.h"
#include "tools/chipkg/repl.h"

namespace chipkg::cli {
namespace {

constexpr int kHistoryLines = 1000;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string TrimRight(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

// A line without its comment: '#' at the start or after a space, outside
// quotes, runs to the end of the line.
std::string StripComment(const std::string& line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (i == 0 || std::isspace(static_cast<unsigned char>(line[i - 1])))) {
      return line.substr(0, i);
    }
  }
  return line;
}

// Whether a line ends in a word after which a statement cannot end
// ("find chip where", "... and", "show memory,"): the statement goes on on
// the next line, as a person typing it means. Run as it stood, it gave an
// error for each half.
bool EndsWanting(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  if (line.empty()) return false;
  if (line.back() == ',') return true;
  const size_t space = line.find_last_of(" \t(");
  if (space == std::string_view::npos) return false;  // a lone word is a statement of its own ("help", "quit")
  std::string word(line.substr(space + 1));
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* w : {"where", "and", "or", "not", "show", "by", "using", "prefer"}) {
    if (word == w) return true;
  }
  return false;
}

// Whether a line goes on with the statement before it: it opens with a word
// no statement starts with (a clause, "and"/"or", a query's "where"). A
// script can then lay a query out over lines as it reads best, the clause
// words first ("find chip where memory >= 200 GB" / "order by memory desc"
// ran the first line alone, then failed on the second).
bool StartsAsContinuation(std::string_view line) {
  const size_t b = line.find_first_not_of(" \t");
  if (b == std::string_view::npos) return false;
  const size_t e = line.find_first_of(" \t", b);
  std::string word(line.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  // (Not "tolerance": the REPL's own statement of that name sets the session's.)
  for (const char* w : {"and", "or", "not", "where", "show", "order", "limit", "using", "prefer", "from", "as",
                        "with", "ignoring", "by"}) {
    if (word == w) return e != std::string_view::npos;  // a lone word ("limit") is not a clause
  }
  return false;
}

// Whether the statement read so far leaves a parenthesis or a quote open,
// fed a line at a time: each line is scanned once (rescanning the whole
// statement at every line made a script with a stray quote quadratic: 760 KB
// took 3.8 s to fail).
class OpenBrackets {
 public:
  void Feed(std::string_view text) {
    for (char c : text) {
      if (quote_) {
        if (escaped_) {
          escaped_ = false;
        } else if (c == '\\') {
          escaped_ = true;
        } else if (c == quote_) {
          quote_ = 0;
        }
        continue;
      }
      if (c == '"' || c == '\'') {
        quote_ = c;
      } else if (c == '(') {
        depth_++;
      } else if (c == ')' && depth_ > 0) {
        depth_--;
      }
    }
  }
  bool open() const { return quote_ != 0 || depth_ > 0; }
  void Reset() { *this = OpenBrackets(); }

 private:
  int depth_ = 0;
  char quote_ = 0;
  bool escaped_ = false;  // a backslash inside quotes escapes the next character
};

// An unfinished statement as an error shows it: its start.
std::string Beginning(const std::string& statement) {
  constexpr size_t kShown = 120;
  std::string shown = statement.substr(0, kShown);
  std::replace(shown.begin(), shown.end(), '\n', ' ');
  return statement.size() > kShown ? shown + " ..." : shown;
}

// Until a fill has ingested every bundled source, the store says so: the
// next start completes it (an ingest of what is unchanged costs nothing),
// where a store left part-filled by a dead source or a full disk used to
// stay so, as it was no longer empty.
constexpr char kFillMetaKey[] = "repl/first-fill";
constexpr char kFillIncomplete[] = "incomplete";

// Fills an empty or absent store from the bundled manifest, or completes a
// fill that did not get every source in (the caller has found it so).
// Reports on stderr; a failure to fill is reported and the REPL still opens.
enum class Fill { kDone, kFailed, kAnotherFilling };

Fill FillStore(const std::string& path, const Schema& schema, bool completing) {
  namespace fs = std::filesystem;
  std::string manifest = DefaultManifestPath();
  std::fprintf(stderr, "%s: ingesting bundled datasets (%s) ...",
               completing ? "store filled in part before" : "store empty", manifest.c_str());
  std::fflush(stderr);
  auto sources = LoadManifest(manifest);
  if (!sources.ok()) {
    std::fprintf(stderr, " failed\n");
    PrintError(sources.status());
    return Fill::kFailed;
  }
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) {
    std::fprintf(stderr, " failed\n");
    PrintError("cannot create store directory " + path + ": " + ec.message());
    return Fill::kFailed;
  }
  // The store first, then the ingest lock: the engine refuses to create a
  // store in a directory that already holds a file (the lock file), and
  // RocksDB's own lock already keeps a second writer out meanwhile.
  auto store = Store::Open(path);
  if (!store.ok()) {
    if (store.status().IsBusy()) {
      std::fprintf(stderr, " another chipkg process is writing to it\n");
      return Fill::kAnotherFilling;
    }
    std::fprintf(stderr, " failed\n");
    PrintError(store.status());
    return Fill::kFailed;
  }
  auto lock = RunLock::Acquire(RunLock::PathFor(path));
  if (!lock.ok()) {
    std::fprintf(stderr, " another chipkg process is writing to it\n");
    return Fill::kAnotherFilling;
  }
  if (Status marked = (*store)->PutMeta(kFillMetaKey, kFillIncomplete); !marked.ok()) {
    std::fprintf(stderr, " failed\n");
    PrintError(marked);
    return Fill::kFailed;
  }
  auto report = IngestSources(**store, schema, *sources);
  if (!report.ok()) {
    std::fprintf(stderr, " failed\n");
    PrintError(report.status());
    return Fill::kFailed;
  }
  if (report->documents_failed == 0) {
    if (Status done = (*store)->PutMeta(kFillMetaKey, "complete"); !done.ok()) PrintError(done);
  }
  auto stats = (*store)->Statistics();
  std::fprintf(stderr, " %llu facts\n",
               stats.ok() ? static_cast<unsigned long long>(stats->live_facts)
                          : static_cast<unsigned long long>(report->facts_added));
  for (const auto& s : report->sources) {
    if (!s.tried) {
      std::fprintf(stderr, "chipkg: the sources after it not tried: %s\n", s.error.c_str());
      break;
    }
    if (s.state == SourceOutcome::State::kFailed) {
      std::fprintf(stderr, "chipkg: failed %s: %s\n", s.location.c_str(), s.error.c_str());
    }
  }
  if (report->documents_failed > 0) {
    std::fprintf(stderr, "chipkg: the next start tries the failed sources again\n");
    return Fill::kFailed;
  }
  return Fill::kDone;
}

// Whether the store at `path` holds a finished fill (or was written to
// otherwise): what a start that found another process filling waits for.
bool FilledNow(const std::string& path) {
  auto store = OpenForReading(path);
  if (!store.ok()) return false;
  auto fill = (*store)->GetMeta(kFillMetaKey);
  const bool incomplete = fill.ok() && *fill == kFillIncomplete;
  return (*store)->LastTx() != 0 && !incomplete;
}

// ---- completion (libedit calls plain functions: the candidates are global) ----

struct Completions {
  std::vector<std::string> statements;  // first word
  std::vector<std::string> attributes;  // after a '.'
  std::vector<std::string> names;       // entity names and aliases, document ids, keywords
};
Completions* g_completions = nullptr;

void LoadCompletions(const Session& s, Completions& c) {
  c = Completions();
  std::set<std::string> seen;
  for (const auto& d : StatementDocs()) c.statements.push_back(d.word);
  for (const char* w : {"exit", "find", "text", "json", "csv", "confirm", "reject"}) c.names.push_back(w);
  c.attributes = factcheck::AttributeNames(*s.schema);
  auto add = [&](const std::string& n) {
    if (!n.empty() && seen.insert(n).second) c.names.push_back(n);
  };
  if (auto entities = s.store->ListEntities(); entities.ok()) {
    for (const auto& e : *entities) {
      add(e.name);
      for (const auto& a : e.aliases) add(a);
    }
  }
  for (const auto& e : s.schema->entities()) {
    add(e.name);
    for (const auto& a : e.aliases) add(a);
  }
  for (const auto& k : s.schema->entity_kinds()) add(k);
  if (auto docs = s.store->ListDocuments(); docs.ok()) {
    for (const auto& d : *docs) add(d.id);
  }
  for (const auto& a : c.attributes) add(a);
}

const std::vector<std::string>* g_pool = nullptr;

char* Generate(const char* text, int state) {
  static size_t index = 0;
  static std::string prefix;
  if (state == 0) {
    index = 0;
    prefix = Lower(text);
  }
  while (g_pool && index < g_pool->size()) {
    const std::string& c = (*g_pool)[index++];
    if (Lower(c).compare(0, prefix.size(), prefix) == 0) return strdup(c.c_str());
  }
  return nullptr;
}

char** Complete(const char* text, int start, int /*end*/) {
  rl_attempted_completion_over = 1;  // never fall back to file names
  if (!g_completions) return nullptr;
  const char* line = rl_line_buffer ? rl_line_buffer : "";
  // What precedes the word decides what it can be.
  int i = start - 1;
  while (i >= 0 && line[i] == ' ') i--;
  if (start > 0 && line[start - 1] == '.') {
    g_pool = &g_completions->attributes;
  } else if (i < 0) {
    static std::vector<std::string> first;
    first = g_completions->statements;
    first.insert(first.end(), g_completions->names.begin(), g_completions->names.end());
    g_pool = &first;
  } else {
    g_pool = &g_completions->names;
  }
  return rl_completion_matches(text, Generate);
}

std::string HistoryPath() {
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.chipkg/history";
}

// ---- the loop ---------------------------------------------------------------

// Ctrl-C at the prompt gives up the line being typed (and a statement
// continued over several) and prompts again, as psql and python do; it used
// to end the REPL. While a statement runs it still ends the process: a reader
// loses nothing by it. The jump leaves libedit between two reads of a key,
// where its signal handler has already put the terminal back; the next
// readline() starts a fresh line.
sigjmp_buf g_prompt_jump;
volatile sig_atomic_t g_at_prompt = 0;

void OnInterrupt(int signo) {
  if (g_at_prompt != 0) siglongjmp(g_prompt_jump, 1);
  std::signal(signo, SIG_DFL);
  std::raise(signo);
}

class LineSource {
 public:
  explicit LineSource(bool interactive) : interactive_(interactive) {
    if (!interactive_) return;
    struct sigaction action = {};
    action.sa_handler = OnInterrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
  }
  // Next line without its newline; false at end of input. `interrupted()`
  // says whether it is an empty line given for a Ctrl-C.
  bool Next(const char* prompt, std::string& line) {
    interrupted_ = false;
    if (!interactive_) return NextFromScript(line);
    if (sigsetjmp(g_prompt_jump, 1) != 0) {
      g_at_prompt = 0;
      std::fputs("^C\n", stdout);
      std::fflush(stdout);
      interrupted_ = true;
      line.clear();
      return true;
    }
    g_at_prompt = 1;
    char* raw = readline(prompt);
    g_at_prompt = 0;
    if (!raw) return false;
    line = raw;
    std::free(raw);
    return true;
  }
  bool interrupted() const { return interrupted_; }

  // Whether a script's next line (or its end) can be read now or within
  // `wait_ms`: a statement waits for it only then. A script given whole (a
  // file, a heredoc, printf into a pipe) always has it; a program that
  // writes a statement and waits for its answer before the next must get
  // the answer (it would wait forever).
  bool ScriptLineReady(int wait_ms) {
    if (interactive_ || at_end_ || pending_.find('\n', taken_) != std::string::npos) return true;
    pollfd input{STDIN_FILENO, POLLIN, 0};
    return ::poll(&input, 1, wait_ms) > 0;
  }

 private:
  // Reads standard input itself, not through std::cin, so that it can tell
  // whether more is there without waiting for it (ScriptLineReady).
  bool NextFromScript(std::string& line) {
    for (;;) {
      if (const size_t nl = pending_.find('\n', taken_); nl != std::string::npos) {
        line.assign(pending_, taken_, nl - taken_);
        taken_ = nl + 1;
        return true;
      }
      if (at_end_) {
        if (taken_ >= pending_.size()) return false;
        line.assign(pending_, taken_, std::string::npos);  // a last line without its newline
        taken_ = pending_.size();
        return true;
      }
      pending_.erase(0, taken_);
      taken_ = 0;
      char chunk[64 * 1024];
      const ssize_t got = ::read(STDIN_FILENO, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        at_end_ = true;
      } else {
        pending_.append(chunk, static_cast<size_t>(got));
      }
    }
  }

  bool interactive_;
  bool interrupted_ = false;
  std::string pending_;  // read from a script, not yet handed out from `taken_` on
  size_t taken_ = 0;
  bool at_end_ = false;
};

int RunRepl(const Args& args) {
  auto schema = LoadSchema();
  if (!schema.ok()) {
    PrintError(schema.status());
    return kExitUsage;
  }
  Session session;
  session.store_path = StorePath(args);
  session.schema = &*schema;
  Status st = ApplyOptions(args, session);
  if (!st.ok()) {
    PrintError(st);
    return kExitUsage;
  }
  if (!args.positional.empty()) {
    PrintError("the REPL takes no arguments (statements are read from standard input)");
    return kExitUsage;
  }
  auto open = [&]() -> Status {
    auto store = OpenForReading(session.store_path);
    if (!store.ok()) return store.status();
    session.store = std::move(*store);
    return Status::OK();
  };
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool present = fs::exists(fs::path(session.store_path) / "CURRENT", ec);
  // Only an absent store or an empty directory is filled; anything else
  // without a CURRENT file (a damaged store, a file) is for open() to name.
  const bool nothing_there = !fs::exists(session.store_path, ec) ||
                             (fs::is_directory(session.store_path, ec) && fs::is_empty(session.store_path, ec));
  Status opened = present || !nothing_there ? open() : Status::NotFound("no store yet");
  bool part_filled = false;
  if (opened.ok()) {
    auto fill = session.store->GetMeta(kFillMetaKey);
    part_filled = fill.ok() && *fill == kFillIncomplete;
  }
  const bool interactive = ::isatty(STDIN_FILENO) == 1;
  bool fill_failed = false;
  if (!args.Has("no-ingest") && (!opened.ok() ? nothing_there : session.store->LastTx() == 0 || part_filled)) {
    // Absent, never written to, or filled in part: this start fills it.
    session.store.reset();  // a reader: the fill opens the writer
    Fill fill = FillStore(session.store_path, *schema, part_filled);
    // Two first starts at once (a cron job and a user on a fresh machine):
    // the one that did not fill answered from a store still empty, "— (no
    // source)" with exit 0. It waits for the other's fill instead.
    constexpr auto kWaitForFill = std::chrono::seconds(120);
    const auto give_up = std::chrono::steady_clock::now() + kWaitForFill;
    if (fill == Fill::kAnotherFilling) {
      std::fprintf(stderr, "waiting for it to finish filling the store ...");
      std::fflush(stderr);
      // The wait's last look decides: "still filling" only when it ran out.
      bool filled = false;
      while (!(filled = FilledNow(session.store_path)) && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      fill = filled ? Fill::kDone : Fill::kAnotherFilling;
      std::fprintf(stderr, fill == Fill::kDone ? " done\n" : " still filling after %llds\n",
                   static_cast<long long>(kWaitForFill.count()));
    }
    fill_failed = fill == Fill::kFailed;
    session.store.reset();
    opened = open();
    // A script's answers from a store not filled would be wrong, not
    // missing ("no source says anything"): its statements are not run.
    // At a terminal the user has read why, and 'refresh' reads the store again.
    if (opened.ok() && fill != Fill::kDone && !interactive) {
      PrintError("the store " + session.store_path + " is not filled from the bundled datasets (" +
                 (fill == Fill::kFailed ? "see above" : "another process is still filling it") +
                 "): the statements were not run");
      return kExitFailed;
    }
  }
  if (!opened.ok()) {
    // Not "no chipkg store ... (the REPL fills it on its first start)": this
    // was that start, and why it could not is said above.
    if (fill_failed && opened.IsNotFound()) {
      PrintError("no chipkg store at " + session.store_path + ": this first start could not make it (above)");
    } else {
      PrintError(opened);
    }
    return kExitFailed;
  }

  Completions completions;
  std::string history = HistoryPath();
  if (interactive) {
    LoadCompletions(session, completions);
    g_completions = &completions;
    rl_readline_name = "chipkg";
    rl_attempted_completion_function = Complete;
    static char breaks[] = " \t\n\"'(),.=<>!;";
    rl_completer_word_break_characters = breaks;
    rl_basic_word_break_characters = breaks;
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(history).parent_path(), ec);
    stifle_history(kHistoryLines);
    read_history(history.c_str());
    auto stats = session.store->Statistics();
    std::printf("chipkg on %s: %llu facts from %llu documents. 'help' lists statements, 'quit' leaves.\n",
                session.store_path.c_str(),
                stats.ok() ? static_cast<unsigned long long>(stats->live_facts) : 0ULL,
                stats.ok() ? static_cast<unsigned long long>(stats->documents) : 0ULL);
    // A store filled by an older chipkg keeps what its rules read until it
    // is read again; the REPL, which fills a store only once, says so.
    if (auto records = session.store->ListMeta("rules-read/"); stats.ok() && records.ok()) {
      const std::string rules = RulesNow(*schema);
      uint64_t current = 0;
      for (const auto& [key, value] : *records) current += value == rules;
      if (stats->documents > current) {
        std::printf("note: %llu of its documents were read by other rules than this chipkg's (its schema or "
                    "extraction changed since); 'chipkg ingest --reextract --db %s --manifest MANIFEST' (the "
                    "bundled one: %s) reads them again\n",
                    static_cast<unsigned long long>(stats->documents - current), session.store_path.c_str(),
                    DefaultManifestPath().c_str());
      }
    }
    std::fflush(stdout);
  }

  LineSource lines(interactive);
  bool failed = false;
  std::string buffer, line;
  OpenBrackets brackets;  // of `buffer`
  bool continued = false;
  int line_no = 0, statement_line = 1;  // of the input; a script's errors name its lines
  // Runs one whole statement; false once it was quit.
  auto run = [&](std::string statement, int first_line) {
    if (interactive) {
      // One history line per statement, saved at once: a session that ends
      // with Ctrl-C or a lost terminal keeps what was typed.
      std::string one_line = statement;
      std::replace(one_line.begin(), one_line.end(), '\n', ' ');
      add_history(one_line.c_str());
      write_history(history.c_str());
    }
    std::string word = Lower(statement.substr(0, statement.find_first_of(" \t\n")));
    if (word == "quit" || word == "exit" || word == "\\q") {
      // "exit 3", "quit now": stopped, as meant, but not as if the words
      // were read (a script's status says its statements' outcome).
      std::string after = StripComment(statement.substr(word.size()));
      after.erase(0, after.find_first_not_of(" \t\r\n"));
      after.erase(after.find_last_not_of(" \t\r\n") + 1);
      if (!after.empty()) {
        PrintError((interactive ? "" : "line " + std::to_string(first_line) + ": ") + word +
                   " takes nothing after it ('" + after + "' was not read); stopped here");
        failed = true;
      }
      return false;
    }

    Status caught = session.store->CatchUp();
    if (!caught.ok()) PrintError(caught.WithContext("catching up with the writer (answers may be stale)"));
    std::string out, err;
    session.statement_line = interactive ? 1 : first_line;
    int code = RunStatement(session, statement, out, err);
    // A script's failed statement names its line, as a query's parse
    // errors already do ("error: line 3, column 17: ..."): `describe X` of
    // an unknown X said only what, not where.
    constexpr std::string_view kError = "error: ";
    if (!interactive && code != kExitOk && err.starts_with(kError) &&
        err.compare(kError.size(), 5, "line ") != 0) {
      err.insert(kError.size(), "line " + std::to_string(first_line) + ": ");
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    std::fwrite(err.data(), 1, err.size(), stderr);
    std::fflush(stderr);
    if (code != kExitOk) failed = true;
    if (interactive && word == "refresh") LoadCompletions(session, completions);
    return true;
  };
  // A script's statement waits for the next line, which may go on with it
  // (StartsAsContinuation); at a terminal each runs when it is complete.
  std::string ready;
  int ready_line = 0;
  bool quit = false;
  while (!quit && lines.Next(continued ? "  ...> " : "chipkg> ", line)) {
    if (lines.interrupted()) {
      buffer.clear();
      brackets.Reset();
      continued = false;
      continue;
    }
    ++line_no;
    if (!ready.empty()) {
      const std::string bare = StripComment(line);
      const bool comment_only = bare.find_first_not_of(" \t\r") == std::string::npos &&
                                line.find_first_not_of(" \t\r") != std::string::npos;
      if (comment_only) continue;  // the statement may still go on after it
      if (StartsAsContinuation(bare)) {
        buffer = std::move(ready);
        statement_line = ready_line;
        continued = true;
      } else if (!run(std::move(ready), ready_line)) {
        ready.clear();
        break;
      }
      ready.clear();
    }
    if (buffer.empty()) statement_line = line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    line = StraightenQuotes(line);  // before comments and brackets are read: “#1” is a name
    std::string trimmed = TrimRight(StripComment(line));
    bool backslash = !trimmed.empty() && trimmed.back() == '\\';
    if (backslash) trimmed.pop_back();
    const std::string piece = (buffer.empty() ? "" : (continued && !backslash ? "\n" : " ")) + trimmed;
    buffer += piece;
    brackets.Feed(piece);
    if (buffer.size() > query::kMaxQueryBytes) {
      // Past what a statement may be: most likely a quote or parenthesis
      // left open. Said now, naming where it began, and the lines after it
      // are read as new statements.
      PrintError("line " + std::to_string(statement_line) + ": a statement longer than " +
                 std::to_string(query::kMaxQueryBytes) + " bytes" +
                 (brackets.open() ? " (a quote or parenthesis opened in it is never closed)" : "") +
                 ", left out: " + Beginning(buffer));
      failed = true;
      buffer.clear();
      brackets.Reset();
      continued = false;
      continue;
    }
    // A blank line ends a statement even inside a quote or parenthesis left
    // open: one stray quote in a script took every statement after it along
    // (and at a terminal, Enter twice gets out of one). The statement then
    // fails on its parse error, which shows where it opened.
    const bool blank = line.find_first_not_of(" \t") == std::string::npos;
    if (!blank && (backslash || brackets.open() || EndsWanting(trimmed))) {
      continued = true;
      continue;
    }
    continued = false;
    brackets.Reset();
    std::string statement;
    statement.swap(buffer);
    size_t b = statement.find_first_not_of(" \t\n");
    if (b == std::string::npos) continue;  // blank or only a comment
    statement = statement.substr(b);
    // (10 ms: a script's next line is there at once; a program driving
    // chipkg line by line waits that much more for each answer.)
    constexpr int kNextLineWithinMs = 10;
    if (interactive || !lines.ScriptLineReady(kNextLineWithinMs)) {
      quit = !run(std::move(statement), statement_line);
    } else {
      ready = std::move(statement);
      ready_line = statement_line;
    }
  }
  if (!ready.empty()) run(std::move(ready), ready_line);
  if (!buffer.empty() && buffer.find_first_not_of(" \t\n") != std::string::npos) {
    PrintError("line " + std::to_string(statement_line) + ": input ended inside an unfinished statement (" +
               (brackets.open() ? "an open parenthesis or quote" : "its last line ends in a word or comma that needs more") +
               "): " + Beginning(buffer));
    failed = true;
  }
  if (interactive) {
    std::printf("\n");
    write_history(history.c_str());
    g_completions = nullptr;
  }
  // A script fails if a statement failed; at a terminal the person saw each error.
  return failed && !interactive ? kExitFailed : kExitOk;
}

const RegisterCommand kRepl({"repl", "repl [--format F] [--tolerance P%] [--no-ingest]",
                             "the interactive REPL (the default with no command)", RunRepl,
                             {"format", "tolerance", "no-ingest"}});

}  // namespace
}  // namespace chipkg::cli
