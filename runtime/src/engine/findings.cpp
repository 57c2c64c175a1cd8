// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/engine/findings.h"

#include <algorithm>

namespace streamrace {

namespace {

void add_rank(std::vector<RankId>& ranks, RankId rank) {
  if (!ranks.empty() && ranks.back() == rank) return;
  auto it = std::lower_bound(ranks.begin(), ranks.end(), rank);
  if (it == ranks.end() || *it != rank) ranks.insert(it, rank);
}

} // namespace

FindingSet::Key FindingSet::key_of(FindingKind kind, const SideIdentity& first,
                                   const SideIdentity& second) {
  Key key;
  key.kind = static_cast<std::uint64_t>(kind);
  auto side = [](const SideIdentity& side, std::uint64_t& site, std::uint64_t& stream) {
    if (side.site != 0) {
      site = side.site;
      return;
    }
    site = (1ull << 63) | (static_cast<std::uint64_t>(side.rank) << 16) |
           (static_cast<std::uint64_t>(side.on_host) << 8) | static_cast<std::uint64_t>(side.kind);
    stream = side.stream;
  };
  side(first, key.first, key.first_stream);
  side(second, key.second, key.second_stream);
  return key;
}

FindingSet::Key FindingSet::key_of(const Finding& finding) {
  if (!finding.collective)
    return key_of(finding.kind, SideIdentity::of(finding.first), SideIdentity::of(finding.second));
  Key key;
  key.kind = static_cast<std::uint64_t>(finding.kind);
  key.first = finding.collective->comm;
  key.second = finding.collective->sequence;
  return key;
}

void FindingSet::add_ranks(std::size_t index, RankId first, RankId second) {
  // Ranks below 64 that a finding already lists are known from a bit: a racy loop repeats
  // them on every occurrence.
  std::uint64_t& seen = low_ranks_[index];
  for (RankId rank : {first, second}) {
    if (rank < 64 && (seen >> rank & 1)) continue;
    add_rank(findings_[index].ranks, rank);
    if (rank < 64) seen |= 1ull << rank;
  }
}

bool FindingSet::count_again(FindingKind kind, const SideIdentity& first,
                             const SideIdentity& second) {
  const Key key = key_of(kind, first, second);
  Recent& recent = recent_by_kind_[static_cast<std::size_t>(kind) % recent_by_kind_.size()];
  if (recent.index == kNone || !(recent.key == key)) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    recent.key = key;
    recent.index = it->second;
  }
  const std::size_t index = recent.index;
  ++findings_[index].count;
  add_ranks(index, first.rank, second.rank);
  return true;
}

bool FindingSet::add(Finding finding) {
  auto [it, inserted] = index_.try_emplace(key_of(finding), findings_.size());
  if (!inserted) {
    findings_[it->second].count += finding.count;
    add_ranks(it->second, finding.first.rank, finding.second.rank);
    return false;
  }
  const RankId first = finding.first.rank;
  const RankId second = finding.second.rank;
  findings_.push_back(std::move(finding));
  low_ranks_.push_back(0);
  add_ranks(findings_.size() - 1, first, second);
  return true;
}

void FindingSet::add_occurrences(std::size_t index, std::uint64_t count,
                                 std::span<const RankId> ranks) {
  findings_[index].count += count;
  for (RankId rank : ranks)
    add_ranks(index, rank, rank);
}

void FindingSet::set_reuse_site(std::size_t index, CallSiteId site) {
  if (index < findings_.size() && findings_[index].memory.reuse_site == 0)
    findings_[index].memory.reuse_site = site;
}

} // namespace streamrace
