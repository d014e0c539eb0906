#include "optimizerun.h"

#include "agents/promptlibrary.h"
#include "common/datapaths.h"
#include "hostchoice.h"
#include "hosts/host.h"
#include "hosts/hostconfig.h"
#include "hosts/hostpool.h"
#include "llm/agentclients.h"
#include "llm/apikeystore.h"
#include "llm/llmconfig.h"
#include "memory/experiencestore.h"
#include "search/beamsearch.h"
#include "search/selection.h"
#include "store/sessionstore.h"

#include "console.h"

#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLockFile>
#include <QTextStream>
#include <QTimer>

#include <csignal>

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void onInterrupt(int)
{
    g_interrupted = 1;
}

QJsonValue number(double v)
{
    return v > 0 && std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}

QString ms(double v)
{
    return v > 0 ? QStringLiteral("%1 ms").arg(v, 0, 'g', 4) : QStringLiteral("- ms");
}

QString percent(double v)
{
    return v > 0 ? QStringLiteral("%1 % of peak").arg(v, 0, 'f', 1) : QStringLiteral("- % of peak");
}

// A session the CLI runs is locked next to the workspace database, so a second `accelopt resume` of the same
// session (or the workbench) cannot drive it at the same time. A killed process leaves a stale lock that
// QLockFile recognises by its pid and takes over.
QString lockPath(const QString &dbPath, const QString &sessionId)
{
    return dbPath + QStringLiteral("-locks/") + sessionId + QStringLiteral(".lock");
}

} // namespace

class OptimizeRun::Private
{
public:
    explicit Private(const Options &o) : options(o) {}

    bool prepare(const QString &hostName);
    bool lock(const QString &sessionId);
    int run();
    void printSession(bool resumed);
    void onBaseline(const Evaluation &e);
    void onIteration(int iteration);
    int finished(StopReason reason);
    void emitLine(const QJsonObject &o)
    {
        Console::out() << QJsonDocument(o).toJson(QJsonDocument::Compact) << "\n";
    }

    Options options;
    QString error;
    SessionStore store;
    std::unique_ptr<ExperienceStore> memory;
    std::unique_ptr<AgentClients> clients;
    PromptLibrary prompts;
    HostPool pool;
    std::unique_ptr<BeamSearch> search;
    std::unique_ptr<QLockFile> sessionLock;
    HostConfig hostConfig;
    QElapsedTimer wall;
    double baselineLatency = 0;
    int evaluated = 0; // candidates of the current iteration
    int usable = 0;
    bool resuming = false;
};

bool OptimizeRun::Private::prepare(const QString &hostName)
{
    if (!store.database().isOpen() && !store.open()) {
        error = QStringLiteral("cannot open the workspace database: %1").arg(store.lastError());
        return false;
    }
    if (options.useMemory) {
        memory = std::make_unique<ExperienceStore>();
        if (!memory->open()) {
            error = QStringLiteral("cannot open the optimization memory: %1 (run with --no-memory to go "
                                   "without it)")
                        .arg(memory->lastError());
            return false;
        }
    }
    const QString llmPath = options.llmConfig.isEmpty() ? LlmConfig::defaultPath() : options.llmConfig;
    const std::optional<LlmConfig> config = LlmConfig::load(llmPath, &error);
    if (!config)
        return false;
    clients = std::make_unique<AgentClients>(*config);
    if (const QStringList problems = clients->problems(); !problems.isEmpty()) {
        error = QStringLiteral("the LLM settings in %1 cannot drive a search: %2")
                    .arg(llmPath, problems.join(QStringLiteral("; ")));
        return false;
    }
    ApiKeyStore keys;
    for (const Endpoint &endpoint : clients->endpointsInUse()) {
        if (endpoint.keySource == Endpoint::KeySource::None)
            continue;
        QEventLoop loop;
        std::optional<ApiKeyStore::Lookup> key;
        keys.lookup(endpoint, [&](const ApiKeyStore::Lookup &l) {
            key = l;
            loop.quit();
        });
        if (!key)
            loop.exec();
        if (!key->ok) {
            error = QStringLiteral("no API key for endpoint '%1': %2").arg(endpoint.name, key->message);
            return false;
        }
        if (!key->message.isEmpty())
            Console::err() << "accelopt: " << endpoint.name << ": " << key->message << "\n";
        clients->setApiKey(endpoint.name, key->key);
    }
    clients->setRecorder(&store);
    if (!prompts.load(DataPaths::promptsDir())) {
        error = QStringLiteral("the agents' prompts are broken: %1").arg(prompts.errors().join(u'\n'));
        return false;
    }
    Host *host = HostChoice::create(hostName, options.jobs, hostConfig, error);
    if (!host)
        return false;
    pool.addHost(host);
    QObject::connect(&pool, &HostPool::hostStateChanged,
                     [](Host *h, Host::State state, const QString &detail) {
                         if (state == Host::State::Lost || state == Host::State::Failed ||
                             state == Host::State::VersionMismatch)
                             Console::err() << "accelopt: host " << h->name() << " " << Host::stateName(state)
                                            << ": " << detail << "\n";
                     });
    pool.start();
    search = std::make_unique<BeamSearch>(&pool, &store, &prompts);
    search->setClients(clients.get());
    search->setMemory(memory.get());
    QObject::connect(search.get(), &BeamSearch::baselineEvaluated,
                     [this](const Evaluation &e) { onBaseline(e); });
    QObject::connect(search.get(), &BeamSearch::candidateEvaluated,
                     [this](const Candidate &c, const Evaluation &e) {
                         if (c.iteration != search->iteration() || c.origin == Candidate::Origin::Baseline)
                             return;
                         ++evaluated;
                         usable += Selection::isUsable(e) ? 1 : 0;
                     });
    QObject::connect(search.get(), &BeamSearch::beamChanged, [this](int iteration, const QStringList &) {
        if (iteration > 0 && !resuming) // a resume restates the beam it starts from; that is no progress
            onIteration(iteration);
    });
    return true;
}

bool OptimizeRun::Private::lock(const QString &sessionId)
{
    QDir().mkpath(QFileInfo(lockPath(store.path(), sessionId)).absolutePath());
    sessionLock = std::make_unique<QLockFile>(lockPath(store.path(), sessionId));
    sessionLock->setStaleLockTime(0); // only a dead owner makes it stale, never its age
    if (sessionLock->tryLock(0))
        return true;
    qint64 pid = 0;
    QString hostname, application;
    sessionLock->getLockInfo(&pid, &hostname, &application);
    error = QStringLiteral("session %1 is being run by another process (pid %2 on %3); stop that one first")
                .arg(sessionId)
                .arg(pid)
                .arg(hostname);
    return false;
}

void OptimizeRun::Private::printSession(bool resumed)
{
    const SearchTask &t = search->task();
    const SearchConfig &c = search->config();
    if (options.json) {
        emitLine({{QStringLiteral("event"), QStringLiteral("session")},
                  {QStringLiteral("session"), search->sessionId()},
                  {QStringLiteral("resumed"), resumed},
                  {QStringLiteral("task"), t.name},
                  {QStringLiteral("target"), t.target},
                  {QStringLiteral("backend"), t.backend},
                  {QStringLiteral("host"), t.host},
                  {QStringLiteral("size"), t.size},
                  {QStringLiteral("config"), c.toJson()}});
    } else {
        Console::out() << (resumed ? "resuming session " : "session ") << search->sessionId() << ": "
                       << t.name << " on " << t.target << " (" << t.backend << ", host " << t.host
                       << ", size " << t.size << "), B=" << c.beamWidth << " N=" << c.plansPerKernel
                       << " K=" << c.samplesPerPlan << " T=" << c.iterations << " F=" << c.fixRounds << "\n";
    }
    Console::out().flush();
}

void OptimizeRun::Private::onBaseline(const Evaluation &e)
{
    baselineLatency = e.latencyMeanMs.value_or(0);
    if (options.json)
        emitLine({{QStringLiteral("event"), QStringLiteral("baseline")},
                  {QStringLiteral("status"), e.statusName()},
                  {QStringLiteral("correct"), Evaluation::json(e.correct)},
                  {QStringLiteral("latency_ms"), number(e.latencyMeanMs.value_or(0))},
                  {QStringLiteral("percent_of_peak"), number(e.percentOfPeak.value_or(0))}});
    else
        Console::out() << "baseline: " << e.statusName() << ", " << ms(e.latencyMeanMs.value_or(0)) << ", "
                       << percent(e.percentOfPeak.value_or(0)) << "\n";
    Console::out().flush();
}

void OptimizeRun::Private::onIteration(int iteration)
{
    const std::optional<Evaluation> best = search->bestEvaluation();
    const double latency = best ? best->latencyMeanMs.value_or(0) : 0;
    const double speedup = latency > 0 && baselineLatency > 0 ? baselineLatency / latency : 0;
    if (options.json) {
        emitLine({{QStringLiteral("event"), QStringLiteral("iteration")},
                  {QStringLiteral("iteration"), iteration},
                  {QStringLiteral("iterations"), search->config().iterations},
                  {QStringLiteral("best_candidate"), search->bestCandidateId()},
                  {QStringLiteral("best_latency_ms"), number(latency)},
                  {QStringLiteral("percent_of_peak"), number(best ? best->percentOfPeak.value_or(0) : 0)},
                  {QStringLiteral("speedup"), number(speedup)},
                  {QStringLiteral("candidates"), evaluated},
                  {QStringLiteral("correct"), usable},
                  {QStringLiteral("cost_usd"), search->costUsd()},
                  {QStringLiteral("tokens"), search->tokens()}});
    } else {
        Console::out() << QStringLiteral(
                              "iteration %1/%2: best %3 (%4x), %5, %6 candidates (%7 correct), cost $%8\n")
                              .arg(iteration)
                              .arg(search->config().iterations)
                              .arg(ms(latency))
                              .arg(speedup, 0, 'f', 2)
                              .arg(percent(best ? best->percentOfPeak.value_or(0) : 0))
                              .arg(evaluated)
                              .arg(usable)
                              .arg(search->costUsd(), 0, 'f', 4);
    }
    Console::out().flush();
    evaluated = usable = 0;
}

int OptimizeRun::Private::run()
{
    g_interrupted = 0;
    auto previousInt = std::signal(SIGINT, onInterrupt);
    auto previousTerm = std::signal(SIGTERM, onInterrupt);
    std::optional<StopReason> reason;
    QEventLoop loop;
    QObject::connect(search.get(), &BeamSearch::finished, &loop, [&](StopReason r) {
        reason = r;
        loop.quit();
    });
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        if (g_interrupted && search->state() != BeamSearch::State::Finished) {
            Console::err() << "accelopt: stopping; the session can be resumed with 'accelopt resume "
                           << search->sessionId().left(8) << "'\n";
            search->stop();
        }
    });
    poll.start(100);
    if (search->state() != BeamSearch::State::Finished)
        loop.exec();
    poll.stop();
    std::signal(SIGINT, previousInt);
    std::signal(SIGTERM, previousTerm);
    pool.stop();
    return finished(reason.value_or(search->stopReason()));
}

int OptimizeRun::Private::finished(StopReason reason)
{
    const std::optional<Evaluation> best = search->bestEvaluation();
    const double latency = best ? best->latencyMeanMs.value_or(0) : 0;
    const double speedup = latency > 0 && baselineLatency > 0 ? baselineLatency / latency : 0;
    const SessionStore::CostTotals totals = store.costTotals(search->sessionId());
    const QString shortId = search->sessionId().left(8);
    if (options.json) {
        emitLine({{QStringLiteral("event"), QStringLiteral("finished")},
                  {QStringLiteral("session"), search->sessionId()},
                  {QStringLiteral("stop_reason"), StopRules::name(reason)},
                  {QStringLiteral("error"), search->lastError()},
                  {QStringLiteral("iterations_done"), qMax(0, search->iteration() - 1)},
                  {QStringLiteral("best_candidate"), search->bestCandidateId()},
                  {QStringLiteral("best_latency_ms"), number(latency)},
                  {QStringLiteral("percent_of_peak"), number(best ? best->percentOfPeak.value_or(0) : 0)},
                  {QStringLiteral("speedup"), number(speedup)},
                  {QStringLiteral("cost_usd"), totals.costUsd},
                  {QStringLiteral("calls_without_cost"), totals.callsWithoutCost},
                  {QStringLiteral("tokens"), totals.promptTokens + totals.completionTokens},
                  {QStringLiteral("llm_calls"), totals.calls},
                  {QStringLiteral("candidates"), search->candidateCount()},
                  {QStringLiteral("orchestration_s"), search->orchestrationSeconds()},
                  {QStringLiteral("wall_s"), wall.elapsed() / 1000.0}});
    } else {
        Console::out() << "finished: " << StopRules::describe(reason) << "\n";
        if (!search->lastError().isEmpty())
            Console::out() << "  " << search->lastError() << "\n";
        if (best)
            Console::out() << QStringLiteral("  best: %1 (%2x over the baseline), %3, candidate %4\n")
                                  .arg(ms(latency))
                                  .arg(speedup, 0, 'f', 2)
                                  .arg(percent(best->percentOfPeak.value_or(0)), search->bestCandidateId());
        Console::out()
            << QStringLiteral("  %1 LLM calls, %2 tokens, cost $%3%4\n")
                   .arg(totals.calls)
                   .arg(totals.promptTokens + totals.completionTokens)
                   .arg(totals.costUsd, 0, 'f', 4)
                   .arg(totals.callsWithoutCost
                            ? QStringLiteral(" (+%1 calls of unknown cost)").arg(totals.callsWithoutCost)
                            : QString());
        if (reason == StopReason::Stopped)
            Console::out() << "  resume with: accelopt resume " << shortId << "\n";
        if (best)
            Console::out() << "  export with: accelopt export " << shortId << " --to DIR\n";
    }
    Console::out().flush();
    if (reason == StopReason::Stopped)
        return 130;
    return reason == StopReason::Failed ? 1 : 0;
}

void OptimizeRun::addOptions(QCommandLineParser &parser)
{
    parser.addOptions({
        {QStringLiteral("host"),
         QStringLiteral("Host to evaluate on (see 'accelopt hosts list'; default: local, or the session's)."),
         QStringLiteral("NAME")},
        {QStringLiteral("jobs"), QStringLiteral("Parallel evaluations on a local host (default: 2)."),
         QStringLiteral("N"), QStringLiteral("2")},
        {QStringLiteral("json"),
         QStringLiteral("Print one JSON object per event instead of progress lines.")},
        {QStringLiteral("no-memory"),
         QStringLiteral("Neither read nor grow the optimization memory (ACCELOPT_MEMORY_DB).")},
        {QStringLiteral("llm-config"),
         QStringLiteral("The LLM settings file (default: ACCELOPT_LLM_CONFIG, else the per-user llm.json)."),
         QStringLiteral("FILE")},
    });
}

bool OptimizeRun::readOptions(const QCommandLineParser &parser, Options &options, QString &error)
{
    options.host = parser.value(QStringLiteral("host"));
    bool ok = false;
    options.jobs = parser.value(QStringLiteral("jobs")).toInt(&ok);
    if (!ok || options.jobs < 1 || options.jobs > 64) {
        error = QStringLiteral("--jobs must be a whole number from 1 to 64");
        return false;
    }
    options.json = parser.isSet(QStringLiteral("json"));
    options.useMemory = !parser.isSet(QStringLiteral("no-memory"));
    options.llmConfig = parser.value(QStringLiteral("llm-config"));
    if (!options.llmConfig.isEmpty() && !QFileInfo(options.llmConfig).isFile()) {
        error = QStringLiteral("--llm-config %1 is not a file").arg(options.llmConfig);
        return false;
    }
    return true;
}

OptimizeRun::OptimizeRun(const Options &options) : d(std::make_unique<Private>(options)) {}
OptimizeRun::~OptimizeRun() = default;

int OptimizeRun::start(const SearchTask &givenTask, const SearchConfig &config)
{
    d->wall.start();
    SearchTask task = givenTask;
    task.host = d->options.host.isEmpty() ? QStringLiteral("local") : d->options.host;
    if (!d->prepare(task.host)) {
        Console::err() << "accelopt optimize: " << d->error << "\n";
        return 1;
    }
    if (task.backend.isEmpty())
        task.backend = d->hostConfig.backend;
    if (task.target.isEmpty())
        task.target = d->hostConfig.target;
    if (!d->search->start(task, config)) {
        Console::err() << "accelopt optimize: " << d->search->lastError() << "\n";
        return 1;
    }
    if (!d->lock(d->search->sessionId())) {
        Console::err() << "accelopt optimize: " << d->error << "\n";
        d->search->stop();
        return 1;
    }
    d->printSession(false);
    return d->run();
}

int OptimizeRun::resume(const QString &sessionPrefix, const std::optional<SearchConfig> &config)
{
    d->wall.start();
    SessionStore &store = d->store;
    if (!store.open()) {
        Console::err() << "accelopt resume: cannot open the workspace database: " << store.lastError()
                       << "\n";
        return 1;
    }
    const std::optional<SessionRecord> session = store.findSession(sessionPrefix);
    if (!session) {
        Console::err() << "accelopt resume: " << store.lastError() << "\n";
        return 1;
    }
    if (!d->lock(session->id)) {
        Console::err() << "accelopt resume: " << d->error << "\n";
        return 1;
    }
    if (session->status == SessionRecord::Status::Finished && !config) {
        Console::out() << "session " << session->id
                       << " has finished; give it more room to go on (e.g. -T with more "
                       << "iterations, or a larger budget)\n";
        return 0;
    }
    const QString host = !d->options.host.isEmpty() ? d->options.host
                         : !session->host.isEmpty() ? session->host
                                                    : QStringLiteral("local");
    if (!d->prepare(host)) {
        Console::err() << "accelopt resume: " << d->error << "\n";
        return 1;
    }
    d->resuming = true;
    const bool resumed = d->search->resume(session->id, config);
    d->resuming = false;
    if (!resumed) {
        Console::err() << "accelopt resume: " << d->search->lastError() << "\n";
        return 1;
    }
    if (const auto baseline = store.evaluation(SessionStore::baselineCandidateId(session->id)))
        d->baselineLatency = baseline->latencyMeanMs.value_or(0);
    d->printSession(true);
    return d->run();
}
