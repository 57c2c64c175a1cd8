// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "host_mapping.h"

#include <sys/mman.h>
#include <unistd.h>

namespace streamrace::emu {

namespace {

std::size_t wholePages(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

} // namespace

std::optional<HostMapping> mapHostMemory(std::size_t bytes) {
  const std::size_t length = wholePages(bytes);
  const int file = memfd_create("streamrace-emu-host", MFD_CLOEXEC);
  if (file < 0) {
    return std::nullopt;
  }
  HostMapping mapping;
  if (ftruncate(file, static_cast<off_t>(length)) == 0) {
    mapping.program = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
    mapping.device = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
  }
  close(file); // the mappings keep the memory
  if (mapping.program == nullptr || mapping.program == MAP_FAILED || mapping.device == nullptr ||
      mapping.device == MAP_FAILED) {
    if (mapping.program != nullptr && mapping.program != MAP_FAILED) {
      munmap(mapping.program, length);
    }
    if (mapping.device != nullptr && mapping.device != MAP_FAILED) {
      munmap(mapping.device, length);
    }
    return std::nullopt;
  }
  return mapping;
}

void unmapHostMemory(const HostMapping& mapping, std::size_t bytes) {
  const std::size_t length = wholePages(bytes);
  munmap(mapping.program, length);
  munmap(mapping.device, length);
}

} // namespace streamrace::emu
