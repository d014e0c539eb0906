#include "llm/llmconfig.h"
#include "memory/experiencestore.h"
#include "processtree.h"
#include "scriptedagents.h"
#include "scriptedllmserver.h"
#include "store/sessionstore.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <signal.h>

// `accelopt optimize`, `resume` end to end: the real CLI binary, the local host with the real runner and
// nkisim (small size), real SQLite files, and ScriptedLlmServer (a stand-in for a model server on loopback)
// playing the four agents from tests/fixtures/optimize with real faster, slower and broken variants of the
// swiglu and adamw baselines (ScriptedAgents).
class TestCliOptimize : public QObject
{
    Q_OBJECT

    struct Workspace
    {
        QTemporaryDir dir;
        QString db() const { return dir.filePath(QStringLiteral("workspace.sqlite")); }
        QString memory() const { return dir.filePath(QStringLiteral("memory.sqlite")); }
        QString llm() const { return dir.filePath(QStringLiteral("llm.json")); }
    };
    struct Run
    {
        int exitCode = -1;
        QString out;
        QString err;
        QList<QJsonObject> events;
        bool killed = false;
        QJsonObject event(const QString &name) const
        {
            for (const QJsonObject &e : events)
                if (e.value(QStringLiteral("event")).toString() == name)
                    return e;
            return {};
        }
        QList<QJsonObject> all(const QString &name) const
        {
            QList<QJsonObject> found;
            for (const QJsonObject &e : events)
                if (e.value(QStringLiteral("event")).toString() == name)
                    found << e;
            return found;
        }
    };
    // Kill the CLI (SIGKILL) when the server gets the n-th request of a role, counted over all processes, or
    // the first one after it: calls run concurrently, so a process killed at one point may already have sent
    // the request another point names (kill point 1 was flaky with an exact match).
    struct KillPoint
    {
        QString role;
        int occurrence = 0;
        int signal = SIGKILL; // SIGINT: what Ctrl+C sends
    };

    ScriptedLlmServer m_server;
    ScriptedAgents m_swiglu;
    ScriptedAgents m_adamw;
    const ScriptedAgents *m_agents = nullptr;
    QMap<QString, int> m_seen; // requests per role
    std::optional<KillPoint> m_killAt;
    bool m_refuseAll = false; // every call answered 401, as with a wrong API key
    bool m_killNow = false;
    int m_killSignal = SIGKILL;

    static constexpr double inputPrice = 3.0; // USD per million tokens of the stand-in model
    static constexpr double outputPrice = 15.0;
    static double callCost()
    {
        return (ScriptedAgents::promptTokens * inputPrice + ScriptedAgents::completionTokens * outputPrice) /
               1e6;
    }

    void writeLlmConfig(const Workspace &w, bool priced = true)
    {
        LlmConfig config;
        Endpoint e;
        e.name = QStringLiteral("stand-in");
        e.baseUrl = m_server.baseUrl();
        e.model = QStringLiteral("stand-in-model");
        e.timeoutMs = 60000;
        e.concurrency = 4;
        config.endpoints << e;
        for (AgentRole role : AgentRoles::all())
            config.roster.assign(role, e.name);
        if (priced)
            config.prices.set(e.model, {inputPrice, outputPrice});
        config.retry.maxAttempts = 1;
        QString error;
        QVERIFY2(config.save(w.llm(), &error), qPrintable(error));
    }

    QProcessEnvironment environment(const Workspace &w) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("ACCELOPT_WORKSPACE_DB"), w.db());
        env.insert(QStringLiteral("ACCELOPT_MEMORY_DB"), w.memory());
        env.insert(QStringLiteral("ACCELOPT_LLM_CONFIG"), w.llm());
        env.insert(QStringLiteral("ACCELOPT_HOSTS_FILE"), w.dir.filePath(QStringLiteral("hosts.json")));
        env.insert(QStringLiteral("ACCELOPT_NO_KEYCHAIN"), QStringLiteral("1"));
        return env;
    }

    // Runs the CLI while this thread's event loop keeps serving the stand-in model.
    Run cli(const Workspace &w, const QStringList &args, int timeoutMs = 240000)
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
            if (m_killNow && m_killSignal != SIGKILL) {
                m_killNow = false;
                ::kill(pid_t(process.processId()), m_killSignal);
            }
            if (m_killNow) {
                m_killNow = false;
                const QList<pid_t> children = ProcessTree::descendants(pid_t(process.processId()));
                process.kill();
                process.waitForFinished(10000);
                for (pid_t child : children)
                    ::kill(child, SIGKILL);
                run.killed = true;
            }
        }
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(5000);
            run.err = QStringLiteral("timed out");
            return run;
        }
        run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
        run.out = QString::fromUtf8(process.readAllStandardOutput());
        run.err = QString::fromUtf8(process.readAllStandardError());
        for (const QString &line : run.out.split(u'\n', Qt::SkipEmptyParts)) {
            const QJsonDocument doc = QJsonDocument::fromJson(line.toUtf8());
            if (doc.isObject())
                run.events << doc.object();
        }
        return run;
    }

    void useAgents(const ScriptedAgents &agents)
    {
        m_agents = &agents;
        m_seen.clear();
        m_killAt.reset();
        m_killNow = false;
    }

    static QStringList optimizeArgs(const QString &task, int seed)
    {
        return {QStringLiteral("optimize"), QStringLiteral("--task"), task,
                QStringLiteral("--size"),   QStringLiteral("small"),  QStringLiteral("-B"),
                QStringLiteral("2"),        QStringLiteral("-N"),     QStringLiteral("3"),
                QStringLiteral("-K"),       QStringLiteral("1"),      QStringLiteral("-T"),
                QStringLiteral("2"),        QStringLiteral("-F"),     QStringLiteral("1"),
                QStringLiteral("--seed"),   QString::number(seed),    QStringLiteral("--json")};
    }

    // Everything a session produced, named by content instead of by ids (which differ per session), in a
    // stable order: two runs of the same script must give equal lists.
    static QStringList snapshot(const Workspace &w, const QString &sessionId)
    {
        SessionStore store(w.db());
        if (!store.open())
            return {QStringLiteral("cannot open: ") + store.lastError()};
        QStringList lines;
        QHash<QString, QString> hashOf;
        const QList<Candidate> candidates = store.candidates(sessionId);
        for (const Candidate &c : candidates)
            hashOf.insert(c.id, c.sourceHash.left(12));
        for (const Candidate &c : candidates) {
            const auto e = store.evaluation(c.id);
            lines << QStringLiteral("candidate it%1 plan%2 sample%3 fix%4 %5 parent=%6 -> %7 %8 %9")
                         .arg(c.iteration)
                         .arg(c.planIndex)
                         .arg(c.sampleIndex)
                         .arg(c.fixRound)
                         .arg(hashOf.value(c.id), hashOf.value(c.parentId))
                         .arg(e ? e->statusName() : QStringLiteral("not evaluated"))
                         .arg(e && e->correct ? (*e->correct ? "correct" : "wrong") : "-")
                         .arg(e && e->latencyMeanMs ? QString::number(*e->latencyMeanMs, 'g', 9) : QString());
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
        const SessionStore::CostTotals totals = store.costTotals(sessionId);
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

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_server.start());
        QString error;
        const QString fixtures = QStringLiteral(ACCELOPT_TEST_FIXTURES "/optimize/");
        const QString tasks = QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/");
        QVERIFY2(m_swiglu.load(fixtures + QStringLiteral("swiglu"),
                               tasks + QStringLiteral("swiglu/baseline.py"), error),
                 qPrintable(error));
        QVERIFY2(m_adamw.load(fixtures + QStringLiteral("adamw"), tasks + QStringLiteral("adamw/baseline.py"),
                              error),
                 qPrintable(error));
        m_server.setHandler([this](const ScriptedLlmServer::Request &r) {
            if (m_refuseAll)
                return ScriptedLlmServer::error(401, "{\"error\": {\"message\": \"Incorrect API key\"}}");
            const QString role = ScriptedAgents::roleOf(r);
            const int n = ++m_seen[role];
            if (m_killAt && m_killAt->role == role && n >= m_killAt->occurrence) {
                m_killAt.reset(); // once per point; the test arms the next one
                m_killNow = true; // the test kills the CLI while this call is out
                m_killSignal = m_killAt->signal;
                ScriptedLlmServer::Response hang;
                hang.hang = true;
                return hang;
            }
            return m_agents->reply(r);
        });
    }

    void optimizeImprovesAndLearns()
    {
        Workspace w;
        writeLlmConfig(w);
        useAgents(m_swiglu);
        const Run r = cli(w, optimizeArgs(QStringLiteral("swiglu"), 11));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const QString session =
            r.event(QStringLiteral("session")).value(QStringLiteral("session")).toString();
        QVERIFY(!session.isEmpty());
        const double baseline =
            r.event(QStringLiteral("baseline")).value(QStringLiteral("latency_ms")).toDouble();
        QVERIFY(baseline > 0);
        const QList<QJsonObject> iterations = r.all(QStringLiteral("iteration"));
        QCOMPARE(iterations.size(), 2);
        double previous = baseline;
        for (const QJsonObject &it : iterations) {
            const double best = it.value(QStringLiteral("best_latency_ms")).toDouble();
            QVERIFY2(best <= previous, "the best latency regressed");
            previous = best;
        }
        const QJsonObject done = r.event(QStringLiteral("finished"));
        QCOMPARE(done.value(QStringLiteral("stop_reason")).toString(), QStringLiteral("iterations"));
        QVERIFY2(done.value(QStringLiteral("speedup")).toDouble() > 1.3, qPrintable(r.out));

        SessionStore store(w.db());
        QVERIFY(store.open());
        const auto best = store.candidate(done.value(QStringLiteral("best_candidate")).toString());
        QVERIFY(best);
        QCOMPARE(m_swiglu.variantIn(best->source),
                 QStringLiteral("fast2")); // two real steps: fast1, then fast2
        // Broken replies were repaired by the fixer, and prose without code cost only its sample.
        const QMap<QString, int> byStatus = store.candidateCountsByStatus(session);
        QVERIFY2(
            byStatus.value(QStringLiteral("compile_error")) + byStatus.value(QStringLiteral("incorrect")) > 0,
            "the script should have produced broken kernels");
        bool fixed = false;
        for (const Candidate &c : store.candidates(session))
            fixed = fixed || (c.origin == Candidate::Origin::Fixer && store.evaluation(c.id) &&
                              store.evaluation(c.id)->isCorrect());
        QVERIFY(fixed);

        // Costs add up: every request the server answered was booked once, at the configured prices.
        const int requests = m_server.requestCount();
        const SessionStore::CostTotals totals = store.costTotals(session);
        QCOMPARE(totals.calls, done.value(QStringLiteral("llm_calls")).toInt());
        QVERIFY(totals.calls > 0 && totals.calls <= requests);
        QCOMPARE(totals.callsWithoutCost, 0);
        QVERIFY(qAbs(totals.costUsd - totals.calls * callCost()) < 1e-9);
        QVERIFY(qAbs(done.value(QStringLiteral("cost_usd")).toDouble() - totals.costUsd) < 1e-9);
        QCOMPARE(done.value(QStringLiteral("tokens")).toInteger(),
                 totals.calls * (ScriptedAgents::promptTokens + ScriptedAgents::completionTokens));

        // Lessons were stored, a slowdown as a negative one, and the next iteration's planner was shown them.
        ExperienceStore memory(w.memory());
        QVERIFY(memory.open());
        const QList<ExperienceRecord> lessons = memory.list(QStringLiteral("swiglu"));
        QVERIFY(!lessons.isEmpty());
        bool positive = false, negative = false;
        for (const ExperienceRecord &e : lessons) {
            positive = positive || !e.isNegative();
            negative = negative || e.isNegative();
            QCOMPARE(e.sessionId, session);
        }
        QVERIFY(positive);
        QVERIFY2(negative, "the seed should have produced a slower kernel and so a negative experience");
        int plannerRequests = 0;
        int plannersShownALesson = 0;
        for (const ScriptedLlmServer::Request &req : m_server.requests()) {
            if (ScriptedAgents::roleOf(req) != QStringLiteral("planner"))
                continue;
            const QString system = req.json.value(QStringLiteral("messages"))
                                       .toArray()
                                       .at(0)
                                       .toObject()
                                       .value(QStringLiteral("content"))
                                       .toString();
            bool shown = false;
            for (const ExperienceRecord &e : lessons)
                shown = shown || system.contains(e.experience.title);
            if (++plannerRequests <= 3)
                QVERIFY2(!shown, "iteration 1 ran with an empty memory");
            plannersShownALesson += shown ? 1 : 0;
        }
        QCOMPARE(plannerRequests, 3 + 2 * 3); // B=1 then B=2, N=3
        QCOMPARE(plannersShownALesson, 6);    // every planner call of iteration 2
    }

    void refusedModelsFailTheRun()
    {
        // Every call refused (a wrong key): the run says so and exits non-zero, instead of "all iterations
        // done" with no candidate.
        Workspace w;
        writeLlmConfig(w);
        useAgents(m_swiglu);
        m_refuseAll = true;
        const Run r = cli(w, optimizeArgs(QStringLiteral("swiglu"), 11));
        m_refuseAll = false;
        QCOMPARE(r.exitCode, 1);
        const QJsonObject done = r.event(QStringLiteral("finished"));
        QCOMPARE(done.value(QStringLiteral("stop_reason")).toString(), QStringLiteral("models_failed"));
        QVERIFY2(done.value(QStringLiteral("error")).toString().contains(QStringLiteral("401")),
                 qPrintable(r.out));
        SessionStore store(w.db());
        QVERIFY(store.open());
        QCOMPARE(store.session(done.value(QStringLiteral("session")).toString())->status,
                 SessionRecord::Status::Failed);
        // The plain output names the reason too.
        m_refuseAll = true;
        QStringList plain = optimizeArgs(QStringLiteral("swiglu"), 11);
        plain.removeAll(QStringLiteral("--json"));
        const Run text = cli(w, plain);
        m_refuseAll = false;
        QCOMPARE(text.exitCode, 1);
        QVERIFY2(text.out.contains(QStringLiteral("every model call failed")), qPrintable(text.out));
    }

    void adamwImprovesToo()
    {
        // A second NKIBench baseline with real faster variants, and a smaller search: B=1, N=2.
        Workspace w;
        writeLlmConfig(w);
        useAgents(m_adamw);
        QStringList args = optimizeArgs(QStringLiteral("adamw"), 5);
        args[args.indexOf(QStringLiteral("-B")) + 1] = QStringLiteral("1");
        args[args.indexOf(QStringLiteral("-N")) + 1] = QStringLiteral("2");
        const Run r = cli(w, args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const QJsonObject done = r.event(QStringLiteral("finished"));
        QVERIFY2(done.value(QStringLiteral("speedup")).toDouble() > 1.15, qPrintable(r.out));
        SessionStore store(w.db());
        QVERIFY(store.open());
        const auto best = store.candidate(done.value(QStringLiteral("best_candidate")).toString());
        QVERIFY(best);
        QVERIFY(m_adamw.variantIn(best->source).startsWith(QStringLiteral("fast")));
    }

    void budgetStopsTheSearch()
    {
        // Five calls' worth of money: the search stops at the budget, long before its iterations are done.
        Workspace w;
        writeLlmConfig(w);
        useAgents(m_swiglu);
        QStringList args = optimizeArgs(QStringLiteral("swiglu"), 11);
        args << QStringLiteral("--budget-usd") << QString::number(5 * callCost(), 'f', 6);
        const Run r = cli(w, args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const QJsonObject done = r.event(QStringLiteral("finished"));
        QCOMPARE(done.value(QStringLiteral("stop_reason")).toString(), QStringLiteral("money_budget"));
        const double cost = done.value(QStringLiteral("cost_usd")).toDouble();
        QVERIFY2(cost >= 5 * callCost() - 1e-9, qPrintable(r.out));
        // Calls already out when the budget was reached still land (and are paid); nothing new starts.
        QVERIFY2(done.value(QStringLiteral("llm_calls")).toInt() < 25, qPrintable(r.out));
        SessionStore store(w.db());
        QVERIFY(store.open());
        const QString session = done.value(QStringLiteral("session")).toString();
        QCOMPARE(store.session(session)->status, SessionRecord::Status::Finished);
        QCOMPARE(store.session(session)->stopReason, QStringLiteral("money_budget"));
        QVERIFY(store.isStepCompleted(session, 0, QStringLiteral("baseline")));
        QVERIFY(!store.isStepCompleted(session, 2, QStringLiteral("select")));
    }

    void killedAndResumedEqualsUninterrupted()
    {
        const QStringList args = optimizeArgs(QStringLiteral("swiglu"), 11);
        Workspace reference;
        writeLlmConfig(reference);
        useAgents(m_swiglu);
        const Run whole = cli(reference, args);
        QVERIFY2(whole.exitCode == 0, qPrintable(whole.err));
        const int wholeRequests =
            m_seen.value(QStringLiteral("planner")) + m_seen.value(QStringLiteral("executor")) +
            m_seen.value(QStringLiteral("fixer")) + m_seen.value(QStringLiteral("summarizer"));
        const QStringList expected = snapshot(
            reference, whole.event(QStringLiteral("session")).value(QStringLiteral("session")).toString());

        // The same script, killed with SIGKILL while a planner, an executor, a summarizer and a
        // second-iteration planner call are out (evaluations run meanwhile), resumed after each kill.
        Workspace w;
        writeLlmConfig(w);
        useAgents(m_swiglu);
        const QList<KillPoint> kills{{QStringLiteral("planner"), 2},
                                     {QStringLiteral("executor"), 2},
                                     {QStringLiteral("summarizer"), 1},
                                     {QStringLiteral("planner"), 7}};
        m_killAt = kills.first();
        Run r = cli(w, args);
        QVERIFY2(r.killed, "the first kill point was never reached");
        SessionStore store(w.db());
        QVERIFY(store.open());
        const QList<SessionRecord> sessions = store.sessions();
        QCOMPARE(sessions.size(), 1);
        const QString session = sessions.first().id;
        QCOMPARE(sessions.first().status, SessionRecord::Status::Running); // what a crash leaves
        for (int k = 1; k <= kills.size(); ++k) {
            m_killAt = k < kills.size() ? std::optional<KillPoint>(kills.at(k)) : std::nullopt;
            r = cli(w, {QStringLiteral("resume"), session.left(8), QStringLiteral("--json")});
            if (k < kills.size()) {
                QVERIFY2(r.killed,
                         qPrintable(QStringLiteral("kill point %1 was never reached: %2").arg(k).arg(r.err)));
            } else {
                QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
                QVERIFY(r.event(QStringLiteral("session")).value(QStringLiteral("resumed")).toBool());
            }
        }
        const QStringList got = snapshot(w, session);
        if (got != expected) {
            qInfo().noquote() << "uninterrupted:\n"
                              << expected.join(u'\n') << "\nresumed:\n"
                              << got.join(u'\n');
            QFAIL("the resumed session differs from the uninterrupted one");
        }
        // Nothing answered was asked again: only calls that were out at a kill were re-sent (at most the
        // endpoint's concurrency per kill).
        const int requests =
            m_seen.value(QStringLiteral("planner")) + m_seen.value(QStringLiteral("executor")) +
            m_seen.value(QStringLiteral("fixer")) + m_seen.value(QStringLiteral("summarizer"));
        QVERIFY2(
            requests <= wholeRequests + 4 * int(kills.size()),
            qPrintable(
                QStringLiteral("%1 requests against %2 uninterrupted").arg(requests).arg(wholeRequests)));
    }

    void ctrlCStopsCleanly()
    {
        Workspace w;
        writeLlmConfig(w);
        useAgents(m_swiglu);
        m_killAt = KillPoint{QStringLiteral("executor"), 1, SIGINT};
        Run r = cli(w, optimizeArgs(QStringLiteral("swiglu"), 11));
        QCOMPARE(r.exitCode, 130);
        const QJsonObject done = r.event(QStringLiteral("finished"));
        QCOMPARE(done.value(QStringLiteral("stop_reason")).toString(), QStringLiteral("stopped"));
        QVERIFY2(r.err.contains(QStringLiteral("accelopt resume")), qPrintable(r.err));
        const QString session = done.value(QStringLiteral("session")).toString();
        {
            SessionStore store(w.db());
            QVERIFY(store.open());
            QCOMPARE(store.session(session)->status, SessionRecord::Status::Stopped);
            QCOMPARE(store.session(session)->stopReason, QStringLiteral("stopped"));
        }
        m_killAt.reset();
        r = cli(w, {QStringLiteral("resume"), session.left(8), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.event(QStringLiteral("finished")).value(QStringLiteral("stop_reason")).toString(),
                 QStringLiteral("iterations"));
        QCOMPARE(r.all(QStringLiteral("iteration")).size(), 2);
    }

    void resumeRefusals()
    {
        Workspace w;
        writeLlmConfig(w);
        useAgents(m_swiglu);
        Run r = cli(w, {QStringLiteral("resume"), QStringLiteral("0123abcd")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("0123abcd")), qPrintable(r.err));

        QStringList args = optimizeArgs(QStringLiteral("swiglu"), 11);
        args[args.indexOf(QStringLiteral("-T")) + 1] = QStringLiteral("1");
        args[args.indexOf(QStringLiteral("-N")) + 1] = QStringLiteral("1");
        r = cli(w, args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString session =
            r.event(QStringLiteral("session")).value(QStringLiteral("session")).toString();

        // Finished: nothing to do, unless given more room.
        r = cli(w, {QStringLiteral("resume"), session});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("has finished")), qPrintable(r.out));

        // Another process holds the session: refused, and the database is left alone.
        {
            QDir().mkpath(w.db() + QStringLiteral("-locks"));
            QLockFile held(w.db() + QStringLiteral("-locks/") + session + QStringLiteral(".lock"));
            QVERIFY(held.tryLock(0));
            r = cli(w, {QStringLiteral("resume"), session, QStringLiteral("-T"), QStringLiteral("2")});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(QStringLiteral("another process")), qPrintable(r.err));
        }
        // More iterations: it goes on from where it ended and keeps the rest of its settings.
        r = cli(w, {QStringLiteral("resume"), session, QStringLiteral("-T"), QStringLiteral("2"),
                    QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QList<QJsonObject> iterations = r.all(QStringLiteral("iteration"));
        QCOMPARE(iterations.size(), 1);
        QCOMPARE(iterations.first().value(QStringLiteral("iteration")).toInt(), 2);
        SessionStore store(w.db());
        QVERIFY(store.open());
        const QJsonObject config = store.session(session)->config;
        QCOMPARE(config.value(QStringLiteral("iterations")).toInt(), 2);
        QCOMPARE(config.value(QStringLiteral("plans_per_kernel")).toInt(), 1);
        QCOMPARE(config.value(QStringLiteral("seed")).toInt(), 11);
    }

    void badInput()
    {
        Workspace w;
        writeLlmConfig(w);
        useAgents(m_swiglu);
        auto expectUsage = [&](const QStringList &args, const QString &message) {
            const Run r = cli(w, args);
            QVERIFY2(r.exitCode == 2, qPrintable(args.join(u' ') + QStringLiteral(": ") + r.err));
            QVERIFY2(r.err.contains(message), qPrintable(r.err));
        };
        expectUsage({QStringLiteral("optimize")}, QStringLiteral("--task is required"));
        expectUsage({QStringLiteral("optimize"), QStringLiteral("--task"), QStringLiteral("nosuch")},
                    QStringLiteral("no task 'nosuch'"));
        expectUsage({QStringLiteral("optimize"), QStringLiteral("--task"), QStringLiteral("silu"),
                     QStringLiteral("-B"), QStringLiteral("0")},
                    QStringLiteral("beam width"));
        expectUsage({QStringLiteral("optimize"), QStringLiteral("--task"), QStringLiteral("silu"),
                     QStringLiteral("-T"), QStringLiteral("many")},
                    QStringLiteral("whole number"));
        expectUsage({QStringLiteral("optimize"), QStringLiteral("--task"), QStringLiteral("silu"),
                     QStringLiteral("--kernel"), w.dir.filePath(QStringLiteral("missing.py"))},
                    QStringLiteral("missing.py"));
        expectUsage({QStringLiteral("optimize"), QStringLiteral("--task"), QStringLiteral("silu"),
                     QStringLiteral("--size"), QStringLiteral("huge")},
                    QStringLiteral("--size"));
        expectUsage({QStringLiteral("resume")}, QStringLiteral("exactly one session"));

        // A starting kernel that does not work ends the session at once, saying why.
        const QString broken = QStringLiteral(ACCELOPT_TEST_FIXTURES "/optimize/swiglu/broken_compile.py");
        Run r =
            cli(w, {QStringLiteral("optimize"), QStringLiteral("--task"), QStringLiteral("swiglu"),
                    QStringLiteral("--size"), QStringLiteral("small"), QStringLiteral("--kernel"), broken});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains(QStringLiteral("not usable")) &&
                     r.out.contains(QStringLiteral("compile_error")),
                 qPrintable(r.out));

        // No models configured: said before anything runs.
        Workspace empty;
        QFile none(empty.llm());
        QVERIFY(none.open(QIODevice::WriteOnly));
        none.write("{\"version\": 1, \"endpoints\": []}");
        none.close();
        r = cli(empty, {QStringLiteral("optimize"), QStringLiteral("--task"), QStringLiteral("silu")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("no model endpoints")), qPrintable(r.err));

        // A corrupt workspace database: a clear error, and the file is never touched.
        Workspace corrupt;
        writeLlmConfig(corrupt);
        QFile db(corrupt.db());
        QVERIFY(db.open(QIODevice::WriteOnly));
        const QByteArray junk(4096, 'x');
        db.write(junk);
        db.close();
        r = cli(corrupt, optimizeArgs(QStringLiteral("swiglu"), 1));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("workspace database")), qPrintable(r.err));
        QVERIFY(db.open(QIODevice::ReadOnly));
        QCOMPARE(db.readAll(), junk);
        QVERIFY(!QFile::exists(corrupt.db() + QStringLiteral("-wal")));
        r = cli(corrupt, {QStringLiteral("resume"), QStringLiteral("abc")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("workspace database")), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliOptimize)
#include "tst_cli_optimize.moc"
