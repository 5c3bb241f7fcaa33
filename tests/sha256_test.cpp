// SHA-256 against the FIPS 180-4 / NIST test vectors, base64 against RFC 4648, and the HTML
// report's CSP naming its one inline script by that hash.
#include <gtest/gtest.h>

#include <regex>

#include "report/html_writer.h"
#include "report/sha256.h"

namespace sa::report {
namespace {

std::string hex(const std::array<std::uint8_t, 32>& d) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : d) out += std::string{kHex[b >> 4], kHex[b & 15]};
  return out;
}

TEST(Sha256, NistVectors) {
  EXPECT_EQ(hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex(sha256(std::string(1'000'000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // 55 and 56 bytes: the padding fits in one block, then needs a second.
  EXPECT_EQ(hex(sha256(std::string(55, 'a'))), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(hex(sha256(std::string(56, 'a'))), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
}

TEST(Base64, Rfc4648Vectors) {
  auto b = [](std::string_view s) { return base64(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()); };
  EXPECT_EQ(b(""), "");
  EXPECT_EQ(b("f"), "Zg==");
  EXPECT_EQ(b("fo"), "Zm8=");
  EXPECT_EQ(b("foo"), "Zm9v");
  EXPECT_EQ(b("foobar"), "Zm9vYmFy");
}

TEST(HtmlCsp, OnlyTheReportsOwnScriptByHash) {
  const std::string page = page_begin({"t", "s"}) + page_end();
  EXPECT_EQ(page.find("'unsafe-inline'; img"), std::string::npos);
  EXPECT_EQ(page.find("script-src 'unsafe-inline'"), std::string::npos);
  const std::size_t open = page.find("<script>") + 8;
  const std::string script = page.substr(open, page.find("</script>") - open);
  EXPECT_NE(page.find("script-src " + csp_script_hash(script) + ";"), std::string::npos);
  EXPECT_TRUE(std::regex_search(page, std::regex("script-src 'sha256-[A-Za-z0-9+/]{43}=';")));
}

}  // namespace
}  // namespace sa::report
