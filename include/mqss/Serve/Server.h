//===- Server.h - `mqss serve`: the HTTP/JSON front of the Service ---------===//
#ifndef MQSS_SERVE_SERVER_H
#define MQSS_SERVE_SERVER_H

#include "mqss/Serve/Service.h"

namespace mqss {

/// Serves until SIGINT or SIGTERM; SIGHUP reloads the model. Prints
/// "mqss serve: listening on http://HOST:PORT" to stderr once it accepts
/// connections. Returns the process exit code.
int runServer(const ServeOptions &options);

} // namespace mqss

#endif // MQSS_SERVE_SERVER_H
