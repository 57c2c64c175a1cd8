// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/rank_names.h"

#include <algorithm>
#include <set>
#include <vector>

namespace streamrace {

namespace {

// "3", "0,1", "0-3,5,7-9" for sorted numbers.
template <typename Number> std::string numbers_text(std::span<const Number> numbers) {
  std::string text;
  for (std::size_t i = 0; i < numbers.size();) {
    std::size_t last = i; // of the run of consecutive numbers from i
    while (last + 1 < numbers.size() && numbers[last + 1] == numbers[last] + 1)
      ++last;
    text += (i ? "," : "") + std::to_string(numbers[i]);
    if (last - i >= 2) {
      text += "-" + std::to_string(numbers[last]);
      i = last + 1;
    } else {
      ++i;
    }
  }
  return text;
}

} // namespace

std::string ranks_text(std::span<const RankId> ranks) {
  return (ranks.size() == 1 ? "rank " : "ranks ") + numbers_text(ranks);
}

RankNames::RankNames(const std::map<RankId, RankIdentity>& identities) {
  std::map<std::uint32_t, std::size_t> devices_per_process;
  for (const auto& [rank, identity] : identities)
    ++devices_per_process[identity.address_space];
  one_process_ = devices_per_process.size() <= 1;
  for (const auto& [rank, identity] : identities)
    if (devices_per_process[identity.address_space] > 1)
      by_device_.emplace(rank, ProcessDevice{identity.process_rank, identity.device});
}

std::string RankNames::name(RankId rank) const {
  const auto it = by_device_.find(rank);
  if (it == by_device_.end()) return "rank " + std::to_string(rank);
  const std::string device = "device " + std::to_string(it->second.device);
  return one_process_ ? device : "rank " + std::to_string(it->second.process_rank) + " " + device;
}

std::string RankNames::names(std::span<const RankId> ranks) const {
  const auto named_by_device = [&](RankId rank) { return by_device_.contains(rank); };
  if (std::none_of(ranks.begin(), ranks.end(), named_by_device)) return ranks_text(ranks);
  if (one_process_ && std::all_of(ranks.begin(), ranks.end(), named_by_device)) {
    std::set<DeviceId> devices;
    for (RankId rank : ranks)
      devices.insert(by_device_.at(rank).device);
    const std::vector<DeviceId> sorted(devices.begin(), devices.end());
    return (sorted.size() == 1 ? "device " : "devices ") +
           numbers_text(std::span<const DeviceId>(sorted));
  }
  std::string text;
  for (RankId rank : ranks)
    text += (text.empty() ? "" : ", ") + name(rank);
  return text;
}

} // namespace streamrace
