// Fetching source documents: HTTP(S) through libcurl, file:// URLs and plain
// paths from the local disk.
//
// Ingest talks to the Fetcher interface so that tests and the pipeline can
// inject fakes; CurlFetcher is the real one. Every failure is a Status naming
// the URL (credentials removed) and the reason, e.g.
//   "https://x/y: HTTP 404 Not Found"
//   "https://x/y: timed out after 2000 ms (gave up after 4 attempts)"
//   "https://x/y: transfer too slow (...) (gave up after 2 attempts: the fetch's deadline is 60 s)"
//   "https://x/y: body larger than 10485760 bytes"
//   "https://x/y: too many redirects (max 5)"
//   "https://x/y: redirect to ftp://h/f refused: protocol ftp not allowed"
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engine/status.h"

namespace chipkg {

struct FetchRequest {
  // http://, https://, file:// URL, or a local path (anything without "scheme://").
  std::string url;
  // Validators from the previous fetch of the same URL. When set, an HTTP fetch
  // is conditional (If-None-Match / If-Modified-Since) and may come back as
  // not_modified. Ignored for local files. Must not contain CR or LF.
  std::string etag;
  std::string last_modified;
};

// "chipkg/<version> (+source-tracked AI hardware knowledge graph)".
std::string DefaultUserAgent();

// Limits for one Fetch. The defaults suit an unattended cron run against
// public web sites; every limit applies to each attempt separately.
struct FetchOptions {
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds total_timeout{60'000};  // one attempt, connect to last byte
  // The whole fetch: every attempt and every wait between them. An attempt
  // gets what is left of it at most, and no retry starts that would wait past
  // it, so a host that accepts connections and never answers costs a run
  // this much and no more (without it: 4 attempts of low_speed_time plus
  // the waits, ~2 minutes). Real time, whatever `sleep` does.
  std::chrono::milliseconds deadline{60'000};
  // An attempt slower than low_speed_limit bytes/s for low_speed_time is abandoned
  // (a server that trickles bytes would otherwise hold a run for total_timeout).
  long low_speed_limit = 1024;
  std::chrono::seconds low_speed_time{30};
  // Largest accepted body, counted after content decoding, enforced while the
  // body streams in (a missing or lying Content-Length does not get past it).
  size_t max_body_bytes = 10 * 1024 * 1024;
  int max_redirects = 5;
  // Retries after the first attempt, for 429, 5xx, connection failures and
  // timeouts. Any other 4xx fails at once.
  int max_retries = 3;
  // The n-th retry waits base_backoff * 2^(n-1), or what the server asked for
  // in Retry-After (seconds or an HTTP date); either is capped by max_retry_wait.
  std::chrono::milliseconds base_backoff{1'000};
  std::chrono::milliseconds max_retry_wait{60'000};
  std::string user_agent = DefaultUserAgent();
  // libcurl protocol lists (CURLOPT_PROTOCOLS_STR / CURLOPT_REDIR_PROTOCOLS_STR).
  // A redirect may never lead to file://, whatever redirect_protocols says.
  std::string allowed_protocols = "http,https,file";
  std::string redirect_protocols = "http,https";
  // CA bundle for HTTPS; empty = the system default. Peer and host are always verified.
  std::string ca_file;
  // nullopt: libcurl's default (the *_proxy environment variables).
  // "": never use a proxy. Otherwise the proxy URL.
  std::optional<std::string> proxy;
  // Waits between attempts; nullptr = std::this_thread::sleep_for. Tests inject
  // a recorder so that backoff is observable and fast.
  std::function<void(std::chrono::milliseconds)> sleep;
};

struct FetchResult {
  // Status of the final HTTP response (after redirects); 200 for a local file read.
  int http_status = 0;
  // The server answered 304 to a conditional request: body is empty and the
  // previous content still holds.
  bool not_modified = false;
  std::string body;
  std::string content_type;  // as sent (e.g. "text/html; charset=utf-8"); guessed from the extension for files
  // Validators to send next time. On a 304 that omits them, the request's are carried over.
  std::string etag;
  std::string last_modified;
  std::string final_url;  // after redirects; the request's url for local files
  int attempts = 0;       // 1 + retries made
  // Unix seconds when the body came (set by the ingest run as each fetch
  // ends): a version's fetch time, where the time it was stored can be a
  // slow source's fetch later.
  int64_t fetched_at = 0;
};

class Fetcher {
 public:
  virtual ~Fetcher() = default;
  // Fetches one document. Non-2xx answers (other than 304 to a conditional
  // request) and every transport failure are errors: IOError naming the URL
  // and reason; InvalidArgument for a request that cannot be made (malformed
  // URL, bad validators, bad options).
  virtual Result<FetchResult> Fetch(const FetchRequest& request) = 0;
};

// Reads plain paths and file:// URLs (localhost only) from the disk, regular
// files only, with the max_body_bytes rule. Refuses every other scheme.
class LocalFetcher : public Fetcher {
 public:
  explicit LocalFetcher(FetchOptions options = {});
  Result<FetchResult> Fetch(const FetchRequest& request) override;

 private:
  FetchOptions options_;
};

// http:// and https:// through libcurl (with the hardening and retries above);
// file:// and plain paths as LocalFetcher does. Reuses one connection cache
// across fetches, so one instance must not be used by two threads at once.
class CurlFetcher : public Fetcher {
 public:
  explicit CurlFetcher(FetchOptions options = {});
  ~CurlFetcher() override;
  CurlFetcher(const CurlFetcher&) = delete;
  CurlFetcher& operator=(const CurlFetcher&) = delete;

  Result<FetchResult> Fetch(const FetchRequest& request) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The URL without the user name and password of its authority:
// "https://user:pw@host/x" -> "https://host/x"; anything else as it is.
std::string WithoutCredentials(std::string_view url);

// Whether `location` is a URL ("scheme://...", any scheme, in any case)
// rather than a local path.
bool IsUrl(std::string_view location);

// The form of a URL that names its document, so that one page is one
// document however it is written: scheme and host in lower case, the
// scheme's default port, the fragment (never sent to a server) and a file
// URL's "localhost" dropped, an empty HTTP path written "/".
// "HTTP://Example.COM:80#top" -> "http://example.com/". Path and query stay
// as they are: a server may tell "/a" from "/a/" or "/A". Anything that is
// not a URL comes back as it is.
std::string CanonicalUrl(std::string_view url);

// The fetcher ingest uses when none is injected: a CurlFetcher.
std::unique_ptr<Fetcher> MakeDefaultFetcher(const FetchOptions& options = {});

}  // namespace chipkg
