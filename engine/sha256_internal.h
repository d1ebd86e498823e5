// engine/sha256_internal.h (internal to engine/): the two SHA-256 block
// functions behind Sha256Hex, reachable one by one so tests cover both.
#pragma once

#include <string>
#include <string_view>

namespace chipkg::internal {

// True if this CPU has the x86 SHA extensions (with SSSE3 and SSE4.1).
bool Sha256HardwareAvailable();

// Hex SHA-256 of `bytes`; hardware = false forces the portable code.
std::string Sha256HexWith(std::string_view bytes, bool hardware);

}  // namespace chipkg::internal
