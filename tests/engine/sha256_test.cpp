#include <gtest/gtest.h>

#include <string>

#include "engine/sha256_internal.h"
#include "engine/store.h"

namespace chipkg {
namespace {

TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, OneMegabyteInput) {
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Lengths around the padding boundaries (55/56 bytes: one or two final blocks).
TEST(Sha256Test, PaddingBoundaries) {
  auto input = [](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>((i * 7 + 3) % 256));
    return s;
  };
  const std::pair<size_t, const char*> cases[] = {
      {55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"},
      {56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"},
      {63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"},
      {64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"},
      {65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"},
      {119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"},
      {120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"},
      {127, "a8d23e75d936f303d248888d9b165ee543f4cbafcad3c9dd2a79bd84faa11d07"},
      {128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"},
  };
  for (const auto& [n, hex] : cases) EXPECT_EQ(Sha256Hex(input(n)), hex) << n << " bytes";
}

// The portable and the SHA-extension code agree on every length across
// several blocks (the hardware path runs only where the CPU has it).
TEST(Sha256Test, PortableAndHardwareAgree) {
  std::string input;
  for (size_t n = 0; n < 300; ++n) {
    const std::string portable = internal::Sha256HexWith(input, /*hardware=*/false);
    ASSERT_EQ(internal::Sha256HexWith(input, /*hardware=*/true), portable) << n << " bytes";
    input.push_back(static_cast<char>((n * 131 + 7) & 0xff));
  }
  EXPECT_EQ(internal::Sha256HexWith(std::string(1000000, 'a'), false),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(internal::Sha256HexWith("abc", false), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  if (!internal::Sha256HardwareAvailable()) GTEST_SKIP() << "no SHA extensions on this CPU: only the portable code ran";
}

}  // namespace
}  // namespace chipkg
