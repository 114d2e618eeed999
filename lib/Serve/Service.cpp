//===- Service.cpp - `mqss serve`'s endpoints ------------------------------===//

#include "mqss/Serve/Service.h"

#include "mqss/Actions/Baselines.h"
#include "mqss/Actions/Sequence.h"
#include "mqss/Env/Environment.h"
#include "mqss/Env/Episode.h"
#include "mqss/IR/Context.h"
#include "mqss/IR/Loader.h"
#include "mqss/Policy/Model.h"
#include "mqss/Policy/Policy.h"
#include "mqss/Runtime/Pipeline.h"
#include "mqss/Runtime/Target.h"
#include "mqss/Runtime/TemporaryFile.h"
#include "mqss/Selector/Selector.h"
#include "mqss/Serve/ServedLog.h"
#include "mqss/Store/Store.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <chrono>
#include <variant>
#include <sqlite3.h>

namespace mqss {

namespace {
using Clock = std::chrono::steady_clock;

double unixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Reply error(int status, const llvm::Twine &message) {
  return Reply{status, llvm::json::Object{{"error", message.str()}}};
}

/// The deepest nesting of arrays and objects a body may have: requests
/// nest three levels; llvm::json::parse recurses per level, and 100,000
/// levels overflowed a worker's stack.
constexpr unsigned kMaxJsonDepth = 64;

/// \p body parsed as JSON, or the 400 reply saying why not. Nesting is
/// checked on the text first (outside strings), before the parser recurses.
std::variant<llvm::json::Value, Reply> parseJsonBody(llvm::StringRef body) {
  unsigned depth = 0;
  bool inString = false, escaped = false;
  for (char c : body) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return error(400, llvm::formatv("malformed JSON: nested deeper than {0} levels",
                                        kMaxJsonDepth));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  auto parsed = llvm::json::parse(body);
  if (!parsed)
    return error(400, "malformed JSON: " + llvm::toString(parsed.takeError()));
  return std::move(*parsed);
}

/// The 400 reply for a field of \p object not among \p known, if any: a
/// misspelled "prev_passes" would otherwise be a decision for another
/// request than the client meant.
std::optional<Reply> unknownField(const llvm::json::Object &object,
                                  llvm::ArrayRef<llvm::StringRef> known) {
  std::vector<std::string> unknown;
  for (const auto &field : object)
    if (!llvm::is_contained(known, llvm::StringRef(field.first)))
      unknown.push_back("\"" + field.first.str() + "\"");
  if (unknown.empty())
    return std::nullopt;
  llvm::sort(unknown); // (the object's order is a hash table's)
  std::string names;
  for (llvm::StringRef name : known)
    names += (names.empty() ? "" : ", ") + name.str();
  return error(400, "unknown field" + std::string(unknown.size() > 1 ? "s " : " ") +
                        llvm::join(unknown, ", ") + " (the fields are " + names + ")");
}

} // namespace

/// A request body, checked.
struct Service::Request {
  std::string ir;
  std::string target = "host";
  std::vector<const Action *> previous;
  bool measure = false;
  std::string family;
  std::string irHash;
  /// How a measured optimize runs the kernel, as `--entry`, `--shape` and
  /// `--arg` say on the command line.
  std::string entry;
  InputOptions inputs;
};

namespace {
using Request = Service::Request;

constexpr llvm::StringLiteral measureElsewhere =
    "\"measure\" (with \"entry\", \"shapes\" and \"args\") is for /v1/optimize: this "
    "endpoint runs no kernel";

/// The request's "entry", "shapes" ({"arg3": [20, 30]}) and "args"
/// ({"arg0": 20}): checked as the command line's options are, and only with
/// "measure", since nothing else runs the kernel.
std::optional<Reply> parseRunFields(const llvm::json::Object &object, Request &request) {
  const llvm::json::Value *entry = object.get("entry");
  const llvm::json::Object *shapes = object.getObject("shapes");
  const llvm::json::Object *args = object.getObject("args");
  if ((object.get("shapes") && !shapes) || (object.get("args") && !args))
    return error(400, "\"shapes\" and \"args\" must be objects keyed by argument, e.g. "
                      "{\"shapes\": {\"arg3\": [20, 30]}, \"args\": {\"arg0\": 20}}");
  if (!entry && !shapes && !args)
    return std::nullopt;
  if (!request.measure)
    return error(400, "\"entry\", \"shapes\" and \"args\" say how to run the kernel: they "
                      "need \"measure\": true");
  if (entry) {
    if (!entry->getAsString() || entry->getAsString()->empty())
      return error(400, "\"entry\" must be a function's name (a string)");
    request.entry = entry->getAsString()->str();
  }
  // Checked in key order, so that of several bad keys the same is named.
  auto sortedKeys = [](const llvm::json::Object *object) {
    std::vector<std::string> keys;
    for (const auto &entry : object ? *object : llvm::json::Object())
      keys.push_back(entry.first.str());
    llvm::sort(keys);
    return keys;
  };
  for (const std::string &arg : sortedKeys(shapes)) {
    if (!argumentIndex(arg))
      return error(400, "\"shapes\": key \"" + arg + "\" is not an argument: keys are "
                        "argN, N counting the entry's arguments from 0");
    const llvm::json::Value &value = *shapes->get(arg);
    std::string text = arg + "=";
    const llvm::json::Array *sizes = value.getAsArray();
    if (!sizes || sizes->empty())
      return error(400, "\"shapes\": \"" + arg + "\" must be an array of sizes, e.g. [20, 30]");
    for (const llvm::json::Value &size : *sizes) {
      std::optional<int64_t> integer = size.getAsInteger();
      if (!integer)
        return error(400, "\"shapes\": \"" + arg +
                              "\" holds a size that is not a whole number below 2^63");
      text += (text.back() == '=' ? "" : "x") + std::to_string(*integer);
    }
    if (llvm::Error bad = parseShapeOption(text, request.inputs.shapes))
      return error(400, "\"shapes\": " + llvm::toString(std::move(bad)));
  }
  for (const std::string &arg : sortedKeys(args)) {
    if (!argumentIndex(arg))
      return error(400, "\"args\": key \"" + arg + "\" is not an argument: keys are argN, "
                        "N counting the entry's arguments from 0");
    const llvm::json::Value &value = *args->get(arg);
    std::optional<double> number = value.getAsNumber();
    // (1e400 reads as infinity: no argument's type holds it.)
    if (!number || !std::isfinite(*number))
      return error(400, "\"args\": \"" + arg + "\" must be a number, and a finite one");
    // A whole number as written (the option checks what a double holds),
    // anything else in the shortest form that reads back the same.
    std::string digits;
    if (std::optional<int64_t> whole = value.getAsInteger()) {
      digits = std::to_string(*whole);
    } else if (std::optional<uint64_t> large = value.getAsUINT64()) {
      digits = std::to_string(*large);
    } else {
      char buffer[32];
      auto printed = std::to_chars(buffer, buffer + sizeof(buffer), *number);
      digits.assign(buffer, printed.ptr);
    }
    std::string text = arg + "=" + digits;
    if (llvm::Error bad = parseScalarOption(text, request.inputs.scalars))
      return error(400, "\"args\": " + llvm::toString(std::move(bad)));
  }
  return std::nullopt;
}

std::optional<Reply> parseRequest(llvm::StringRef body, Request &request, bool allowPrevious) {
  auto parsed = parseJsonBody(body);
  if (auto *bad = std::get_if<Reply>(&parsed))
    return std::move(*bad);
  const llvm::json::Object *object = std::get<llvm::json::Value>(parsed).getAsObject();
  if (!object)
    return error(400, "the body must be a JSON object");
  if (auto bad = unknownField(*object, {"ir", "target", "prev_passes", "measure", "family",
                                        "entry", "shapes", "args"}))
    return bad;
  auto ir = object->getString("ir");
  if (!ir)
    return error(400, object->get("ir") ? "\"ir\" must be the module's text (a string)"
                                        : "missing \"ir\": the module's text (a string)");
  request.ir = ir->str();
  request.irHash = llvm::formatv("{0:x16}", llvm::xxh3_64bits(request.ir)).str();
  if (const llvm::json::Value *target = object->get("target")) {
    if (!target->getAsString())
      return error(400, "\"target\" must be a string");
    request.target = target->getAsString()->str();
  }
  // Decisions are for any known target; measuring needs one this host runs.
  if (auto resolved = resolveTarget(request.target, TargetUse::Compile); !resolved)
    return error(400, llvm::toString(resolved.takeError()));
  if (const llvm::json::Value *previous = object->get("prev_passes")) {
    const llvm::json::Array *names = previous->getAsArray();
    if (!allowPrevious || !names)
      return error(400, allowPrevious ? "\"prev_passes\" must be an array of action names"
                                      : "\"prev_passes\" is only accepted by /v1/select");
    for (const llvm::json::Value &name : *names) {
      const Action *action = name.getAsString() ? lookupAction(*name.getAsString()) : nullptr;
      if (!action) {
        std::string given;
        llvm::raw_string_ostream os(given);
        os << name;
        return error(400, "unknown action " + given + " in \"prev_passes\" (see `mqss actions`)");
      }
      // A finish action ends a chain: there is no pass after it.
      if (action->kind == ActionKind::Finish)
        return error(400, "\"prev_passes\" holds the finish action " + action->name +
                              ", which ends a chain: there is no next pass");
      request.previous.push_back(action);
    }
    // After that many passes the chain's next action is finish-O3: a longer
    // one is not a chain the server led to.
    if (unsigned limit = SelectorOptions().maxSteps; request.previous.size() > limit)
      return error(400, "\"prev_passes\" holds " + std::to_string(request.previous.size()) +
                            " passes: /v1/select ends a chain with finish-O3 after " +
                            std::to_string(limit));
  }
  if (const llvm::json::Value *measure = object->get("measure")) {
    if (!measure->getAsBoolean())
      return error(400, "\"measure\" must be true or false");
    request.measure = *measure->getAsBoolean();
    if (request.measure)
      if (auto runnable = resolveTarget(request.target); !runnable)
        return error(400, "cannot measure: " + llvm::toString(runnable.takeError()));
  }
  if (auto bad = parseRunFields(*object, request))
    return bad;
  if (object->get("family") && !object->getString("family"))
    return error(400, "\"family\" must be a string (one of `mqss actions`' expert families)");
  if (auto family = object->getString("family")) {
    if (!llvm::is_contained(expertFamilies(), family->str()))
      return error(400, "unknown family '" + *family + "'");
    request.family = family->str();
  }
  return std::nullopt;
}


/// \p message from the harness, which names its command-line options, with
/// the request fields that say the same.
std::string withRequestFields(llvm::StringRef message) {
  std::string said = message.str();
  // The harness names `mqss run`'s limit; the server's own is another flag.
  for (size_t at = said.find("--memory-limit-mb"); at != std::string::npos;
       at = said.find("--memory-limit-mb", at))
    said.replace(at, std::strlen("--memory-limit-mb"), "mqss serve --child-memory-mb");
  if (advisesRunOptions(message))
    said += " (in a request: \"entry\": NAME, \"shapes\": {\"argN\": [sizes]}, "
            "\"args\": {\"argN\": value}, with \"measure\": true)";
  // Limits and levels the harness's advice names that a request cannot set.
  if (message.contains("--timeout-s") || message.contains("--memory-limit-mb"))
    said += " (here the limits are the server's: mqss serve --child-timeout-s and "
            "--child-memory-mb; a request cannot raise them)";
  if (message.contains("--llvm-opt"))
    said += " (a request cannot set the LLVM level: the plan's finish action does)";
  return said;
}

std::string printModule(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

/// The fallback plan: the family's expert pipeline when the request names a
/// family, else `default`, after the preparation a selection would make
/// (TOSA, tensor.concat). Applies it to \p module.
struct FallbackPlan {
  std::vector<const Action *> actions;
  std::string pipeline;
};
llvm::Expected<FallbackPlan> planFallback(mlir::ModuleOp module, llvm::StringRef family) {
  auto preparation = prepareForStages(module);
  if (!preparation)
    return preparation.takeError();
  auto plan = family.empty() ? planDefault(module) : planExpert(module, family);
  if (!plan)
    return plan.takeError();
  if (plan->empty() || plan->back()->kind != ActionKind::Finish)
    plan->push_back(lookupAction("finish-O3")); // as the policy's plans end
  auto text = pipelineForActions(*plan);
  if (!text)
    return text.takeError();
  return FallbackPlan{std::move(*plan), joinAfterPreparation(*preparation, *text)};
}

/// A selection's reply fields: the pipeline, and per function its actions
/// and pipeline; "actions" alone when every function got the same ones.
llvm::json::Object selectionJson(const Selection &selection) {
  llvm::json::Array functions;
  for (const FunctionSelection &function : selection.functions)
    functions.push_back(llvm::json::Object{{"name", function.name},
                                           {"actions", actionNamesJson(function.actions)},
                                           {"pipeline", function.pipeline}});
  return llvm::json::Object{
      {"pipeline", selection.describe()},
      {"decision_us", selection.decisionMicros},
      {"uniform", selection.uniform()},
      {"functions", std::move(functions)},
      {"actions", selection.uniform()
                      ? llvm::json::Value(actionNamesJson(selection.functions.front().actions))
                      : llvm::json::Value(nullptr)}};
}

/// Counts the actions of a reply made by selectionJson or of a plan: every
/// function's, when they differ.
void countDecisions(Metrics &registry, const llvm::json::Object &reply) {
  auto count = [&](const llvm::json::Array &actions) {
    for (const llvm::json::Value &action : actions)
      if (auto name = action.getAsString())
        registry.increment("mqss_decisions_total", {{"action", name->str()}});
  };
  if (const llvm::json::Array *actions = reply.getArray("actions")) {
    count(*actions);
  } else if (const llvm::json::Array *functions = reply.getArray("functions")) {
    for (const llvm::json::Value &function : *functions)
      if (const llvm::json::Object *object = function.getAsObject())
        if (const llvm::json::Array *actions = object->getArray("actions"))
          count(*actions);
  }
}

llvm::json::Object decisionJson(const NextDecision &next, bool fallback) {
  llvm::json::Object reply{
      {"pass", next.action->name},
      {"confidence", next.probability},
      {"stage", stageName(next.stage)},
      {"features_hash",
       llvm::formatv("{0:x16}",
                     llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
                         reinterpret_cast<const uint8_t *>(next.features.data()),
                         sizeof(float) * next.features.size())))
           .str()},
      {"decision_us", next.decisionMicros},
      {"chosen", next.chosen},
      {"fallback", fallback}};
  if (!next.note.empty())
    reply["note"] = next.note;
  return reply;
}
} // namespace

//===----------------------------------------------------------------------===//
// Workers: per-thread context, selectors and store connection
//===----------------------------------------------------------------------===//

struct Service::Worker {
  std::unique_ptr<mlir::MLIRContext> context;
  unsigned contextUses = 0;
  uint64_t version = 0;
  std::map<std::string, std::unique_ptr<Selector>> selectors; ///< by target
  std::unique_ptr<Store> store;
  const Service *owner = nullptr;

  /// A selector for \p target with the current model.
  llvm::Expected<Selector &> selector(Service &service, llvm::StringRef target) {
    std::unique_ptr<Selector> &slot = selectors[target.str()];
    if (!slot) {
      SelectorOptions options;
      {
        std::lock_guard<std::mutex> lock(service.modelMutex);
        options.modelPath = service.modelPath;
        options.model = service.model;
      }
      options.target = target.str();
      options.deferBelowTrainingRange = service.opts.smallKernelsToDefault;
      auto created = Selector::create(options);
      if (!created)
        return created.takeError();
      slot = std::move(*created);
    }
    return *slot;
  }

  /// Parses the request's module in this worker's context.
  std::variant<mlir::OwningOpRef<mlir::ModuleOp>, Reply> parse(const Request &request) {
    auto module = loadModuleSource(*context, request.ir, "request.mlir");
    if (!module) {
      std::string diagnostics = llvm::toString(module.takeError());
      if (size_t at = diagnostics.find(kUnregisteredDialectNote); at != std::string::npos)
        diagnostics.replace(at, std::strlen(kUnregisteredDialectNote),
                            "note: the server takes no ops of an unregistered dialect: "
                            "`mqss select --allow-unregistered-dialect` plans for such a "
                            "module on the command line\n");
      return Reply{400, llvm::json::Object{{"error", "invalid IR"},
                                           {"diagnostics", llvm::StringRef(diagnostics).trim().str()}}};
    }
    return std::move(*module);
  }
};

namespace {
thread_local std::unique_ptr<Service::Worker> tlsWorker;
} // namespace

Service::Worker &Service::worker() {
  if (!tlsWorker || tlsWorker->owner != this) {
    tlsWorker = std::make_unique<Worker>();
    tlsWorker->owner = this;
    registerPasses();
  }
  Worker &w = *tlsWorker;
  // Contexts keep every type and attribute they ever uniqued: start afresh
  // now and then, so that a long-running server does not grow.
  if (!w.context || ++w.contextUses > 256) {
    w.context = createContext();
    w.contextUses = 0;
  }
  if (w.version != modelVersion.load()) {
    w.selectors.clear();
    w.version = modelVersion.load();
  }
  if (!w.store) {
    auto store = Store::open(opts.dbPath.empty() ? Store::defaultPath() : opts.dbPath);
    if (store)
      w.store = std::move(*store);
    else
      llvm::consumeError(store.takeError()); // reported at startup; requests go unlogged
  }
  return w;
}

/// A request ready to be served: checked, its module parsed in the worker's
/// context, the worker's selector for its target, and (when children will
/// need it) the module in a file with the child limits.
struct Service::Prepared {
  Request request;
  Worker *worker = nullptr;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  Selector *selector = nullptr;
  bool fallback = false;
  double parseMicros = 0;
  std::optional<TemporaryFile> file;
  RunRequest kernel;
};

/// \p message about the request's module as the client knows it: the
/// children read it from a temporary file, which the client never named.
static std::string inClientTerms(const Service::Prepared &p, std::string message) {
  if (!p.file)
    return message;
  std::string path = p.file->path(), client = "request.mlir";
  for (size_t at = message.find(path); at != std::string::npos;
       at = message.find(path, at + client.size()))
    message.replace(at, path.size(), client);
  return message;
}

/// The reply when the child that runs a request's passes did not answer:
/// 504 when it ran out of time (the server's limit, not the module's
/// fault as such), else 422 with what went wrong.
Reply Service::childFailed(const Prepared &p, llvm::Error failure) const {
  bool timedOut = failure.isA<ChildTimedOut>();
  std::string message = inClientTerms(p, llvm::toString(std::move(failure)));
  if (timedOut)
    return error(504, message + llvm::formatv(" (the server's limit for running a "
                                              "request's passes: mqss serve "
                                              "--child-timeout-s={0})",
                                              opts.childTimeoutSeconds)
                                    .str());
  if (llvm::StringRef(message).contains("ran out of memory"))
    message += " (the server's limit per child: mqss serve --child-memory-mb)";
  return error(422, message);
}

std::variant<Service::Prepared, Reply> Service::prepare(llvm::StringRef body,
                                                        bool allowPrevious) {
  Request request;
  if (auto bad = parseRequest(body, request, allowPrevious))
    return std::move(*bad);
  return prepare(std::move(request), allowPrevious);
}

std::variant<Service::Prepared, Reply> Service::prepare(Request request, bool allowPrevious) {
  Prepared p;
  p.request = std::move(request);
  p.worker = &worker();
  auto parseStart = Clock::now();
  auto parsed = p.worker->parse(p.request);
  if (auto *bad = std::get_if<Reply>(&parsed))
    return std::move(*bad);
  p.parseMicros = std::chrono::duration<double, std::micro>(Clock::now() - parseStart).count();
  p.module = std::move(std::get<mlir::OwningOpRef<mlir::ModuleOp>>(parsed));
  auto selector = p.worker->selector(*this, p.request.target);
  if (!selector)
    return error(500, llvm::toString(selector.takeError()));
  p.selector = &*selector;
  p.fallback = inFallback(p.request.target);
  // Preparing the module (TOSA's lowering, rewrites of ops MLIR 19 cannot
  // bufferize) runs passes: in a child, as the previous passes do.
  // So does a module `tensor.bufferize` would fail on: in the child the
  // proposal is tried first, and one that fails is not proposed.
  bool inProcess = allowPrevious && p.request.previous.empty() && !p.fallback &&
                   !needsPreparation(*p.module) && unusedTensorDeclarations(*p.module).empty() &&
                   !hasUnbufferizableTensorOp(*p.module);
  if (!inProcess) {
    auto file = TemporaryFile::create("mqss-serve", p.request.ir);
    if (!file)
      return error(500, llvm::toString(file.takeError()));
    p.file.emplace(std::move(*file));
    p.kernel.inputPath = p.file->path();
  }
  p.kernel.target = p.request.target;
  p.kernel.entry = p.request.entry;
  p.kernel.inputs = p.request.inputs;
  p.kernel.reps = opts.measureReps;
  p.kernel.minTimeMs = opts.measureMinTimeMs;
  p.kernel.limits.timeoutSeconds = opts.childTimeoutSeconds;
  p.kernel.limits.memoryBytes = opts.childMemoryBytes;
  return p;
}

//===----------------------------------------------------------------------===//
// The service
//===----------------------------------------------------------------------===//

Service::Service(ServeOptions options) : opts(std::move(options)) {}
Service::~Service() = default;

llvm::Expected<std::unique_ptr<Service>> Service::create(const ServeOptions &options) {
  std::unique_ptr<Service> service(new Service(options));
  service->modelPath = options.modelPath.empty() ? defaultModelPath() : options.modelPath;
  auto model = readModel(service->modelPath);
  if (!model)
    return model.takeError();
  service->model = std::make_shared<const LoadedModel>(std::move(*model));
  auto store = Store::open(options.dbPath.empty() ? Store::defaultPath() : options.dbPath);
  if (!store)
    return store.takeError();
  if (llvm::Error error = createServedTable((*store)->handle()))
    return std::move(error);
  service->startTime = unixNow();

  Metrics &m = service->registry;
  m.declare("mqss_requests_total", "counter", "HTTP requests by endpoint and status code");
  m.declare("mqss_request_duration_seconds", "histogram", "Request latency by endpoint",
            Metrics::latencyBuckets());
  m.declare("mqss_decision_duration_seconds", "histogram",
            "Features + inference of one decision (in-process /v1/select)",
            Metrics::latencyBuckets());
  m.declare("mqss_decisions_total", "counter", "Actions chosen, by action");
  m.declare("mqss_fallbacks_total", "counter", "Requests served a fallback pipeline, by target");
  m.declare("mqss_fallback_active", "gauge", "1 while a target is on its fallback pipelines");
  m.declare("mqss_fallback_switches_total", "counter",
            "Safety-net switches by target and direction (to_fallback, recovered)");
  m.declare("mqss_errors_total", "counter", "Error replies by endpoint and kind");
  m.declare("mqss_measured_episodes_total", "counter", "Measured /v1/optimize episodes by target");
  m.declare("mqss_explored_total", "counter", "Measured episodes with an exploratory action");
  m.declare("mqss_model_reloads_total", "counter", "Successful model reloads");
  m.declare("mqss_select_cache_hits_total", "counter",
            "/v1/select answered from the decision cache (same module, state, target, model)");
  m.declare("mqss_model_version", "gauge", "Version of the model in use (1 at start)");
  m.set("mqss_model_version", {}, 1);
  // Counters without labels exist from the start: a scraper sees 0, not no
  // series (rate() needs the zero).
  for (const char *counter :
       {"mqss_explored_total", "mqss_model_reloads_total", "mqss_select_cache_hits_total"})
    m.set(counter, {}, 0);
  return std::move(service);
}

bool Service::inFallback(llvm::StringRef target) {
  std::lock_guard<std::mutex> lock(netMutex);
  auto it = health_.find(target);
  return it != health_.end() && it->second.fallback;
}

std::vector<std::string> Service::fallbackTargets() {
  std::lock_guard<std::mutex> lock(netMutex);
  std::vector<std::string> targets;
  for (const auto &[target, health] : health_)
    if (health.fallback)
      targets.push_back(target);
  return targets;
}

void Service::recordReward(llvm::StringRef target, double reward) {
  std::lock_guard<std::mutex> lock(netMutex);
  TargetHealth &health = health_[target.str()];
  health.bad = reward < -0.5 ? health.bad + 1 : 0;
  health.good = reward >= 0 ? health.good + 1 : 0;
  const char *direction = nullptr;
  if (!health.fallback && health.bad >= 3) {
    health.fallback = true;
    direction = "to_fallback";
  } else if (health.fallback && health.good >= 2) {
    health.fallback = false;
    health.bad = 0;
    direction = "recovered";
  }
  if (!direction)
    return;
  registry.increment("mqss_fallback_switches_total", {{"target", target.str()}, {"direction", direction}});
  registry.set("mqss_fallback_active", {{"target", target.str()}}, health.fallback ? 1 : 0);
  llvm::errs() << llvm::formatv("mqss serve: safety net: target {0} {1} (last reward {2:F3})\n",
                                target,
                                health.fallback ? "falls back to its expert/default pipelines "
                                                  "after 3 measured rewards below -0.5"
                                                : "recovered: back on the policy",
                                reward);
}

Reply Service::health() {
  std::lock_guard<std::mutex> lock(modelMutex);
  return Reply{200, llvm::json::Object{{"status", "ok"},
                                       {"model", modelPath},
                                       {"model_version", static_cast<int64_t>(modelVersion.load())},
                                       {"uptime_s", unixNow() - startTime},
                                       {"threads", opts.threads}}};
}

Reply Service::reload(llvm::StringRef body) {
  std::string path;
  {
    std::lock_guard<std::mutex> lock(modelMutex);
    path = modelPath;
  }
  if (!body.trim().empty()) {
    auto parsed = parseJsonBody(body);
    if (auto *bad = std::get_if<Reply>(&parsed))
      return std::move(*bad);
    const llvm::json::Object *object = std::get<llvm::json::Value>(parsed).getAsObject();
    if (!object)
      return error(400, "the body must be empty or {\"model\": PATH}");
    if (auto bad = unknownField(*object, {"model"}))
      return std::move(*bad);
    if (const llvm::json::Value *model = object->get("model")) {
      if (!model->getAsString() || model->getAsString()->empty())
        return error(400, "\"model\" must be a model file's path (a string)");
      path = model->getAsString()->str();
    }
  }
  auto read = readModel(path);
  if (!read)
    return error(422, "model not reloaded, the current one stays: " +
                          llvm::toString(read.takeError()));
  auto loaded = std::make_shared<const LoadedModel>(std::move(*read));
  uint64_t version;
  {
    std::lock_guard<std::mutex> lock(modelMutex);
    modelPath = path;
    model = std::move(loaded);
    version = ++modelVersion;
  }
  registry.increment("mqss_model_reloads_total");
  registry.set("mqss_model_version", {}, static_cast<double>(version));
  llvm::errs() << "mqss serve: model reloaded from " << path << " (version " << version << ")\n";
  return Reply{200, llvm::json::Object{{"reloaded", true},
                                       {"model", path},
                                       {"model_version", static_cast<int64_t>(version)}}};
}

Reply Service::stats() {
  Worker &w = worker();
  if (!w.store)
    return error(503, "the store is not available");
  auto stats = servedStats(w.store->handle(), fallbackTargets());
  if (!stats)
    return error(500, llvm::toString(stats.takeError()));
  return Reply{200, std::move(*stats)};
}

Reply Service::select(llvm::StringRef body) {
  Request parsedRequest;
  if (auto bad = parseRequest(body, parsedRequest, /*allowPrevious=*/true))
    return std::move(*bad);
  if (parsedRequest.measure)
    return error(400, measureElsewhere);
  // The same module in the same state, target and model: the same decision.
  std::string key = parsedRequest.irHash + "|" + parsedRequest.target + "|" +
                    parsedRequest.family + "|" + joinActionNames(parsedRequest.previous) + "|" +
                    std::to_string(modelVersion.load()) + "|" +
                    (inFallback(parsedRequest.target) ? "fallback" : "policy");
  if (std::optional<llvm::json::Object> hit = decisions.lookup(key)) {
    registry.increment("mqss_select_cache_hits_total");
    (*hit)["cached"] = true;
    (*hit)["parse_us"] = 0.0; // nothing was parsed or decided for this request
    (*hit)["decision_us"] = 0.0;
    if (auto pass = hit->getString("pass"))
      registry.increment("mqss_decisions_total", {{"action", pass->str()}});
    return Reply{200, std::move(*hit)};
  }
  auto prepared = prepare(std::move(parsedRequest), /*allowPrevious=*/true);
  if (auto *bad = std::get_if<Reply>(&prepared))
    return std::move(*bad);
  Prepared &p = std::get<Prepared>(prepared);
  const Request &request = p.request;
  Selector *selector = p.selector;
  bool fallback = p.fallback;

  llvm::json::Object reply;
  if (!p.file) {
    // The common case stays in this process: parse, features, inference.
    auto next = selector->next(*p.module);
    if (!next)
      return error(422, llvm::toString(next.takeError()));
    registry.observe("mqss_decision_duration_seconds", {}, next->decisionMicros / 1e6);
    reply = decisionJson(*next, false);
  } else {
    // Applying the previous passes (or planning the fallback) runs passes:
    // in a child.
    auto result = runOnModuleInChild(
        p.kernel, [&](mlir::ModuleOp module) -> llvm::Expected<llvm::json::Object> {
          // Only the top level's functions are decided (nested modules'
          // are left as they are, as selections leave them).
          eraseNestedPayloadModules(module);
          // The previous passes ran after the preparation, as the reply's
          // "preparation" tells the client to run it.
          auto preparation = prepareForStages(module);
          if (!preparation)
            return preparation.takeError();
          // Unused declarations returning tensors stop one-shot bufferization
          // of the whole module, which a chain's passes apply to; select's
          // plans are made without them. The client removes them first too.
          if (!unusedTensorDeclarations(module).empty()) {
            if (llvm::Error error = applyPipeline(module, "symbol-dce"))
              return std::move(error);
            *preparation = joinPipelines(*preparation, "symbol-dce");
          }
          // The fallback's plan for the module as the chain began: a chain
          // that has followed it gets its next action. (Planned again after
          // the previous passes, it would begin with the same ones again.)
          mlir::OwningOpRef<mlir::ModuleOp> start = module.clone();
          std::optional<FallbackPlan> fromStart;
          if (fallback) {
            mlir::OwningOpRef<mlir::ModuleOp> planned = start->clone();
            auto plan = planFallback(*planned, request.family);
            if (!plan)
              return plan.takeError();
            fromStart = std::move(*plan);
          }
          for (const Action *action : request.previous) {
            // Only what the server proposes is replayed: a pass out of its
            // stage or where its legality rule does not hold is one no
            // decision led to, and upstream's may not end there (a
            // schedule's patterns grew a small vector module for a minute).
            if (std::string why = notInPoolBecause(*action, summarize(module)); !why.empty())
              return llvm::createStringError(
                  llvm::inconvertibleErrorCode(),
                  "previous pass " + action->name + " is not one /v1/select proposes where the "
                                                    "passes before it leave the module: " +
                      why);
            if (llvm::Error error = applyAction(module, *action))
              return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                             "previous pass " + action->name + " failed: " +
                                                 llvm::toString(std::move(error)));
          }
          // Passes run here anyway: a proposal is tried on a copy, so that
          // the client is not sent a pass that fails on its module.
          auto fails = [&](const Action &action) {
            mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
            llvm::Error error = applyAction(*copy, action);
            bool failed = static_cast<bool>(error);
            llvm::consumeError(std::move(error));
            return failed;
          };
          // (On the fallback the plan's action replaces the proposal.)
          llvm::function_ref<bool(const Action &)> check = fails;
          auto next = selector->next(module, Chain{request.previous, *start,
                                                   fallback ? nullptr : check});
          if (!next)
            return next.takeError();
          if (fallback) {
            const std::vector<const Action *> &plan = fromStart->actions;
            size_t done = request.previous.size();
            bool followed = done < plan.size() &&
                            std::equal(request.previous.begin(), request.previous.end(),
                                       plan.begin());
            if (followed) {
              next->action = plan[done];
            } else {
              // The chain began elsewhere (with the policy, before the
              // switch): the first action of the plan for where it is now
              // that the chain has not run yet, which ends with the plan's
              // finish action at the latest.
              auto here = planFallback(module, request.family);
              if (!here)
                return here.takeError();
              auto unrun = llvm::find_if(here->actions, [&](const Action *action) {
                return !llvm::is_contained(request.previous, action);
              });
              if (unrun == here->actions.end())
                return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                               "the fallback plan has no action here");
              next->action = *unrun;
            }
            next->probability = 1;
            next->chosen = request.family.empty() ? "default" : "expert";
          }
          llvm::json::Object reply = decisionJson(*next, fallback);
          if (!preparation->empty())
            reply["preparation"] = *preparation;
          return reply;
        });
    if (!result)
      return childFailed(p, result.takeError());
    reply = std::move(*result);
  }
  reply["parse_us"] = p.parseMicros;
  reply["cached"] = false;
  decisions.insert(key, reply);
  if (auto pass = reply.getString("pass"))
    registry.increment("mqss_decisions_total", {{"action", pass->str()}});
  if (fallback)
    registry.increment("mqss_fallbacks_total", {{"target", request.target}});
  return Reply{200, std::move(reply)};
}

Reply Service::pipeline(llvm::StringRef body) {
  Request parsedRequest;
  if (auto bad = parseRequest(body, parsedRequest, /*allowPrevious=*/false))
    return std::move(*bad);
  if (parsedRequest.measure)
    return error(400, measureElsewhere);
  auto prepared = prepare(std::move(parsedRequest), /*allowPrevious=*/false);
  if (auto *bad = std::get_if<Reply>(&prepared))
    return std::move(*bad);
  Prepared &p = std::get<Prepared>(prepared);
  const Request &request = p.request;
  Selector *selector = p.selector;
  bool fallback = p.fallback;
  RunRequest &kernel = p.kernel;
  auto result = runOnModuleInChild(
      kernel, [&](mlir::ModuleOp module) -> llvm::Expected<llvm::json::Object> {
        if (fallback) {
          auto plan = planFallback(module, request.family);
          if (!plan)
            return plan.takeError();
          return llvm::json::Object{{"actions", actionNamesJson(plan->actions)},
                                    {"pipeline", plan->pipeline},
                                    {"decision_us", 0.0},
                                    {"fallback", true}};
        }
        auto selection = selector->select(module);
        if (!selection)
          return selection.takeError();
        llvm::json::Object reply = selectionJson(*selection);
        reply["fallback"] = false;
        std::string note = selection->pastingNote(module);
        // The schedule library's path is the server's: elsewhere it is not.
        std::optional<llvm::StringRef> pipeline = reply.getString("pipeline");
        if (pipeline && preloadsLibrary(*pipeline))
          note += std::string(note.empty() || note.back() == '\n' ? "" : "\n") +
                  "the pipeline preloads mqss's schedule library from a path on the server: "
                  "elsewhere, replace it with that machine's copy (mqss select there writes "
                  "one, under $MQSS_CACHE_DIR or ~/.cache/mqss)";
        if (!note.empty())
          reply["pipeline_note"] = note;
        return reply;
      });
  if (!result)
    return childFailed(p, result.takeError());
  countDecisions(registry, *result);
  if (fallback)
    registry.increment("mqss_fallbacks_total", {{"target", request.target}});
  return Reply{200, std::move(*result)};
}

/// The actions of \p served (a reply of selectionJson or a plan), or none
/// when its functions got different ones.
static std::optional<std::vector<const Action *>>
servedActions(const llvm::json::Object &served) {
  const llvm::json::Array *names = served.getArray("actions");
  if (!names)
    return std::nullopt;
  std::vector<const Action *> actions;
  for (const llvm::json::Value &name : *names)
    if (std::optional<llvm::StringRef> text = name.getAsString())
      if (const Action *action = lookupAction(*text))
        actions.push_back(action);
  return actions;
}

Reply Service::optimize(llvm::StringRef body) {
  auto prepared = prepare(body, /*allowPrevious=*/false);
  if (auto *bad = std::get_if<Reply>(&prepared))
    return std::move(*bad);
  Prepared &p = std::get<Prepared>(prepared);
  const Request &request = p.request;
  Worker &w = *p.worker;
  Selector &selector = *p.selector;
  bool fallback = p.fallback;
  RunRequest &kernel = p.kernel;

  ServedRecord record;
  record.unixTime = unixNow();
  record.endpoint = "/v1/optimize";
  record.target = request.target;
  record.irHash = request.irHash;
  record.fallback = fallback;
  record.status = "unmeasured";

  // What to serve, and (measured) the policy's own episode. A kernel below
  // the model's training range is served `default`'s plan, as /v1/pipeline
  // serves it: that plan is measured, and the policy plays no episode there
  // (nothing to learn from, nothing for the safety net).
  std::vector<const Action *> served;
  llvm::json::Object measured;
  std::optional<Episode> episode;
  bool inputFault = false;
  std::string belowRange =
      request.measure && !fallback ? selector.belowTrainingRange(*p.module) : "";
  // Judged where select() judges it, on the module as prepared: TOSA ops
  // have no count of their own. Preparing runs passes: in a child. (Should
  // it fail, the episode fails the same way and says so.)
  if (request.measure && !fallback && belowRange.empty() && needsPreparation(*p.module)) {
    auto judged = runOnModuleInChild(
        kernel, [&](mlir::ModuleOp module) -> llvm::Expected<llvm::json::Object> {
          eraseNestedPayloadModules(module);
          if (auto preparation = prepareForStages(module); !preparation)
            return preparation.takeError();
          return llvm::json::Object{{"below", selector.belowTrainingRange(module)}};
        });
    if (judged)
      belowRange = judged->getString("below").value_or("").str();
    else
      llvm::consumeError(judged.takeError());
  }
  auto measuredJson = [&](const Evaluation &evaluation) {
    record.status = std::string(runStatusName(evaluation.status));
    record.baselineMs = evaluation.defaultMs;
    record.chosenMs = evaluation.runtimeMs;
    record.speedup = evaluation.speedup;
    llvm::json::Object json{{"status", record.status},
                            {"baseline", "default"},
                            {"baseline_ms", evaluation.defaultMs},
                            {"runtime_ms", evaluation.runtimeMs},
                            {"speedup", evaluation.speedup},
                            {"cached", evaluation.cached}};
    if (!evaluation.message.empty())
      json["message"] = inClientTerms(p, withRequestFields(evaluation.message));
    return json;
  };
  if (request.measure && belowRange.empty()) {
    EpisodeOptions episodeOptions;
    episodeOptions.greedy = true;
    episodeOptions.epsilon = opts.explore;
    episodeOptions.seed = opts.seed + requestCounter++;
    episode = runEpisode(kernel, selector.policy(), nullptr, episodeOptions);
    for (const EpisodeStep &step : episode->steps) {
      Decision greedy = selector.policy().decide(step.features, step.mask);
      record.explored |= actionIndex(*greedy.action) != step.action;
    }
    if (!episode->steps.empty()) {
      record.confidence = 1;
      for (const EpisodeStep &step : episode->steps)
        record.confidence *= step.probability;
      llvm::json::Array state;
      for (float f : episode->steps.front().features)
        state.push_back(static_cast<double>(f));
      std::string text;
      llvm::raw_string_ostream os(text);
      os << llvm::json::Value(std::move(state));
      record.stateJson = text;
    }
    Evaluation evaluation;
    if (episode->status == RunStatus::Ok) {
      Evaluator evaluator(kernel, w.store.get());
      evaluation = evaluator.evaluate(episode->actions);
    } else {
      evaluation.status = episode->status;
      evaluation.message = episode->message;
    }
    // An episode whose pass failed is the policy's fault where another
    // plan lowers the module. Where neither `default` nor the policy's own
    // plan (which passes over failing actions, as `mqss select`'s does)
    // lowers it, the module is at fault: an op MLIR 19 cannot bufferize or
    // lower whatever the passes (ml_program.global_load_const).
    if (evaluation.status == RunStatus::PassFailed || evaluation.status == RunStatus::Crash)
      if (std::optional<std::string> without = failureOfDefault(kernel)) {
        std::string model;
        {
          std::lock_guard<std::mutex> lock(modelMutex);
          model = modelPath;
        }
        RunRequest planned = kernel;
        usePolicyPipelines(planned);
        if (failureToLower(planned, "policy:" + model)) {
          evaluation.status = RunStatus::InvalidInput;
          evaluation.message = std::move(*without);
        }
      }
    episode->speedup = evaluation.speedup;
    episode->reward = rewardFor(evaluation.status, evaluation.speedup, 0.005);
    episode->status = evaluation.status;
    // A module the harness cannot run as sent (several public functions,
    // a dynamic size not given) says nothing about the policy: it neither
    // moves the safety net nor becomes a trajectory to learn from.
    // Nor does the reply carry a reward, nor the episode count.
    inputFault = isInputFault(evaluation.status);
    if (!inputFault) {
      recordReward(request.target, episode->reward);
      registry.increment("mqss_measured_episodes_total", {{"target", request.target}});
    }
    if (record.explored)
      registry.increment("mqss_explored_total");
    measured = measuredJson(evaluation);
    if (!inputFault) {
      record.reward = episode->reward;
      measured["reward"] = episode->reward;
    }
    if (!fallback && evaluation.status == RunStatus::Ok)
      served = episode->actions;
  }

  // The served IR (and, when not measured or falling back, the decisions):
  // in a child, since passes run. The measured episode's actions are served
  // unless it failed or the target is on its fallback. A measurement that
  // failed on the client's input says nothing against the policy: its
  // unmeasured choice is served, as without "measure".
  bool useFallback = fallback || (episode && served.empty() && !inputFault);
  record.fallback = useFallback; // what the reply says was served
  auto result = runOnModuleInChild(
      kernel, [&](mlir::ModuleOp module) -> llvm::Expected<llvm::json::Object> {
        if (served.empty() && !useFallback) {
          auto selection = selector.optimize(module);
          if (!selection)
            return selection.takeError();
          llvm::json::Object reply = selectionJson(*selection);
          reply["ir"] = printModule(module);
          return reply;
        }
        if (useFallback) {
          // Planning applies the plan's actions to the module.
          auto plan = planFallback(module, request.family);
          if (!plan)
            return plan.takeError();
          return llvm::json::Object{{"pipeline", plan->pipeline},
                                    {"actions", actionNamesJson(plan->actions)},
                                    {"ir", printModule(module)}};
        }
        // The measured episode's actions, after the preparation it ran on.
        auto preparation = prepareForStages(module);
        if (!preparation)
          return preparation.takeError();
        auto actions = pipelineForActions(served);
        if (!actions)
          return actions.takeError();
        if (llvm::Error error = applyPipeline(module, *actions))
          return std::move(error);
        return llvm::json::Object{{"pipeline", joinAfterPreparation(*preparation, *actions)},
                                  {"actions", actionNamesJson(served)},
                                  {"ir", printModule(module)}};
      });
  if (!result)
    return childFailed(p, result.takeError());
  if (!belowRange.empty()) {
    if (auto actions = servedActions(*result)) {
      Evaluator evaluator(kernel, w.store.get());
      measured = measuredJson(evaluator.evaluate(*actions));
    } else {
      measured = llvm::json::Object{
          {"status", "unmeasured"},
          {"message", "the functions got different plans, which one measurement cannot run: "
                      "measure a module holding one of them"}};
    }
    measured["note"] = belowRange + "; that plan was measured, and the policy played no "
                                    "episode (the server's --small-kernels=policy plays one)";
  }

  // Log the measured episode as a trajectory, and every optimize as served.
  countDecisions(registry, *result);
  if (auto actions = servedActions(*result))
    record.actions = joinActionNames(*actions);
  if (w.store) {
    if (episode && !inputFault) {
      TrajectoryRecord trajectory{"serve:" + request.irHash,
                                  request.target,
                                  record.explored ? "serve:explore" : "serve:greedy",
                                  joinActionNames(episode->actions),
                                  std::string(runStatusName(episode->status)),
                                  episode->reward,
                                  episode->speedup,
                                  episodeStepsJson(*episode)};
      if (llvm::Error error = w.store->putTrajectory(trajectory))
        llvm::errs() << "mqss serve: " << llvm::toString(std::move(error)) << "\n";
      else
        record.trajectoryId = sqlite3_last_insert_rowid(w.store->handle());
    }
    if (auto id = putServed(w.store->handle(), record); !id)
      llvm::errs() << "mqss serve: " << llvm::toString(id.takeError()) << "\n";
  }
  if (useFallback)
    registry.increment("mqss_fallbacks_total", {{"target", request.target}});
  llvm::json::Object reply = std::move(*result);
  reply["fallback"] = useFallback;
  reply["explored"] = record.explored;
  if (request.measure)
    reply["measured"] = std::move(measured);
  return Reply{200, std::move(reply)};
}

std::optional<llvm::json::Object> DecisionCache::lookup(const std::string &key) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = index.find(key);
  if (it == index.end())
    return std::nullopt;
  entries.splice(entries.begin(), entries, it->second); // most recently used first
  return llvm::json::Object(it->second->second);
}

void DecisionCache::insert(const std::string &key, const llvm::json::Object &reply) {
  std::lock_guard<std::mutex> lock(mutex);
  if (index.count(key))
    return;
  entries.emplace_front(key, reply);
  index[key] = entries.begin();
  if (entries.size() > capacity) {
    index.erase(entries.back().first);
    entries.pop_back();
  }
}

} // namespace mqss
