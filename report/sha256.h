#pragma once
// SHA-256 (FIPS 180-4) and base64, for the HTML report's Content-Security-Policy: the
// policy names its one inline script by hash, so an injected script could not run even if
// an escaping bug let one into the page. No packaged crypto library is linked; this is small.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace sa::report {

std::array<std::uint8_t, 32> sha256(std::string_view data);
/// Standard base64 with padding (RFC 4648 §4), as CSP hash sources want it.
std::string base64(const std::uint8_t* data, std::size_t size);
/// The CSP source for a script: 'sha256-<base64 of the digest>'.
std::string csp_script_hash(std::string_view script);

}  // namespace sa::report
