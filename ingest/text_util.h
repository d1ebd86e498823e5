// Internal to the ingest module: the white-space clean-up that names and
// dataset cells share before they are matched or stored.
#pragma once

#include <string>

namespace chipkg::ingest_internal {

// Without leading and trailing ASCII white space.
std::string Trim(const std::string& s);

// Inner runs of ASCII white space as one space, leading ones dropped
// ("Trainium \n 2" -> "Trainium 2"); trailing ones are dropped too.
std::string CollapseSpaces(const std::string& s);

}  // namespace chipkg::ingest_internal
