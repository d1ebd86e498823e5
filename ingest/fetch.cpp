#include "ingest/fetch.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <ctime>
#include <exception>
#include <mutex>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#ifndef CHIPKG_VERSION
#define CHIPKG_VERSION "0.1.0"
#endif

namespace chipkg {

std::string DefaultUserAgent() {
  return "chipkg/" CHIPKG_VERSION " (+source-tracked AI hardware knowledge graph)";
}

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

// The lower-cased scheme when `url` starts with "scheme://" (RFC 3986 scheme
// characters), else "" (a local path).
std::string SchemeOf(std::string_view url) {
  size_t sep = url.find("://");
  if (sep == std::string_view::npos || sep == 0) return "";
  if (!std::isalpha(static_cast<unsigned char>(url[0]))) return "";
  for (size_t i = 1; i < sep; ++i) {
    unsigned char c = static_cast<unsigned char>(url[i]);
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return "";
  }
  return Lower(url.substr(0, sep));
}

// The URL as it may appear in messages and logs: without "user:password@".
std::string Redact(std::string_view url) {
  size_t sep = url.find("://");
  if (sep == std::string_view::npos) return std::string(url);
  size_t authority = sep + 3;
  size_t end = url.find_first_of("/?#", authority);
  if (end == std::string_view::npos) end = url.size();
  size_t at = url.rfind('@', end);
  if (at == std::string_view::npos || at < authority) return std::string(url);
  return std::string(url.substr(0, authority)) + std::string(url.substr(at + 1));
}

bool ListContains(std::string_view list, std::string_view item) {
  std::string wanted = Lower(item);
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string_view::npos) comma = list.size();
    if (Lower(Trim(list.substr(pos, comma - pos))) == wanted) return true;
    pos = comma + 1;
  }
  return false;
}

// `list` without `item` (comma-separated, case-insensitive).
std::string ListWithout(std::string_view list, std::string_view item) {
  std::string wanted = Lower(item);
  std::string out;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view entry = Trim(list.substr(pos, comma - pos));
    if (!entry.empty() && Lower(entry) != wanted) {
      if (!out.empty()) out += ',';
      out += entry;
    }
    pos = comma + 1;
  }
  return out;
}

std::string ErrnoText(int err) { return std::error_code(err, std::generic_category()).message(); }

std::string GuessContentType(std::string_view path) {
  size_t slash = path.rfind('/');
  size_t dot = path.rfind('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return "";
  std::string ext = Lower(path.substr(dot + 1));
  if (ext == "html" || ext == "htm") return "text/html";
  if (ext == "txt") return "text/plain";
  if (ext == "csv") return "text/csv";
  if (ext == "json") return "application/json";
  if (ext == "md") return "text/markdown";
  if (ext == "xml") return "application/xml";
  if (ext == "pdf") return "application/pdf";
  return "";
}

// "60 s", "1500 ms".
std::string FormatDuration(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + " s";
  return std::to_string(d.count()) + " ms";
}

Status ValidateOptions(const FetchOptions& o) {
  if (o.connect_timeout.count() <= 0 || o.total_timeout.count() <= 0 || o.deadline.count() <= 0) {
    return Status::InvalidArgument("fetch options: timeouts must be positive");
  }
  if (o.max_body_bytes == 0) return Status::InvalidArgument("fetch options: max_body_bytes must be positive");
  if (o.max_redirects < 0) return Status::InvalidArgument("fetch options: max_redirects must not be negative");
  if (o.max_retries < 0) return Status::InvalidArgument("fetch options: max_retries must not be negative");
  if (o.base_backoff.count() < 0 || o.max_retry_wait.count() < 0) {
    return Status::InvalidArgument("fetch options: backoff and retry wait must not be negative");
  }
  return Status::OK();
}

// Reads a regular file of at most max_bytes. `shown` is what the caller asked
// for (path or file:// URL), used to prefix messages.
Result<FetchResult> ReadLocalFile(const std::string& shown, const std::string& path, size_t max_bytes) {
  if (path.empty()) return Status::InvalidArgument(shown + ": empty path");
  if (path.find('\0') != std::string::npos) return Status::InvalidArgument(shown + ": path contains NUL");
  const std::string where = shown == path ? shown : shown + " (" + path + ")";
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Status::IOError(where + ": cannot open: " + ErrnoText(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};

  struct stat st {};
  if (::fstat(fd, &st) != 0) return Status::IOError(where + ": cannot stat: " + ErrnoText(errno));
  if (!S_ISREG(st.st_mode)) return Status::IOError(where + ": not a regular file");
  auto too_large = [&] { return Status::IOError(where + ": body larger than " + std::to_string(max_bytes) + " bytes"); };
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return too_large();

  FetchResult result;
  result.body.reserve(static_cast<size_t>(st.st_size));
  // The size is checked again while reading: the file may grow after fstat.
  char buffer[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(where + ": read failed: " + ErrnoText(errno));
    }
    if (n == 0) break;
    if (result.body.size() + static_cast<size_t>(n) > max_bytes) return too_large();
    result.body.append(buffer, static_cast<size_t>(n));
  }
  result.http_status = 200;
  result.content_type = GuessContentType(path);
  result.final_url = shown;
  result.attempts = 1;
  return result;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// file:///abs/path or file://localhost/abs/path -> /abs/path (percent-decoded).
Result<std::string> FileUrlToPath(const std::string& url) {
  std::string_view rest = std::string_view(url).substr(url.find("://") + 3);
  size_t slash = rest.find('/');
  std::string host = Lower(rest.substr(0, slash));
  if (slash == std::string_view::npos) return Status::InvalidArgument(Redact(url) + ": file URL without a path");
  if (!host.empty() && host != "localhost") {
    return Status::InvalidArgument(Redact(url) + ": file URL names host '" + host + "'; only local files can be read");
  }
  std::string_view encoded = rest.substr(slash);
  // A query or fragment has no meaning for a local file.
  encoded = encoded.substr(0, encoded.find_first_of("?#"));
  std::string path;
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] == '%') {
      int hi = i + 2 < encoded.size() ? HexValue(encoded[i + 1]) : -1;
      int lo = i + 2 < encoded.size() ? HexValue(encoded[i + 2]) : -1;
      if (hi < 0 || lo < 0) return Status::InvalidArgument(Redact(url) + ": bad percent escape in file URL");
      char c = static_cast<char>(hi * 16 + lo);
      if (c == '\0') return Status::InvalidArgument(Redact(url) + ": file URL decodes to a NUL byte");
      path += c;
      i += 2;
    } else {
      path += encoded[i];
    }
  }
  return path;
}

// Serves the requests both fetchers read from disk. `options` decides whether
// file:// is allowed at all.
Result<FetchResult> FetchLocal(const FetchRequest& request, const FetchOptions& options) {
  std::string scheme = SchemeOf(request.url);
  if (scheme.empty()) return ReadLocalFile(request.url, request.url, options.max_body_bytes);
  if (scheme != "file") {
    return Status::IOError(Redact(request.url) + ": protocol " + scheme + " not allowed (local files only)");
  }
  if (!ListContains(options.allowed_protocols, "file")) {
    return Status::IOError(Redact(request.url) + ": protocol file not allowed");
  }
  Result<std::string> path = FileUrlToPath(request.url);
  if (!path.ok()) return path.status();
  return ReadLocalFile(request.url, *path, options.max_body_bytes);
}

// ---- libcurl --------------------------------------------------------------

// libcurl is loaded on the first HTTP fetch, not at program start: with its
// TLS, Kerberos and LDAP libraries it is most of what the dynamic loader would
// otherwise map and relocate for every `chipkg query` a script starts.
struct CurlApi {
  CURLcode (*global_init)(long flags);
  CURL* (*easy_init)();
  void (*easy_cleanup)(CURL* handle);
  void (*easy_reset)(CURL* handle);
  CURLcode (*easy_setopt)(CURL* handle, CURLoption option, ...);
  CURLcode (*easy_getinfo)(CURL* handle, CURLINFO info, ...);
  CURLcode (*easy_perform)(CURL* handle);
  const char* (*easy_strerror)(CURLcode code);
  time_t (*getdate)(const char* text, const time_t* unused);
  curl_slist* (*slist_append)(curl_slist* list, const char* line);
  void (*slist_free_all)(curl_slist* list);
};

const CurlApi* curl_api = nullptr;  // set once by LoadCurl, then read-only

// The loaded and initialised library, or why it could not be had.
Result<const CurlApi*> LoadCurl() {
  static std::once_flag once;
  static CurlApi api;
  static std::string error;
  std::call_once(once, [] {
    void* lib = nullptr;
    for (const char* name : {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so"}) {
      lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (lib != nullptr) break;
    }
    if (lib == nullptr) {
      error = std::string("libcurl is not installed (") + ::dlerror() + "); install the libcurl4 package";
      return;
    }
    bool complete = true;
    auto bind = [&](auto& field, const char* symbol) {
      field = reinterpret_cast<std::remove_reference_t<decltype(field)>>(::dlsym(lib, symbol));
      if (field == nullptr) {
        complete = false;
        if (error.empty()) error = std::string("the installed libcurl lacks ") + symbol;
      }
    };
    bind(api.global_init, "curl_global_init");
    bind(api.easy_init, "curl_easy_init");
    bind(api.easy_cleanup, "curl_easy_cleanup");
    bind(api.easy_reset, "curl_easy_reset");
    bind(api.easy_setopt, "curl_easy_setopt");
    bind(api.easy_getinfo, "curl_easy_getinfo");
    bind(api.easy_perform, "curl_easy_perform");
    bind(api.easy_strerror, "curl_easy_strerror");
    bind(api.getdate, "curl_getdate");
    bind(api.slist_append, "curl_slist_append");
    bind(api.slist_free_all, "curl_slist_free_all");
    if (!complete) return;
    // Never paired with curl_global_cleanup: handles may live until exit, and
    // cleanup is not safe while other threads use libcurl.
    CURLcode code = api.global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
      error = std::string("libcurl initialisation failed: ") + api.easy_strerror(code);
      return;
    }
    curl_api = &api;
  });
  if (curl_api == nullptr) return Status::IOError(error);
  return curl_api;
}

std::string StandardReason(long status) {
  switch (status) {
    case 300: return "Multiple Choices";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 410: return "Gone";
    case 429: return "Too Many Requests";
    case 451: return "Unavailable For Legal Reasons";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
  }
}

// What the callbacks collect during one attempt.
struct Transfer {
  size_t max_body = 0;
  std::string body;
  bool body_too_large = false;
  // From the latest status line: headers of a redirect are forgotten when the
  // next response starts.
  long status = 0;
  std::string reason;
  std::string etag;
  std::string last_modified;
  std::string retry_after;
  std::string location;

  void StartResponse(std::string_view status_line) {
    status = 0;
    reason.clear();
    etag.clear();
    last_modified.clear();
    retry_after.clear();
    location.clear();
    // "HTTP/1.1 404 Not Found" or "HTTP/2 404"
    size_t sp = status_line.find(' ');
    if (sp == std::string_view::npos) return;
    std::string_view rest = status_line.substr(sp + 1);
    size_t i = 0;
    while (i < rest.size() && i < 3 && std::isdigit(static_cast<unsigned char>(rest[i]))) {
      status = status * 10 + (rest[i] - '0');
      ++i;
    }
    std::string_view text = Trim(rest.substr(i));
    // A reason phrase is for humans and ends up in messages: keep it short and printable.
    for (char c : text.substr(0, 80)) {
      if (c >= 0x20 && c < 0x7f) reason += c;
    }
  }
};

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = size * count;
  try {
    std::string_view line(data, n);
    if (line.size() >= 5 && line.substr(0, 5) == "HTTP/") {
      t->StartResponse(Trim(line));
      return n;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return n;
    std::string name = Lower(Trim(line.substr(0, colon)));
    std::string value(Trim(line.substr(colon + 1)));
    if (name == "etag") t->etag = value;
    else if (name == "last-modified") t->last_modified = value;
    else if (name == "retry-after") t->retry_after = value;
    else if (name == "location") t->location = value;
  } catch (const std::exception&) {
    return 0;  // out of memory: abort the transfer rather than unwind through C
  }
  return n;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = size * count;
  // Bodies of redirects and error pages are not kept, only counted against
  // the timeout.
  if (t->status < 200 || t->status > 299) return n;
  if (t->body.size() + n > t->max_body) {
    t->body_too_large = true;
    return 0;  // makes libcurl stop with CURLE_WRITE_ERROR
  }
  try {
    t->body.append(data, n);
  } catch (const std::exception&) {
    return 0;
  }
  return n;
}

// Delay asked for by a Retry-After value: delta-seconds or an HTTP date.
std::optional<std::chrono::milliseconds> ParseRetryAfter(const std::string& value) {
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); })) {
    // Anything past a day is as good as "a long time": the cap decides.
    if (value.size() > 6) return std::chrono::milliseconds(86'400'000);
    return std::chrono::milliseconds(std::stoll(value) * 1000);
  }
  time_t when = curl_api->getdate(value.c_str(), nullptr);
  if (when == -1) return std::nullopt;
  time_t now = std::time(nullptr);
  return std::chrono::milliseconds(when > now ? static_cast<int64_t>(when - now) * 1000 : 0);
}

// The outcome of one attempt.
struct Attempt {
  bool ok = false;
  bool retryable = false;
  std::optional<std::chrono::milliseconds> retry_after;
  std::string error;          // without the URL prefix
  bool invalid_argument = false;
  bool cut_by_deadline = false;  // timed out at what was left of the fetch's deadline
  FetchResult result;
};

struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_api->slist_free_all(list); }
};

bool HasLineBreak(const std::string& s) {
  return s.find_first_of("\r\n") != std::string::npos || s.find('\0') != std::string::npos;
}

}  // namespace

// ---- LocalFetcher -----------------------------------------------------------

LocalFetcher::LocalFetcher(FetchOptions options) : options_(std::move(options)) {}

Result<FetchResult> LocalFetcher::Fetch(const FetchRequest& request) {
  CHIPKG_RETURN_IF_ERROR(ValidateOptions(options_));
  if (request.url.empty()) return Status::InvalidArgument("fetch: empty location");
  try {
    return FetchLocal(request, options_);
  } catch (const std::exception& e) {
    return Status::IOError(Redact(request.url) + ": " + e.what());
  }
}

// ---- CurlFetcher ------------------------------------------------------------

struct CurlFetcher::Impl {
  FetchOptions options;
  CURL* handle = nullptr;

  ~Impl() {
    if (handle != nullptr) curl_api->easy_cleanup(handle);
  }

  // `time_left`: of the fetch's deadline; the attempt's timeouts are capped by it.
  Attempt PerformOnce(const FetchRequest& request, std::chrono::milliseconds time_left);
  Result<FetchResult> FetchHttp(const FetchRequest& request);
};

Attempt CurlFetcher::Impl::PerformOnce(const FetchRequest& request, std::chrono::milliseconds time_left) {
  Attempt out;
  const FetchOptions& o = options;
  // Reset keeps the connection and DNS caches but forgets every option, so
  // nothing from the previous request leaks into this one.
  curl_api->easy_reset(handle);

  Transfer transfer;
  transfer.max_body = o.max_body_bytes;
  char errbuf[CURL_ERROR_SIZE] = {0};

  std::unique_ptr<curl_slist, SlistDeleter> headers;
  auto add_header = [&](const std::string& line) {
    curl_slist* grown = curl_api->slist_append(headers.get(), line.c_str());
    if (grown == nullptr) return false;
    (void)headers.release();
    headers.reset(grown);
    return true;
  };
  if (!request.etag.empty() && !add_header("If-None-Match: " + request.etag)) {
    out.error = "out of memory building request headers";
    return out;
  }
  if (!request.last_modified.empty() && !add_header("If-Modified-Since: " + request.last_modified)) {
    out.error = "out of memory building request headers";
    return out;
  }

  const std::string redirect_protocols = ListWithout(o.redirect_protocols, "file");
  const bool follow = !redirect_protocols.empty() && o.max_redirects > 0;

  // Each setopt that can fail on user-supplied values is checked; the rest
  // (longs and callbacks) cannot fail on a valid handle.
  CURLcode rc = CURLE_OK;
  auto set = [&](CURLcode code, const char* what) {
    if (rc == CURLE_OK && code != CURLE_OK) {
      rc = code;
      out.error = std::string("cannot set ") + what + ": " + curl_api->easy_strerror(code);
    }
  };
  set(curl_api->easy_setopt(handle, CURLOPT_URL, request.url.c_str()), "URL");
  set(curl_api->easy_setopt(handle, CURLOPT_PROTOCOLS_STR, o.allowed_protocols.c_str()), "allowed protocols");
  if (follow) {
    set(curl_api->easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, redirect_protocols.c_str()), "redirect protocols");
    set(curl_api->easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 1L), "follow");
    set(curl_api->easy_setopt(handle, CURLOPT_MAXREDIRS, static_cast<long>(o.max_redirects)), "max redirects");
  } else {
    set(curl_api->easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L), "follow");
  }
  const auto connect_timeout = std::min(o.connect_timeout, time_left);
  const auto total_timeout = std::min(o.total_timeout, time_left);
  set(curl_api->easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(connect_timeout.count())),
      "connect timeout");
  set(curl_api->easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(total_timeout.count())), "timeout");
  if (o.low_speed_limit > 0 && o.low_speed_time.count() > 0) {
    set(curl_api->easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, o.low_speed_limit), "low speed limit");
    set(curl_api->easy_setopt(handle, CURLOPT_LOW_SPEED_TIME, static_cast<long>(o.low_speed_time.count())),
        "low speed time");
  }
  // Refuses at once when Content-Length announces too much; the write
  // callback covers bodies without one (chunked, connection close, gzip).
  set(curl_api->easy_setopt(handle, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(o.max_body_bytes)),
      "max file size");
  set(curl_api->easy_setopt(handle, CURLOPT_USERAGENT, o.user_agent.c_str()), "user agent");
  set(curl_api->easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, 1L), "verify peer");
  set(curl_api->easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, 2L), "verify host");
  if (!o.ca_file.empty()) set(curl_api->easy_setopt(handle, CURLOPT_CAINFO, o.ca_file.c_str()), "CA file");
  if (o.proxy.has_value()) set(curl_api->easy_setopt(handle, CURLOPT_PROXY, o.proxy->c_str()), "proxy");
  // Timeouts must not use signals: the process has other threads.
  set(curl_api->easy_setopt(handle, CURLOPT_NOSIGNAL, 1L), "no signal");
  // "" offers every encoding this libcurl decodes (gzip, deflate, ...).
  set(curl_api->easy_setopt(handle, CURLOPT_ACCEPT_ENCODING, ""), "accept encoding");
  set(curl_api->easy_setopt(handle, CURLOPT_HTTPGET, 1L), "GET");
  if (headers) set(curl_api->easy_setopt(handle, CURLOPT_HTTPHEADER, headers.get()), "request headers");
  set(curl_api->easy_setopt(handle, CURLOPT_ERRORBUFFER, errbuf), "error buffer");
  set(curl_api->easy_setopt(handle, CURLOPT_HEADERFUNCTION, OnHeader), "header callback");
  set(curl_api->easy_setopt(handle, CURLOPT_HEADERDATA, &transfer), "header data");
  set(curl_api->easy_setopt(handle, CURLOPT_WRITEFUNCTION, OnBody), "write callback");
  set(curl_api->easy_setopt(handle, CURLOPT_WRITEDATA, &transfer), "write data");
  if (rc != CURLE_OK) {
    out.invalid_argument = true;
    return out;
  }

  CURLcode code = curl_api->easy_perform(handle);
  // errbuf and the header list must not outlive this frame inside the handle.
  curl_api->easy_setopt(handle, CURLOPT_ERRORBUFFER, nullptr);
  curl_api->easy_setopt(handle, CURLOPT_HTTPHEADER, nullptr);

  long status = 0;
  curl_api->easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
  std::string detail = errbuf[0] != '\0' ? std::string(errbuf) : std::string(curl_api->easy_strerror(code));
  while (!detail.empty() && (detail.back() == '\n' || detail.back() == '\r')) detail.pop_back();

  switch (code) {
    case CURLE_OK:
      break;
    case CURLE_WRITE_ERROR:
    case CURLE_FILESIZE_EXCEEDED:
      if (code == CURLE_FILESIZE_EXCEEDED || transfer.body_too_large) {
        out.error = "body larger than " + std::to_string(o.max_body_bytes) + " bytes";
      } else {
        out.error = "cannot store the body: " + detail;
      }
      return out;
    case CURLE_TOO_MANY_REDIRECTS:
      out.error = "too many redirects (max " + std::to_string(o.max_redirects) + ")";
      return out;
    case CURLE_UNSUPPORTED_PROTOCOL: {
      std::string target_scheme = SchemeOf(transfer.location);
      if (!transfer.location.empty() && !target_scheme.empty()) {
        out.error = "redirect to " + Redact(transfer.location) + " refused: protocol " + target_scheme + " not allowed";
      } else {
        out.error = "protocol not allowed: " + detail;
      }
      return out;
    }
    case CURLE_OPERATION_TIMEDOUT:
      out.retryable = true;
      if (detail.rfind("Operation too slow", 0) == 0) {
        out.error = "transfer too slow (under " + std::to_string(o.low_speed_limit) + " bytes/s for " +
                    std::to_string(o.low_speed_time.count()) + " s)";
      } else if (detail.rfind("Connection timed out", 0) == 0 || detail.rfind("Resolving timed out", 0) == 0 ||
                 detail.rfind("Failed to connect", 0) == 0) {
        out.error = "connect timed out after " + std::to_string(connect_timeout.count()) + " ms";
        out.cut_by_deadline = connect_timeout < o.connect_timeout;
      } else {
        out.error = "timed out after " + std::to_string(total_timeout.count()) + " ms";
        out.cut_by_deadline = total_timeout < o.total_timeout;
      }
      return out;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
      out.retryable = true;
      out.error = detail;
      return out;
    case CURLE_URL_MALFORMAT:
      out.invalid_argument = true;
      out.error = "malformed URL: " + detail;
      return out;
    case CURLE_OUT_OF_MEMORY:
      // What libcurl 7.88 reports for one response header over its 100 KB
      // limit (without a word in the error buffer): "Out of memory" alone
      // sent an operator looking at the machine rather than the server.
      out.error = "the response could not be read: libcurl reports running out of memory, which is also what it "
                  "reports for a response header over its 100 KB limit" +
                  (detail != "Out of memory" ? " (" + detail + ")" : std::string());
      return out;
    default:
      out.error = detail;
      return out;
  }

  const bool conditional = !request.etag.empty() || !request.last_modified.empty();
  if ((status >= 200 && status <= 299) || (status == 304 && conditional)) {
    FetchResult& r = out.result;
    r.http_status = static_cast<int>(status);
    r.not_modified = status == 304;
    if (!r.not_modified) r.body = std::move(transfer.body);
    char* content_type = nullptr;
    if (curl_api->easy_getinfo(handle, CURLINFO_CONTENT_TYPE, &content_type) == CURLE_OK && content_type != nullptr) {
      r.content_type = content_type;
    }
    char* effective = nullptr;
    if (curl_api->easy_getinfo(handle, CURLINFO_EFFECTIVE_URL, &effective) == CURLE_OK && effective != nullptr) {
      r.final_url = effective;
    } else {
      r.final_url = request.url;
    }
    r.etag = transfer.etag;
    r.last_modified = transfer.last_modified;
    if (r.not_modified) {
      if (r.etag.empty()) r.etag = request.etag;
      if (r.last_modified.empty()) r.last_modified = request.last_modified;
    }
    out.ok = true;
    return out;
  }

  std::string reason = transfer.status == status && !transfer.reason.empty() ? transfer.reason : StandardReason(status);
  out.error = "HTTP " + std::to_string(status) + (reason.empty() ? "" : " " + reason);
  if (status == 304) out.error += " to a request that was not conditional (no body to read)";
  if (status == 429 || (status >= 500 && status <= 599)) {
    out.retryable = true;
    out.retry_after = ParseRetryAfter(transfer.retry_after);
  }
  return out;
}

Result<FetchResult> CurlFetcher::Impl::FetchHttp(const FetchRequest& request) {
  const std::string shown = Redact(request.url);
  if (HasLineBreak(request.etag) || HasLineBreak(request.last_modified)) {
    return Status::InvalidArgument(shown + ": validators must not contain line breaks");
  }
  if (auto loaded = LoadCurl(); !loaded.ok()) return Status::IOError(shown + ": " + loaded.status().message());
  if (handle == nullptr) handle = curl_api->easy_init();
  if (handle == nullptr) return Status::IOError(shown + ": cannot create a libcurl handle");

  using Clock = std::chrono::steady_clock;
  // Saturated: now + milliseconds::max() overflows the clock's nanoseconds.
  const auto deadline_at =
      Clock::now() + std::min<std::chrono::milliseconds>(options.deadline, std::chrono::hours(24 * 366));
  auto time_left = [&] {
    return std::chrono::ceil<std::chrono::milliseconds>(deadline_at - Clock::now());
  };
  const int max_attempts = 1 + options.max_retries;
  for (int attempt = 1;; ++attempt) {
    Attempt a = PerformOnce(request, std::max(time_left(), std::chrono::milliseconds(1)));
    if (a.ok) {
      a.result.attempts = attempt;
      return std::move(a.result);
    }
    if (a.invalid_argument) return Status::InvalidArgument(shown + ": " + a.error);
    std::chrono::milliseconds wait{0};
    if (a.retry_after.has_value()) {
      wait = *a.retry_after;
    } else {
      wait = options.base_backoff;
      // Doubling stops once past the cap, so it cannot overflow.
      for (int i = 1; i < attempt && wait < options.max_retry_wait; ++i) wait *= 2;
    }
    wait = std::min(wait, options.max_retry_wait);
    // A retry needs time for the wait and some for the attempt itself.
    const bool out_of_time = time_left() <= wait + std::chrono::milliseconds(100);
    if (!a.retryable || attempt >= max_attempts || out_of_time) {
      std::string message = shown + ": " + a.error;
      const std::string attempts = std::to_string(attempt) + (attempt == 1 ? " attempt" : " attempts");
      if (a.retryable && attempt < max_attempts && a.retry_after.has_value()) {
        message += " (gave up after " + attempts + ": the server asked to be asked again in " +
                   FormatDuration(*a.retry_after) + ", more than is left of the fetch's deadline of " +
                   FormatDuration(options.deadline) + ")";
      } else if (a.cut_by_deadline || (a.retryable && attempt < max_attempts)) {
        message += " (gave up after " + attempts + ": the fetch's deadline is " + FormatDuration(options.deadline) + ")";
      } else if (attempt > 1) {
        message += " (gave up after " + attempts + ")";
      }
      return Status::IOError(message);
    }
    if (options.sleep) {
      options.sleep(wait);
    } else {
      std::this_thread::sleep_for(wait);
    }
  }
}

CurlFetcher::CurlFetcher(FetchOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
}

CurlFetcher::~CurlFetcher() = default;

Result<FetchResult> CurlFetcher::Fetch(const FetchRequest& request) {
  CHIPKG_RETURN_IF_ERROR(ValidateOptions(impl_->options));
  if (request.url.empty()) return Status::InvalidArgument("fetch: empty location");
  try {
    const std::string scheme = SchemeOf(request.url);
    if (scheme.empty() || scheme == "file") return FetchLocal(request, impl_->options);
    if (!ListContains(impl_->options.allowed_protocols, scheme)) {
      return Status::IOError(Redact(request.url) + ": protocol " + scheme + " not allowed");
    }
    return impl_->FetchHttp(request);
  } catch (const std::exception& e) {
    return Status::IOError(Redact(request.url) + ": " + e.what());
  }
}

std::string WithoutCredentials(std::string_view url) { return Redact(url); }

bool IsUrl(std::string_view location) { return !SchemeOf(location).empty(); }

std::string CanonicalUrl(std::string_view url) {
  const std::string scheme = SchemeOf(url);
  if (scheme.empty()) return std::string(url);
  const size_t authority_begin = scheme.size() + 3;
  std::string_view rest = url.substr(authority_begin);
  rest = rest.substr(0, rest.find('#'));
  const size_t authority_end = std::min(rest.find_first_of("/?"), rest.size());
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view path_and_query = rest.substr(authority_end);
  // Credentials keep their case; only the host and port after them are the server's name.
  const size_t at = authority.rfind('@');
  std::string_view credentials = at == std::string_view::npos ? std::string_view() : authority.substr(0, at + 1);
  std::string host_and_port = Lower(at == std::string_view::npos ? authority : authority.substr(at + 1));
  // The port follows the last ':' outside an IPv6 literal's brackets.
  std::string port;
  const size_t colon = host_and_port.rfind(':');
  if (colon != std::string::npos && host_and_port.find(']', colon) == std::string::npos) {
    port = host_and_port.substr(colon + 1);
    host_and_port.resize(colon);
    port.erase(0, std::min(port.find_first_not_of('0'), port.size() > 0 ? port.size() - 1 : 0));  // "0080" is 80
    if (port.empty() || (scheme == "http" && port == "80") || (scheme == "https" && port == "443")) port.clear();
  }
  // "example.com." (the root's dot) names example.com.
  if (host_and_port.size() > 1 && host_and_port.back() == '.') host_and_port.pop_back();
  if (!port.empty()) host_and_port += ":" + port;
  if (scheme == "file" && host_and_port == "localhost") host_and_port.clear();
  std::string out = scheme + "://";
  out.append(credentials);
  out += host_and_port;
  if (path_and_query.empty() || path_and_query.front() == '?') {
    if (scheme == "http" || scheme == "https") out += '/';
  }
  out.append(path_and_query);
  return out;
}

std::unique_ptr<Fetcher> MakeDefaultFetcher(const FetchOptions& options) {
  return std::make_unique<CurlFetcher>(options);
}

}  // namespace chipkg
