#include "streamrace/runtime/op_origins.h"

namespace streamrace {

OriginId OpOrigins::intern_new(const OpOrigin& origin) {
  const auto [it, inserted] = ids_.try_emplace(origin, static_cast<OriginId>(origins_.size()));
  if (inserted) origins_.push_back(origin);
  return it->second;
}

} // namespace streamrace
