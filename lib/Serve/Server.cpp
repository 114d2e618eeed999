//===- Server.cpp - HTTP plumbing: routes, limits, auth, metrics, signals --===//
//
// cpp-httplib with a fixed pool of worker threads. Bodies over the size
// limit get 413 and slow clients time out (read timeout) before a worker
// sees them; with a token, every endpoint but /healthz needs
// `Authorization: Bearer TOKEN` (the dashboard pages also accept
// `?token=TOKEN`, for a browser). Every reply is JSON except /metrics
// (Prometheus text) and the dashboard files.
//
//===----------------------------------------------------------------------===//

#include "mqss/Serve/Server.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <thread>

namespace mqss {

namespace {
std::atomic<bool> reloadRequested{false};
std::atomic<bool> stopRequested{false};

void onSignal(int signal) {
  if (signal == SIGHUP)
    reloadRequested = true;
  else
    stopRequested = true;
}

bool constantTimeEquals(llvm::StringRef a, llvm::StringRef b) {
  if (a.size() != b.size())
    return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

void sendJson(httplib::Response &response, const Reply &reply) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << reply.body;
  response.status = reply.status;
  response.set_content(text + "\n", "application/json");
}

/// Why a request could not be read, for the client: \p status is what the
/// HTTP library made of it (413: over the size limit; otherwise it did not
/// arrive in time or broke off).
std::string unreadRequestMessage(const httplib::Request &request, int status,
                                 const ServeOptions &options) {
  std::string message =
      status == 413
          ? llvm::formatv("request body too large: the limit is {0} MiB (mqss serve "
                          "--max-body-mb)",
                          options.maxBodyBytes >> 20)
                .str()
      : status == 414
          ? std::string("the request's path is too long")
          : llvm::formatv("the request could not be read: it is not well-formed HTTP, it "
                          "broke off, or it did not arrive within {0} s (mqss serve "
                          "--read-timeout-s)",
                          options.readTimeoutSeconds)
                .str();
  // The HTTP library reads a POST that gives no length until the client
  // closes: `curl -X POST URL` with no -d waits out the timeout.
  if (status != 413 && request.method == "POST" && !request.has_header("Content-Length") &&
      !request.has_header("Transfer-Encoding"))
    message += "; a POST must give its body's length, even when empty (Content-Length: 0; "
               "curl: -d '')";
  return message;
}

/// The `kind` label of mqss_errors_total for a reply's \p status.
std::string errorKind(int status) {
  switch (status) {
  case 400:
    return "bad_request";
  case 401:
    return "unauthorized";
  case 404:
    return "not_found";
  case 405:
    return "method_not_allowed";
  case 408:
    return "timeout";
  case 413:
    return "too_large";
  case 422:
    return "unprocessable";
  case 503: // every worker busy and the waiting ones too: retry
    return "busy";
  case 504: // a request's passes outran --child-timeout-s: not the server failing
    return "pass_timeout";
  default:
    return status < 500 ? "client" : "internal";
  }
}

std::string contentType(llvm::StringRef path) {
  llvm::StringRef extension = llvm::sys::path::extension(path);
  if (extension == ".html")
    return "text/html; charset=utf-8";
  if (extension == ".js")
    return "application/javascript";
  if (extension == ".css")
    return "text/css";
  if (extension == ".svg")
    return "image/svg+xml";
  if (extension == ".png")
    return "image/png";
  return "application/octet-stream";
}
} // namespace

namespace {
/// The requests that parse, run passes or measure (the POST endpoints):
/// at most --threads at once, and at most kWaitingPosts more waiting for a
/// slot (each waiting one holds a pool thread); past that a POST is told to
/// retry (503). The pool has kLightThreads threads beyond both, so /healthz,
/// /metrics and the dashboard are answered while all are busy.
class BusySlots {
public:
  explicit BusySlots(unsigned count) : free(count) {}
  /// One slot, from construction to destruction, if one was to be had.
  struct Held {
    Held(BusySlots &slots, unsigned maxWaiting)
        : slots(slots), held(slots.acquire(maxWaiting)) {}
    ~Held() {
      if (held)
        slots.release();
    }
    BusySlots &slots;
    const bool held;
  };
  /// Waits for a slot, unless \p maxWaiting requests wait already: false.
  bool acquire(unsigned maxWaiting) {
    std::unique_lock<std::mutex> lock(mutex);
    if (free == 0 && waiting >= maxWaiting)
      return false;
    ++waiting;
    freed.wait(lock, [&] { return free > 0; });
    --waiting;
    --free;
    return true;
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++free;
    }
    freed.notify_one();
  }

private:
  std::mutex mutex;
  std::condition_variable freed;
  unsigned free;
  unsigned waiting = 0;
};
constexpr unsigned kWaitingPosts = 16;
/// An idle keep-alive connection holds a pool thread too (the HTTP library
/// serves a connection on one thread until it closes): this many of them
/// and GETs at once still leave /healthz a thread.
constexpr unsigned kLightThreads = 8;
} // namespace

int runServer(const ServeOptions &options) {
  auto created = Service::create(options);
  if (!created) {
    llvm::errs() << "mqss serve: error: " << llvm::toString(created.takeError()) << "\n";
    return 1;
  }
  Service &service = **created;
  Metrics &metrics = service.metrics();

  httplib::Server server;
  unsigned threads = std::max(1u, options.threads);
  BusySlots busy(threads);
  server.new_task_queue = [threads] {
    return new httplib::ThreadPool(threads + kWaitingPosts + kLightThreads);
  };
  server.set_payload_max_length(options.maxBodyBytes);
  auto seconds = [](double s) { return std::chrono::microseconds(int64_t(s * 1e6)); };
  server.set_read_timeout(seconds(options.readTimeoutSeconds));
  server.set_write_timeout(seconds(options.readTimeoutSeconds));
  server.set_keep_alive_timeout(5);
  server.set_tcp_nodelay(true); // replies are small: no Nagle/delayed-ACK stalls

  // The endpoints, each registered once below; the error handler tells a
  // client asking one with the wrong method which method it takes.
  std::vector<std::string> postPaths, getPaths = {"/metrics"};
  // The endpoint label of a request's metrics: a path a client makes up
  // counts as "other", so it cannot create new series.
  auto metricEndpoint = [&](const std::string &path) -> std::string {
    bool known = llvm::is_contained(postPaths, path) || llvm::is_contained(getPaths, path);
    return known ? path : "other";
  };

  // Every reply is counted and timed (from its handler's start: what the
  // server spent on it once read), errors by kind, under one endpoint label.
  auto count = [&](const std::string &endpoint, int status,
                   std::chrono::steady_clock::time_point start) {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    metrics.increment("mqss_requests_total",
                      {{"endpoint", endpoint}, {"code", std::to_string(status)}});
    metrics.observe("mqss_request_duration_seconds", {{"endpoint", endpoint}}, elapsed);
    if (status >= 400)
      metrics.increment("mqss_errors_total", {{"endpoint", endpoint}, {"kind", errorKind(status)}});
  };

  // Authentication, before any route.
  server.set_pre_routing_handler([&](const httplib::Request &request,
                                     httplib::Response &response) {
    auto start = std::chrono::steady_clock::now();
    if (options.token.empty() || request.path == "/healthz")
      return httplib::Server::HandlerResponse::Unhandled;
    std::string header = request.get_header_value("Authorization");
    llvm::StringRef given = header;
    // The scheme's name is case-insensitive (RFC 7235), the token is not.
    // Of two Authorization headers neither is taken: which one a proxy in
    // front of the server checked is not known.
    bool several = request.get_header_value_count("Authorization") > 1;
    bool ok = !several && given.consume_front_insensitive("Bearer ") &&
              constantTimeEquals(given.trim(), options.token);
    bool page = request.path == "/" || llvm::StringRef(request.path).starts_with("/static/");
    if (!ok && page && request.has_param("token"))
      ok = constantTimeEquals(request.get_param_value("token"), options.token);
    if (ok)
      return httplib::Server::HandlerResponse::Unhandled;
    response.set_header("WWW-Authenticate", "Bearer");
    sendJson(response, Reply{401, llvm::json::Object{
                                      {"error", several ? "several Authorization headers: give one"
                                                        : "missing or wrong bearer token"}}});
    count(metricEndpoint(request.path), 401, start);
    return httplib::Server::HandlerResponse::Handled;
  });

  auto route = [&](llvm::StringRef endpoint, auto handler) {
    return [&, endpoint = endpoint.str(), handler](const httplib::Request &,
                                                   httplib::Response &response) {
      auto start = std::chrono::steady_clock::now();
      Reply reply = handler();
      sendJson(response, reply);
      count(endpoint, reply.status, start);
    };
  };
  // A POST's body, read here rather than by the library: the read timeout
  // bounds each read, so a client sending a byte every few seconds held a
  // worker for as long as it liked. The whole body must arrive within
  // --read-timeout-s of the handler's start.
  auto withBody = [&](llvm::StringRef endpoint, auto handler) {
    return [&, endpoint = endpoint.str(), handler](const httplib::Request &request,
                                                   httplib::Response &response,
                                                   const httplib::ContentReader &content) {
      auto start = std::chrono::steady_clock::now();
      auto deadline = start + seconds(options.readTimeoutSeconds);
      std::string body;
      bool late = false;
      bool read = content([&](const char *data, size_t length) {
        body.append(data, length);
        late = std::chrono::steady_clock::now() > deadline;
        return !late;
      });
      // A body that stopped short of its length, its client waiting, ends
      // with a read that timed out: late too. (A POST that gives no length
      // is read to the timeout: a mistake unreadRequestMessage names.)
      bool framed = request.has_header("Content-Length") || request.has_header("Transfer-Encoding");
      if (!read && framed && response.status != 413 && std::chrono::steady_clock::now() >= deadline)
        late = true;
      Reply reply;
      if (late)
        reply = Reply{408, llvm::json::Object{
                               {"error", llvm::formatv("the request's body did not arrive "
                                                       "within {0} s (mqss serve "
                                                       "--read-timeout-s)",
                                                       options.readTimeoutSeconds)
                                             .str()}}};
      else if (!read) // over the size limit (413), or it broke off
        reply = Reply{response.status == 413 ? 413 : 400,
                      llvm::json::Object{
                          {"error", unreadRequestMessage(request, response.status, options)}}};
      else {
        BusySlots::Held slot(busy, kWaitingPosts);
        if (slot.held)
          reply = handler(body);
        else
          reply = Reply{503, llvm::json::Object{
                                 {"error", llvm::formatv("all {0} workers are busy and {1} "
                                                         "requests wait: retry later (mqss "
                                                         "serve --threads)",
                                                         threads, kWaitingPosts)
                                               .str()}}};
      }
      if (late || !read)
        response.set_header("Connection", "close"); // the rest of the body is unread
      if (reply.status == 503)
        response.set_header("Retry-After", "1");
      sendJson(response, reply);
      count(endpoint, reply.status, start);
    };
  };
  auto post = [&](const std::string &path, auto handler) {
    postPaths.push_back(path);
    server.Post(path, withBody(path, handler));
  };
  auto get = [&](const std::string &path, auto handler) {
    getPaths.push_back(path);
    server.Get(path, route(path, handler));
  };
  post("/v1/select", [&](const std::string &body) { return service.select(body); });
  post("/v1/pipeline", [&](const std::string &body) { return service.pipeline(body); });
  post("/v1/optimize", [&](const std::string &body) { return service.optimize(body); });
  post("/v1/admin/reload", [&](const std::string &body) { return service.reload(body); });
  get("/v1/stats", [&] { return service.stats(); });
  get("/healthz", [&] { return service.health(); });
  server.Get("/metrics", [&](const httplib::Request &, httplib::Response &response) {
    // Counted before rendering, so that the page includes itself.
    count("/metrics", 200, std::chrono::steady_clock::now());
    response.set_content(metrics.render(), "text/plain; version=0.0.4");
  });

  // The dashboard: files from its directory, nothing else, counted under
  // \p endpoint ("/" or "/static").
  auto serveFile = [&](llvm::StringRef endpoint, llvm::StringRef name,
                       httplib::Response &response) {
    auto start = std::chrono::steady_clock::now();
    std::unique_ptr<llvm::MemoryBuffer> file;
    if (!name.contains("..") && !name.contains('/') && !options.dashboardDir.empty()) {
      llvm::SmallString<256> path(options.dashboardDir);
      llvm::sys::path::append(path, name);
      if (auto buffer = llvm::MemoryBuffer::getFile(path))
        file = std::move(*buffer);
    }
    if (!file)
      sendJson(response, Reply{404, llvm::json::Object{{"error", "not found: " + name.str()}}});
    else
      response.set_content(file->getBuffer().str(), contentType(name));
    count(endpoint.str(), file ? 200 : 404, start);
  };
  server.Get("/", [&](const httplib::Request &, httplib::Response &response) {
    serveFile("/", "index.html", response);
  });
  server.Get(R"(/static/([A-Za-z0-9._-]+))",
             [&](const httplib::Request &request, httplib::Response &response) {
               serveFile("/static", request.matches[1].str(), response);
             });
  // What httplib answers itself (an unknown path, a body over the limit, a
  // request that could not be read in time) is counted too, under a fixed
  // endpoint label for unknown paths.
  server.set_error_handler([&](const httplib::Request &request, httplib::Response &response) {
    auto start = std::chrono::steady_clock::now();
    if (!response.body.empty())
      return; // a handler already replied
    bool posted = llvm::is_contained(postPaths, request.path);
    bool got = llvm::is_contained(getPaths, request.path);
    std::string message;
    if (response.status == 404 && posted) {
      response.status = 405;
      response.set_header("Allow", "POST");
      message = request.path + " takes POST (with a JSON body), not " + request.method;
    } else if (response.status == 404 && got) {
      response.status = 405;
      response.set_header("Allow", "GET");
      message = request.path + " takes GET, not " + request.method;
    } else if (response.status == 404) {
      message = "no such endpoint: " + request.path;
    } else {
      message = unreadRequestMessage(request, response.status, options);
    }
    sendJson(response, Reply{response.status, llvm::json::Object{{"error", message}}});
    count(metricEndpoint(request.path), response.status, start);
  });
  server.set_exception_handler(
      [](const httplib::Request &, httplib::Response &response, std::exception_ptr) {
        sendJson(response, Reply{500, llvm::json::Object{{"error", "internal error"}}});
      });

  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host);
  } else if (!server.bind_to_port(options.host, port)) {
    port = -1;
  }
  if (port < 0) {
    llvm::errs() << llvm::formatv("mqss serve: error: cannot listen on {0}:{1}\n", options.host,
                                  options.port);
    return 1;
  }

  std::signal(SIGHUP, onSignal);
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  std::thread watcher([&] {
    while (!stopRequested) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (reloadRequested.exchange(false)) {
        Reply reply = service.reload();
        if (reply.status != 200)
          llvm::errs() << "mqss serve: SIGHUP: "
                       << *reply.body.getAsObject()->getString("error") << "\n";
      }
    }
    server.stop();
  });
  llvm::errs() << llvm::formatv("mqss serve: listening on http://{0}:{1} ({2} threads, "
                                "explore {3}, auth {4})\n",
                                options.host, port, options.threads, options.explore,
                                options.token.empty() ? "off" : "bearer token");
  bool ok = server.listen_after_bind();
  stopRequested = true;
  watcher.join();
  llvm::errs() << "mqss serve: stopped\n";
  return ok ? 0 : 1;
}

} // namespace mqss
