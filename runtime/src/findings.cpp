#include "streamrace/runtime/findings.h"

#include <algorithm>

namespace streamrace {

const char* finding_kind_name(FindingKind kind) {
  switch (kind) {
  case FindingKind::RaceWriteWrite: return "race (write-write)";
  case FindingKind::RaceWriteRead: return "race (write-read)";
  case FindingKind::RaceReadWrite: return "race (read-write)";
  case FindingKind::UseAfterFree: return "use-after-free";
  case FindingKind::UseBeforeAlloc: return "use-before-alloc";
  case FindingKind::UnrecordedEventWait: return "wait on unrecorded event";
  case FindingKind::CollectiveMismatch: return "collective mismatch";
  case FindingKind::CollectiveCountMismatch: return "collective count mismatch";
  }
  return "finding";
}

namespace {

std::string side_key(const AccessSide& side) {
  if (side.access.site != 0) return "s" + std::to_string(side.access.site);
  return "r" + std::to_string(side.rank) + "q" + std::to_string(side.stream) + "h" +
         std::to_string(side.on_host ? 1 : 0) + "k" +
         std::to_string(static_cast<int>(side.access.kind));
}

std::string dedup_key(const Finding& finding) {
  std::string key = std::to_string(static_cast<int>(finding.kind)) + "|";
  if (finding.collective) {
    return key + std::to_string(finding.collective->comm) + "|" +
           std::to_string(finding.collective->sequence);
  }
  return key + side_key(finding.first) + "|" + side_key(finding.second);
}

void add_rank(std::vector<RankId>& ranks, RankId rank) {
  auto it = std::lower_bound(ranks.begin(), ranks.end(), rank);
  if (it == ranks.end() || *it != rank) ranks.insert(it, rank);
}

} // namespace

bool FindingSet::add(Finding finding) {
  const std::string key = dedup_key(finding);
  auto [it, inserted] = index_.try_emplace(key, findings_.size());
  if (!inserted) {
    Finding& known = findings_[it->second];
    known.count += finding.count;
    add_rank(known.ranks, finding.first.rank);
    add_rank(known.ranks, finding.second.rank);
    return false;
  }
  add_rank(finding.ranks, finding.first.rank);
  add_rank(finding.ranks, finding.second.rank);
  findings_.push_back(std::move(finding));
  return true;
}

} // namespace streamrace
