#include "optimizerig.h"

#include "hosts/hostconfig.h"
#include "hosts/hostregistry.h"
#include "llm/llmconfig.h"
#include "memory/experiencestore.h"
#include "processtree.h"
#include "store/sessionstore.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QProcess>
#include <QTest>

QJsonObject OptimizeRig::Run::event(const QString &name) const
{
    for (const QJsonObject &e : events)
        if (e.value(QStringLiteral("event")).toString() == name)
            return e;
    return {};
}

QList<QJsonObject> OptimizeRig::Run::all(const QString &name) const
{
    QList<QJsonObject> found;
    for (const QJsonObject &e : events)
        if (e.value(QStringLiteral("event")).toString() == name)
            found << e;
    return found;
}

double OptimizeRig::callCost()
{
    return (ScriptedAgents::promptTokens * inputPrice + ScriptedAgents::completionTokens * outputPrice) / 1e6;
}

bool OptimizeRig::start(QString &error)
{
    if (!server.start()) {
        error = QStringLiteral("the stand-in model server did not start");
        return false;
    }
    const QString fixtures = QStringLiteral(ACCELOPT_TEST_FIXTURES "/optimize/");
    const QString tasks = QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/");
    if (!swiglu.load(fixtures + QStringLiteral("swiglu"), tasks + QStringLiteral("swiglu/baseline.py"),
                     error) ||
        !adamw.load(fixtures + QStringLiteral("adamw"), tasks + QStringLiteral("adamw/baseline.py"), error))
        return false;
    server.setHandler([this](const ScriptedLlmServer::Request &r) {
        if (refuseAll)
            return ScriptedLlmServer::error(401, "{\"error\": {\"message\": \"Incorrect API key\"}}");
        const QString role = ScriptedAgents::roleOf(r);
        const int n = ++seen[role];
        if (killAt && killAt->role == role && n >= killAt->occurrence) {
            m_killSignal = killAt->signal;
            killAt.reset();   // once per point; the test arms the next one
            m_killNow = true; // the CLI is killed while this call is out
            ScriptedLlmServer::Response hang;
            hang.hang = true;
            return hang;
        }
        if (fault)
            if (std::optional<ScriptedLlmServer::Response> instead = fault(r))
                return *instead;
        return m_agents->reply(r);
    });
    return true;
}

void OptimizeRig::useAgents(const ScriptedAgents &agents)
{
    m_agents = &agents;
    seen.clear();
    killAt.reset();
    m_killNow = false;
}

void OptimizeRig::writeLlmConfig(const Workspace &w, bool priced, std::optional<RetryPolicy> retry,
                                 int timeoutMs) const
{
    LlmConfig config;
    Endpoint e;
    e.name = QStringLiteral("stand-in");
    e.baseUrl = server.baseUrl();
    e.model = QStringLiteral("stand-in-model");
    e.timeoutMs = timeoutMs;
    e.concurrency = 4;
    config.endpoints << e;
    for (AgentRole role : AgentRoles::all())
        config.roster.assign(role, e.name);
    if (priced)
        config.prices.set(e.model, {inputPrice, outputPrice});
    if (retry) {
        config.retry = *retry;
    } else {
        config.retry.maxAttempts = 1;
    }
    QString error;
    QVERIFY2(config.save(w.llm(), &error), qPrintable(error));
}

QProcessEnvironment OptimizeRig::environment(const Workspace &w) const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ACCELOPT_WORKSPACE_DB"), w.db());
    env.insert(QStringLiteral("ACCELOPT_MEMORY_DB"), w.memory());
    env.insert(QStringLiteral("ACCELOPT_LLM_CONFIG"), w.llm());
    env.insert(QStringLiteral("ACCELOPT_HOSTS_FILE"), w.hosts());
    env.insert(QStringLiteral("ACCELOPT_NO_KEYCHAIN"), QStringLiteral("1"));
    return env;
}

void OptimizeRig::addNeuronStandIn(const Workspace &w, const QString &name)
{
    const QString standin = QStringLiteral(ACCELOPT_SOURCE_DIR "/tests/fixtures/runner/fake_nki_current");
    const QString python = w.dir.filePath(QStringLiteral("python-with-standin-sdk"));
    QFile f(python);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QStringLiteral("#!/bin/sh\nPYTHONPATH='%1':\"$PYTHONPATH\" PATH='%1/bin':\"$PATH\" exec "
                           "/usr/bin/python3 \"$@\"\n")
                .arg(standin)
                .toUtf8());
    f.close();
    f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    HostConfig host;
    host.name = name;
    host.kind = HostConfig::Kind::Local;
    host.python = python;
    host.backend = QStringLiteral("neuron");
    host.slotCount = 2;
    HostRegistry hosts(w.hosts());
    QString e;
    QVERIFY2(hosts.load(e) && hosts.add(host, e) && hosts.save(e), qPrintable(e));
}

void OptimizeRig::killTree(qint64 pid, Run &run)
{
    // The runners under the CLI go too, as they would when a machine loses power.
    const QList<pid_t> children = ProcessTree::descendants(pid_t(pid));
    ::kill(pid_t(pid), SIGKILL);
    for (pid_t child : children)
        ::kill(child, SIGKILL);
    run.killed = true;
}

OptimizeRig::Run OptimizeRig::cli(const Workspace &w, const QStringList &args, int timeoutMs)
{
    Run run;
    QProcess process;
    process.setProcessEnvironment(environment(w));
    process.start(QStringLiteral(ACCELOPT_CLI_PATH), args);
    if (!process.waitForStarted(10000))
        return run;
    QElapsedTimer clock;
    clock.start();
    while (process.state() != QProcess::NotRunning && clock.elapsed() < timeoutMs) {
        QTest::qWait(20);
        run.out += QString::fromUtf8(process.readAllStandardOutput());
        if (whileRunning)
            whileRunning(run.out);
        if (m_killNow && m_killSignal != SIGKILL) {
            m_killNow = false;
            ::kill(pid_t(process.processId()), m_killSignal);
        }
        if (m_killNow) {
            m_killNow = false;
            killTree(process.processId(), run);
            process.waitForFinished(10000);
        }
    }
    if (process.state() != QProcess::NotRunning) {
        process.kill();
        process.waitForFinished(5000);
        run.err = QStringLiteral("timed out");
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    run.out += QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    for (const QString &line : run.out.split(u'\n', Qt::SkipEmptyParts)) {
        const QJsonDocument doc = QJsonDocument::fromJson(line.toUtf8());
        if (doc.isObject())
            run.events << doc.object();
    }
    return run;
}

int OptimizeRig::requests() const
{
    int n = 0;
    for (int count : seen)
        n += count;
    return n;
}

QStringList OptimizeRig::optimizeArgs(const QString &task, int seed)
{
    return {QStringLiteral("optimize"), QStringLiteral("--task"), task,
            QStringLiteral("--size"),   QStringLiteral("small"),  QStringLiteral("-B"),
            QStringLiteral("2"),        QStringLiteral("-N"),     QStringLiteral("3"),
            QStringLiteral("-K"),       QStringLiteral("1"),      QStringLiteral("-T"),
            QStringLiteral("2"),        QStringLiteral("-F"),     QStringLiteral("1"),
            QStringLiteral("--seed"),   QString::number(seed),    QStringLiteral("--json")};
}

QStringList OptimizeRig::snapshot(const Workspace &w, const QString &sessionId)
{
    SessionStore store(w.db());
    if (!store.open())
        return {QStringLiteral("cannot open: ") + store.lastError()};
    QStringList lines;
    QHash<QString, QString> hashOf;
    const QList<Candidate> candidates = store.candidates(sessionId);
    for (const Candidate &c : candidates)
        hashOf.insert(c.id, c.sourceHash.left(12));
    const auto describe = [](const std::optional<Evaluation> &e) {
        return QStringLiteral("%1 %2 %3")
            .arg(e ? e->statusName() : QStringLiteral("not evaluated"))
            .arg(e && e->correct ? (*e->correct ? "correct" : "wrong") : "-")
            .arg(e && e->latencyMeanMs ? QString::number(*e->latencyMeanMs, 'g', 9) : QString());
    };
    for (const Candidate &c : candidates) {
        lines << QStringLiteral("candidate it%1 plan%2 sample%3 fix%4 %5 parent=%6 -> %7")
                     .arg(c.iteration)
                     .arg(c.planIndex)
                     .arg(c.sampleIndex)
                     .arg(c.fixRound)
                     .arg(hashOf.value(c.id), hashOf.value(c.parentId), describe(store.evaluation(c.id)));
        if (const auto again = store.evaluation(c.id, SessionStore::remeasureRun))
            lines << QStringLiteral("remeasured %1 -> %2").arg(hashOf.value(c.id), describe(again));
    }
    for (const PlanRecord &p : store.plans(sessionId))
        lines << QStringLiteral("plan it%1 #%2 of %3: %4")
                     .arg(p.iteration)
                     .arg(p.planIndex)
                     .arg(hashOf.value(p.parentCandidateId), p.plan.title);
    for (int i = 0; i <= 3; ++i) {
        QStringList beam;
        for (const QString &id : store.beam(sessionId, i))
            beam << hashOf.value(id);
        lines << QStringLiteral("beam %1: %2").arg(i).arg(beam.join(u' '));
    }
    if (const auto best = store.bestCandidate(sessionId))
        lines << QStringLiteral("best ") + hashOf.value(best->id);
    const SessionStatistics::CostTotals totals = store.statistics().costTotals(sessionId);
    lines << QStringLiteral("calls %1, failed %2, cost %3")
                 .arg(totals.calls)
                 .arg(totals.failedCalls)
                 .arg(totals.costUsd, 0, 'f', 9);
    for (auto it = totals.costByRole.cbegin(); it != totals.costByRole.cend(); ++it)
        lines << QStringLiteral("cost %1 %2").arg(it.key()).arg(it.value(), 0, 'f', 9);
    ExperienceStore memory(w.memory());
    if (memory.open())
        for (const ExperienceRecord &r : memory.list())
            lines << QStringLiteral("experience %1 %2 %3 -> %4 x%5")
                         .arg(r.isNegative() ? "negative" : "positive", r.experience.title,
                              hashOf.value(r.slowCandidateId), hashOf.value(r.fastCandidateId))
                         .arg(r.experience.speedup, 0, 'f', 4);
    lines << QStringLiteral("status ") + SessionRecord::statusName(store.session(sessionId)->status);
    lines.sort();
    return lines;
}
