#include "analyzer/licenses.h"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>

#include "analyzer/text_util.h"
#include "analyzer/values.h"

namespace sa {

namespace {

// strtol(.., 10) over the whole rest of the item: optional blanks and sign, digits, nothing
// after. Slurm keeps the count in an int32_t, so larger values are refused here.
Result<std::uint32_t> item_count(std::string_view text, std::string_view item) {
  const DecimalPrefix n = read_decimal_prefix(text);
  // With no digits strtol() leaves its end at the start, so only "NAME:" passes (count 0).
  if (n.digits == 0 ? !text.empty() : n.end != text.size())
    return Error{fmt::format("licence '{}': the count after ':' is not a number", printable(item))};
  if (n.negative && n.value > 0) return Error{fmt::format("licence '{}': the count is negative", printable(item))};
  if (n.value > 0x7FFFFFFF) return Error{fmt::format("licence '{}': the count is too large", printable(item))};
  return static_cast<std::uint32_t>(n.value);
}

void add(LicenseList& out, License lic) {
  auto same = std::find_if(out.items.begin(), out.items.end(), [&](const License& l) { return l.name == lic.name; });
  if (same == out.items.end()) {
    out.items.push_back(std::move(lic));
    return;
  }
  same->count = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{same->count} + lic.count, 0x7FFFFFFF));
}

}  // namespace

Result<LicenseList> parse_licenses(std::string_view text) {
  LicenseList out;
  std::string_view delimiters = ",;";
  if (text.find('|') != std::string_view::npos) {
    if (text.find_first_of(",;(") != std::string_view::npos)
      return Error{"licences joined by '|' (any one) cannot be mixed with ',' or ';' (all of them)"};
    out.any_of = true;
    delimiters = "|";
  }
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(text.find_first_of(delimiters, start), text.size());
    const std::string_view item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;  // strtok_r() skips empty items
    // Whitespace is refused up to the ':'; after it strtol() skips leading blanks.
    const std::size_t colon = item.find(':');
    for (char c : item.substr(0, colon)) {
      if (std::isspace(static_cast<unsigned char>(c)))
        return Error{fmt::format("licence '{}' contains whitespace", printable(item))};
    }
    if (colon == 0) return Error{fmt::format("licence '{}' has no name", printable(item))};
    License lic{std::string(item.substr(0, colon)), 1};
    if (colon != std::string_view::npos) {
      auto count = item_count(item.substr(colon + 1), item);
      if (!count) return Error{count.error()};
      lic.count = *count;
    }
    add(out, std::move(lic));
  }
  return out;
}

bool licenses_valid(const std::vector<License>& request, const std::vector<License>& configured, bool allow_zero_lic) {
  for (const License& want : request) {
    auto have =
        std::find_if(configured.begin(), configured.end(), [&](const License& l) { return l.name == want.name; });
    if (have == configured.end() || (!allow_zero_lic && want.count > have->count)) return false;
  }
  return true;
}

}  // namespace sa
