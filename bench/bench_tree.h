#pragma once
// The benchmarks' share tree: `accounts` accounts under root with shares 1..7, each with
// `users_per_account` users of shares 1..3, as a `sacctmgr dump` text.
#include <string>

#include <fmt/format.h>

namespace sa::bench {

inline std::string tree_dump(int accounts, int users_per_account) {
  std::string out =
      "Cluster - 'bench'\nParent - 'root'\nUser - "
      "'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1\n";
  for (int a = 0; a < accounts; ++a) out += fmt::format("Account - 'acct{}':Fairshare={}\n", a, 1 + a % 7);
  for (int a = 0; a < accounts; ++a) {
    out += fmt::format("Parent - 'acct{}'\n", a);
    for (int u = 0; u < users_per_account; ++u) {
      out += fmt::format("User - 'u{}_{}':DefaultAccount='acct{}':Fairshare={}\n", a, u, a, 1 + u % 3);
    }
  }
  return out;
}

}  // namespace sa::bench
