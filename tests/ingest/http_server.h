// A small HTTP/1.1 server on 127.0.0.1 for fetcher tests.
//
// It listens on an ephemeral port, answers each connection on its own thread
// with whatever the test's handler returns, and closes the connection after
// one response ("Connection: close"), which keeps the protocol side trivial.
// Every request is recorded so tests can check what the client sent.
// Shutdown (the destructor) interrupts delayed responses, so a test never
// waits for a slow handler it has already given up on.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace chipkg::testing {

struct HttpRequest {
  std::string method;
  std::string target;  // "/path?query"
  std::vector<std::pair<std::string, std::string>> headers;

  // The first header named `name` (case-insensitive), or "" if absent.
  std::string Header(std::string_view name) const {
    for (const auto& [key, value] : headers) {
      if (EqualsIgnoreCase(key, name)) return value;
    }
    return "";
  }
  bool HasHeader(std::string_view name) const {
    for (const auto& header : headers) {
      if (EqualsIgnoreCase(header.first, name)) return true;
    }
    return false;
  }

  static bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
        return false;
      }
    }
    return true;
  }
};

struct HttpResponse {
  int status = 200;
  std::string reason = "OK";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // How the body's end is marked. kUntilClose and kChunked send no
  // Content-Length, which is what a size limit must cope with.
  enum class Framing { kContentLength, kChunked, kUntilClose } framing = Framing::kContentLength;
  // The body is sent this many times, so a large body needs no large string.
  size_t repeat = 1;
  // Waited before the status line.
  std::chrono::milliseconds delay{0};
  // Waited between body pieces (a server that trickles).
  std::chrono::milliseconds piece_delay{0};
};

class HttpServer {
 public:
  // `index` counts requests from 0 in arrival order.
  using Handler = std::function<HttpResponse(const HttpRequest& request, int index)>;

  explicit HttpServer(Handler handler) : handler_(std::move(handler)) {
    if (::pipe2(wake_, O_CLOEXEC) != 0) {
      error_ = std::string("pipe: ") + std::strerror(errno);
      return;
    }
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) {
      error_ = std::string("socket: ") + std::strerror(errno);
      return;
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 16) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      error_ = std::string("bind/listen: ") + std::strerror(errno);
      return;
    }
    port_ = ntohs(addr.sin_port);
    accept_thread_ = std::thread([this] { AcceptLoop(); });
  }

  ~HttpServer() {
    stopping_ = true;
    if (wake_[1] >= 0) {
      char byte = 1;
      ssize_t n = ::write(wake_[1], &byte, 1);
      (void)n;
    }
    if (accept_thread_.joinable()) accept_thread_.join();
    std::vector<std::thread> workers;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      workers.swap(workers_);
    }
    for (auto& worker : workers) worker.join();
    if (listen_fd_ >= 0) ::close(listen_fd_);
    for (int fd : wake_) {
      if (fd >= 0) ::close(fd);
    }
  }

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  int port() const { return port_; }
  std::string Url(std::string_view path = "/") const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
  }

  std::vector<HttpRequest> requests() const {
    std::lock_guard<std::mutex> guard(mutex_);
    return requests_;
  }
  size_t request_count() const {
    std::lock_guard<std::mutex> guard(mutex_);
    return requests_.size();
  }

  // An HTTP date `offset` from now, e.g. for Retry-After or Last-Modified.
  static std::string HttpDate(std::chrono::seconds offset = std::chrono::seconds(0)) {
    time_t when = std::time(nullptr) + offset.count();
    struct tm parts {};
    gmtime_r(&when, &parts);
    char buffer[64];
    std::strftime(buffer, sizeof buffer, "%a, %d %b %Y %H:%M:%S GMT", &parts);
    return buffer;
  }

 private:
  void AcceptLoop() {
    for (;;) {
      pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      int rc = ::poll(fds, 2, -1);
      if (rc < 0 && errno == EINTR) continue;
      if (rc < 0 || stopping_ || (fds[1].revents & POLLIN)) return;
      if (!(fds[0].revents & POLLIN)) continue;
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      std::lock_guard<std::mutex> guard(mutex_);
      workers_.emplace_back([this, fd] {
        Serve(fd);
        ::close(fd);
      });
    }
  }

  // Waits `duration` unless the server is shutting down; false if it is.
  bool Pause(std::chrono::milliseconds duration) {
    if (duration.count() <= 0) return !stopping_;
    pollfd fd = {wake_[0], POLLIN, 0};
    auto deadline = std::chrono::steady_clock::now() + duration;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return !stopping_;
      int rc = ::poll(&fd, 1, static_cast<int>(left.count()));
      if (rc > 0 || stopping_) return false;
    }
  }

  static bool SendAll(int fd, std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;  // the client went away (as a size-limited client does)
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  // Reads up to the blank line that ends the request head; false on a
  // malformed, oversized or abandoned request.
  bool ReadRequest(int fd, HttpRequest* request) {
    std::string head;
    char buffer[4096];
    while (head.find("\r\n\r\n") == std::string::npos) {
      if (head.size() > 64 * 1024) return false;
      pollfd fds[2] = {{fd, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      int rc = ::poll(fds, 2, 5000);
      if (rc <= 0 || (fds[1].revents & POLLIN)) return false;
      ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) return false;
      head.append(buffer, static_cast<size_t>(n));
    }
    head.resize(head.find("\r\n\r\n"));
    size_t line_end = head.find("\r\n");
    std::string request_line = head.substr(0, line_end);
    size_t sp1 = request_line.find(' ');
    size_t sp2 = request_line.find(' ', sp1 == std::string::npos ? 0 : sp1 + 1);
    if (sp1 == std::string::npos || sp2 == std::string::npos) return false;
    request->method = request_line.substr(0, sp1);
    request->target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
    size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      size_t end = head.find("\r\n", pos);
      if (end == std::string::npos) end = head.size();
      std::string line = head.substr(pos, end - pos);
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        size_t value_start = line.find_first_not_of(" \t", colon + 1);
        request->headers.emplace_back(line.substr(0, colon),
                                      value_start == std::string::npos ? "" : line.substr(value_start));
      }
      pos = end + 2;
    }
    return true;
  }

  void Serve(int fd) {
    HttpRequest request;
    if (!ReadRequest(fd, &request)) return;
    int index;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      index = static_cast<int>(requests_.size());
      requests_.push_back(request);
    }
    HttpResponse response = handler_(request, index);
    if (!Pause(response.delay)) return;

    std::string head = "HTTP/1.1 " + std::to_string(response.status) + " " + response.reason + "\r\n";
    for (const auto& [name, value] : response.headers) head += name + ": " + value + "\r\n";
    using Framing = HttpResponse::Framing;
    if (response.framing == Framing::kContentLength) {
      head += "Content-Length: " + std::to_string(response.body.size() * response.repeat) + "\r\n";
    } else if (response.framing == Framing::kChunked) {
      head += "Transfer-Encoding: chunked\r\n";
    }
    head += "Connection: close\r\n\r\n";
    if (!SendAll(fd, head)) return;
    for (size_t i = 0; i < response.repeat && !response.body.empty(); ++i) {
      if (i > 0 && !Pause(response.piece_delay)) return;
      bool sent;
      if (response.framing == Framing::kChunked) {
        char size_line[32];
        std::snprintf(size_line, sizeof size_line, "%zx\r\n", response.body.size());
        sent = SendAll(fd, size_line) && SendAll(fd, response.body) && SendAll(fd, "\r\n");
      } else {
        sent = SendAll(fd, response.body);
      }
      if (!sent) return;
    }
    if (response.framing == Framing::kChunked && !SendAll(fd, "0\r\n\r\n")) return;
    ::shutdown(fd, SHUT_WR);
    // Drain until the client closes, so our close() does not reset a
    // connection whose last bytes the client has not read yet.
    char sink[256];
    pollfd fds[2] = {{fd, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    while (::poll(fds, 2, 2000) > 0 && !(fds[1].revents & POLLIN) && ::recv(fd, sink, sizeof sink, 0) > 0) {
    }
  }

  Handler handler_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  int port_ = 0;
  std::string error_;
  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;
  mutable std::mutex mutex_;
  std::vector<std::thread> workers_;
  std::vector<HttpRequest> requests_;
};

}  // namespace chipkg::testing
