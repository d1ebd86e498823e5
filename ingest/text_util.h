// Internal to the ingest module: the white-space clean-up that names and
// dataset cells share before they are matched or stored, and UTF-8 encoding
// for the readers that decode escapes (JSON Lines, HTML entities).
#pragma once

#include <cstdint>
#include <string>

namespace chipkg::ingest_internal {

// Without leading and trailing ASCII white space.
std::string Trim(const std::string& s);

// Inner runs of ASCII white space as one space, leading ones dropped
// ("Trainium \n 2" -> "Trainium 2"); trailing ones are dropped too.
std::string CollapseSpaces(const std::string& s);

// `code_point` (at most 0x10FFFF; the caller has refused or replaced a
// surrogate) appended as UTF-8.
void AppendUtf8(std::string& out, uint32_t code_point);

}  // namespace chipkg::ingest_internal
