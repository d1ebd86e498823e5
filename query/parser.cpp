#include "query/parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <tao/pegtl.hpp>
#include <tao/pegtl/contrib/parse_tree.hpp>

#include "engine/utf8.h"
#include "query/grammar.h"
#include "query/suggest.h"

namespace chipkg::query {

const char* CompareOpText(CompareOp op) {
  switch (op) {
    case CompareOp::kEq: return "=";
    case CompareOp::kNe: return "!=";
    case CompareOp::kLt: return "<";
    case CompareOp::kLe: return "<=";
    case CompareOp::kGt: return ">";
    case CompareOp::kGe: return ">=";
    case CompareOp::kContains: return "contains";
  }
  return "?";
}

namespace {

namespace pegtl = tao::pegtl;
namespace g = grammar;
using Node = pegtl::parse_tree::node;

// ---- Nesting bound ---------------------------------------------------------

// Wraps the recursive rules: counts how deep the parser is inside them and
// stops with a clear message before the recursion could exhaust the stack.
struct NestingGuard : pegtl::maybe_nothing {
  template <typename Rule, pegtl::apply_mode A, pegtl::rewind_mode M, template <typename...> class Action,
            template <typename...> class Control, typename ParseInput, typename... States>
  [[nodiscard]] static bool match(ParseInput& in, States&&... st) {
    struct Depth {
      explicit Depth(size_t& d) : d_(d) { ++d_; }
      ~Depth() { --d_; }
      size_t& d_;
    } depth(in.private_depth);
    // A factor tries `not` and a group one level below the deepest real one
    // before finding it is neither, so N real levels reach N + 1 here.
    if (in.private_depth > kMaxNesting + 1) {
      throw pegtl::parse_error("conditions are nested more than " + std::to_string(kMaxNesting) +
                                   " levels deep (parentheses or 'not'); simplify the query",
                               in);
    }
    return pegtl::match<Rule, A, M, Action, Control>(in, st...);
  }
};

template <typename Rule>
struct Action : pegtl::nothing<Rule> {};
template <>
struct Action<g::group> : NestingGuard {};
template <>
struct Action<g::negation> : NestingGuard {};

// ---- Which rules become tree nodes ------------------------------------------

template <typename Rule>
using Selector = pegtl::parse_tree::selector<
    Rule,
    pegtl::parse_tree::store_content::on<
        g::kind_name, g::entity_word, g::string_literal, g::attribute_name, g::qualifier_key, g::qualifier_word,
        g::function_name, g::option_name, g::number, g::unit, g::date_literal, g::year_literal,
        g::timestamp_literal, g::boolean_literal, g::word_literal, g::comparison_operator, g::direction,
        g::integer, g::site_word, g::document_kind, g::document_word, g::run_word, g::state_not_published,
        g::state_negated, g::state_name>,
    pegtl::parse_tree::remove_content::on<
        g::find_statement, g::count_statement, g::facts_statement, g::conflicts_statement, g::lookup_statement,
        g::where_clause, g::about_clause, g::disjunction, g::conjunction, g::negation, g::comparison, g::call,
        g::state_test,
        g::option_argument, g::attribute_ref, g::qualifier, g::quantity, g::show_clause, g::column,
        g::order_clause, g::order_key, g::group_clause, g::limit_clause, g::using_clause, g::prefer_clause, g::site_source,
        g::from_clause, g::valid_time, g::tx_point, g::run_point, g::transaction_time, g::tolerance_clause,
        g::member, g::evidence_clause, g::ignoring_clause>>;

// Thrown inside the converter for semantic problems found while building the
// tree (a repeated clause, a number out of range); caught in ParseQuery.
struct ConvertError {
  size_t offset;
  std::string message;
};

// ---- Converting the tree ---------------------------------------------------

// Positions of byte offsets in one text, each in O(log n): the converter
// asks for one per node, and a flat chain of thousands of conditions must not
// make that quadratic.
class PositionIndex {
 public:
  explicit PositionIndex(std::string_view text) : text_(text) {
    line_starts_.push_back(0);
    chars_before_.reserve(text.size() + 1);
    size_t chars = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      chars_before_.push_back(chars);
      if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++chars;
      if (text[i] == '\n') line_starts_.push_back(i + 1);
    }
    chars_before_.push_back(chars);
  }

  SourcePos At(size_t offset) const {
    SourcePos pos;
    pos.offset = std::min(offset, text_.size());
    const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), pos.offset);
    const size_t line = static_cast<size_t>(it - line_starts_.begin());  // 1-based
    const size_t start = line_starts_[line - 1];
    pos.line = static_cast<int>(line);
    pos.column = static_cast<int>(chars_before_[pos.offset] - chars_before_[start]) + 1;
    return pos;
  }

 private:
  std::string_view text_;
  std::vector<size_t> line_starts_;
  std::vector<size_t> chars_before_;  // characters before each byte offset
};

// Query text as one line: its '#' comments left out (outside quotes), its
// blanks and line breaks one space, none at either end.
std::string OneLineWithoutComments(std::string_view text) {
  std::string out;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == 0 && c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      if (!out.empty() && out.back() != ' ') out += ' ';
      continue;
    }
    if (quote != 0 && c == '\\' && i + 1 < text.size()) {
      out += c;
      out += text[++i];
      continue;
    }
    if (c == '"' || c == '\'') quote = quote == 0 ? c : (quote == c ? 0 : quote);
    if (quote == 0 && (c == ' ' || c == '\t' || c == '\r' || c == '\n')) {
      if (!out.empty() && out.back() != ' ') out += ' ';
      continue;
    }
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

class Converter {
 public:
  explicit Converter(std::string_view text) : text_(text), positions_(text) {}

  Query Convert(const Node& root) {
    Query q;
    for (size_t at = 0; at < root.children.size(); ++at) {
      const Node& n = *root.children[at];
      if (n.is_type<g::find_statement>() || n.is_type<g::count_statement>()) {
        q.statement = n.is_type<g::find_statement>() ? StatementKind::kFind : StatementKind::kCount;
        for (const auto& c : n.children) {
          if (c->is_type<g::kind_name>()) {
            q.kind = c->string();
            q.kind_pos = Pos(*c);
          } else if (c->is_type<g::where_clause>()) {
            q.where = ConvertCondition(*c->children.at(0));
            // The text from after the keyword to the next clause (the tree
            // keeps where a clause begins, not where it ends): the where
            // clause ends its statement.
            const size_t begin = std::min(c->begin().byte + 5, text_.size());  // after "where", any case
            const size_t end = at + 1 < root.children.size() ? root.children[at + 1]->begin().byte : text_.size();
            q.where_text = OneLineWithoutComments(text_.substr(begin, end > begin ? end - begin : 0));
          }
        }
      } else if (n.is_type<g::facts_statement>() || n.is_type<g::conflicts_statement>()) {
        q.statement = n.is_type<g::facts_statement>() ? StatementKind::kFacts : StatementKind::kConflicts;
        for (const auto& c : n.children) {
          if (c->is_type<g::about_clause>()) {
            q.entity = EntityName(*c->children.at(0));
            q.entity_pos = Pos(*c->children.at(0));
          } else if (c->is_type<g::kind_name>()) {
            q.kind = c->string();
            q.kind_pos = Pos(*c);
          }
        }
      } else if (n.is_type<g::lookup_statement>()) {
        q.statement = StatementKind::kLookup;
        q.entity = EntityName(*n.children.at(0));
        q.entity_pos = Pos(*n.children.at(0));
        q.member = ConvertColumn(*n.children.at(1));
      } else {
        ConvertClause(n, q);
      }
    }
    // `count chip limit 3` answered the whole count: a count without groups
    // is one number, and a limit the reader meant to apply did nothing.
    if (q.statement == StatementKind::kCount && !q.group_by && limit_node_ != nullptr) {
      Fail(*limit_node_, "a count without 'by' is one number, which limit does not cut: limit keeps the largest "
                         "groups of count ... by ATTRIBUTE");
    }
    return q;
  }

 private:
  SourcePos Pos(const Node& n) const { return positions_.At(n.begin().byte); }

  [[noreturn]] void Fail(const Node& n, std::string message) const {
    throw ConvertError{n.begin().byte, std::move(message)};
  }

  // A clause may be written once; the second one is an error at its keyword.
  void Once(bool& seen, const Node& n, const char* what) const {
    if (seen) Fail(n, std::string("the '") + what + "' clause is given twice; write it once");
    seen = true;
  }

  void ConvertClause(const Node& n, Query& q) {
    if (n.is_type<g::show_clause>()) {
      Once(seen_show_, n, "show");
      for (const auto& c : n.children) q.show.push_back(ConvertColumn(*c));
    } else if (n.is_type<g::order_clause>()) {
      Once(seen_order_, n, "order by");
      for (const auto& c : n.children) {
        OrderKey key;
        key.attribute = ConvertAttribute(*c->children.at(0));
        if (c->children.size() > 1) key.descending = Lower(c->children[1]->string()) == "desc";
        q.order.push_back(std::move(key));
      }
    } else if (n.is_type<g::group_clause>()) {
      Once(seen_group_, n, "by");
      q.group_by = ConvertAttribute(*n.children.at(0));
    } else if (n.is_type<g::limit_clause>()) {
      Once(seen_limit_, n, "limit");
      limit_node_ = &n;
      q.limit = ParseInteger(*n.children.at(0), "limit");
    } else if (n.is_type<g::using_clause>() || n.is_type<g::prefer_clause>()) {
      const bool is_using = n.is_type<g::using_clause>();
      Once(is_using ? seen_using_ : seen_prefer_, n, is_using ? "using" : "prefer");
      auto& list = is_using ? q.using_sources : q.prefer;
      for (const auto& c : n.children) {
        SourceSelector s;
        s.pos = Pos(*c);
        if (c->is_type<g::site_source>()) {
          s.is_site = true;
          s.name = EntityText(*c->children.at(0));
        } else {
          s.name = c->string();
        }
        list.push_back(std::move(s));
      }
    } else if (n.is_type<g::from_clause>()) {
      Once(seen_from_, n, "from document");
      q.document = EntityText(*n.children.at(0));
      q.document_pos = Pos(*n.children.at(0));
    } else if (n.is_type<g::valid_time>()) {
      Once(seen_as_of_, n, "as of");
      q.valid_on = n.children.at(0)->string();
      q.valid_on_pos = Pos(*n.children.at(0));
    } else if (n.is_type<g::transaction_time>()) {
      Once(seen_as_at_, n, "as at");
      const Node& p = *n.children.at(0);
      TransactionPoint t;
      t.pos = Pos(p);
      if (p.is_type<g::tx_point>()) {
        t.kind = TransactionPoint::Kind::kTx;
        t.tx = ParseInteger(*p.children.at(0), "transaction number");
      } else if (p.is_type<g::run_point>()) {
        t.kind = TransactionPoint::Kind::kRun;
        t.run = EntityText(*p.children.at(0));
      } else {
        t.kind = TransactionPoint::Kind::kTime;
        t.time = p.string();
      }
      q.as_at = std::move(t);
    } else if (n.is_type<g::evidence_clause>()) {
      Once(seen_evidence_, n, "with evidence");
      q.with_evidence = true;
    } else if (n.is_type<g::ignoring_clause>()) {
      Once(seen_ignoring_, n, "ignoring not_published");
      q.ignoring_not_published = true;
    } else if (n.is_type<g::tolerance_clause>()) {
      Once(seen_tolerance_, n, "tolerance");
      q.tolerance_percent = ParseNumber(*n.children.at(0));
      q.tolerance_pos = Pos(n);
    }
  }

  Condition ConvertCondition(const Node& n) {
    Condition c;
    c.pos = Pos(n);
    if (n.is_type<g::disjunction>() || n.is_type<g::conjunction>()) {
      // A chain of one is its element: no node for "a" alone.
      if (n.children.size() == 1) return ConvertCondition(*n.children[0]);
      c.kind = n.is_type<g::disjunction>() ? Condition::Kind::kOr : Condition::Kind::kAnd;
      for (const auto& child : n.children) c.children.push_back(ConvertCondition(*child));
    } else if (n.is_type<g::negation>()) {
      c.kind = Condition::Kind::kNot;
      c.children.push_back(ConvertCondition(*n.children.at(0)));
    } else if (n.is_type<g::call>()) {
      c.kind = Condition::Kind::kCall;
      c.call = ConvertCall(n);
    } else if (n.is_type<g::state_test>()) {
      return ConvertStateTest(n);
    } else if (n.is_type<g::comparison>()) {
      c.kind = Condition::Kind::kComparison;
      c.comparison.attribute = ConvertAttribute(*n.children.at(0));
      const Node& op = *n.children.at(1);
      c.comparison.op = ConvertOperator(op.string());
      c.comparison.op_pos = Pos(op);
      c.comparison.value = ConvertLiteral(*n.children.at(2));
    } else {
      Fail(n, "internal: unexpected condition node " + std::string(n.type));
    }
    return c;
  }

  static CompareOp ConvertOperator(const std::string& op) {
    if (op == "=" || op == "==") return CompareOp::kEq;
    if (op == "!=" || op == "<>") return CompareOp::kNe;
    if (op == "<") return CompareOp::kLt;
    if (op == "<=") return CompareOp::kLe;
    if (op == ">") return CompareOp::kGt;
    if (op == ">=") return CompareOp::kGe;
    return CompareOp::kContains;
  }

  Column ConvertColumn(const Node& n) {
    Column col;
    col.pos = Pos(n);
    const Node& inner = n.children.empty() ? n : *n.children.at(0);
    if (inner.is_type<g::call>()) {
      col.is_call = true;
      col.call = ConvertCall(inner);
    } else {
      col.attribute = ConvertAttribute(inner);
    }
    return col;
  }

  AttributeRef ConvertAttribute(const Node& n) {
    AttributeRef a;
    a.pos = Pos(n);
    for (const auto& c : n.children) {
      if (c->is_type<g::attribute_name>()) {
        a.name = c->string();
      } else if (c->is_type<g::qualifier>()) {
        const std::string key = c->children.at(0)->string();
        const Node& v = *c->children.at(1);
        const std::string value = v.is_type<g::string_literal>() ? Unquote(v) : v.string();
        if (!a.qualifiers.emplace(key, value).second) Fail(*c, "qualifier '" + key + "' is given twice");
      }
    }
    return a;
  }

  // "foundry is not reported" is not(reported(foundry)): the same condition
  // as the call, so that answers, reasons and errors read alike.
  Condition ConvertStateTest(const Node& n) {
    Condition test;
    test.pos = Pos(n);
    test.kind = Condition::Kind::kCall;
    test.call.pos = Pos(n);
    bool negated = false;
    for (size_t i = 1; i < n.children.size(); ++i) {
      const Node& word = *n.children[i];
      if (word.is_type<g::state_negated>()) {
        negated = true;
      } else if (word.is_type<g::state_not_published>()) {
        test.call.name = "not_published";
      } else {
        std::string name = word.string();
        for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        test.call.name = name == "published" ? "reported" : name;
      }
    }
    const AttributeRef ref = ConvertAttribute(*n.children.at(0));
    Argument arg;
    arg.pos = ref.pos;
    arg.value.kind = Literal::Kind::kWord;
    arg.value.text = ref.name;
    arg.value.source = ref.name;
    arg.value.pos = ref.pos;
    arg.qualifiers = ref.qualifiers;
    test.call.args.push_back(std::move(arg));
    if (!negated) return test;
    Condition negation;
    negation.pos = test.pos;
    negation.kind = Condition::Kind::kNot;
    negation.children.push_back(std::move(test));
    return negation;
  }

  Call ConvertCall(const Node& n) {
    Call call;
    call.pos = Pos(n);
    call.name = n.children.at(0)->string();
    for (size_t i = 1; i < n.children.size(); ++i) {
      const Node& a = *n.children[i];
      Argument arg;
      arg.pos = Pos(a);
      if (a.is_type<g::option_argument>()) {
        arg.option = a.children.at(0)->string();
        arg.value = ConvertLiteral(*a.children.at(1));
      } else if (a.is_type<g::attribute_ref>()) {
        const AttributeRef ref = ConvertAttribute(a);
        arg.value.kind = Literal::Kind::kWord;
        arg.value.text = ref.name;
        arg.value.source = ref.name;
        arg.value.pos = ref.pos;
        arg.qualifiers = ref.qualifiers;
      } else {
        arg.value = ConvertLiteral(a);
      }
      call.args.push_back(std::move(arg));
    }
    return call;
  }

  Literal ConvertLiteral(const Node& n) {
    Literal lit;
    lit.pos = Pos(n);
    if (n.is_type<g::quantity>()) {
      const Node& num = *n.children.at(0);
      lit.kind = Literal::Kind::kNumber;
      lit.number = ParseNumber(num);
      lit.source = num.string();
      if (n.children.size() > 1) {
        lit.unit = n.children[1]->string();
        lit.source += " " + lit.unit;
      }
      return lit;
    }
    lit.source = n.string();
    if (n.is_type<g::string_literal>()) {
      lit.kind = Literal::Kind::kString;
      lit.text = Unquote(n);
    } else if (n.is_type<g::date_literal>()) {
      lit.kind = Literal::Kind::kDate;
      lit.text = n.string();
    } else if (n.is_type<g::boolean_literal>()) {
      lit.kind = Literal::Kind::kBool;
      lit.boolean = Lower(n.string()) == "true";
    } else {
      lit.kind = Literal::Kind::kWord;
      lit.text = n.string();
    }
    return lit;
  }

  std::string EntityText(const Node& n) const {
    return n.is_type<g::string_literal>() ? Unquote(n) : n.string();
  }

  // The entity a lookup or an `about` names. Quotes that hold nothing name
  // none: a lookup then ran on no entity at all (and crashed), and
  // `conflicts about ""` answered for the whole store.
  std::string EntityName(const Node& n) const {
    std::string name = EntityText(n);
    if (name.find_first_not_of(" \t") == std::string::npos) {
      Fail(n, "an entity name is needed between the quotes (e.g. \"Trainium 2\")");
    }
    return name;
  }

  // The text between the quotes, escapes resolved.
  static std::string Unquote(const Node& n) {
    std::string_view s = n.string_view();
    constexpr std::string_view kCurlyOpen = "\xE2\x80\x9C", kCurlyClose = "\xE2\x80\x9D";
    if (s.substr(0, kCurlyOpen.size()) == kCurlyOpen) {  // no escapes inside curly quotes
      s.remove_prefix(kCurlyOpen.size());
      s.remove_suffix(s.size() >= kCurlyClose.size() && s.substr(s.size() - kCurlyClose.size()) == kCurlyClose
                          ? kCurlyClose.size()
                          : 1);
      return std::string(s);
    }
    std::string out;
    for (size_t i = 1; i + 1 < s.size(); ++i) {
      if (s[i] == '\\' && i + 2 < s.size()) ++i;
      out += s[i];
    }
    return out;
  }

  double ParseNumber(const Node& n) const {
    std::string digits;
    for (char c : n.string_view()) {
      if (c != ',' && c != '+') digits += c;
    }
    double v = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec == std::errc::result_out_of_range || !std::isfinite(v)) {
      Fail(n, "number out of range: " + Shorten(n.string()));
    }
    if (ec != std::errc() || ptr != digits.data() + digits.size()) Fail(n, "not a number: " + Shorten(n.string()));
    return v;
  }

  uint64_t ParseInteger(const Node& n, const char* what) const {
    uint64_t v = 0;
    const std::string_view s = n.string_view();
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size()) {
      Fail(n, std::string(what) + " out of range: " + Shorten(std::string(s)));
    }
    return v;
  }

  static std::string Shorten(const std::string& s) { return s.size() > 40 ? s.substr(0, 37) + "..." : s; }

  static std::string Lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }

  std::string_view text_;
  PositionIndex positions_;
  const Node* limit_node_ = nullptr;
  bool seen_show_ = false, seen_order_ = false, seen_group_ = false, seen_limit_ = false, seen_using_ = false, seen_prefer_ = false,
       seen_from_ = false, seen_as_of_ = false, seen_as_at_ = false, seen_tolerance_ = false,
       seen_evidence_ = false, seen_ignoring_ = false;
};

// The word (letters, digits, '_') starting at `offset`, for keyword hints.
std::string WordAt(std::string_view text, size_t offset) {
  std::string w;
  for (size_t i = offset; i < text.size() && w.size() < 64; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (!std::isalnum(c) && c != '_') break;
    w += static_cast<char>(c);
  }
  return w;
}

// Offset of the first character that is not a blank or inside a comment.
size_t FirstWordOffset(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n') {
      ++i;
    } else {
      break;
    }
  }
  return i;
}


}  // namespace

SourcePos PositionAt(std::string_view text, size_t offset) {
  SourcePos pos;
  pos.offset = std::min(offset, text.size());
  size_t line_start = 0;
  for (size_t i = 0; i < pos.offset; ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      line_start = i + 1;
    }
  }
  int column = 1;
  for (size_t i = line_start; i < pos.offset; ++i) {
    // Count characters, not bytes: skip UTF-8 continuation bytes.
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++column;
  }
  pos.column = column;
  return pos;
}

std::string FormatQueryError(std::string_view text, const SourcePos& pos, const std::string& message) {
  std::string out = "line " + std::to_string(pos.line) + ", column " + std::to_string(pos.column) + ": " + message;
  // The offending line, as characters, cut to a window around the spot.
  const size_t offset = std::min(pos.offset, text.size());
  size_t begin = offset;
  while (begin > 0 && text[begin - 1] != '\n') --begin;
  size_t end = text.find('\n', offset);
  if (end == std::string_view::npos) end = text.size();
  std::vector<std::string> chars;  // one UTF-8 character each
  size_t caret = 0;
  for (size_t i = begin; i < end;) {
    if (i == offset) caret = chars.size();
    size_t len = 1;
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0xF0) len = 4;
    else if (c >= 0xE0) len = 3;
    else if (c >= 0xC0) len = 2;
    // A byte that starts no whole UTF-8 character is shown as '?': echoed,
    // it reached the terminal or a cron mail as a broken character.
    bool whole = (c < 0x80 || (c >= 0xC2 && c <= 0xF4)) && i + len <= end;
    for (size_t k = 1; whole && k < len; ++k) whole = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (whole && len > 1) {  // overlong forms, surrogates, past U+10FFFF
      const auto second = static_cast<unsigned char>(text[i + 1]);
      whole = !(c == 0xE0 && second < 0xA0) && !(c == 0xED && second >= 0xA0) && !(c == 0xF0 && second < 0x90) &&
              !(c == 0xF4 && second > 0x8F);
    }
    if (!whole) len = 1;
    std::string ch = whole ? std::string(text.substr(i, len)) : "?";
    if (ch == "\t" || ch == "\r") ch = " ";
    if (ch.size() == 1 && static_cast<unsigned char>(ch[0]) < 0x20) ch = "?";
    chars.push_back(ch);
    i += len;
  }
  if (offset >= end) caret = chars.size();
  constexpr size_t kWindow = 60;
  size_t from = caret > kWindow ? caret - kWindow : 0;
  size_t to = std::min(chars.size(), caret + kWindow);
  std::string line = from > 0 ? "..." : "";
  for (size_t i = from; i < to; ++i) line += chars[i];
  if (to < chars.size()) line += "...";
  const size_t caret_col = (from > 0 ? 3 : 0) + (caret - from);
  out += "\n  " + line + "\n  " + std::string(caret_col, ' ') + "^";
  return out;
}

// What a query written as people write elsewhere needs instead, where the
// parser stopped on it: "contain", "mm²", "2022-10-1", "$30000", "+01:00".
std::string SpellingHint(std::string_view text, size_t offset, const std::string& message) {
  const std::string_view rest = offset < text.size() ? text.substr(offset) : std::string_view();
  if (message == g::error_message<g::comparison_operator_expected>) {
    const std::string word = WordAt(text, offset);
    std::string hint = word.empty() ? "" : DidYouMean(word, {"contains"});
    // "nto reported(foundry)": the misspelt keyword was read as the attribute.
    size_t end = std::min(offset, text.size());
    while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
    size_t begin = end;
    while (begin > 0 && (std::isalnum(static_cast<unsigned char>(text[begin - 1])) || text[begin - 1] == '_')) --begin;
    const std::string before(text.substr(begin, end - begin));
    if (hint.empty() && !before.empty()) {
      if (const std::string mean_not = DidYouMean(before, {"not"}); !mean_not.empty()) {
        hint = "; '" + before + "' was read as an attribute" + mean_not;
      }
    }
    return hint;
  }
  if (message == g::error_message<g::value_expected> && !rest.empty() && rest.front() == '$') {
    size_t digits = 1;
    while (digits < rest.size() && (std::isdigit(static_cast<unsigned char>(rest[digits])) || rest[digits] == ',' ||
                                    rest[digits] == '.')) {
      ++digits;
    }
    const std::string number(rest.substr(1, digits - 1));
    return "; a price is a number and its unit: " + number + " USD, or " + number + " USD/h for a price by the hour";
  }
  if (message != g::error_message<g::end_of_query>) return "";
  if (rest.rfind("\xC2\xB2", 0) == 0 || rest.rfind("\xC2\xB3", 0) == 0) {
    return std::string("; a unit's power is written with ^: ") + (rest[1] == '\xB2' ? "mm^2" : "m^3");
  }
  // "64 ГБ", "5 µs": a word after a number that the grammar's units (ASCII,
  // as the schema spells them) cannot begin.
  if (!rest.empty() && static_cast<unsigned char>(rest.front()) >= 0x80) {
    size_t end = offset;
    while (end > 0 && text[end - 1] == ' ') --end;
    size_t begin = end;  // of the number before, if one is
    while (begin > 0 && (std::isdigit(static_cast<unsigned char>(text[begin - 1])) || text[begin - 1] == '.' ||
                         text[begin - 1] == ',')) {
      --begin;
    }
    const bool after_number = begin < end && std::isdigit(static_cast<unsigned char>(text[end - 1])) &&
                              (begin == 0 || !(std::isalnum(static_cast<unsigned char>(text[begin - 1])) ||
                                               text[begin - 1] == '_' || text[begin - 1] == '"'));
    if (after_number) {
      // A no-break or thin space, as pasted text has them, before a unit.
      for (std::string_view space : {"\xC2\xA0", "\xE2\x80\xAF", "\xE2\x80\x89", "\xE2\x80\x8A"}) {
        if (rest.rfind(space, 0) == 0) return "; a number and its unit take a plain space between them";
      }
      const std::string word(rest.substr(0, std::min(rest.find_first_of(" \t\n)"), rest.size())));
      return "; '" + word + "' is no unit chipkg knows: units are written as the schema spells them (GB, TB/s, W, "
             "TFLOPS, USD/h, mm^2)";
    }
  }
  // "2022-10-1": the parser read 2022-10 and stopped at "-1".
  if (rest.size() >= 2 && rest[0] == '-' && std::isdigit(static_cast<unsigned char>(rest[1])) &&
      (rest.size() == 2 || !std::isdigit(static_cast<unsigned char>(rest[2]))) && offset >= 7 &&
      std::isdigit(static_cast<unsigned char>(text[offset - 1])) && text[offset - 3] == '-') {
    return "; a date's month and day have two digits: " + std::string(text.substr(offset - 7, 7)) + "-0" + rest[1];
  }
  if (!rest.empty() && (rest.front() == '+' || rest.front() == '-') && rest.find(':') != std::string_view::npos &&
      offset > 0 && std::isdigit(static_cast<unsigned char>(text[offset - 1]))) {
    return "; a time is read as UTC, with no offset: write it in UTC (2026-12-06 05:08 UTC)";
  }
  return "";
}

// Where a statement was complete and the next word is none of its clauses:
// what people write from other query languages, or a condition on a
// statement that takes none ("trainium.memory and tdp"), says what to write.
std::string ClauseHint(std::string_view text, size_t offset) {
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  const std::string word = lower(WordAt(text, offset));
  const std::string first = lower(WordAt(text, FirstWordOffset(text)));
  const std::string_view before = text.substr(0, std::min(offset, text.size()));
  auto has_word = [&](std::string_view w) {  // as a whole word, before the offset
    for (size_t at = before.find(w); at != std::string_view::npos; at = before.find(w, at + 1)) {
      const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(before[at - 1]));
      const bool ends = at + w.size() >= before.size() || !std::isalnum(static_cast<unsigned char>(before[at + w.size()]));
      if (starts && ends) return true;
    }
    return false;
  };
  const bool lookup = first != "find" && first != "count" && first != "facts" && first != "conflicts";
  if (word == "and" || word == "or" || word == "where") {
    if (lookup) {
      return "; a lookup (ENTITY.ATTRIBUTE) takes no condition: to see more attributes write "
             "trainium.memory show tdp, to test them find chip where name = ... and ...";
    }
    if (first == "facts") return "; 'facts about' lists every claim and takes no condition: find KIND where ... tests them";
    if (first == "conflicts") return "; 'conflicts' takes no condition: conflicts in KIND, or conflicts about ENTITY";
    if (word == "where" && has_word("where")) return "; a query has one 'where': join its conditions with 'and' or 'or'";
    if (word == "where" && first == "count" && has_word("by")) {
      return "; 'where' comes before 'by': count chip where ... by foundry";
    }
    if (word == "where" && (has_word("order") || has_word("show") || has_word("limit"))) {
      return "; 'where' comes right after the kind, before show, order by and limit";
    }
  }
  if (word == "sort") return "; write 'order by ATTRIBUTE [asc|desc]'";
  if (word == "top" || word == "first") return "; write 'limit N' at the end (with order by for the largest)";
  if (word == "select") return "; write 'show ATTRIBUTE, ...'";
  {
    // "order by memory sideways": right after "order by ATTRIBUTE", the direction, if that is what was
    // meant; "order by tdp and memory > 1 GB": a condition after the order.
    std::vector<std::string> last;  // the words before the offset, nearest first
    for (size_t at = std::min(offset, text.size()); last.size() < 3;) {
      while (at > 0 && std::isspace(static_cast<unsigned char>(text[at - 1]))) --at;
      const size_t end = at;
      while (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_')) --at;
      if (at == end) break;
      last.push_back(lower(std::string(text.substr(at, end - at))));
    }
    if (last.size() == 3 && last[2] == "order" && last[1] == "by" && !word.empty()) {
      if (word == "and" || word == "or") return "; a condition goes after 'where', before 'order by'";
      return "; 'order by ATTRIBUTE' takes asc or desc after it";
    }
  }
  // "memory > NaN GB": the word was read as a text value and the unit after
  // it is what the parser stopped on.
  size_t end = offset;
  while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  size_t begin = end;
  while (begin > 0 && (std::isalnum(static_cast<unsigned char>(text[begin - 1])) || text[begin - 1] == '.')) --begin;
  const std::string value = lower(std::string(text.substr(begin, end - begin)));
  if (end > begin && begin > 0 && std::isspace(static_cast<unsigned char>(text[begin - 1])) &&
      (value == "nan" || value == "inf" || value == "infinity" || value.rfind("0x", 0) == 0)) {
    return "; '" + std::string(text.substr(begin, end - begin)) +
           "' is not a number: a quantity is compared with a decimal number and a unit, e.g. 64 GB";
  }
  return "";
}

Result<Query> ParseQuery(std::string_view text) {
  if (text.size() > kMaxQueryBytes) {
    return Status::InvalidArgument("query is " + std::to_string(text.size()) + " bytes long; the limit is " +
                                   std::to_string(kMaxQueryBytes));
  }
  if (const size_t bad = FirstInvalidUtf8(text); bad != std::string_view::npos) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[bad])));
    return Status::InvalidArgument(FormatQueryError(
        text, PositionAt(text, bad), std::string("invalid UTF-8 (byte ") + hex + "); queries must be UTF-8 text"));
  }
  // A NUL or another control byte (pasted from a binary file, a script's
  // stray byte): the grammar fails on it wherever the statement it ends
  // began, and the caret pointed at column 1.
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(c));
      return Status::InvalidArgument(
          FormatQueryError(text, PositionAt(text, i), std::string("a control character (byte ") + hex + ") in the query"));
    }
  }
  try {
    pegtl::memory_input<> in(text.data(), text.size(), "query");
    std::unique_ptr<Node> root =
        pegtl::parse_tree::parse<g::query, Node, Selector, Action, g::control>(in);
    if (!root) {
      // The grammar commits (must<>) on every path, so a plain failure means
      // nothing matched at all.
      return Status::InvalidArgument(FormatQueryError(text, PositionAt(text, 0), g::error_message<g::statement_expected>));
    }
    Converter converter(text);
    return converter.Convert(*root);
  } catch (const pegtl::parse_error& e) {
    size_t offset = e.positions().empty() ? 0 : e.positions().front().byte;
    std::string message(e.message());
    if (message == g::error_message<g::statement_expected>) {
      // must<> does not rewind its rule, so a failed lookup ("fnd chip")
      // leaves the position after the first word; the statement starts at
      // the first word.
      offset = FirstWordOffset(text);
    }
    // Where a keyword was expected, a misspelt one gets a hint.
    const bool at_statement = message == g::error_message<g::statement_expected>;
    if (at_statement || message == g::error_message<g::end_of_query>) {
      const std::string word = WordAt(text, offset);
      const std::vector<std::string> kws =
          at_statement ? std::vector<std::string>{"find", "count", "facts", "conflicts"}
                       : std::vector<std::string>{"and", "or", "show", "order", "limit", "using", "prefer", "from",
                                                  "as", "tolerance", "with", "ignoring", "where", "by", "about",
                                                  "desc", "asc", "in"};
      std::string lower = word;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (!word.empty() && std::find(kws.begin(), kws.end(), lower) == kws.end()) {
        message += DidYouMean(word, kws);
      }
    }
    message += SpellingHint(text, offset, message);
    if (message == g::error_message<g::end_of_query>) message += ClauseHint(text, offset);
    if (message == g::error_message<g::member_expected>) {
      // "trn1.2xlarge.price_per_chip_hour": the name's own dot ended it.
      const size_t start = FirstWordOffset(text);
      size_t end = start;
      while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
      const std::string token(text.substr(start, end - start));
      const size_t last_dot = token.rfind('.');
      const std::string name = token.substr(0, last_dot);
      const size_t inner_dot = name.rfind('.');
      // A dot between two parts of the name, and an attribute after the last.
      const bool dotted_name = inner_dot != std::string::npos && inner_dot > 0 && inner_dot + 1 < name.size();
      if (offset > start && offset < end && dotted_name && last_dot + 1 < token.size() && token.front() != '"') {
        message += "; a name with a dot in it is quoted: \"" + token.substr(0, last_dot) + "\"" +
                   token.substr(last_dot);
      }
    }
    return Status::InvalidArgument(FormatQueryError(text, PositionAt(text, offset), message));
  } catch (const ConvertError& e) {
    return Status::InvalidArgument(FormatQueryError(text, PositionAt(text, e.offset), e.message));
  } catch (const std::exception& e) {
    // Allocation failure or a bug in the converter: still an answer, not a crash.
    return Status::InvalidArgument(std::string("could not parse the query: ") + e.what());
  }
}

}  // namespace chipkg::query
