// HTML pages read as their text: the layout the extractors read (lines,
// '#' headings, "- " items, "| a | b |" rows), entities decoded, what a
// reader does not see left out.

#include "ingest/html_text.h"

#include <gtest/gtest.h>

namespace chipkg {
namespace {

TEST(HtmlText, BlocksHeadingsListsAndTablesAreLines) {
  const std::string html =
      "<!DOCTYPE html><html><head><title>Acme X1 | Site</title><style>p{color:red}</style>"
      "<script>var a = '<p>not text</p>';</script></head>\n<body>\n"
      "<nav>Chips &middot; Acme</nav>\n<h1>Acme   X1</h1>\n<p>The Acme X1 has\n  96&nbsp;GB of memory"
      "<sup>4</sup>.</p><!-- <p>hidden</p> -->\n<ul><li>TDP: 500 W</li><li>Foundry: TSMC &amp; Co</li></ul>\n"
      "<table><tr><th>Spec</th><th>Acme X1</th></tr>\n<tr><td>Memory</td><td><p>96 GB</p><p>HBM3</p></td></tr>"
      "</table><div>Price: &#36;5 &#x2014; list &lt;price&gt; x < y &unknown;</div><br>after<pre>a  b\n c</pre>"
      "</body></html>";
  EXPECT_EQ(HtmlToText(html),
            "# Acme X1\n"
            "The Acme X1 has 96 GB of memory 4.\n"
            "- TDP: 500 W\n"
            "- Foundry: TSMC & Co\n"
            "| Spec | Acme X1 |\n"
            "|---|\n"
            "| Memory | 96 GB HBM3 |\n"
            "|---|\n"
            "Price: $5 \xE2\x80\x94 list <price> x < y &unknown;\n"
            "after\n"
            "a  b\n"
            " c\n");
}

// Markup that left the rest of a page out: a <head> whose end tag is left
// out (HTML allows it), a self-closing <svg/>, an apostrophe in an unquoted
// attribute value. A unit's power stays with the unit; a footnote mark does not.
TEST(HtmlText, APageIsReadWholeWhateverItsMarkupLeavesOut) {
  EXPECT_EQ(HtmlToText("<html><head><title>Acme X9</title>\n<body><h1>Acme X9</h1><p>96 GB</p></body></html>"),
            "# Acme X9\n96 GB\n");
  EXPECT_EQ(HtmlToText("<svg class=\"i\"/><p>The Acme X3 has 96 GB.</p>"), "The Acme X3 has 96 GB.\n");
  EXPECT_EQ(HtmlToText("<h1>Acme X7</h1><img alt=Acme's chip src=x.png><p>TDP: 500 W</p>"),
            "# Acme X7\nTDP: 500 W\n");
  EXPECT_EQ(HtmlToText("<p>Die size: 826 mm<sup>2</sup>; 32 GB per chip<sup>4</sup></p>"),
            "Die size: 826 mm2; 32 GB per chip 4\n");
  EXPECT_EQ(HtmlToText("<ul><li><p>TDP: 500 W</p></li></ul><p>draws <700 W and has 96 GB</p>"),
            "- TDP: 500 W\ndraws <700 W and has 96 GB\n");
}

// A comment never closed hides the rest of the page, from a browser too: the
// text stops there, and the warning says so (a page whose rows went into an
// unclosed comment was read as a chip named after its last heading, unsaid).
TEST(HtmlText, ACommentNeverClosedIsSaid) {
  std::string warning;
  const std::string rest = "<tr><td>Memory</td><td>96 GB</td></tr></table><p>More rows, and a footer.</p></body></html>";
  EXPECT_EQ(HtmlToText("<html><body>\n<h2>Specs</h2><p>TDP: 500 W<!-- unterminated\n" + rest, &warning),
            "## Specs\nTDP: 500 W\n");
  EXPECT_NE(warning.find("an HTML comment opened on line 2 of the markup is never closed: the " +
                         std::to_string(std::string("<!-- unterminated\n").size() + rest.size()) + " bytes after it"),
            std::string::npos)
      << warning;
  HtmlToText("<p>TDP: 500 W</p><!-- a comment --><p>96 GB</p>", &warning);
  EXPECT_EQ(warning, "");
  HtmlToText("<p>TDP: 500 W</p><!-- cut", &warning);  // a few bytes at the end: nothing of note
  EXPECT_EQ(warning, "");
}

// Every named reference of HTML 4 is read: an accented maker's name and the
// signs of spec sheets were kept as written and then cut at their ';'.
TEST(HtmlText, NamedEntitiesAreDecoded) {
  EXPECT_EQ(HtmlToText("<p>Designer: Soci&eacute;t&eacute; G&eacute;n&eacute;rale des Puces</p>"),
            "Designer: Soci\xC3\xA9t\xC3\xA9 G\xC3\xA9n\xC3\xA9rale des Puces\n");
  EXPECT_EQ(HtmlToText("<p>memory &ge; 32 GB &rarr; ok; 826 mm&sup2;; &frac12; &rsaquo; &AElig;&Omega;&zwnj;</p>"),
            "memory \xE2\x89\xA5 32 GB \xE2\x86\x92 ok; 826 mm\xC2\xB2; \xC2\xBD \xE2\x80\xBA "
            "\xC3\x86\xCE\xA9\xE2\x80\x8C\n");
  // Names are case-sensitive, and one HTML 4 does not have stays as written.
  EXPECT_EQ(HtmlToText("<p>&Eacute;&eacute; &EACUTE; &notanentity; &amp</p>"),
            "\xC3\x89\xC3\xA9 &EACUTE; &notanentity; &amp\n");
}

// A spec sheet's definition list reads as the pages' "- label" / "- value" lines.
TEST(HtmlText, DefinitionListsAreItems) {
  EXPECT_EQ(HtmlToText("<h2>Specifications</h2><dl><dt>TDP</dt><dd>500 W</dd><dt>Memory</dt><dd>32 GB HBM2e</dd></dl>"),
            "## Specifications\n- TDP\n- 500 W\n- Memory\n- 32 GB HBM2e\n");
  EXPECT_EQ(HtmlToText("<table><tr><td><dl><dt>TDP</dt><dd>500 W</dd></dl></td></tr></table>"),
            "| TDP 500 W |\n|---|\n");
}

// NVIDIA's spec tables write bars inside cells; kept, they split the cell
// and moved a rack's figures into the next column's chip.
TEST(HtmlText, ABarInsideACellDoesNotSplitIt) {
  EXPECT_EQ(HtmlToText("<table><tr><th>Spec</th><th>GB300 NVL72</th><th>HGX B300</th></tr>"
                       "<tr><td>GPU Memory | Bandwidth</td><td>Up to 21 TB | Up to 576 TB/s</td><td>2.3 TB | 64 TB/s</td></tr>"
                       "</table><p>Bars | outside cells stay.</p>"),
            "| Spec | GB300 NVL72 | HGX B300 |\n|---|\n"
            "| GPU Memory / Bandwidth | Up to 21 TB / Up to 576 TB/s | 2.3 TB / 64 TB/s |\n|---|\n"
            "Bars | outside cells stay.\n");
}

TEST(HtmlText, OnlyWhatIsHtmlIsReadAsHtml) {
  EXPECT_TRUE(LooksLikeHtml("text/html; charset=utf-8", "anything"));
  EXPECT_TRUE(LooksLikeHtml("application/xhtml+xml", "<?xml version=\"1.0\"?>"));
  EXPECT_TRUE(LooksLikeHtml("", "\xEF\xBB\xBF  <!doctype HTML><p>x"));
  EXPECT_TRUE(LooksLikeHtml("text/plain", "<html><body>x</body></html>"));
  EXPECT_FALSE(LooksLikeHtml("", "# Acme X1\nTDP: 5 W <br>\n"));
  EXPECT_FALSE(LooksLikeHtml("text/csv", "<html>,1\n"));
}

TEST(HtmlText, NumericEntitiesOutOfRangeAreTheReplacementCharacter) {
  EXPECT_EQ(HtmlToText("<p>&#0;&#xD800;&#99999999;&#65;</p>"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" "A\n");
  EXPECT_EQ(HtmlToText(""), "");
  EXPECT_EQ(HtmlToText("<p>unclosed <b"), "unclosed\n");
  EXPECT_EQ(HtmlToText("<script>never closed"), "");
}

}  // namespace
}  // namespace chipkg
