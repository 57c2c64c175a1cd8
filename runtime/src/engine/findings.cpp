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

void add_rank(std::vector<RankId>& ranks, RankId rank) {
  if (!ranks.empty() && ranks.back() == rank) return;
  auto it = std::lower_bound(ranks.begin(), ranks.end(), rank);
  if (it == ranks.end() || *it != rank) ranks.insert(it, rank);
}

} // namespace

FindingSet::Key FindingSet::key_of(FindingKind kind, const AccessSide& first,
                                   const AccessSide& second) {
  Key key;
  key.kind = static_cast<std::uint64_t>(kind);
  auto side = [](const AccessSide& side, std::uint64_t& site, std::uint64_t& stream) {
    if (side.access.site != 0) {
      site = side.access.site;
      return;
    }
    site = (1ull << 63) | (static_cast<std::uint64_t>(side.rank) << 16) |
           (static_cast<std::uint64_t>(side.on_host) << 8) |
           static_cast<std::uint64_t>(side.access.kind);
    stream = side.stream;
  };
  side(first, key.first, key.first_stream);
  side(second, key.second, key.second_stream);
  return key;
}

FindingSet::Key FindingSet::key_of(const Finding& finding) {
  if (!finding.collective) return key_of(finding.kind, finding.first, finding.second);
  Key key;
  key.kind = static_cast<std::uint64_t>(finding.kind);
  key.first = finding.collective->comm;
  key.second = finding.collective->sequence;
  return key;
}

bool FindingSet::count_again(FindingKind kind, const AccessSide& first, const AccessSide& second) {
  auto it = index_.find(key_of(kind, first, second));
  if (it == index_.end()) return false;
  Finding& known = findings_[it->second];
  ++known.count;
  add_rank(known.ranks, first.rank);
  add_rank(known.ranks, second.rank);
  return true;
}

bool FindingSet::add(Finding finding) {
  auto [it, inserted] = index_.try_emplace(key_of(finding), findings_.size());
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
