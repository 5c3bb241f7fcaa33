// Who may use a partition by account (analyzer/partition_access.h), as slurmctld's
// part_policy_valid_acct decides it in 22.05 (by name) and from 23.02 (associations, with
// sub-accounts, only where associations are enforced; unknown names dropped).
#include <gtest/gtest.h>

#include "analyzer/assoc_links.h"
#include "analyzer/assoc_reader.h"
#include "analyzer/partition_access.h"
#include "tests/test_util.h"

namespace {

// root > lab > lab-bio > alice; root > chem > bob.
constexpr const char* kDump =
    "Cluster - 'test'\nParent - 'root'\nAccount - 'lab'\nAccount - 'chem'\nParent - 'lab'\n"
    "Account - 'lab-bio'\nParent - 'lab-bio'\nUser - 'alice':DefaultAccount='lab-bio'\nParent - 'chem'\n"
    "User - 'bob':DefaultAccount='chem'\n";

struct Site {
  std::unique_ptr<sa::Analysis> analysis;
  sa::SourceManager sources;
  sa::DiagnosticSink sink;
  sa::AssocTree tree;
};

std::unique_ptr<Site> site(const std::string& body, const char* version = "24.05") {
  auto s = std::make_unique<Site>();
  s->analysis = sa::test::analyze_body("NodeName=n[1-2] CPUs=8 RealMemory=8000\n" + body, version);
  s->tree = sa::read_assoc_dump_text(s->sources.add("dump.cfg", kDump), s->sources, s->sink);
  return s;
}

// Whether `user`'s jobs, charged to `account`, may run in partition p.
bool admitted(const Site& s, const std::string& user, const std::string& account) {
  const sa::Config& c = s.analysis->config;
  return sa::account_admitted(c, *c.find_partition("p"), &s.tree, s.tree.find_user(user, account), account);
}

constexpr const char* kEnforced =
    "AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageEnforce=associations\n";

TEST(PartitionAccess, SubAccountsAreIncludedFrom2302) {
  const auto s = site(std::string(kEnforced) + "PartitionName=p Nodes=n[1-2] AllowAccounts=lab\n");
  EXPECT_TRUE(admitted(*s, "alice", "lab-bio"));  // lab-bio lies below lab
  EXPECT_FALSE(admitted(*s, "bob", "chem"));
  // 22.05 compares the account's name: lab-bio is not lab.
  const auto old = site(std::string(kEnforced) + "PartitionName=p Nodes=n[1-2] AllowAccounts=lab\n", "22.05");
  EXPECT_FALSE(admitted(*old, "alice", "lab-bio"));
  // DenyAccounts walks up the same way.
  const auto deny = site(std::string(kEnforced) + "PartitionName=p Nodes=n[1-2] DenyAccounts=lab\n");
  EXPECT_FALSE(admitted(*deny, "alice", "lab-bio"));
  EXPECT_TRUE(admitted(*deny, "bob", "chem"));
}

TEST(PartitionAccess, ListsAreNotCheckedWithoutEnforcedAssociationsFrom2302) {
  const auto s = site(
      "AccountingStorageType=accounting_storage/slurmdbd\n"
      "PartitionName=p Nodes=n[1-2] AllowAccounts=lab\n");
  EXPECT_FALSE(sa::account_lists_checked(s->analysis->config));
  EXPECT_TRUE(admitted(*s, "bob", "chem"));
  const auto old = site(
      "AccountingStorageType=accounting_storage/slurmdbd\n"
      "PartitionName=p Nodes=n[1-2] AllowAccounts=lab\n",
      "22.05");
  EXPECT_FALSE(admitted(*old, "bob", "chem"));
}

TEST(PartitionAccess, AnAllowListOfUnknownAccountsChecksNothing) {
  // accounts_list_build drops names without an association; no list is left to check.
  const auto s = site(std::string(kEnforced) + "PartitionName=p Nodes=n[1-2] AllowAccounts=ghost\n");
  EXPECT_TRUE(admitted(*s, "bob", "chem"));
  const auto mixed = site(std::string(kEnforced) + "PartitionName=p Nodes=n[1-2] AllowAccounts=ghost,chem\n");
  EXPECT_TRUE(admitted(*mixed, "bob", "chem"));
  EXPECT_FALSE(admitted(*mixed, "alice", "lab-bio"));
}

// ACCT013 says so where no AllowAccounts name is known, and keeps the per-entry note elsewhere.
TEST(PartitionAccess, UnknownAccountNoteSaysWhenTheListChecksNothing) {
  auto text_of = [](const Site& s) {
    sa::DiagnosticSink sink;
    sa::check_accounting_links(s.analysis->config, s.tree, sa::QosTable::slurm_default(), sink);
    std::string out;
    for (const sa::Diagnostic& d : sink.all()) out += d.code + ": " + d.message + "\n";
    return out;
  };
  const auto ghost = site(std::string(kEnforced) + "PartitionName=p Nodes=n[1-2] AllowAccounts=ghost\n");
  EXPECT_NE(text_of(*ghost).find("with none of its AllowAccounts left it checks no account"), std::string::npos)
      << text_of(*ghost);
  const auto mixed = site(std::string(kEnforced) + "PartitionName=p Nodes=n[1-2] AllowAccounts=ghost,chem\n");
  EXPECT_NE(text_of(*mixed).find("'ghost', which the association tree does not have: no job can use that entry"),
            std::string::npos)
      << text_of(*mixed);
}

}  // namespace
