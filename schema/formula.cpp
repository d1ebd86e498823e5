// The derive formula language (grammar in schema/schema.h): a hand-written
// recursive-descent parser, a printer and an evaluator. Names are not checked
// here; the loader does that once every file is read.

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "schema/schema.h"

namespace chipkg {
namespace {

// Deep enough for any formula a person writes, shallow enough that a hostile
// one cannot exhaust the stack.
constexpr int kMaxDepth = 64;
// Operators build left-deep chains ("a + b + c ..."), which the printer, the
// evaluator and the destructor walk recursively: bound their number too.
constexpr int kMaxOperators = 256;

const char* OpSpelling(Expr::Op op) {
  switch (op) {
    case Expr::Op::kAdd: return "+";
    case Expr::Op::kSub: return "-";
    case Expr::Op::kMul: return "*";
    case Expr::Op::kDiv: return "/";
    case Expr::Op::kLess: return "<";
    case Expr::Op::kLessEqual: return "<=";
    case Expr::Op::kGreater: return ">";
    case Expr::Op::kGreaterEqual: return ">=";
    case Expr::Op::kNone: break;
  }
  return "?";
}

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

class FormulaParser {
 public:
  explicit FormulaParser(const std::string& text) : text_(text) {}

  Result<Expr> Parse() {
    Expr lhs;
    if (!Sum(lhs, 0)) return Fail();
    SkipSpace();
    Expr::Op cmp = Expr::Op::kNone;
    if (Accept("<=")) {
      cmp = Expr::Op::kLessEqual;
    } else if (Accept(">=")) {
      cmp = Expr::Op::kGreaterEqual;
    } else if (Accept("<")) {
      cmp = Expr::Op::kLess;
    } else if (Accept(">")) {
      cmp = Expr::Op::kGreater;
    }
    if (cmp != Expr::Op::kNone) {
      Expr rhs;
      if (!Sum(rhs, 0)) return Fail();
      Expr node;
      node.kind = Expr::Kind::kCompare;
      node.op = cmp;
      node.operands.push_back(std::move(lhs));
      node.operands.push_back(std::move(rhs));
      lhs = std::move(node);
      SkipSpace();
      if (pos_ < text_.size() && (text_[pos_] == '<' || text_[pos_] == '>')) {
        return Error("comparisons do not chain; use one comparison per formula");
      }
    }
    SkipSpace();
    if (pos_ != text_.size()) {
      if (text_[pos_] == ')') return Error("unmatched ')'");
      return Error(std::string("unexpected '") + text_[pos_] + "' after a complete expression");
    }
    return lhs;
  }

 private:
  Status Fail() { return Status::InvalidArgument(error_); }
  Status Error(const std::string& what) {
    return Status::InvalidArgument("column " + std::to_string(pos_ + 1) + ": " + what);
  }
  bool SetError(const std::string& what) {
    if (error_.empty()) error_ = "column " + std::to_string(pos_ + 1) + ": " + what;
    return false;
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Accept(const char* token) {
    SkipSpace();
    std::string_view t(token);
    if (text_.compare(pos_, t.size(), t) == 0) {
      pos_ += t.size();
      return true;
    }
    return false;
  }

  Expr Binary(Expr::Op op, Expr lhs, Expr rhs) {
    ++operators_;
    Expr node;
    node.kind = Expr::Kind::kBinary;
    node.op = op;
    node.operands.push_back(std::move(lhs));
    node.operands.push_back(std::move(rhs));
    return node;
  }

  bool Sum(Expr& out, int depth) {
    if (!Product(out, depth)) return false;
    for (;;) {
      Expr::Op op;
      if (Accept("+")) {
        op = Expr::Op::kAdd;
      } else if (Accept("-")) {
        op = Expr::Op::kSub;
      } else {
        return true;
      }
      if (operators_ >= kMaxOperators) return SetError("formula has too many operators");
      Expr rhs;
      if (!Product(rhs, depth)) return false;
      out = Binary(op, std::move(out), std::move(rhs));
    }
  }

  bool Product(Expr& out, int depth) {
    if (!Unary(out, depth)) return false;
    for (;;) {
      Expr::Op op;
      if (Accept("*")) {
        op = Expr::Op::kMul;
      } else if (Accept("/")) {
        op = Expr::Op::kDiv;
      } else {
        return true;
      }
      if (operators_ >= kMaxOperators) return SetError("formula has too many operators");
      Expr rhs;
      if (!Unary(rhs, depth)) return false;
      out = Binary(op, std::move(out), std::move(rhs));
    }
  }

  bool Unary(Expr& out, int depth) {
    if (depth > kMaxDepth) return SetError("expression nested too deeply");
    if (Accept("-")) {
      Expr operand;
      if (!Unary(operand, depth + 1)) return false;
      if (operand.kind == Expr::Kind::kNumber) {
        operand.number = -operand.number;
        out = std::move(operand);
      } else {
        Expr zero;
        out = Binary(Expr::Op::kSub, std::move(zero), std::move(operand));
      }
      return true;
    }
    return Primary(out, depth);
  }

  bool Primary(Expr& out, int depth) {
    SkipSpace();
    if (pos_ >= text_.size()) return SetError("expected an operand, found the end of the formula");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      if (!Sum(out, depth + 1)) return false;
      if (!Accept(")")) return SetError("expected ')'");
      return true;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return Number(out);
    if (IsIdentStart(c)) {
      std::string first = Identifier();
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == '.') {
        ++pos_;
        SkipSpace();
        if (pos_ >= text_.size() || !IsIdentStart(text_[pos_])) {
          return SetError("expected a predicate name after '" + first + ".'");
        }
        out = Expr();
        out.kind = Expr::Kind::kParamPredicate;
        out.param = std::move(first);
        out.name = Identifier();
        return true;
      }
      if (pos_ < text_.size() && text_[pos_] == '(') {
        ++pos_;
        SkipSpace();
        if (pos_ >= text_.size() || !IsIdentStart(text_[pos_])) {
          return SetError("expected a parameter name in " + first + "(...)");
        }
        out = Expr();
        out.kind = Expr::Kind::kTableLookup;
        out.name = std::move(first);
        out.param = Identifier();
        if (!Accept(")")) return SetError("expected ')' after the table argument");
        return true;
      }
      out = Expr();
      out.kind = Expr::Kind::kPredicate;
      out.name = std::move(first);
      return true;
    }
    return SetError(std::string("expected an operand, found '") + c + "'");
  }

  std::string Identifier() {
    size_t begin = pos_;
    while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
    return text_.substr(begin, pos_ - begin);
  }

  bool Number(Expr& out) {
    size_t begin = pos_;
    while (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) {
      ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t save = pos_;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      } else {
        pos_ = save;
      }
    }
    std::string literal = text_.substr(begin, pos_ - begin);
    double value = 0;
    auto [end, ec] = std::from_chars(literal.data(), literal.data() + literal.size(), value);
    if (ec != std::errc() || end != literal.data() + literal.size() || !std::isfinite(value)) {
      pos_ = begin;
      return SetError("bad number '" + literal + "'");
    }
    if (pos_ < text_.size() && IsIdentChar(text_[pos_])) {
      return SetError("unexpected '" + std::string(1, text_[pos_]) + "' after the number " + literal);
    }
    out = Expr();
    out.kind = Expr::Kind::kNumber;
    out.number = value;
    return true;
  }

  const std::string& text_;
  size_t pos_ = 0;
  int operators_ = 0;
  std::string error_;
};

std::string FormatNumber(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  if (ec != std::errc()) return "?";
  return std::string(buf, end);
}

std::optional<double> Evaluate(const Expr& expr,
                               const std::function<std::optional<double>(const Expr& leaf)>& leaf, int depth) {
  if (depth > kMaxDepth + kMaxOperators + 8) return std::nullopt;
  switch (expr.kind) {
    case Expr::Kind::kNumber:
      return expr.number;
    case Expr::Kind::kPredicate:
    case Expr::Kind::kParamPredicate:
    case Expr::Kind::kTableLookup:
      return leaf(expr);
    case Expr::Kind::kBinary:
    case Expr::Kind::kCompare: {
      if (expr.operands.size() != 2) return std::nullopt;
      std::optional<double> a = Evaluate(expr.operands[0], leaf, depth + 1);
      if (!a) return std::nullopt;
      std::optional<double> b = Evaluate(expr.operands[1], leaf, depth + 1);
      if (!b) return std::nullopt;
      switch (expr.op) {
        case Expr::Op::kAdd: return *a + *b;
        case Expr::Op::kSub: return *a - *b;
        case Expr::Op::kMul: return *a * *b;
        case Expr::Op::kDiv:
          if (*b == 0) return std::nullopt;
          return *a / *b;
        case Expr::Op::kLess: return *a < *b ? 1.0 : 0.0;
        case Expr::Op::kLessEqual: return *a <= *b ? 1.0 : 0.0;
        case Expr::Op::kGreater: return *a > *b ? 1.0 : 0.0;
        case Expr::Op::kGreaterEqual: return *a >= *b ? 1.0 : 0.0;
        case Expr::Op::kNone: return std::nullopt;
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string Expr::ToString() const {
  switch (kind) {
    case Kind::kNumber: return FormatNumber(number);
    case Kind::kPredicate: return name;
    case Kind::kParamPredicate: return param + "." + name;
    case Kind::kTableLookup: return name + "(" + param + ")";
    case Kind::kBinary:
      if (operands.size() != 2) return "(?)";
      // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "(" + std::string.
      return std::string("(")
          .append(operands[0].ToString())
          .append(" ")
          .append(OpSpelling(op))
          .append(" ")
          .append(operands[1].ToString())
          .append(")");
    case Kind::kCompare:  // only ever at the top, where the grammar allows no parentheses around it
      if (operands.size() != 2) return "?";
      return operands[0].ToString() + " " + OpSpelling(op) + " " + operands[1].ToString();
  }
  return "?";
}

Result<Expr> ParseFormula(const std::string& formula) {
  if (formula.find_first_not_of(" \t") == std::string::npos) {
    return Status::InvalidArgument("empty formula");
  }
  FormulaParser parser(formula);
  return parser.Parse();
}

std::optional<double> EvaluateExpr(const Expr& expr,
                                   const std::function<std::optional<double>(const Expr& leaf)>& leaf) {
  return Evaluate(expr, leaf, 0);
}

}  // namespace chipkg
