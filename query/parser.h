// Parsing query text into a syntax tree (query/ast.h) with the grammar of
// query/grammar.h.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "engine/status.h"
#include "query/ast.h"

namespace chipkg::query {

// Longer queries are refused before parsing: nobody types one, and it bounds
// the work a malformed input can cause.
inline constexpr size_t kMaxQueryBytes = 64 * 1024;
// Deepest nesting of parentheses and 'not' chains accepted. Parsing recurses
// per level, so the bound keeps any input far from the end of the stack.
inline constexpr size_t kMaxNesting = 64;

// Parses one query. Any failure is InvalidArgument whose message reads
//   line L, column C: what was expected (did you mean 'show'?)
//     find chip where memory >= 64 GB shwo memory
//                                     ^
// It never throws and never crashes, whatever the bytes (invalid UTF-8 is
// refused with its position).
Result<Query> ParseQuery(std::string_view text);

// The position of byte `offset` in `text` (column in characters).
SourcePos PositionAt(std::string_view text, size_t offset);

// "line L, column C: message" followed by the offending line and a caret
// under the spot: the one error format of the query layer (the binder uses it too).
std::string FormatQueryError(std::string_view text, const SourcePos& pos, const std::string& message);

}  // namespace chipkg::query
