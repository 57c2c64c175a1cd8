// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "process_group.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

namespace hpz {

namespace {

int environmentInt(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') {
    return fallback;
  }
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 0 || value > 1 << 20) {
    throw std::runtime_error(std::string(name) + " must be a non-negative integer, got '" + text +
                             "'");
  }
  return static_cast<int>(value);
}

std::string environmentText(const char* name, const char* fallback) {
  const char* text = std::getenv(name);
  return text == nullptr || *text == '\0' ? fallback : text;
}

class Socket {
public:
  explicit Socket(int descriptor) : descriptor_(descriptor) {}
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket() {
    if (descriptor_ >= 0) {
      close(descriptor_);
    }
  }
  int get() const { return descriptor_; }

private:
  int descriptor_;
};

struct AddressList {
  addrinfo* head = nullptr;
  AddressList(const std::string& host, const std::string& port, bool passive) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = passive ? AI_PASSIVE : 0;
    const int status = getaddrinfo(passive ? nullptr : host.c_str(), port.c_str(), &hints, &head);
    if (status != 0) {
      throw std::runtime_error("cannot resolve MASTER_ADDR " + host + ":" + port + ": " +
                               gai_strerror(status));
    }
  }
  AddressList(const AddressList&) = delete;
  AddressList& operator=(const AddressList&) = delete;
  ~AddressList() { freeaddrinfo(head); }
};

void sendAll(int descriptor, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t sent = send(descriptor, data, size, MSG_NOSIGNAL);
    if (sent <= 0) {
      throw std::runtime_error(std::string("sending the NCCL id failed: ") + std::strerror(errno));
    }
    data += sent;
    size -= static_cast<std::size_t>(sent);
  }
}

void receiveAll(int descriptor, char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t received = recv(descriptor, data, size, 0);
    if (received <= 0) {
      throw std::runtime_error("receiving the NCCL id from rank 0 failed");
    }
    data += received;
    size -= static_cast<std::size_t>(received);
  }
}

void serveUniqueId(const ncclUniqueId& id, const std::string& port, int clients) {
  AddressList addresses("", port, true);
  Socket listener(socket(addresses.head->ai_family, SOCK_STREAM, 0));
  const int reuse = 1;
  setsockopt(listener.get(), SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof(reuse));
  if (listener.get() < 0 ||
      bind(listener.get(), addresses.head->ai_addr, addresses.head->ai_addrlen) != 0 ||
      listen(listener.get(), clients) != 0) {
    throw std::runtime_error("rank 0 cannot listen on MASTER_PORT " + port + ": " +
                             std::strerror(errno));
  }
  for (int served = 0; served < clients; ++served) {
    Socket client(accept(listener.get(), nullptr, nullptr));
    if (client.get() < 0) {
      throw std::runtime_error(std::string("accept on MASTER_PORT failed: ") +
                               std::strerror(errno));
    }
    sendAll(client.get(), id.internal, sizeof(id.internal));
  }
}

ncclUniqueId fetchUniqueId(const std::string& host, const std::string& port) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  const std::string late =
      "rank 0 did not serve the NCCL id on " + host + ":" + port + " within 60 s";
  while (true) {
    AddressList addresses(host, port, false);
    for (addrinfo* address = addresses.head; address != nullptr; address = address->ai_next) {
      Socket connection(socket(address->ai_family, address->ai_socktype, address->ai_protocol));
      if (connection.get() >= 0 &&
          connect(connection.get(), address->ai_addr, address->ai_addrlen) == 0) {
        ncclUniqueId id{};
        receiveAll(connection.get(), id.internal, sizeof(id.internal));
        return id;
      }
    }
    if (Clock::now() > deadline) {
      throw std::runtime_error(late);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

} // namespace

RankLayout RankLayout::fromEnvironment() {
  RankLayout layout;
  layout.rank = environmentInt("RANK", 0);
  layout.worldSize = environmentInt("WORLD_SIZE", 1);
  layout.localRank = environmentInt("LOCAL_RANK", 0);
  layout.ranksPerNode = environmentInt("LOCAL_WORLD_SIZE", layout.worldSize);
  if (layout.worldSize == 0 || layout.rank >= layout.worldSize || layout.ranksPerNode == 0 ||
      layout.worldSize % layout.ranksPerNode != 0 || layout.localRank >= layout.ranksPerNode ||
      layout.rank % layout.ranksPerNode != layout.localRank) {
    throw std::runtime_error(
        "inconsistent ranks: RANK=" + std::to_string(layout.rank) + " WORLD_SIZE=" +
        std::to_string(layout.worldSize) + " LOCAL_RANK=" + std::to_string(layout.localRank) +
        " LOCAL_WORLD_SIZE=" + std::to_string(layout.ranksPerNode) +
        " (expected WORLD_SIZE a multiple of LOCAL_WORLD_SIZE and nodes filled in rank order)");
  }
  return layout;
}

ncclUniqueId exchangeUniqueId(const RankLayout& layout) {
  if (layout.worldSize == 1) {
    ncclUniqueId id{};
    NCCL_CHECK(ncclGetUniqueId(&id));
    return id;
  }
  const std::string host = environmentText("MASTER_ADDR", "127.0.0.1");
  const std::string port = environmentText("MASTER_PORT", "29500");
  if (layout.rank == 0) {
    ncclUniqueId id{};
    NCCL_CHECK(ncclGetUniqueId(&id));
    serveUniqueId(id, port, layout.worldSize - 1);
    return id;
  }
  return fetchUniqueId(host, port);
}

Communicators createCommunicators(const RankLayout& layout, bool withInterNode) {
  const ncclUniqueId id = exchangeUniqueId(layout);
  ncclComm_t world = nullptr;
  NCCL_CHECK(ncclCommInitRank(&world, layout.worldSize, id, layout.rank));
  Communicators communicators;
  communicators.world = adoptCommunicator(world);
  ncclComm_t intraNode = nullptr;
  NCCL_CHECK(ncclCommSplit(world, layout.node(), layout.rank, &intraNode, nullptr));
  communicators.intraNode = adoptCommunicator(intraNode);
  if (withInterNode) {
    ncclComm_t interNode = nullptr;
    NCCL_CHECK(ncclCommSplit(world, layout.localRank, layout.rank, &interNode, nullptr));
    communicators.interNode = adoptCommunicator(interNode);
  }
  return communicators;
}

} // namespace hpz
