// Fetcher tests: real libcurl against a real HTTP server on 127.0.0.1, and
// real files in a temporary directory.
#include "ingest/fetch.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "tests/common/temp_dir.h"
#include "tests/ingest/http_server.h"

namespace chipkg {
namespace {

using std::chrono::milliseconds;
using testing::HttpRequest;
using testing::HttpResponse;
using testing::HttpServer;
using Clock = std::chrono::steady_clock;

// Records the waits the fetcher asks for instead of sleeping.
struct SleepRecorder {
  std::mutex mutex;
  std::vector<milliseconds> waits;
  std::function<void(milliseconds)> Hook() {
    return [this](milliseconds wait) {
      std::lock_guard<std::mutex> guard(mutex);
      waits.push_back(wait);
    };
  }
};

// Limits small enough that every failure path finishes quickly, and no proxy
// so the loopback server is reached directly whatever the environment says.
FetchOptions TestOptions(SleepRecorder* recorder = nullptr) {
  FetchOptions options;
  options.proxy = "";
  options.connect_timeout = milliseconds(2000);
  options.total_timeout = milliseconds(4000);
  options.max_retries = 2;
  options.base_backoff = milliseconds(100);
  options.max_retry_wait = milliseconds(2000);
  if (recorder != nullptr) options.sleep = recorder->Hook();
  return options;
}

HttpResponse Ok(std::string body, std::vector<std::pair<std::string, std::string>> headers = {}) {
  HttpResponse response;
  response.body = std::move(body);
  response.headers = std::move(headers);
  return response;
}

HttpResponse Reply(int status, std::string reason, std::vector<std::pair<std::string, std::string>> headers = {}) {
  HttpResponse response;
  response.status = status;
  response.reason = std::move(reason);
  response.headers = std::move(headers);
  return response;
}

class TempDir : public test_support::TempDir {
 public:
  TempDir() : test_support::TempDir("chipkg-fetch") {}
};

// ---- HTTP --------------------------------------------------------------------

TEST(CurlFetcherTest, OkReturnsBodyHeadersAndValidators) {
  HttpServer server([](const HttpRequest&, int) {
    // Lower- and upper-case header names: a response header's case means nothing.
    return Ok("<html>Trainium2</html>", {{"Content-Type", "text/html; charset=utf-8"},
                                          {"etag", "\"v1\""},
                                          {"LAST-MODIFIED", "Tue, 01 Oct 2024 10:00:00 GMT"}});
  });
  ASSERT_TRUE(server.ok()) << server.error();
  CurlFetcher fetcher(TestOptions());
  Result<FetchResult> result = fetcher.Fetch({server.Url("/chips/trainium"), "", ""});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->http_status, 200);
  EXPECT_FALSE(result->not_modified);
  EXPECT_EQ(result->body, "<html>Trainium2</html>");
  EXPECT_EQ(result->content_type, "text/html; charset=utf-8");
  EXPECT_EQ(result->etag, "\"v1\"");
  EXPECT_EQ(result->last_modified, "Tue, 01 Oct 2024 10:00:00 GMT");
  EXPECT_EQ(result->final_url, server.Url("/chips/trainium"));
  EXPECT_EQ(result->attempts, 1);
  ASSERT_EQ(server.request_count(), 1u);
  HttpRequest seen = server.requests()[0];
  EXPECT_EQ(seen.method, "GET");
  EXPECT_EQ(seen.target, "/chips/trainium");
  // An unconditional request carries no validators.
  EXPECT_FALSE(seen.HasHeader("If-None-Match"));
  EXPECT_FALSE(seen.HasHeader("If-Modified-Since"));
}

TEST(CurlFetcherTest, UserAgentNamesChipkg) {
  HttpServer server([](const HttpRequest&, int) { return Ok("x"); });
  ASSERT_TRUE(server.ok()) << server.error();
  CurlFetcher fetcher(TestOptions());
  ASSERT_TRUE(fetcher.Fetch({server.Url("/"), "", ""}).ok());
  std::string agent = server.requests().at(0).Header("User-Agent");
  EXPECT_EQ(agent.rfind("chipkg/", 0), 0u) << agent;
  EXPECT_NE(agent.find("knowledge graph"), std::string::npos) << agent;
  EXPECT_EQ(agent, DefaultUserAgent());
  // Offers compressed bodies.
  EXPECT_NE(server.requests().at(0).Header("Accept-Encoding").find("gzip"), std::string::npos);
}

TEST(CurlFetcherTest, MatchingEtagGivesNotModified) {
  const std::string etag = "\"sha-1234\"";
  HttpServer server([&](const HttpRequest& request, int) {
    if (request.Header("If-None-Match") == etag) return Reply(304, "Not Modified", {{"ETag", etag}});
    return Ok("fresh body", {{"ETag", etag}});
  });
  ASSERT_TRUE(server.ok()) << server.error();
  CurlFetcher fetcher(TestOptions());

  Result<FetchResult> first = fetcher.Fetch({server.Url("/doc"), "", ""});
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->body, "fresh body");
  ASSERT_EQ(first->etag, etag);

  Result<FetchResult> second = fetcher.Fetch({server.Url("/doc"), first->etag, ""});
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(second->http_status, 304);
  EXPECT_TRUE(second->not_modified);
  EXPECT_TRUE(second->body.empty());
  EXPECT_EQ(second->etag, etag);
  ASSERT_EQ(server.request_count(), 2u);
  EXPECT_EQ(server.requests()[1].Header("If-None-Match"), etag);

  // A stale etag gets the full body again.
  Result<FetchResult> third = fetcher.Fetch({server.Url("/doc"), "\"old\"", ""});
  ASSERT_TRUE(third.ok()) << third.status().message();
  EXPECT_FALSE(third->not_modified);
  EXPECT_EQ(third->body, "fresh body");
}

TEST(CurlFetcherTest, IfModifiedSinceIsSentAndValidatorsCarryOverOn304) {
  const std::string since = "Wed, 02 Oct 2024 08:30:00 GMT";
  HttpServer server([&](const HttpRequest& request, int) {
    // A 304 without validators: the fetcher keeps the ones it sent.
    if (request.Header("If-Modified-Since") == since) return Reply(304, "Not Modified");
    return Ok("changed");
  });
  ASSERT_TRUE(server.ok()) << server.error();
  CurlFetcher fetcher(TestOptions());
  Result<FetchResult> result = fetcher.Fetch({server.Url("/doc"), "\"e\"", since});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_TRUE(result->not_modified);
  EXPECT_EQ(result->last_modified, since);
  EXPECT_EQ(result->etag, "\"e\"");
  ASSERT_EQ(server.request_count(), 1u);
  EXPECT_EQ(server.requests()[0].Header("If-Modified-Since"), since);
  EXPECT_EQ(server.requests()[0].Header("If-None-Match"), "\"e\"");
}

TEST(CurlFetcherTest, UnconditionalNotModifiedIsAnError) {
  HttpServer server([](const HttpRequest&, int) { return Reply(304, "Not Modified"); });
  ASSERT_TRUE(server.ok()) << server.error();
  CurlFetcher fetcher(TestOptions());
  Result<FetchResult> result = fetcher.Fetch({server.Url("/doc"), "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            server.Url("/doc") + ": HTTP 304 Not Modified to a request that was not conditional (no body to read)");
}

TEST(CurlFetcherTest, ValidatorsWithLineBreaksAreRefused) {
  HttpServer server([](const HttpRequest&, int) { return Ok("x"); });
  ASSERT_TRUE(server.ok()) << server.error();
  CurlFetcher fetcher(TestOptions());
  Result<FetchResult> result = fetcher.Fetch({server.Url("/"), "\"a\"\r\nX-Injected: 1", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsInvalidArgument());
  EXPECT_EQ(server.request_count(), 0u);
}

TEST(CurlFetcherTest, NotFoundFailsWithoutRetry) {
  SleepRecorder sleeps;
  HttpServer server([](const HttpRequest&, int) { return Reply(404, "Not Found"); });
  ASSERT_TRUE(server.ok()) << server.error();
  CurlFetcher fetcher(TestOptions(&sleeps));
  Result<FetchResult> result = fetcher.Fetch({server.Url("/missing"), "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsIOError());
  EXPECT_EQ(result.status().message(), server.Url("/missing") + ": HTTP 404 Not Found");
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_TRUE(sleeps.waits.empty());
}

// A header over libcurl's limit fails as libcurl's "Out of memory": said
// with what it most likely is, not as a machine out of memory.
TEST(CurlFetcherTest, AGiantResponseHeaderIsNamed) {
  SleepRecorder sleeps;
  HttpServer server([](const HttpRequest&, int) {
    return Reply(200, "OK", {{"X-Giant", std::string(200 * 1024, 'x')}});
  });
  ASSERT_TRUE(server.ok()) << server.error();
  CurlFetcher fetcher(TestOptions(&sleeps));
  Result<FetchResult> result = fetcher.Fetch({server.Url("/giant"), "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("a response header over its 100 KB limit"), std::string::npos)
      << result.status().message();
}

TEST(CurlFetcherTest, CredentialsNeverAppearInMessages) {
  HttpServer server([](const HttpRequest&, int) { return Reply(403, "Forbidden"); });
  ASSERT_TRUE(server.ok()) << server.error();
  CurlFetcher fetcher(TestOptions());
  std::string url = "http://reader:s3cret@127.0.0.1:" + std::to_string(server.port()) + "/private";
  Result<FetchResult> result = fetcher.Fetch({url, "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message().find("s3cret"), std::string::npos) << result.status().message();
  EXPECT_NE(result.status().message().find("HTTP 403 Forbidden"), std::string::npos);
}

TEST(CurlFetcherTest, ServerErrorThenOkSucceedsOnSecondAttempt) {
  SleepRecorder sleeps;
  HttpServer server([](const HttpRequest&, int index) {
    if (index == 0) return Reply(500, "Internal Server Error");
    return Ok("recovered");
  });
  ASSERT_TRUE(server.ok()) << server.error();
  CurlFetcher fetcher(TestOptions(&sleeps));
  Result<FetchResult> result = fetcher.Fetch({server.Url("/flaky"), "", ""});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->body, "recovered");
  EXPECT_EQ(result->attempts, 2);
  EXPECT_EQ(server.request_count(), 2u);
  ASSERT_EQ(sleeps.waits.size(), 1u);
  EXPECT_EQ(sleeps.waits[0], milliseconds(100));
}

TEST(CurlFetcherTest, PersistentServerErrorBacksOffExponentiallyThenGivesUp) {
  SleepRecorder sleeps;
  HttpServer server([](const HttpRequest&, int) { return Reply(503, "Service Unavailable"); });
  ASSERT_TRUE(server.ok()) << server.error();
  FetchOptions options = TestOptions(&sleeps);
  options.max_retries = 3;
  options.max_retry_wait = milliseconds(300);  // caps the third wait (400 ms)
  CurlFetcher fetcher(options);
  Result<FetchResult> result = fetcher.Fetch({server.Url("/down"), "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            server.Url("/down") + ": HTTP 503 Service Unavailable (gave up after 4 attempts)");
  EXPECT_EQ(server.request_count(), 4u);
  EXPECT_EQ(sleeps.waits, (std::vector<milliseconds>{milliseconds(100), milliseconds(200), milliseconds(300)}));
}

TEST(CurlFetcherTest, TooManyRequestsHonoursRetryAfterSeconds) {
  // Real sleeping here: the wait must actually happen, not just be asked for.
  HttpServer server([](const HttpRequest&, int index) {
    if (index == 0) return Reply(429, "Too Many Requests", {{"Retry-After", "1"}});
    return Ok("ok now");
  });
  ASSERT_TRUE(server.ok()) << server.error();
  FetchOptions options = TestOptions();
  options.max_retry_wait = milliseconds(5000);
  CurlFetcher fetcher(options);
  auto start = Clock::now();
  Result<FetchResult> result = fetcher.Fetch({server.Url("/limited"), "", ""});
  auto elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->attempts, 2);
  EXPECT_GE(elapsed, milliseconds(1000));
  EXPECT_LT(elapsed, milliseconds(4000));
}

TEST(CurlFetcherTest, RetryAfterIsCappedAndAcceptsHttpDates) {
  SleepRecorder sleeps;
  HttpServer server([](const HttpRequest&, int index) {
    if (index == 0) return Reply(429, "Too Many Requests", {{"Retry-After", "3600"}});
    if (index == 1) {
      return Reply(503, "Service Unavailable", {{"Retry-After", HttpServer::HttpDate(std::chrono::seconds(30))}});
    }
    return Ok("done");
  });
  ASSERT_TRUE(server.ok()) << server.error();
  FetchOptions options = TestOptions(&sleeps);
  options.max_retry_wait = milliseconds(60'000);
  options.deadline = std::chrono::minutes(10);  // room for the waits asked for
  CurlFetcher fetcher(options);
  // First with a cap far above both requests, to see what the server asked for...
  Result<FetchResult> result = fetcher.Fetch({server.Url("/"), "", ""});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->attempts, 3);
  ASSERT_EQ(sleeps.waits.size(), 2u);
  EXPECT_EQ(sleeps.waits[0], milliseconds(60'000));  // one hour, capped
  // An HTTP date 30 s ahead: whole seconds, allowing for the clock ticking.
  EXPECT_GE(sleeps.waits[1], milliseconds(28'000));
  EXPECT_LE(sleeps.waits[1], milliseconds(30'000));

  // ...then with a small cap, which wins.
  SleepRecorder capped;
  HttpServer again([](const HttpRequest&, int index) {
    if (index == 0) return Reply(429, "Too Many Requests", {{"Retry-After", "120"}});
    return Ok("done");
  });
  ASSERT_TRUE(again.ok()) << again.error();
  FetchOptions small = TestOptions(&capped);
  small.max_retry_wait = milliseconds(250);
  CurlFetcher fast(small);
  ASSERT_TRUE(fast.Fetch({again.Url("/"), "", ""}).ok());
  EXPECT_EQ(capped.waits, std::vector<milliseconds>{milliseconds(250)});

  // A wait that would pass the fetch's deadline is not taken: the fetch fails at once.
  SleepRecorder none;
  HttpServer busy([](const HttpRequest&, int) { return Reply(429, "Too Many Requests", {{"Retry-After", "120"}}); });
  ASSERT_TRUE(busy.ok()) << busy.error();
  FetchOptions short_deadline = TestOptions(&none);
  short_deadline.max_retry_wait = milliseconds(120'000);
  short_deadline.deadline = milliseconds(5'000);
  CurlFetcher impatient(short_deadline);
  Result<FetchResult> refused = impatient.Fetch({busy.Url("/"), "", ""});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            busy.Url("/") + ": HTTP 429 Too Many Requests (gave up after 1 attempt: the server asked to be asked "
                            "again in 120 s, more than is left of the fetch's deadline of 5 s)");
  EXPECT_TRUE(none.waits.empty());
  EXPECT_EQ(busy.request_count(), 1u);
}

TEST(CurlFetcherTest, FollowsRedirectsAndReportsFinalUrl) {
  HttpServer server([](const HttpRequest& request, int) {
    if (request.target == "/old") return Reply(301, "Moved Permanently", {{"Location", "/new"}});
    return Ok("moved here", {{"ETag", "\"final\""}});
  });
  ASSERT_TRUE(server.ok()) << server.error();
  CurlFetcher fetcher(TestOptions());
  Result<FetchResult> result = fetcher.Fetch({server.Url("/old"), "", ""});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->body, "moved here");
  EXPECT_EQ(result->final_url, server.Url("/new"));
  EXPECT_EQ(result->etag, "\"final\"");
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(CurlFetcherTest, RedirectLoopFailsNamingTooManyRedirects) {
  HttpServer server([](const HttpRequest& request, int) {
    return Reply(302, "Found", {{"Location", request.target == "/a" ? "/b" : "/a"}});
  });
  ASSERT_TRUE(server.ok()) << server.error();
  FetchOptions options = TestOptions();
  options.max_redirects = 3;
  CurlFetcher fetcher(options);
  Result<FetchResult> result = fetcher.Fetch({server.Url("/a"), "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), server.Url("/a") + ": too many redirects (max 3)");
  EXPECT_EQ(server.request_count(), 4u);  // the first request and three redirects; not retried
}

TEST(CurlFetcherTest, RedirectToDisallowedProtocolIsRefused) {
  HttpServer server([](const HttpRequest&, int) {
    return Reply(302, "Found", {{"Location", "ftp://127.0.0.1/etc/passwd"}});
  });
  ASSERT_TRUE(server.ok()) << server.error();
  CurlFetcher fetcher(TestOptions());
  Result<FetchResult> result = fetcher.Fetch({server.Url("/r"), "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsIOError());
  EXPECT_EQ(result.status().message(),
            server.Url("/r") + ": redirect to ftp://127.0.0.1/etc/passwd refused: protocol ftp not allowed");
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(CurlFetcherTest, RedirectToFileIsRefusedEvenIfListed) {
  HttpServer server([](const HttpRequest&, int) { return Reply(302, "Found", {{"Location", "file:///etc/passwd"}}); });
  ASSERT_TRUE(server.ok()) << server.error();
  FetchOptions options = TestOptions();
  options.redirect_protocols = "http,https,file";
  CurlFetcher fetcher(options);
  Result<FetchResult> result = fetcher.Fetch({server.Url("/r"), "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("protocol file not allowed"), std::string::npos)
      << result.status().message();
}

TEST(CurlFetcherTest, DisallowedSchemeIsRefusedBeforeConnecting) {
  CurlFetcher fetcher(TestOptions());
  Result<FetchResult> result = fetcher.Fetch({"ftp://127.0.0.1/file.txt", "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), "ftp://127.0.0.1/file.txt: protocol ftp not allowed");
}

TEST(CurlFetcherTest, SlowServerTimesOutQuicklyAndIsRetried) {
  SleepRecorder sleeps;
  HttpServer server([](const HttpRequest&, int) {
    HttpResponse response = Ok("too late");
    response.delay = milliseconds(10'000);
    return response;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  FetchOptions options = TestOptions(&sleeps);
  options.total_timeout = milliseconds(300);
  options.max_retries = 1;
  CurlFetcher fetcher(options);
  auto start = Clock::now();
  Result<FetchResult> result = fetcher.Fetch({server.Url("/slow"), "", ""});
  auto elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsIOError());
  EXPECT_EQ(result.status().message(), server.Url("/slow") + ": timed out after 300 ms (gave up after 2 attempts)");
  EXPECT_LT(elapsed, milliseconds(3000));
  EXPECT_EQ(server.request_count(), 2u);
  EXPECT_EQ(sleeps.waits.size(), 1u);
}

// A host that takes connections and never answers costs the fetch's deadline,
// however many retries are allowed: attempts and real waits both count.
TEST(CurlFetcherTest, DeadlineBoundsEveryAttemptAndWaitTogether) {
  HttpServer server([](const HttpRequest&, int) {
    HttpResponse response = Ok("never");
    response.delay = milliseconds(30'000);
    return response;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  FetchOptions options = TestOptions();  // real sleeps
  options.total_timeout = milliseconds(300);
  options.base_backoff = milliseconds(50);
  options.max_retries = 50;
  options.deadline = milliseconds(1200);
  CurlFetcher fetcher(options);
  auto start = Clock::now();
  Result<FetchResult> result = fetcher.Fetch({server.Url("/stalled"), "", ""});
  auto elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsIOError());
  const std::string& message = result.status().message();
  EXPECT_EQ(message.rfind(server.Url("/stalled") + ": timed out after ", 0), 0u) << message;
  EXPECT_NE(message.find("attempts: the fetch's deadline is 1200 ms)"), std::string::npos) << message;
  EXPECT_GE(elapsed, milliseconds(900));
  EXPECT_LT(elapsed, milliseconds(2500));
  EXPECT_GE(server.request_count(), 2u);
  EXPECT_LE(server.request_count(), 4u);
}

// A deadline too long for the clock to add is as good as none (it was every
// fetch failing after 1 ms, or undefined behaviour).
TEST(CurlFetcherTest, AnEndlessDeadlineIsNoDeadline) {
  HttpServer server([](const HttpRequest&, int) { return Ok("in time"); });
  ASSERT_TRUE(server.ok()) << server.error();
  FetchOptions options = TestOptions();
  options.deadline = milliseconds::max();
  CurlFetcher fetcher(options);
  Result<FetchResult> result = fetcher.Fetch({server.Url("/"), "", ""});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->body, "in time");
}

// One attempt longer than the deadline is cut to it.
TEST(CurlFetcherTest, AnAttemptIsCutToTheDeadline) {
  HttpServer server([](const HttpRequest&, int) {
    HttpResponse response = Ok("never");
    response.delay = milliseconds(30'000);
    return response;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  SleepRecorder sleeps;
  FetchOptions options = TestOptions(&sleeps);
  options.total_timeout = milliseconds(20'000);
  options.deadline = milliseconds(600);
  CurlFetcher fetcher(options);
  auto start = Clock::now();
  Result<FetchResult> result = fetcher.Fetch({server.Url("/stalled"), "", ""});
  auto elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  ASSERT_FALSE(result.ok());
  const std::string& message = result.status().message();
  EXPECT_NE(message.find("(gave up after 1 attempt: the fetch's deadline is 600 ms)"), std::string::npos) << message;
  EXPECT_LT(elapsed, milliseconds(2000));
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_TRUE(sleeps.waits.empty());
}

TEST(CurlFetcherTest, TricklingServerIsAbandonedAsTooSlow) {
  HttpServer server([](const HttpRequest&, int) {
    HttpResponse response = Ok("x");
    response.framing = HttpResponse::Framing::kChunked;
    response.repeat = 1000;
    response.piece_delay = milliseconds(200);
    return response;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  FetchOptions options = TestOptions();
  options.low_speed_limit = 1000;
  options.low_speed_time = std::chrono::seconds(1);
  options.max_retries = 0;
  CurlFetcher fetcher(options);
  auto start = Clock::now();
  Result<FetchResult> result = fetcher.Fetch({server.Url("/trickle"), "", ""});
  auto elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), server.Url("/trickle") + ": transfer too slow (under 1000 bytes/s for 1 s)");
  EXPECT_LT(elapsed, milliseconds(3500));
}

TEST(CurlFetcherTest, ConnectionRefusedIsRetriedThenReported) {
  // A port that was free a moment ago: nothing listens there.
  int probe = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(probe, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(probe, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::getsockname(probe, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  int port = ntohs(addr.sin_port);
  ::close(probe);

  SleepRecorder sleeps;
  CurlFetcher fetcher(TestOptions(&sleeps));
  std::string url = "http://127.0.0.1:" + std::to_string(port) + "/";
  Result<FetchResult> result = fetcher.Fetch({url, "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsIOError());
  const std::string& message = result.status().message();
  EXPECT_EQ(message.rfind(url + ": ", 0), 0u) << message;
  EXPECT_NE(message.find("(gave up after 3 attempts)"), std::string::npos) << message;
  EXPECT_EQ(sleeps.waits, (std::vector<milliseconds>{milliseconds(100), milliseconds(200)}));
}

HttpResponse EndlessBody(HttpResponse::Framing framing) {
  HttpResponse response = Ok(std::string(16 * 1024, 'a'));
  response.framing = framing;
  response.repeat = 64;  // 1 MiB, far past the test limit
  return response;
}

TEST(CurlFetcherTest, ChunkedBodyOverLimitIsAbortedWhileStreaming) {
  SleepRecorder sleeps;
  HttpServer server([](const HttpRequest&, int) { return EndlessBody(HttpResponse::Framing::kChunked); });
  ASSERT_TRUE(server.ok()) << server.error();
  FetchOptions options = TestOptions(&sleeps);
  options.max_body_bytes = 64 * 1024;
  CurlFetcher fetcher(options);
  Result<FetchResult> result = fetcher.Fetch({server.Url("/big"), "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), server.Url("/big") + ": body larger than 65536 bytes");
  EXPECT_EQ(server.request_count(), 1u);  // not retried
  EXPECT_TRUE(sleeps.waits.empty());
}

TEST(CurlFetcherTest, UnframedBodyOverLimitIsAbortedWhileStreaming) {
  HttpServer server([](const HttpRequest&, int) { return EndlessBody(HttpResponse::Framing::kUntilClose); });
  ASSERT_TRUE(server.ok()) << server.error();
  FetchOptions options = TestOptions();
  options.max_body_bytes = 64 * 1024;
  CurlFetcher fetcher(options);
  Result<FetchResult> result = fetcher.Fetch({server.Url("/big"), "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), server.Url("/big") + ": body larger than 65536 bytes");
}

TEST(CurlFetcherTest, DeclaredLengthOverLimitIsRefused) {
  HttpServer server([](const HttpRequest&, int) { return EndlessBody(HttpResponse::Framing::kContentLength); });
  ASSERT_TRUE(server.ok()) << server.error();
  FetchOptions options = TestOptions();
  options.max_body_bytes = 64 * 1024;
  CurlFetcher fetcher(options);
  Result<FetchResult> result = fetcher.Fetch({server.Url("/big"), "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), server.Url("/big") + ": body larger than 65536 bytes");
}

TEST(CurlFetcherTest, BodyAtTheLimitIsAccepted) {
  HttpServer server([](const HttpRequest&, int) {
    HttpResponse response = Ok(std::string(1024, 'b'));
    response.framing = HttpResponse::Framing::kChunked;
    response.repeat = 64;
    return response;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  FetchOptions options = TestOptions();
  options.max_body_bytes = 64 * 1024;
  CurlFetcher fetcher(options);
  Result<FetchResult> result = fetcher.Fetch({server.Url("/exact"), "", ""});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->body.size(), 64u * 1024u);
}

// gzip of a short sentence, and of 256 KiB of zero bytes (289 bytes on the wire).
const char kGzipSentence[] =
    "\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff\x4b\xce\xc8\x2c\xc8\x4e\x57\x48\xaf\xca\x2c\x50\x48\xca\x4f\xa9\xb4"
    "\x52\x08\x29\x4a\xcc\xcc\xcb\x2c\xcd\x55\x30\x52\xc8\x48\x2c\x56\xb0\x34\x53\x70\xcf\x74\x52\xf0\x70\xf2\xe5"
    "\x02\x00\x1c\x4b\x75\xcb\x2c\x00\x00\x00";
std::string GzipZeros256K() {
  const char head[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff\xed\xc1\x31\x01\x00\x00\x00\xc2\xa0\xf5\x4f\xed\x6d\x07\xa0";
  const char tail[] = "\xde\x00\x22\xea\x0e\xe2\x00\x00\x04\x00";
  return std::string(head, sizeof head - 1) + std::string(254, '\0') + std::string(tail, sizeof tail - 1);
}

TEST(CurlFetcherTest, GzipBodyIsDecoded) {
  HttpServer server([](const HttpRequest&, int) {
    return Ok(std::string(kGzipSentence, sizeof kGzipSentence - 1), {{"Content-Encoding", "gzip"}});
  });
  ASSERT_TRUE(server.ok()) << server.error();
  CurlFetcher fetcher(TestOptions());
  Result<FetchResult> result = fetcher.Fetch({server.Url("/gz"), "", ""});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->body, "chipkg gzip body: Trainium 2 has 96 GiB HBM\n");
}

TEST(CurlFetcherTest, LimitCountsDecodedBytesNotWireBytes) {
  HttpServer server([](const HttpRequest&, int) { return Ok(GzipZeros256K(), {{"Content-Encoding", "gzip"}}); });
  ASSERT_TRUE(server.ok()) << server.error();
  FetchOptions options = TestOptions();
  options.max_body_bytes = 64 * 1024;  // the wire size (289 B) is far below, the decoded size far above
  CurlFetcher fetcher(options);
  Result<FetchResult> result = fetcher.Fetch({server.Url("/bomb"), "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), server.Url("/bomb") + ": body larger than 65536 bytes");
}

TEST(CurlFetcherTest, ErrorPageBodiesDoNotCountAsContent) {
  // A large 500 page must be reported as HTTP 500, not as an oversized body.
  HttpServer server([](const HttpRequest&, int) {
    HttpResponse response = EndlessBody(HttpResponse::Framing::kChunked);
    response.status = 500;
    response.reason = "Internal Server Error";
    return response;
  });
  ASSERT_TRUE(server.ok()) << server.error();
  FetchOptions options = TestOptions();
  options.max_body_bytes = 64 * 1024;
  options.max_retries = 0;
  CurlFetcher fetcher(options);
  Result<FetchResult> result = fetcher.Fetch({server.Url("/err"), "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), server.Url("/err") + ": HTTP 500 Internal Server Error");
}

TEST(CurlFetcherTest, BadOptionsAreInvalidArgument) {
  FetchOptions options = TestOptions();
  options.max_redirects = -1;
  CurlFetcher fetcher(options);
  Result<FetchResult> result = fetcher.Fetch({"http://127.0.0.1:1/", "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsInvalidArgument());

  CurlFetcher empty(TestOptions());
  EXPECT_TRUE(empty.Fetch({"", "", ""}).status().IsInvalidArgument());

  FetchOptions no_time = TestOptions();
  no_time.deadline = milliseconds(0);
  CurlFetcher never(no_time);
  EXPECT_TRUE(never.Fetch({"http://127.0.0.1:1/", "", ""}).status().IsInvalidArgument());
}

// ---- Local files --------------------------------------------------------------

TEST(LocalReadTest, PlainPathAndFileUrlReadTheSameBytes) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::string content = "Trainium2,96 GiB\nInferentia2,32 GiB\n";
  std::string path = dir.Write("chips list.csv", content);  // a space, to exercise %20

  CurlFetcher fetcher(TestOptions());
  Result<FetchResult> plain = fetcher.Fetch({path, "", ""});
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain->body, content);
  EXPECT_EQ(plain->http_status, 200);
  EXPECT_EQ(plain->content_type, "text/csv");
  EXPECT_EQ(plain->final_url, path);
  EXPECT_EQ(plain->attempts, 1);

  std::string url = "file://" + dir.path() + "/chips%20list.csv";
  Result<FetchResult> via_url = fetcher.Fetch({url, "", ""});
  ASSERT_TRUE(via_url.ok()) << via_url.status().message();
  EXPECT_EQ(via_url->body, content);
  EXPECT_EQ(via_url->final_url, url);

  Result<FetchResult> localhost = fetcher.Fetch({"file://localhost" + dir.path() + "/chips%20list.csv", "", ""});
  ASSERT_TRUE(localhost.ok()) << localhost.status().message();
  EXPECT_EQ(localhost->body, content);

  LocalFetcher local(TestOptions());
  Result<FetchResult> offline = local.Fetch({url, "", ""});
  ASSERT_TRUE(offline.ok()) << offline.status().message();
  EXPECT_EQ(offline->body, content);
}

TEST(LocalReadTest, SeedDocumentReadsFromTheRepository) {
  std::string dir = std::string(CHIPKG_SOURCE_DIR) + "/datasets/seeds";
  std::string first;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".txt") {
      first = entry.path().string();
      break;
    }
  }
  ASSERT_FALSE(first.empty()) << "no seed documents in " << dir;
  LocalFetcher local(TestOptions());
  Result<FetchResult> result = local.Fetch({first, "", ""});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->body.size(), std::filesystem::file_size(first));
  EXPECT_EQ(result->content_type, "text/plain");
}

TEST(LocalReadTest, MissingFileIsAClearError) {
  TempDir dir;
  std::string path = dir.path() + "/no-such-page.html";
  CurlFetcher fetcher(TestOptions());
  Result<FetchResult> result = fetcher.Fetch({path, "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsIOError());
  EXPECT_EQ(result.status().message(), path + ": cannot open: No such file or directory");

  Result<FetchResult> via_url = fetcher.Fetch({"file://" + path, "", ""});
  ASSERT_FALSE(via_url.ok());
  EXPECT_EQ(via_url.status().message(),
            "file://" + path + " (" + path + "): cannot open: No such file or directory");
}

TEST(LocalReadTest, DirectoriesAndFifosAreNotRead) {
  TempDir dir;
  CurlFetcher fetcher(TestOptions());
  Result<FetchResult> directory = fetcher.Fetch({dir.path(), "", ""});
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.status().message(), dir.path() + ": not a regular file");

  // A FIFO with no writer would block a naive reader forever.
  std::string fifo = dir.path() + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Result<FetchResult> pipe = fetcher.Fetch({fifo, "", ""});
  ASSERT_FALSE(pipe.ok());
  EXPECT_EQ(pipe.status().message(), fifo + ": not a regular file");
}

TEST(LocalReadTest, FileOverLimitIsRefused) {
  TempDir dir;
  std::string path = dir.Write("big.txt", std::string(5000, 'z'));
  FetchOptions options = TestOptions();
  options.max_body_bytes = 4096;
  CurlFetcher fetcher(options);
  Result<FetchResult> result = fetcher.Fetch({path, "", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), path + ": body larger than 4096 bytes");
  options.max_body_bytes = 5000;
  CurlFetcher roomy(options);
  EXPECT_TRUE(roomy.Fetch({path, "", ""}).ok());
}

TEST(LocalReadTest, RemoteFileHostsAndOtherSchemesAreRefused) {
  CurlFetcher fetcher(TestOptions());
  Result<FetchResult> remote = fetcher.Fetch({"file://fileserver/etc/hosts", "", ""});
  ASSERT_FALSE(remote.ok());
  EXPECT_TRUE(remote.status().IsInvalidArgument());
  EXPECT_NE(remote.status().message().find("only local files"), std::string::npos);

  LocalFetcher local(TestOptions());
  Result<FetchResult> http = local.Fetch({"http://127.0.0.1/", "", ""});
  ASSERT_FALSE(http.ok());
  EXPECT_NE(http.status().message().find("protocol http not allowed"), std::string::npos);

  FetchOptions no_files = TestOptions();
  no_files.allowed_protocols = "http,https";
  CurlFetcher web_only(no_files);
  Result<FetchResult> file = web_only.Fetch({"file:///etc/hostname", "", ""});
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().message(), "file:///etc/hostname: protocol file not allowed");
}

// One page written several ways is one document (the ingest pipeline's
// document id); what a server may tell apart stays apart.
TEST(CanonicalUrlTest, OnePageWrittenSeveralWaysIsOneUrl) {
  EXPECT_EQ(CanonicalUrl("HTTP://Example.COM:80#top"), "http://example.com/");
  EXPECT_EQ(CanonicalUrl("https://example.com:443/a?b=C#frag"), "https://example.com/a?b=C");
  EXPECT_EQ(CanonicalUrl("https://example.com:/a"), "https://example.com/a");
  EXPECT_EQ(CanonicalUrl("https://example.com?x=1"), "https://example.com/?x=1");
  EXPECT_EQ(CanonicalUrl("http://127.0.0.1:8080/Page"), "http://127.0.0.1:8080/Page");
  EXPECT_EQ(CanonicalUrl("http://[::1]/a"), "http://[::1]/a");
  EXPECT_EQ(CanonicalUrl("http://[::1]:80/a"), "http://[::1]/a");
  EXPECT_EQ(CanonicalUrl("http://[::1]:8080/a"), "http://[::1]:8080/a");
  EXPECT_EQ(CanonicalUrl("https://example.com:80/a"), "https://example.com:80/a");
  EXPECT_EQ(CanonicalUrl("HTTP://HOST:0080/"), "http://host/");
  EXPECT_EQ(CanonicalUrl("http://host:08080/x"), "http://host:8080/x");
  EXPECT_EQ(CanonicalUrl("http://host:0/x"), "http://host:0/x");
  EXPECT_EQ(CanonicalUrl("https://Example.COM./a"), "https://example.com/a");
  EXPECT_EQ(CanonicalUrl("http://[::1]:0080/a"), "http://[::1]/a");
  EXPECT_EQ(CanonicalUrl("FILE://localhost/tmp/a.txt#x"), "file:///tmp/a.txt");
  EXPECT_EQ(CanonicalUrl("file:///tmp/A.txt"), "file:///tmp/A.txt");
  // Kept apart: the path's case, a trailing slash, the query.
  EXPECT_NE(CanonicalUrl("http://example.com/a"), CanonicalUrl("http://example.com/a/"));
  EXPECT_NE(CanonicalUrl("http://example.com/a"), CanonicalUrl("http://example.com/A"));
  EXPECT_NE(CanonicalUrl("http://example.com/a?x=1"), CanonicalUrl("http://example.com/a?x=2"));
  // Not URLs: as they are.
  EXPECT_EQ(CanonicalUrl("Data/Page.TXT"), "Data/Page.TXT");
  EXPECT_EQ(CanonicalUrl("/tmp/x#1"), "/tmp/x#1");
  EXPECT_TRUE(IsUrl("HTTPS://example.com/"));
  EXPECT_TRUE(IsUrl("ftp://example.com/"));
  EXPECT_FALSE(IsUrl("/tmp/http://x"));
  EXPECT_FALSE(IsUrl("page.txt"));
}

}  // namespace
}  // namespace chipkg
