// The derive formula language: parsing, printing, evaluation, and the tree
// of each rule schema/predicates.schema declares.

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "schema/schema.h"

namespace chipkg {
namespace {

std::string Parsed(const std::string& formula) {
  Result<Expr> e = ParseFormula(formula);
  if (!e.ok()) return "error: " + e.status().message();
  return e->ToString();
}

TEST(Formula, PrecedenceAndAssociativity) {
  EXPECT_EQ(Parsed("a + b * c"), "(a + (b * c))");
  EXPECT_EQ(Parsed("a * b + c"), "((a * b) + c)");
  EXPECT_EQ(Parsed("a - b - c"), "((a - b) - c)");
  EXPECT_EQ(Parsed("a / b / c"), "((a / b) / c)");
  EXPECT_EQ(Parsed("(a + b) * c"), "((a + b) * c)");
  EXPECT_EQ(Parsed("a + b <= c * 2"), "(a + b) <= (c * 2)");
  EXPECT_EQ(Parsed("a<b"), "a < b");
  EXPECT_EQ(Parsed("a >= b"), "a >= b");
  EXPECT_EQ(Parsed("a > 1.5e3"), "a > 1500");
  EXPECT_EQ(Parsed("-2 * a"), "(-2 * a)");
  EXPECT_EQ(Parsed("-a"), "(0 - a)");
  EXPECT_EQ(Parsed("m.parameters * bytes_per_parameter(p) <= memory"),
            "(m.parameters * bytes_per_parameter(p)) <= memory");
  EXPECT_EQ(Parsed(" m . parameters*t( p ) "), "(m.parameters * t(p))");
}

TEST(Formula, Errors) {
  EXPECT_EQ(Parsed(""), "error: empty formula");
  EXPECT_EQ(Parsed("a +"), "error: column 4: expected an operand, found the end of the formula");
  EXPECT_EQ(Parsed("a + * b"), "error: column 5: expected an operand, found '*'");
  EXPECT_EQ(Parsed("(a + b"), "error: column 7: expected ')'");
  EXPECT_EQ(Parsed("a + b)"), "error: column 6: unmatched ')'");
  EXPECT_EQ(Parsed("a b"), "error: column 3: unexpected 'b' after a complete expression");
  EXPECT_EQ(Parsed("a < b < c"), "error: column 7: comparisons do not chain; use one comparison per formula");
  EXPECT_EQ(Parsed("(a < b)"), "error: column 4: expected ')'");
  EXPECT_EQ(Parsed("m."), "error: column 3: expected a predicate name after 'm.'");
  EXPECT_EQ(Parsed("t()"), "error: column 3: expected a parameter name in t(...)");
  EXPECT_EQ(Parsed("t(p"), "error: column 4: expected ')' after the table argument");
  EXPECT_EQ(Parsed("1.2.3"), "error: column 1: bad number '1.2.3'");
  EXPECT_EQ(Parsed("2x"), "error: column 2: unexpected 'x' after the number 2");
  EXPECT_EQ(Parsed("a % b"), "error: column 3: unexpected '%' after a complete expression");
  EXPECT_NE(Parsed(std::string(100, '(') + "a" + std::string(100, ')')).find("nested too deeply"), std::string::npos);
  EXPECT_EQ(Parsed(std::string(60, '(') + "a" + std::string(60, ')')), "a");
}

TEST(Formula, Evaluate) {
  Result<Expr> e = ParseFormula("(a + b) * 2 - c / 4");
  ASSERT_TRUE(e.ok());
  std::map<std::string, double> values = {{"a", 1}, {"b", 2}, {"c", 8}};
  auto leaf = [&](const Expr& x) -> std::optional<double> {
    auto it = values.find(x.name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
  EXPECT_EQ(EvaluateExpr(*e, leaf), 4.0);
  values.erase("c");
  EXPECT_FALSE(EvaluateExpr(*e, leaf).has_value());  // a missing input: no answer, not zero

  Result<Expr> div = ParseFormula("a / b");
  values = {{"a", 1}, {"b", 0}};
  EXPECT_FALSE(EvaluateExpr(*div, leaf).has_value());

  Result<Expr> cmp = ParseFormula("a * 2 <= b");
  values = {{"a", 2}, {"b", 4}};
  EXPECT_EQ(EvaluateExpr(*cmp, leaf), 1.0);
  values["b"] = 3.9;
  EXPECT_EQ(EvaluateExpr(*cmp, leaf), 0.0);
}

class DeclaredRules : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<Schema> s = Schema::LoadDirectory(std::string(CHIPKG_SOURCE_DIR) + "/schema");
    ASSERT_TRUE(s.ok()) << s.status().message();
    schema_ = std::move(s).value();
  }
  Schema schema_;
};

// fits(model, precision) = model.parameters * bytes_per_parameter(precision) <= memory,
// walked node by node and evaluated by hand for the seed's Llama 3.1 70B rows.
TEST_F(DeclaredRules, Fits) {
  const DerivationDef* d = schema_.FindDerivation("fits");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->params, (std::vector<std::string>{"model", "precision"}));
  EXPECT_TRUE(d->result_dimension.empty());
  const Expr& top = d->expr;
  ASSERT_EQ(top.kind, Expr::Kind::kCompare);
  EXPECT_EQ(top.op, Expr::Op::kLessEqual);
  ASSERT_EQ(top.operands.size(), 2u);
  const Expr& need = top.operands[0];
  ASSERT_EQ(need.kind, Expr::Kind::kBinary);
  EXPECT_EQ(need.op, Expr::Op::kMul);
  ASSERT_EQ(need.operands.size(), 2u);
  EXPECT_EQ(need.operands[0].kind, Expr::Kind::kParamPredicate);
  EXPECT_EQ(need.operands[0].param, "model");
  EXPECT_EQ(need.operands[0].name, "parameters");
  EXPECT_EQ(need.operands[1].kind, Expr::Kind::kTableLookup);
  EXPECT_EQ(need.operands[1].name, "bytes_per_parameter");
  EXPECT_EQ(need.operands[1].param, "precision");
  EXPECT_EQ(top.operands[1].kind, Expr::Kind::kPredicate);
  EXPECT_EQ(top.operands[1].name, "memory");

  // By hand, from the tree: 70e9 parameters at INT8 (1 byte) need 70 GB.
  const auto& table = schema_.tables().at(need.operands[1].name);
  double params = 70e9;
  double need_int8 = params * table.at("int8");
  double need_fp16 = params * table.at("fp16");
  EXPECT_EQ(need_int8, 70e9);
  EXPECT_TRUE(need_int8 <= 96e9);   // Trainium 2 (96 GB): fits at INT8, as its page marks
  EXPECT_FALSE(need_fp16 <= 96e9);  // but not at FP16 (140 GB)
  EXPECT_FALSE(need_int8 <= 32e9);  // Trainium (32 GB): not at INT8

  // The same through EvaluateExpr, with leaves supplied as the query layer would.
  auto leaf_for = [&](double memory, const std::string& precision) {
    return [&, memory, precision](const Expr& x) -> std::optional<double> {
      if (x.kind == Expr::Kind::kParamPredicate && x.name == "parameters") return params;
      if (x.kind == Expr::Kind::kTableLookup) return schema_.tables().at(x.name).at(precision);
      if (x.kind == Expr::Kind::kPredicate && x.name == "memory") return memory;
      return std::nullopt;
    };
  };
  EXPECT_EQ(EvaluateExpr(top, leaf_for(96e9, "int8")), 1.0);
  EXPECT_EQ(EvaluateExpr(top, leaf_for(96e9, "fp16")), 0.0);
  EXPECT_EQ(EvaluateExpr(top, leaf_for(32e9, "int4")), 0.0);  // 35 GB > 32 GB
}

// perf_per_watt = peak_throughput / tdp: Trainium 2's FP8 1,300 TFLOPS / 500 W = 2.6 TFLOPS/W.
TEST_F(DeclaredRules, PerfPerWatt) {
  const DerivationDef* d = schema_.FindDerivation("perf_per_watt");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->params.empty());
  EXPECT_EQ(d->result_dimension, "ops_per_watt");
  EXPECT_EQ(d->display_unit, "TFLOPS/W");
  const Expr& top = d->expr;
  ASSERT_EQ(top.kind, Expr::Kind::kBinary);
  EXPECT_EQ(top.op, Expr::Op::kDiv);
  EXPECT_EQ(top.operands[0].kind, Expr::Kind::kPredicate);
  EXPECT_EQ(top.operands[0].name, "peak_throughput");
  EXPECT_EQ(top.operands[1].kind, Expr::Kind::kPredicate);
  EXPECT_EQ(top.operands[1].name, "tdp");
  EXPECT_EQ(schema_.FindPredicate(top.operands[0].name)->dimension, "ops_per_second");
  EXPECT_EQ(schema_.FindPredicate(top.operands[1].name)->dimension, "watts");

  double by_hand = 1.3e15 / 500;
  EXPECT_EQ(schema_.FormatQuantity(by_hand, d->result_dimension, d->display_unit), "2.6 TFLOPS/W");
  std::optional<double> v = EvaluateExpr(top, [](const Expr& x) -> std::optional<double> {
    return x.name == "peak_throughput" ? 1.3e15 : 500.0;
  });
  EXPECT_EQ(v, by_hand);
}

// price_per_chip_hour = instance_price / chips: $9.532 per hour / 16 chips = $0.596 (rounded by the page).
TEST_F(DeclaredRules, PricePerChipHour) {
  const DerivationDef* d = schema_.FindDerivation("price_per_chip_hour");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->result_dimension, "usd_per_hour");
  const Expr& top = d->expr;
  ASSERT_EQ(top.kind, Expr::Kind::kBinary);
  EXPECT_EQ(top.op, Expr::Op::kDiv);
  EXPECT_EQ(top.operands[0].name, "instance_price");
  EXPECT_EQ(top.operands[1].name, "chips");
  EXPECT_EQ(schema_.FindPredicate("chips")->dimension, "count");
  std::optional<double> v = EvaluateExpr(top, [](const Expr& x) -> std::optional<double> {
    return x.name == "instance_price" ? 9.532 : 16.0;
  });
  ASSERT_TRUE(v);
  EXPECT_NEAR(*v, 0.59575, 1e-12);
  EXPECT_EQ(schema_.FormatQuantity(21.50 / 16, d->result_dimension, "$/hr"), "$1.344/hr");
}

// Every declared rule parses back to the same tree from its own ToString.
TEST_F(DeclaredRules, EveryRulePrintsAndReparses) {
  ASSERT_FALSE(schema_.derivations().empty());
  for (const DerivationDef& d : schema_.derivations()) {
    Result<Expr> again = ParseFormula(d.expr.ToString());
    ASSERT_TRUE(again.ok()) << d.name;
    EXPECT_EQ(again->ToString(), d.expr.ToString()) << d.name;
  }
}

}  // namespace
}  // namespace chipkg
