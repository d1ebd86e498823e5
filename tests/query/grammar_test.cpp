#include <gtest/gtest.h>

#include <tao/pegtl/contrib/analyze.hpp>

#include "query/grammar.h"

namespace {

TEST(GrammarTest, AnalyzeFindsNoProblems) {
  // No left recursion, no rule that can loop without consuming input.
  EXPECT_EQ(tao::pegtl::analyze<chipkg::query::grammar::query>(), 0u);
}

}  // namespace
