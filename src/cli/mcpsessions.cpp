#include "mcpsessions.h"

#include "clilogging.h"
#include "mcpargs.h"
#include "mcpcall.h"
#include "mcpschema.h"
#include "mcptools.h"
#include "optimizecommand.h"

#include "itemmodels/searchstate.h"
#include "search/optimizationrun.h"
#include "search/searchevent.h"

#include <QCommandLineParser>
#include <QJsonArray>

#include <limits>

namespace {
using Kind = McpArgs::Kind;

QJsonValue orNull(const std::optional<double> &v)
{
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}
QJsonValue orNull(const QString &s)
{
    return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s);
}
QString ms(const std::optional<double> &v)
{
    return v ? QStringLiteral("%1 ms").arg(*v, 0, 'g', 4) : QStringLiteral("- ms");
}
} // namespace

struct McpSessions::Session
{
    enum class Status
    {
        Starting,
        Running,
        Finished, // by its rules: iterations, a budget, the target, patience
        Stopped,  // optimize_stop, or the server shutting down: resumable
        Failed,
    };
    static QString name(Status s)
    {
        switch (s) {
        case Status::Starting:
            return QStringLiteral("starting");
        case Status::Running:
            return QStringLiteral("running");
        case Status::Finished:
            return QStringLiteral("finished");
        case Status::Stopped:
            return QStringLiteral("stopped");
        case Status::Failed:
            break;
        }
        return QStringLiteral("failed");
    }

    std::unique_ptr<SearchState> state = std::make_unique<SearchState>();
    std::unique_ptr<OptimizationRun> run;
    QString id; // empty until started
    QString task;
    Status status = Status::Starting;
    std::optional<StopReason> reason;
    QString error;
    QPointer<McpCall> starter;
    QList<QPointer<McpCall>> untilIteration; // follow with wait "iteration"
    QList<QPointer<McpCall>> untilEnd;       // follow with wait "end", and stop
    QList<QPointer<McpCall>> watchers() const { return untilIteration + untilEnd; }
    bool live() const { return status == Status::Starting || status == Status::Running; }
};

McpSessions::McpSessions(QObject *parent) : QObject(parent) {}
McpSessions::~McpSessions() = default;

bool McpSessions::anyRunning() const
{
    return std::any_of(m_sessions.cbegin(), m_sessions.cend(), [](const auto &s) { return s.second->live(); });
}

void McpSessions::stopAll()
{
    if (!anyRunning()) {
        QMetaObject::invokeMethod(this, &McpSessions::idle, Qt::QueuedConnection);
        return;
    }
    for (auto &[key, s] : m_sessions)
        if (s->live()) {
            qCInfo(lcCli) << "mcp: stopping session" << s->id;
            halt(s.get());
        }
}

void McpSessions::halt(Session *s)
{
    const bool starting = s->status == Session::Status::Starting;
    s->run->stop();
    // A stop before the search began drops the start (its key lookup): no finished() comes to end it.
    if (starting && s->status == Session::Status::Starting) {
        s->status = Session::Status::Stopped;
        s->reason = StopReason::Stopped;
        onEnded(s);
    }
}

QJsonObject McpSessions::figures(const Session &s) const
{
    const SearchState::Summary &sum = s.state->summary();
    const std::optional<Evaluation> best = s.state->best();
    return {{QStringLiteral("session"), orNull(s.id)},
            {QStringLiteral("task"), s.task},
            {QStringLiteral("status"), Session::name(s.status)},
            {QStringLiteral("stop_reason"), s.reason ? QJsonValue(StopRules::name(*s.reason)) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("error"), orNull(s.error.isEmpty() ? sum.error : s.error)},
            {QStringLiteral("iteration"), sum.iteration},
            {QStringLiteral("iterations"), sum.config.iterations},
            {QStringLiteral("iterations_done"), sum.iterationsDone},
            {QStringLiteral("candidates"), s.state->rowCount()},
            {QStringLiteral("usable"), sum.usable},
            {QStringLiteral("failed"), sum.failed},
            {QStringLiteral("evaluating"), sum.evaluating},
            {QStringLiteral("baseline_latency_ms"), orNull(sum.baselineLatencyMs)},
            {QStringLiteral("best_candidate"), orNull(sum.bestCandidateId)},
            {QStringLiteral("best_latency_ms"), orNull(best ? best->latencyMeanMs : std::nullopt)},
            {QStringLiteral("best_percent_of_peak"), orNull(best ? best->percentOfPeak : std::nullopt)},
            {QStringLiteral("best_speedup"), orNull(s.state->speedup())},
            {QStringLiteral("cost_usd"), sum.costUsd},
            {QStringLiteral("tokens"), sum.tokens},
            {QStringLiteral("progress"), s.state->progress()},
            {QStringLiteral("elapsed_s"), sum.elapsedSeconds},
            {QStringLiteral("resume_with"), s.status == Session::Status::Stopped && !s.id.isEmpty()
                                                ? QJsonValue(QStringLiteral("accelopt resume ") + s.id.left(8))
                                                : QJsonValue(QJsonValue::Null)}};
}

McpSessions::Session *McpSessions::find(McpCall *call, const QString &prefix)
{
    Session *found = nullptr;
    for (auto &[key, s] : m_sessions) {
        if (s->id.isEmpty() || !s->id.startsWith(prefix))
            continue;
        if (found) {
            call->fail(QStringLiteral("session '%1' is ambiguous: give more of its id").arg(prefix));
            return nullptr;
        }
        found = s.get();
    }
    if (!found)
        call->fail(QStringLiteral("no session '%1' was started by this server (optimize_start); 'accelopt sessions show "
                                  "%1' reads any session of the workspace")
                       .arg(prefix));
    return found;
}

void McpSessions::start(McpCall *call)
{
    QCommandLineParser parser;
    parser.addHelpOption();
    OptimizeCommand::addOptions(parser);
    QString error;
    if (!McpArgs::parse(parser, QStringLiteral("accelopt optimize"),
                        McpArgs::argv(call->arguments(), {{"task", "task", Kind::Value},
                                                          {"dataset", "dataset", Kind::Value},
                                                          {"kernel", "kernel", Kind::Value},
                                                          {"host", "host", Kind::Value},
                                                          {"jobs", "jobs", Kind::Value},
                                                          {"backend", "backend", Kind::Value},
                                                          {"target", "target", Kind::Value},
                                                          {"size", "size", Kind::Value},
                                                          {"timeout", "timeout", Kind::Value},
                                                          {"no_memory", "no-memory", Kind::Flag},
                                                          {"preset", "preset", Kind::Value},
                                                          {"beam_width", "beam-width", Kind::Value},
                                                          {"plans", "plans", Kind::Value},
                                                          {"samples", "samples", Kind::Value},
                                                          {"iterations", "iterations", Kind::Value},
                                                          {"fix_rounds", "fix-rounds", Kind::Value},
                                                          {"topk", "topk", Kind::Value},
                                                          {"expn", "expn", Kind::Value},
                                                          {"patience", "patience", Kind::Value},
                                                          {"seed", "seed", Kind::Value},
                                                          {"gain", "gain", Kind::Value},
                                                          {"budget_usd", "budget-usd", Kind::Value},
                                                          {"budget_tokens", "budget-tokens", Kind::Value},
                                                          {"budget_minutes", "budget-minutes", Kind::Value},
                                                          {"target_percent", "target-percent", Kind::Value},
                                                          {"check_all", "check-all", Kind::Flag}}),
                        error))
        return call->fail(error);
    SearchTask task;
    SearchConfig config;
    SearchConsole::Options options;
    QString note;
    if (OptimizeCommand::prepare(parser, task, config, options, error, note) != 0)
        return call->fail(error);
    if (!note.isEmpty())
        call->progress(note);
    // stdin is the protocol: an SSH host's question is refused (accept its key with 'accelopt hosts' first).
    options.run.prompter.reset();

    auto owned = std::make_unique<Session>();
    Session *s = owned.get();
    s->task = task.name;
    s->run = std::make_unique<OptimizationRun>(options.run);
    connect(s->run.get(), &OptimizationRun::event, this, [this, s](const SearchEvent &e) { onEvent(s, e); });
    connect(s->run.get(), &OptimizationRun::notice, this, [s](const QString &message) {
        qCWarning(lcCli).noquote() << "mcp: session" << s->id.left(8) << message;
        for (const QPointer<McpCall> &c : s->watchers())
            if (c)
                c->progress(message);
    });
    connect(s->run.get(), &OptimizationRun::started, this, [this, s](const QString &id) {
        s->id = id;
        if (s->status == Session::Status::Starting)
            s->status = Session::Status::Running;
        if (s->starter)
            s->starter->succeed(figures(*s), QStringLiteral("session %1 started: %2; follow it with optimize_follow, stop it "
                                                            "with optimize_stop")
                                                 .arg(id, s->task));
    });
    connect(s->run.get(), &OptimizationRun::failed, this, [this, s](const QString &message) {
        s->status = Session::Status::Failed;
        s->error = message;
        if (s->starter)
            s->starter->fail(QStringLiteral("the session did not start: %1").arg(message));
        onEnded(s);
    });
    connect(s->run.get(), &OptimizationRun::finished, this, [this, s](StopReason reason) {
        s->reason = reason;
        s->status = reason == StopReason::Stopped   ? Session::Status::Stopped
                    : StopRules::isFailure(reason) ? Session::Status::Failed
                                                    : Session::Status::Finished;
        onEnded(s);
    });
    s->starter = call; // before start(): started() may come from inside it
    const OptimizationRun::Begin begin = s->run->start(task, config);
    if (begin != OptimizationRun::Begin::Pending)
        return call->fail(QStringLiteral("the session did not start: %1").arg(s->run->error()));
    // A start the client gives up on is not left running unseen.
    connect(call, &McpCall::cancelled, this, [this, s] {
        if (s->live())
            halt(s);
    });
    call->progress(QStringLiteral("starting a session on %1").arg(task.name));
    m_sessions.emplace(m_next++, std::move(owned));
}

void McpSessions::follow(McpCall *call)
{
    Session *s = find(call, call->arguments().value(QStringLiteral("session")).toString());
    if (!s)
        return;
    const QString wait = call->arguments().value(QStringLiteral("wait")).toString(QStringLiteral("none"));
    if (!s->live() || wait == QStringLiteral("none"))
        return call->succeed(figures(*s));
    (wait == QStringLiteral("iteration") ? s->untilIteration : s->untilEnd).append(call);
    call->progress(QStringLiteral("following session %1: waiting for the %2")
                       .arg(s->id.left(8), wait == QStringLiteral("iteration") ? QStringLiteral("next iteration")
                                                                               : QStringLiteral("end")));
}

void McpSessions::stop(McpCall *call)
{
    Session *s = find(call, call->arguments().value(QStringLiteral("session")).toString());
    if (!s)
        return;
    if (!s->live())
        return call->succeed(figures(*s), QStringLiteral("session %1 had already ended").arg(s->id.left(8)));
    s->untilEnd.append(call);
    call->progress(QStringLiteral("stopping session %1").arg(s->id.left(8)));
    halt(s);
}

void McpSessions::onEvent(Session *s, const SearchEvent &event)
{
    using namespace SearchEvents;
    s->state->apply(event);
    QString message;
    if (const auto *b = event.as<BaselineEvaluated>())
        message = QStringLiteral("baseline: %1, %2").arg(b->evaluation.statusName(), ms(b->evaluation.latencyMeanMs));
    else if (const auto *e = event.as<EvaluationFinished>())
        message = QStringLiteral("iteration %1: candidate %2 %3, %4")
                      .arg(e->iteration)
                      .arg(e->candidateId.left(8), e->evaluation.statusName(), ms(e->evaluation.latencyMeanMs));
    else if (const auto *it = event.as<IterationFinished>())
        message = QStringLiteral("iteration %1/%2 done: best %3 (%4x)")
                      .arg(it->iteration)
                      .arg(it->totals.iterations)
                      .arg(ms(it->totals.best ? it->totals.best->latencyMeanMs : std::nullopt))
                      .arg(it->totals.speedup.value_or(0), 0, 'f', 2);
    if (message.isEmpty())
        return;
    for (const QPointer<McpCall> &c : s->watchers())
        if (c)
            c->progress(message);
    if (event.as<IterationFinished>()) {
        const QJsonObject now = figures(*s);
        for (const QPointer<McpCall> &c : std::as_const(s->untilIteration))
            if (c)
                c->succeed(now, message);
        s->untilIteration.clear();
    }
}

void McpSessions::onEnded(Session *s)
{
    qCInfo(lcCli) << "mcp: session" << s->id << "ended:" << Session::name(s->status);
    const QJsonObject now = figures(*s);
    const QString text = QStringLiteral("session %1 %2%3")
                             .arg(s->id.left(8), Session::name(s->status),
                                  s->reason ? QStringLiteral(": ") + StopRules::describe(*s->reason) : QString());
    for (const QPointer<McpCall> &c : s->watchers())
        if (c)
            c->succeed(now, text);
    s->untilIteration.clear();
    s->untilEnd.clear();
    if (!anyRunning())
        Q_EMIT idle();
}

QList<McpTool> McpSessions::tools()
{
    const auto count = [](const char *d, int max) { return McpSchema::integer(QLatin1String(d), 0, max); };
    QJsonObject properties = McpTools::evalProperties();
    properties.remove(QStringLiteral("timing_only"));
    properties.remove(QStringLiteral("seeds"));
    const std::pair<const char *, QJsonObject> more[] = {
        {"task", McpSchema::string(QStringLiteral("Task name (see tasks_list) or task folder; default: the task the kernel file belongs to."))},
        {"dataset", McpSchema::string(QStringLiteral("A dataset in the original NKIBench layout."))},
        {"kernel", McpSchema::string(QStringLiteral("Start from this kernel file instead of the task's baseline."))},
        {"jobs", McpSchema::integer(QStringLiteral("Parallel evaluations on a local host (default 2)."), 1, 64)},
        {"no_memory", McpSchema::boolean(QStringLiteral("Neither read nor grow the optimization memory."))},
        {"preset", McpSchema::oneOf(QStringLiteral("Start from a preset of search settings (default: paper)."), SearchConfig::presetNames())},
        {"beam_width", count("B: kernels kept per iteration.", 1000)},
        {"plans", count("N: planner calls per beam kernel.", 1000)},
        {"samples", count("K: executor calls per plan.", 1000)},
        {"iterations", count("T: iterations.", 1000)},
        {"fix_rounds", count("F: fixer rounds for a kernel that fails to compile or is wrong.", 100)},
        {"topk", count("New experiences per iteration, at most.", 1000)},
        {"expn", count("Experiences shown to the planner.", 1000)},
        {"patience", count("Stop after N iterations without improvement (0: never).", 1000)},
        {"seed", McpSchema::integer(QStringLiteral("Seed of the models' sampling."), 0, std::numeric_limits<int>::max())},
        {"gain", McpSchema::number(QStringLiteral("Speedup that makes a positive experience (default 1.04)."), 1)},
        {"budget_usd", McpSchema::number(QStringLiteral("Stop when the LLM calls have cost this many dollars."), 0)},
        {"budget_tokens", McpSchema::integer(QStringLiteral("Stop after this many prompt + completion tokens."), 0, std::numeric_limits<qint64>::max())},
        {"budget_minutes", McpSchema::number(QStringLiteral("Stop after this many minutes."), 0)},
        {"target_percent", McpSchema::number(QStringLiteral("Stop when the best kernel reaches this % of the roofline peak."), 0)},
        {"check_all", McpSchema::boolean(QStringLiteral("Check every candidate's numerics, not only the fast ones."))},
    };
    for (const auto &[name, schema] : more)
        properties.insert(QLatin1String(name), schema);
    const QJsonObject startInput{{QStringLiteral("type"), QStringLiteral("object")},
                                 {QStringLiteral("properties"), properties},
                                 {QStringLiteral("additionalProperties"), false}};
    const auto nnum = [](const char *d) { return McpSchema::nullable(McpSchema::number(QLatin1String(d), 0)); };
    const auto nstr = [](const char *d) { return McpSchema::nullable(McpSchema::string(QLatin1String(d))); };
    const auto n = [](const char *d) { return McpSchema::integer(QLatin1String(d), 0, std::numeric_limits<int>::max()); };
    const QJsonObject output = McpSchema::object(
        {{"session", nstr("The session id (the workspace's; 'accelopt sessions show', 'accelopt export' take it).")},
         {"task", McpSchema::string(QString())},
         {"status", McpSchema::oneOf(QString(), {QStringLiteral("starting"), QStringLiteral("running"), QStringLiteral("finished"),
                                                 QStringLiteral("stopped"), QStringLiteral("failed")})},
         {"stop_reason", nstr("iterations, money_budget, token_budget, wall_time_budget, target_reached, no_improvement, "
                              "stopped, failed, models_failed")},
         {"error", nstr("Why it failed.")},
         {"iteration", n("The iteration running (or last run); 0: the baseline.")},
         {"iterations", n("T.")},
         {"iterations_done", n("")},
         {"candidates", n("Kernels produced so far.")},
         {"usable", n("Correct with a latency.")},
         {"failed", n("Evaluated and not usable.")},
         {"evaluating", n("")},
         {"baseline_latency_ms", nnum("")},
         {"best_candidate", nstr("")},
         {"best_latency_ms", nnum("")},
         {"best_percent_of_peak", nnum("")},
         {"best_speedup", nnum("Of the best kernel over the baseline.")},
         {"cost_usd", McpSchema::number(QStringLiteral("Of the LLM calls."), 0)},
         {"tokens", McpSchema::integer(QString(), 0, std::numeric_limits<qint64>::max())},
         {"progress", McpSchema::number(QStringLiteral("Fraction 0-1 of the search done."), 0)},
         {"elapsed_s", McpSchema::number(QString(), 0)},
         {"resume_with", nstr("The command that resumes a stopped session.")}},
        {QStringLiteral("session"), QStringLiteral("task"), QStringLiteral("status"), QStringLiteral("iteration"),
         QStringLiteral("iterations"), QStringLiteral("candidates"), QStringLiteral("best_latency_ms"),
         QStringLiteral("best_speedup"), QStringLiteral("cost_usd")},
        false);
    const QJsonObject sessionArg = McpSchema::string(QStringLiteral("The session id from optimize_start (its first characters are enough)."));
    QJsonObject sessionRequired = sessionArg;
    sessionRequired.insert(QStringLiteral("minLength"), 1);
    return {
        {QStringLiteral("optimize_start"),
         QStringLiteral("Start an optimization"),
         QStringLiteral("Start an AccelOpt optimization session (the LLM agents' beam search, every candidate checked and "
                        "timed on the host) on a task's kernel, with the models of the user's llm.json. Returns the "
                        "session id at once; the search runs in the server. Follow it with optimize_follow, stop it with "
                        "optimize_stop; it is kept in the workspace like `accelopt optimize` sessions (resume, export)."),
         startInput, output, [this](McpCall *c) { start(c); }},
        {QStringLiteral("optimize_follow"),
         QStringLiteral("Follow an optimization"),
         QStringLiteral("Live figures of a session started with optimize_start: status, iteration, candidates, best latency, "
                        "speedup and % of peak, cost. wait: none (at once, default), iteration (when the next iteration "
                        "ends) or end (when the session ends); while waiting, progress notifications tell each result."),
         McpSchema::object({{"session", sessionRequired},
                            {"wait", McpSchema::oneOf(QStringLiteral("When to answer (default none)."),
                                                      {QStringLiteral("none"), QStringLiteral("iteration"), QStringLiteral("end")})}},
                           {QStringLiteral("session")}),
         output, [this](McpCall *c) { follow(c); }},
        {QStringLiteral("optimize_stop"),
         QStringLiteral("Stop an optimization"),
         QStringLiteral("Stop a session started with optimize_start cleanly, as Ctrl+C does `accelopt optimize`: the models' "
                        "calls and evaluations are cancelled, everything done so far is kept, and `accelopt resume` goes on "
                        "from there. Answers when it has stopped, with its final figures."),
         McpSchema::object({{"session", sessionRequired}}, {QStringLiteral("session")}),
         output, [this](McpCall *c) { stop(c); }},
    };
}
