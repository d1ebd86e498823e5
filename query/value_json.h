// The JSON of a stored value: one shape for every command's `--format json`
// (query answers, trace, verify), so that a script reads a figure the same
// way whichever command printed it.
#pragma once

#include <nlohmann/json.hpp>

#include "engine/fact.h"

namespace chipkg::query {

// {"kind": "quantity", "number": 9.6e10, "dimension": "bytes", "original": "96 GB"};
// dates as "date", entities as "entity", text as "text", booleans as "bool";
// "original" only where the source's wording was kept.
nlohmann::json ValueJson(const Value& v);

}  // namespace chipkg::query
