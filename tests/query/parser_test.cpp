#include "query/parser.h"

#include <gtest/gtest.h>

#include <string>

#include "query/suggest.h"

namespace chipkg::query {
namespace {

Query MustParse(const std::string& text) {
  Result<Query> q = ParseQuery(text);
  EXPECT_TRUE(q.ok()) << text << "\n" << q.status().message();
  return q.ok() ? *q : Query{};
}

std::string ErrorOf(const std::string& text) {
  Result<Query> q = ParseQuery(text);
  EXPECT_FALSE(q.ok()) << "parsed but should not: " << text;
  return q.ok() ? "" : q.status().message();
}

TEST(ParserTest, FindWithComparisonAndClauses) {
  Query q = MustParse("find chip where memory >= 64 GB and memory_bandwidth > 2 TB/s order by memory desc limit 5");
  EXPECT_EQ(q.statement, StatementKind::kFind);
  EXPECT_EQ(q.kind, "chip");
  ASSERT_TRUE(q.where.has_value());
  ASSERT_EQ(q.where->kind, Condition::Kind::kAnd);
  ASSERT_EQ(q.where->children.size(), 2u);
  const Comparison& c = q.where->children[0].comparison;
  EXPECT_EQ(c.attribute.name, "memory");
  EXPECT_EQ(c.op, CompareOp::kGe);
  EXPECT_EQ(c.value.kind, Literal::Kind::kNumber);
  EXPECT_DOUBLE_EQ(c.value.number, 64);
  EXPECT_EQ(c.value.unit, "GB");
  EXPECT_EQ(q.where->children[1].comparison.value.unit, "TB/s");
  ASSERT_EQ(q.order.size(), 1u);
  EXPECT_TRUE(q.order[0].descending);
  EXPECT_EQ(q.limit.value_or(0), 5u);
}

TEST(ParserTest, PrecedenceNotAndOr) {
  Query q = MustParse("find chip where not reported(foundry) or tdp < 300 W and (released >= 2024 or unknown(tdp))");
  ASSERT_EQ(q.where->kind, Condition::Kind::kOr);
  ASSERT_EQ(q.where->children.size(), 2u);
  EXPECT_EQ(q.where->children[0].kind, Condition::Kind::kNot);
  EXPECT_EQ(q.where->children[0].children[0].kind, Condition::Kind::kCall);
  EXPECT_EQ(q.where->children[0].children[0].call.name, "reported");
  const Condition& conj = q.where->children[1];
  ASSERT_EQ(conj.kind, Condition::Kind::kAnd);
  EXPECT_EQ(conj.children[1].kind, Condition::Kind::kOr);
}

TEST(ParserTest, CallsWithStringsWordsAndOptions) {
  Query q = MustParse("find chip where fits('Mixtral 8x7B', fp16, headroom 15%) show memory, foundry");
  const Call& call = q.where->call;
  EXPECT_EQ(call.name, "fits");
  ASSERT_EQ(call.args.size(), 3u);
  EXPECT_EQ(call.args[0].value.kind, Literal::Kind::kString);
  EXPECT_EQ(call.args[0].value.text, "Mixtral 8x7B");
  EXPECT_EQ(call.args[1].value.kind, Literal::Kind::kWord);
  EXPECT_EQ(call.args[1].value.text, "fp16");
  EXPECT_EQ(call.args[2].option, "headroom");
  EXPECT_DOUBLE_EQ(call.args[2].value.number, 15);
  EXPECT_EQ(call.args[2].value.unit, "%");
  ASSERT_EQ(q.show.size(), 2u);
  EXPECT_EQ(q.show[1].attribute.name, "foundry");
}

// "foundry is reported" is the test reported(foundry), as a researcher says
// it; negated and qualified alike, and "is" before a value says how to
// compare one.
TEST(ParserTest, AttributeIsStateReadsAsTheTest) {
  struct Case {
    const char* text;
    const char* call;
    bool negated;
  };
  for (const Case& c : {Case{"foundry is reported", "reported", false}, Case{"foundry IS Published", "reported", false},
                        Case{"foundry is not reported", "reported", true},
                        Case{"foundry is not published", "not_published", false},
                        Case{"foundry is not_published", "not_published", false},
                        Case{"foundry is unknown", "unknown", false}, Case{"foundry is not unknown", "unknown", true},
                        Case{"foundry is conflicting", "conflicting", false}}) {
    SCOPED_TRACE(c.text);
    Query q = MustParse(std::string("find chip where ") + c.text);
    ASSERT_TRUE(q.where.has_value());
    const Condition* test = &*q.where;
    if (c.negated) {
      ASSERT_EQ(test->kind, Condition::Kind::kNot);
      test = &test->children.at(0);
    }
    ASSERT_EQ(test->kind, Condition::Kind::kCall);
    EXPECT_EQ(test->call.name, c.call);
    ASSERT_EQ(test->call.args.size(), 1u);
    EXPECT_EQ(test->call.args[0].value.kind, Literal::Kind::kWord);
    EXPECT_EQ(test->call.args[0].value.text, "foundry");
  }
  Query q = MustParse("find chip where memory >= 64 GB and peak_throughput{format=fp8} is not published or tdp < 1 W");
  ASSERT_EQ(q.where->kind, Condition::Kind::kOr);
  const Condition& conj = q.where->children.at(0);
  ASSERT_EQ(conj.kind, Condition::Kind::kAnd);
  const Call& call = conj.children.at(1).call;
  EXPECT_EQ(call.name, "not_published");
  EXPECT_EQ(call.args.at(0).value.text, "peak_throughput");
  EXPECT_EQ(call.args.at(0).qualifiers.at("format"), "fp8");
  // A phrase and its call are the same query.
  EXPECT_EQ(MustParse("find chip where foundry is not reported").where->children.at(0).call.name,
            MustParse("find chip where not reported(foundry)").where->children.at(0).call.name);
  EXPECT_EQ(ErrorOf("find chip where foundry is TSMC"),
            "line 1, column 28: expected reported, not published, unknown or conflicting after 'is' (a value is "
            "compared with '=', as in foundry = TSMC)\n"
            "  find chip where foundry is TSMC\n"
            "                             ^");
}

// `evidence` is a keyword only after `with`; elsewhere it is the data-center
// attribute of that name.
TEST(ParserTest, EvidenceIsAnAttributeExceptAfterWith) {
  Query q = MustParse("find data_center where evidence = reported show status, evidence with evidence");
  EXPECT_EQ(q.where->comparison.attribute.name, "evidence");
  ASSERT_EQ(q.show.size(), 2u);
  EXPECT_EQ(q.show[1].attribute.name, "evidence");
  EXPECT_TRUE(q.with_evidence);
  EXPECT_EQ(MustParse("'Some campus'.evidence").member->attribute.name, "evidence");
  EXPECT_FALSE(MustParse("find data_center show evidence").with_evidence);
  EXPECT_NE(ErrorOf("find chip where fits('Llama 3.1 70B', int4) with").find("expected 'evidence' after 'with'"),
            std::string::npos);
}

TEST(ParserTest, NumbersAsPagesWriteThem) {
  Query q = MustParse("find chip where memory_bandwidth >= 2,900 GB/s or peak_throughput > 1.3e15 FLOP/s");
  EXPECT_DOUBLE_EQ(q.where->children[0].comparison.value.number, 2900);
  EXPECT_DOUBLE_EQ(q.where->children[1].comparison.value.number, 1.3e15);
  EXPECT_EQ(q.where->children[1].comparison.value.unit, "FLOP/s");
}

TEST(ParserTest, QualifiersAndDates) {
  Query q = MustParse("find chip where peak_throughput{format=fp8, sparsity=dense} > 1 PFLOPS and announced < 2023-11-15");
  const AttributeRef& a = q.where->children[0].comparison.attribute;
  EXPECT_EQ(a.qualifiers.at("format"), "fp8");
  EXPECT_EQ(a.qualifiers.at("sparsity"), "dense");
  EXPECT_EQ(q.where->children[1].comparison.value.kind, Literal::Kind::kDate);
  EXPECT_EQ(q.where->children[1].comparison.value.text, "2023-11-15");
}

TEST(ParserTest, LookupFactsConflictsCount) {
  Query a = MustParse("trainium2.memory_bandwidth");
  EXPECT_EQ(a.statement, StatementKind::kLookup);
  EXPECT_EQ(a.entity, "trainium2");
  EXPECT_EQ(a.member->attribute.name, "memory_bandwidth");
  Query b = MustParse("\"AWS Trainium 2\".fits(\"Llama 3.1 70B\", int8)");
  EXPECT_EQ(b.entity, "AWS Trainium 2");
  EXPECT_TRUE(b.member->is_call);
  Query c = MustParse("facts about trainium from document 001_fbc9a4a76c8d550e");
  EXPECT_EQ(c.statement, StatementKind::kFacts);
  EXPECT_EQ(c.entity, "trainium");
  EXPECT_EQ(c.document.value_or(""), "001_fbc9a4a76c8d550e");
  Query d = MustParse("conflicts about Trn1");
  EXPECT_EQ(d.statement, StatementKind::kConflicts);
  Query e = MustParse("COUNT chips WHERE reported(foundry);");
  EXPECT_EQ(e.statement, StatementKind::kCount);
  EXPECT_EQ(e.kind, "chips");
}

TEST(ParserTest, SourceAndTimeClauses) {
  Query q = MustParse(
      "find chip where reported(foundry) using vendor, site aws.amazon.com prefer vendor, press "
      "as of 2024-06 as at run \"2025-01-02-nightly\" tolerance 5%");
  ASSERT_EQ(q.using_sources.size(), 2u);
  EXPECT_FALSE(q.using_sources[0].is_site);
  EXPECT_EQ(q.using_sources[0].name, "vendor");
  EXPECT_TRUE(q.using_sources[1].is_site);
  EXPECT_EQ(q.using_sources[1].name, "aws.amazon.com");
  EXPECT_EQ(q.prefer.size(), 2u);
  EXPECT_EQ(q.valid_on.value_or(""), "2024-06");
  ASSERT_TRUE(q.as_at.has_value());
  EXPECT_EQ(q.as_at->kind, TransactionPoint::Kind::kRun);
  EXPECT_EQ(q.as_at->run, "2025-01-02-nightly");
  EXPECT_DOUBLE_EQ(q.tolerance_percent.value_or(0), 5);
  Query t = MustParse("find chip as at tx 12");
  EXPECT_EQ(t.as_at->kind, TransactionPoint::Kind::kTx);
  EXPECT_EQ(t.as_at->tx, 12u);
  Query ts = MustParse("find chip as at 2025-01-31T12:00:00Z as of 2024");
  EXPECT_EQ(ts.as_at->time, "2025-01-31T12:00:00Z");
  EXPECT_EQ(ts.valid_on.value_or(""), "2024");
}

TEST(ParserTest, CommentsAndNewlines) {
  Query q = MustParse("find chip  # every chip\n  where memory >= 64 GB # big ones\n  show memory\n");
  EXPECT_EQ(q.where->comparison.attribute.name, "memory");
  EXPECT_EQ(q.where->comparison.attribute.pos.line, 2);
  EXPECT_EQ(q.where->comparison.attribute.pos.column, 9);
}

TEST(ParserTest, ErrorsSayWhereAndWhat) {
  EXPECT_EQ(ErrorOf("find chip where memory >= and"),
            "line 1, column 27: expected a value to compare with: a number with a unit (64 GB), a date (2024-06), "
            "a quoted name, true/false, or a word such as TSMC\n"
            "  find chip where memory >= and\n"
            "                            ^");
  EXPECT_EQ(ErrorOf("find chip where memory >= 64 GB shwo memory"),
            "line 1, column 33: expected 'and', 'or', a clause (show, order by, limit, using, prefer, from "
            "document, as of, as at, tolerance, with evidence, ignoring not_published) or the end of the query "
            "(did you mean 'show'?)\n"
            "  find chip where memory >= 64 GB shwo memory\n"
            "                                  ^");
  EXPECT_NE(ErrorOf("fnd chip").find("did you mean 'find'?"), std::string::npos);
  // A name with a dot of its own reads as a name and an attribute: the error shows it quoted.
  EXPECT_NE(ErrorOf("trn1.2xlarge.price_per_chip_hour")
                .find("column 6: expected an attribute or a test after '.', e.g. trainium2.memory; a name with a dot "
                      "in it is quoted: \"trn1.2xlarge\".price_per_chip_hour"),
            std::string::npos)
      << ErrorOf("trn1.2xlarge.price_per_chip_hour");
  EXPECT_EQ(ErrorOf("trainium.").find("quoted"), std::string::npos);  // one dot: nothing to quote
  EXPECT_EQ(ErrorOf("trainium..memory").find("quoted"), std::string::npos);  // a typo, not a name's dot
  EXPECT_EQ(ErrorOf("trn1.2xlarge.").find("quoted"), std::string::npos);     // no attribute after it
  EXPECT_NE(ErrorOf("find chip where (memory >= 64 GB").find("expected ')' to close the group"), std::string::npos);
  EXPECT_NE(ErrorOf("find chip where memory 64 GB").find("expected a comparison operator"), std::string::npos);
  EXPECT_NE(ErrorOf("find chip where fits(\"Llama").find("unterminated string"), std::string::npos);
  EXPECT_NE(ErrorOf("find").find("expected an entity kind"), std::string::npos);
  EXPECT_NE(ErrorOf("").find("line 1, column 1: expected a query"), std::string::npos);
  EXPECT_NE(ErrorOf("find chip limit 3 limit 4").find("given twice"), std::string::npos);
  EXPECT_NE(ErrorOf("find chip where memory > 1e999999 GB").find("number out of range"), std::string::npos);
  EXPECT_NE(ErrorOf("find chip limit 99999999999999999999999").find("limit out of range"), std::string::npos);
  EXPECT_NE(ErrorOf("find chip where\n  memory >=\n  ").find("line 3, column 3"), std::string::npos);
  // Quotes that hold no name name no entity: a lookup of one crashed, an `about` one answered for every entity.
  EXPECT_EQ(ErrorOf("\"\".memory"),
            "line 1, column 1: an entity name is needed between the quotes (e.g. \"Trainium 2\")\n"
            "  \"\".memory\n"
            "  ^");
  for (const char* empty : {"''.memory", "\xE2\x80\x9C\xE2\x80\x9D.memory", "\" \".tdp", "conflicts about \"\"",
                            "conflicts in chip about ''", "facts about \"\""}) {
    EXPECT_NE(ErrorOf(empty).find("an entity name is needed"), std::string::npos) << empty;
  }
}

TEST(ParserTest, InvalidUtf8IsRefusedWithPosition) {
  const std::string bad = "find chip where foundry = \"TSM\xff\"";
  const std::string e = ErrorOf(bad);
  EXPECT_NE(e.find("line 1, column 31: invalid UTF-8 (byte 0xFF)"), std::string::npos) << e;
  // The line it quotes shows the bad byte as '?', so the message itself is UTF-8 (a terminal or a
  // cron mail got a broken character), and a truncated character before the end too.
  EXPECT_NE(e.find("\n  find chip where foundry = \"TSM?\"\n"), std::string::npos) << e;
  const std::string cut = ErrorOf("find chip where foundry = \"TSMC\" and \xE2\x80");
  EXPECT_NE(cut.find("\n  find chip where foundry = \"TSMC\" and ??\n"), std::string::npos) << cut;
  // Valid multi-byte text in a string is fine, and columns count characters.
  Query q = MustParse("find chip where description contains \"préférée\" and tdp > 1 W");
  EXPECT_EQ(q.where->children[1].comparison.attribute.pos.column, 53);
}

TEST(ParserTest, DeepNestingIsBoundedNotFatal) {
  std::string deep(10000, '(');
  deep = "find chip where " + deep + "memory > 1 GB" + std::string(10000, ')');
  EXPECT_NE(ErrorOf(deep).find("nested more than 64 levels"), std::string::npos);
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "not ";
  EXPECT_NE(ErrorOf("find chip where " + nots + "reported(tdp)").find("nested more than"), std::string::npos);
  // Exactly 64 levels parse, 65 do not, as the message says.
  auto parens = [](size_t n) {
    return "find chip where " + std::string(n, '(') + "memory > 1 GB" + std::string(n, ')');
  };
  auto negations = [](size_t n) {
    std::string q = "find chip where ";
    for (size_t i = 0; i < n; ++i) q += "not ";
    return q + "reported(tdp)";
  };
  MustParse(parens(kMaxNesting));
  MustParse(negations(kMaxNesting));
  EXPECT_NE(ErrorOf(parens(kMaxNesting + 1)).find("nested more than 64 levels"), std::string::npos);
  EXPECT_NE(ErrorOf(negations(kMaxNesting + 1)).find("nested more than 64 levels"), std::string::npos);
  // Levels of both kinds add up.
  EXPECT_NE(ErrorOf("find chip where " + std::string(33, '(') + negations(32).substr(16) + std::string(33, ')'))
                .find("nested more than"),
            std::string::npos);
}

TEST(SuggestTest, NearestNames) {
  EXPECT_EQ(EditDistance("memroy", "memory"), 1u);
  EXPECT_EQ(EditDistance("MEMORY", "memory"), 0u);
  const std::vector<std::string> names = {"memory", "memory_bandwidth", "memory_type", "tdp", "foundry"};
  auto near = NearestNames("memroy", names);
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near[0], "memory");
  EXPECT_EQ(DidYouMean("fondry", names), " (did you mean 'foundry'?)");
  EXPECT_EQ(DidYouMean("zzzzzz", names), "");
}

}  // namespace
}  // namespace chipkg::query

namespace chipkg::query {
namespace {

// A complete statement followed by what another query language would write
// there, or by a condition the statement does not take: the error says what
// to write instead, not only which clauses may follow.
TEST(ParserTest, AfterACompleteStatementTheErrorSaysWhatToWrite) {
  auto hint = [](const std::string& text) {
    const std::string e = ErrorOf(text);
    const size_t semicolon = e.find("end of the query; ");
    return semicolon == std::string::npos ? std::string() : e.substr(semicolon + 18, e.find('\n') - semicolon - 18);
  };
  EXPECT_EQ(hint("trainium.memory and tdp").rfind("a lookup (ENTITY.ATTRIBUTE) takes no condition", 0), 0u);
  EXPECT_EQ(hint("trainium.memory or trainium.tdp").rfind("a lookup (ENTITY.ATTRIBUTE) takes no condition", 0), 0u);
  EXPECT_EQ(hint("facts about trainium where memory > 1 GB").rfind("'facts about' lists every claim", 0), 0u);
  EXPECT_EQ(hint("conflicts in chip where memory > 1 GB").rfind("'conflicts' takes no condition", 0), 0u);
  EXPECT_EQ(hint("count chip by foundry where memory > 1 GB"), "'where' comes before 'by': count chip where ... by foundry");
  EXPECT_EQ(hint("find chip show memory where memory > 1 GB"),
            "'where' comes right after the kind, before show, order by and limit");
  EXPECT_EQ(hint("find chip sort by memory"), "write 'order by ATTRIBUTE [asc|desc]'");
  EXPECT_EQ(hint("find chip top 3"), "write 'limit N' at the end (with order by for the largest)");
  EXPECT_EQ(hint("find chip order by memory sideways"), "'order by ATTRIBUTE' takes asc or desc after it");
  EXPECT_EQ(hint("find chip where memory > NaN GB"),
            "'NaN' is not a number: a quantity is compared with a decimal number and a unit, e.g. 64 GB");
  EXPECT_EQ(hint("find chip where memory > 0x40 GB").rfind("'0x40' is not a number", 0), 0u);
  EXPECT_EQ(hint("find chip order by tdp and memory > 1 GB"), "a condition goes after 'where', before 'order by'");
  EXPECT_EQ(hint("find chip where tdp > 1 W limit 3 where x"), "a query has one 'where': join its conditions with 'and' or 'or'");
  // Not after a direction, or further on.
  EXPECT_EQ(hint("find chip order by tdp desc foo"), "");
  EXPECT_EQ(hint("find chip order by tdp asc desc"), "");
  EXPECT_EQ(hint("find chip order by tdp using vendor foo"), "");
  // A word the statement can take no hint for keeps the message as it was.
  EXPECT_EQ(hint("find chip where memory > 1 GB foo"), "");
  EXPECT_EQ(hint("find chip where name = banana GB"), "");
}

}  // namespace
}  // namespace chipkg::query
