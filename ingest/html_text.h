// The text of an HTML page, laid out as the extractors read pages: what
// vendor and press sites serve, where the seed pages are their text already.
// Stored in place of the markup, so that every span counts the bytes of what
// a reader of the page sees (the version keeps the page's content type).
#pragma once

#include <string>
#include <string_view>

namespace chipkg {

// Whether a fetched body is HTML: its content type says so, or (a file, or a
// server that does not say) its text opens with a doctype or <html> tag.
bool LooksLikeHtml(std::string_view content_type, std::string_view body);

// Tags dropped and entities decoded; scripts, styles and comments left out
// with the <head> (its <title> too: the page's <h1> names its subject);
// each block (paragraph, heading, list item, table row, <br>) a line of its
// own, a heading opening with '#'s by its level, a list item with "- ", a
// table row as "| cell | cell |" with "|---|" after each row; runs of white
// space one space, as a browser shows them, but in <pre>.
// `warning`, when given, says what of the page a reader does not see that
// its author likely meant to show (a comment never closed: the rest of the
// page is in it, for a browser too), or is left empty.
std::string HtmlToText(std::string_view html, std::string* warning = nullptr);

}  // namespace chipkg
