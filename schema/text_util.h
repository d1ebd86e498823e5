// Internal to the schema module: the text folding its lookups share.
#pragma once

#include <string>
#include <string_view>

namespace chipkg::schema_internal {

// ASCII lower case; other bytes (UTF-8) unchanged.
std::string AsciiLower(std::string_view text);

// Whether `written` is the unit `declared` written in another case. Case
// carries meaning in a few letters of unit symbols, b/B (bit, byte) and m/M
// (milli, mega): when `written` uses capitals at all ("Gb", "mW", "Tb/s"),
// those letters must be as declared in a symbol (letter runs of at most
// three: "GB", "Gb/s", "MHz"); all in lower case ("gb", "tflops"), or a
// word ("Billion", "BYTES"), it is read as the unit of that name.
bool SameUnitSpelling(std::string_view written, std::string_view declared);

// Length of the whitespace character at text[pos] (ASCII space, tab, CR, LF,
// and the UTF-8 no-break, thin and narrow no-break spaces pages use between a
// number and its unit), or 0.
size_t SpaceAt(std::string_view text, size_t pos);

// A label as documents write it, folded for lookup: lower case, inner runs of
// space collapsed to one, surrounding space and trailing ':' or '?' dropped.
// "  Memory   Bandwidth: " -> "memory bandwidth", "Safety-critical?" -> "safety-critical".
std::string NormalizeLabel(std::string_view label);

// Text folded for phrase containment: lower case, curly quotes straightened,
// runs of space collapsed to one. "Doesn’t  have" -> "doesn't have".
std::string FoldPhrase(std::string_view text);

}  // namespace chipkg::schema_internal
