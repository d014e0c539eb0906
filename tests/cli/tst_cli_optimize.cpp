#include "memory/experiencestore.h"
#include "optimizerig.h"
#include "store/sessionstore.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QLockFile>
#include <QTest>

#include <signal.h>

// `accelopt optimize`, `resume` end to end through OptimizeRig: the real CLI binary, the local host with the
// real runner and nkisim (small size), real SQLite files, and the stand-in model server playing the four
// agents.
class TestCliOptimize : public QObject
{
    Q_OBJECT
    using Workspace = OptimizeRig::Workspace;
    using Run = OptimizeRig::Run;
    using KillPoint = OptimizeRig::KillPoint;

    OptimizeRig m_rig;

    // The swiglu fixtures with `forge` put in front of the kernel of fast1.py (whose source is `fast1From`'s) and,
    // with alsoFast2, of fast2.py: module code that gets past the static checks (getattr under another name) and
    // runs Python.
    static bool forgingFixtures(const QTemporaryDir &into, const QByteArray &forge, const QString &fast1From,
                                bool alsoFast2)
    {
        const QString from = QStringLiteral(ACCELOPT_TEST_FIXTURES "/optimize/swiglu/");
        for (const QString &name : QDir(from).entryList(QDir::Files)) {
            QFile in(from + (name == QStringLiteral("fast1.py") ? fast1From : name)), out(into.filePath(name));
            if (!in.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly))
                return false;
            QByteArray text = in.readAll();
            if (name == QStringLiteral("fast1.py") || (alsoFast2 && name == QStringLiteral("fast2.py"))) {
                const qsizetype at = text.indexOf("@nki.jit");
                if (at < 0)
                    return false;
                text.insert(at, "G = getattr\nD = \"_\" * 2\nG(G(print, D + \"self\" + D), \"ex\" + \"ec\")(\n" +
                                    forge + ", {})\n\n");
            }
            out.write(text);
        }
        return true;
    }

    // Runs a swiglu session whose executor hands out the forging kernels; every candidate of fast1's source must
    // have `status`, and none of them may be the best, the export or a lesson's faster kernel.
    void forgedKernelsAreNeverBestExportedOrLearned(const QByteArray &forge, const QString &fast1From,
                                                    bool alsoFast2, EvalStatus status, const QString &says)
    {
        QTemporaryDir fixtures;
        QVERIFY(forgingFixtures(fixtures, forge, fast1From, alsoFast2));
        ScriptedAgents forging;
        QString error;
        QVERIFY2(forging.load(fixtures.path(),
                              QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/swiglu/baseline.py"), error),
                 qPrintable(error));
        Workspace w;
        m_rig.writeLlmConfig(w);
        m_rig.useAgents(forging);
        const Run r = m_rig.cli(w, OptimizeRig::optimizeArgs(QStringLiteral("swiglu"), 11));
        m_rig.useAgents(m_rig.swiglu);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const QString session =
            r.event(QStringLiteral("session")).value(QStringLiteral("session")).toString();
        SessionStore store(w.db());
        QVERIFY(store.open());
        int forged = 0;
        for (const Candidate &c : store.candidates(session)) {
            if (forging.variantIn(c.source) != QStringLiteral("fast1"))
                continue;
            ++forged;
            const auto e = store.evaluation(c.id);
            QVERIFY(e);
            QVERIFY2(e->status == status, qPrintable(e->statusName() + QStringLiteral(": ") + e->error));
            QVERIFY2(e->error.contains(says), qPrintable(e->error));
        }
        QVERIFY2(forged > 0, "the executor never returned the forging kernel");
        const QJsonObject done = r.event(QStringLiteral("finished"));
        const auto best = store.candidate(done.value(QStringLiteral("best_candidate")).toString());
        QVERIFY(best);
        QVERIFY2(!best->source.contains(QStringLiteral("G = getattr")), qPrintable(best->source.left(400)));

        const QString to = w.dir.filePath(QStringLiteral("exported"));
        const Run exported = m_rig.cli(w, {QStringLiteral("export"), session, QStringLiteral("--to"), to,
                                           QStringLiteral("--name"), QStringLiteral("best.py")});
        QVERIFY2(exported.exitCode == 0, qPrintable(exported.err + exported.out));
        QFile kernel(QDir(to).filePath(QStringLiteral("best.py")));
        QVERIFY(kernel.open(QIODevice::ReadOnly));
        QVERIFY(!kernel.readAll().contains("G = getattr"));

        ExperienceStore memory(w.memory());
        QVERIFY(memory.open());
        for (const ExperienceRecord &e : memory.list(QStringLiteral("swiglu"))) {
            const auto fast = store.candidate(e.fastCandidateId);
            QVERIFY2(!fast || !fast->source.contains(QStringLiteral("G = getattr")),
                     qPrintable(e.experience.title)); // no lesson is drawn from a forged kernel
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_rig.start(error), qPrintable(error));
    }

    // First of the runs: it counts every planner request the stand-in has seen.
    void optimizeImprovesAndLearns()
    {
        Workspace w;
        m_rig.writeLlmConfig(w);
        m_rig.useAgents(m_rig.swiglu);
        const Run r = m_rig.cli(w, OptimizeRig::optimizeArgs(QStringLiteral("swiglu"), 11));
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
        QCOMPARE(m_rig.swiglu.variantIn(best->source),
                 QStringLiteral("fast2")); // two real steps: fast1, then fast2
        // Broken replies were repaired by the fixer, and prose without code cost only its sample.
        const QMap<QString, int> byStatus = store.statistics().candidateCountsByStatus(session);
        QVERIFY2(
            byStatus.value(QStringLiteral("compile_error")) + byStatus.value(QStringLiteral("incorrect")) > 0,
            "the script should have produced broken kernels");
        bool fixed = false;
        for (const Candidate &c : store.candidates(session))
            fixed = fixed || (c.origin == Candidate::Origin::Fixer && store.evaluation(c.id) &&
                              store.evaluation(c.id)->isCorrect());
        QVERIFY(fixed);

        // Costs add up: every request the server answered was booked once, at the configured prices.
        const int requests = m_rig.server.requestCount();
        const SessionStatistics::CostTotals totals = store.statistics().costTotals(session);
        QCOMPARE(totals.calls, done.value(QStringLiteral("llm_calls")).toInt());
        QVERIFY(totals.calls > 0 && totals.calls <= requests);
        QCOMPARE(totals.callsWithoutCost, 0);
        QVERIFY(qAbs(totals.costUsd - totals.calls * OptimizeRig::callCost()) < 1e-9);
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
        for (const ScriptedLlmServer::Request &req : m_rig.server.requests()) {
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

    // A run whose workspace file is removed under it writes on into a file nobody can open again (SQLite
    // keeps writing to the unlinked inode). It must not end as if its session were kept: exit 1, say why,
    // and name no session to export (issue 33: two runs both printed "export with" for a session only one of
    // them had stored). The file goes while the run waits for its first model reply, so it is open then.
    void aSessionLostUnderTheRunIsNotReportedAsKept()
    {
        Workspace w;
        m_rig.writeLlmConfig(w);
        m_rig.useAgents(m_rig.swiglu);
        bool removed = false;
        m_rig.fault = [&](const ScriptedLlmServer::Request &) -> std::optional<ScriptedLlmServer::Response> {
            if (!removed) {
                removed = true;
                for (const char *suffix : {"", "-wal", "-shm"})
                    QFile::remove(w.db() + QLatin1String(suffix));
            }
            return std::nullopt;
        };
        QStringList args = OptimizeRig::optimizeArgs(QStringLiteral("swiglu"), 11);
        args.removeAll(QStringLiteral("--json"));
        const Run r = m_rig.cli(w, args);
        m_rig.fault = nullptr;
        QVERIFY(removed);
        QVERIFY2(r.exitCode == 1, qPrintable(QString::number(r.exitCode) + r.err + r.out));
        QVERIFY2(r.out.contains(QStringLiteral("was not kept: ") + w.db() +
                                QStringLiteral(" was removed or replaced while it was open")),
                 qPrintable(r.out));
        QVERIFY2(!r.out.contains(QStringLiteral("export with")), qPrintable(r.out));
    }

    void aKernelThatForgesItsLatencyIsNeverBestExportedOrLearned()
    {
        // fast1 is slow1's kernel (2.3x slower than the baseline) with nkisim's performance model patched in its
        // own interpreter to report a fifth of its time: 0.040 ms, inside physics (the peak is 0.034 ms) and
        // ahead of fast2's honest 0.045 ms. The old runner took that (ok, 0.040 ms: the session's best). The
        // trace is now modelled in the judge's process, so fast1 is timed as what it is: ok, slow, never best.
        forgedKernelsAreNeverBestExportedOrLearned(
            "    \"import sys, importlib\\n\"\n"
            "    \"e = importlib.import_module('nkisim.perf.estimate')\\n\"\n"
            "    \"f = e.estimate\\n\"\n"
            "    \"def g(*a, **k):\\n\"\n"
            "    \"    r = f(*a, **k)\\n\"\n"
            "    \"    r.latency_ns *= 0.2\\n\"\n"
            "    \"    return r\\n\"\n"
            "    \"e.estimate = g\\n\"\n"
            "    \"sys.modules['nkisim.perf'].estimate = g\\n\"",
            QStringLiteral("slow1.py"), false, EvalStatus::Ok, QString());
    }

    void aKernelThatRewritesNkisimsRecorderIsNeverBestExportedOrLearned()
    {
        // fast1 is slow1's kernel with nkisim's recorder patched in its own interpreter to keep one instruction in
        // three, so the trace it hands over says it is fast while its outputs stay right. Its timing-only pass
        // (recorded in its process) looks fast, which gets it checked; a checked run executes its NKI calls in
        // the judge's sandbox (nkisim/remote), so it is timed as what it is there: ok, slow, never best.
        forgedKernelsAreNeverBestExportedOrLearned(
            "    \"import sys\\n\"\n"
            "    \"t = sys.modules['nkisim.trace']\\n\"\n"
            "    \"keep = t.Trace.add\\n\"\n"
            "    \"seen = [0]\\n\"\n"
            "    \"def add(self, ins):\\n\"\n"
            "    \"    seen[0] += 1\\n\"\n"
            "    \"    return keep(self, ins) if seen[0] % 3 == 0 else ins\\n\"\n"
            "    \"t.Trace.add = add\\n\"",
            QStringLiteral("slow1.py"), false, EvalStatus::Ok, QString());
    }

    void aWrongKernelThatForgesItsVerdictIsNeverBestExportedOrLearned()
    {
        // fast1 computes wrong numbers (broken_wrong's slip) and replaces every comparison it can find in its own
        // interpreter with one that passes. The verdict is made in a process it never ran in, from its outputs
        // handed over as data: incorrect. (fast2 stays honest and may win.)
        forgedKernelsAreNeverBestExportedOrLearned(
            "    \"import sys\\n\"\n"
            "    \"for m in list(sys.modules.values()):\\n\"\n"
            "    \"    if getattr(m, '__name__', '').startswith('accelopt_runner') and hasattr(m, 'compare'):\\n\"\n"
            "    \"        m.compare = lambda *a, **k: (0.0, 0.0)\\n\"",
            QStringLiteral("broken_wrong.py"), false, EvalStatus::Incorrect, QStringLiteral("seed"));
    }

    void refusedModelsFailTheRun()
    {
        // Every call refused (a wrong key): the run says so and exits non-zero, instead of "all iterations
        // done" with no candidate.
        Workspace w;
        m_rig.writeLlmConfig(w);
        m_rig.useAgents(m_rig.swiglu);
        m_rig.refuseAll = true;
        const Run r = m_rig.cli(w, OptimizeRig::optimizeArgs(QStringLiteral("swiglu"), 11));
        m_rig.refuseAll = false;
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
        m_rig.refuseAll = true;
        QStringList plain = OptimizeRig::optimizeArgs(QStringLiteral("swiglu"), 11);
        plain.removeAll(QStringLiteral("--json"));
        const Run text = m_rig.cli(w, plain);
        m_rig.refuseAll = false;
        QCOMPARE(text.exitCode, 1);
        QVERIFY2(text.out.contains(QStringLiteral("every model call failed")), qPrintable(text.out));
    }

    void adamwImprovesToo()
    {
        // A second NKIBench baseline with real faster variants, and a smaller search: B=1, N=2.
        Workspace w;
        m_rig.writeLlmConfig(w);
        m_rig.useAgents(m_rig.adamw);
        QStringList args = OptimizeRig::optimizeArgs(QStringLiteral("adamw"), 5);
        args[args.indexOf(QStringLiteral("-B")) + 1] = QStringLiteral("1");
        args[args.indexOf(QStringLiteral("-N")) + 1] = QStringLiteral("2");
        const Run r = m_rig.cli(w, args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const QJsonObject done = r.event(QStringLiteral("finished"));
        QVERIFY2(done.value(QStringLiteral("speedup")).toDouble() > 1.15, qPrintable(r.out));
        SessionStore store(w.db());
        QVERIFY(store.open());
        const auto best = store.candidate(done.value(QStringLiteral("best_candidate")).toString());
        QVERIFY(best);
        QVERIFY(m_rig.adamw.variantIn(best->source).startsWith(QStringLiteral("fast")));
    }

    void budgetStopsTheSearch()
    {
        // Five calls' worth of money: the search stops at the budget, long before its iterations are done.
        Workspace w;
        m_rig.writeLlmConfig(w);
        m_rig.useAgents(m_rig.swiglu);
        QStringList args = OptimizeRig::optimizeArgs(QStringLiteral("swiglu"), 11);
        args << QStringLiteral("--budget-usd") << QString::number(5 * OptimizeRig::callCost(), 'f', 6);
        const Run r = m_rig.cli(w, args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const QJsonObject done = r.event(QStringLiteral("finished"));
        QCOMPARE(done.value(QStringLiteral("stop_reason")).toString(), QStringLiteral("money_budget"));
        const double cost = done.value(QStringLiteral("cost_usd")).toDouble();
        QVERIFY2(cost >= 5 * OptimizeRig::callCost() - 1e-9, qPrintable(r.out));
        // Calls already out when the budget was reached still land (and are paid); nothing new starts.
        QVERIFY2(done.value(QStringLiteral("llm_calls")).toInt() < 25, qPrintable(r.out));
        SessionStore store(w.db());
        QVERIFY(store.open());
        const QString session = done.value(QStringLiteral("session")).toString();
        QCOMPARE(store.session(session)->status, SessionRecord::Status::Finished);
        QCOMPARE(store.session(session)->stopReason, QStringLiteral("money_budget"));
        QVERIFY(store.isStepCompleted(session, 0, ResumeStep::Baseline));
        QVERIFY(!store.isStepCompleted(session, 2, ResumeStep::Select));
    }

    // Unpriced calls cost nothing by the books, so a money budget over them would never stop the search: refused
    // before anything runs, naming the model.
    void aMoneyBudgetNeedsPricedModels()
    {
        Workspace w;
        m_rig.writeLlmConfig(w, /*priced=*/false);
        m_rig.useAgents(m_rig.swiglu);
        const int before = m_rig.requests();
        QStringList args = OptimizeRig::optimizeArgs(QStringLiteral("swiglu"), 11);
        args << QStringLiteral("--budget-usd") << QStringLiteral("1");
        const Run r = m_rig.cli(w, args);
        QVERIFY2(r.exitCode != 0, qPrintable(r.out));
        QVERIFY2(r.err.contains(QStringLiteral("a budget of $1.00 cannot be kept")) &&
                     r.err.contains(QStringLiteral("no price")),
                 qPrintable(r.err));
        QCOMPARE(m_rig.requests(), before); // no model was asked
        QVERIFY(r.event(QStringLiteral("session")).isEmpty());
    }

    void killedAndResumedEqualsUninterrupted()
    {
        const QStringList args = OptimizeRig::optimizeArgs(QStringLiteral("swiglu"), 11);
        Workspace reference;
        m_rig.writeLlmConfig(reference);
        m_rig.useAgents(m_rig.swiglu);
        const Run whole = m_rig.cli(reference, args);
        QVERIFY2(whole.exitCode == 0, qPrintable(whole.err));
        const int wholeRequests =
            m_rig.seen.value(QStringLiteral("planner")) + m_rig.seen.value(QStringLiteral("executor")) +
            m_rig.seen.value(QStringLiteral("fixer")) + m_rig.seen.value(QStringLiteral("summarizer"));
        const QStringList expected = OptimizeRig::snapshot(
            reference, whole.event(QStringLiteral("session")).value(QStringLiteral("session")).toString());

        // The same script, killed with SIGKILL while a planner, an executor, a summarizer and a
        // second-iteration planner call are out (evaluations run meanwhile), resumed after each kill.
        Workspace w;
        m_rig.writeLlmConfig(w);
        m_rig.useAgents(m_rig.swiglu);
        const QList<KillPoint> kills{{QStringLiteral("planner"), 2},
                                     {QStringLiteral("executor"), 2},
                                     {QStringLiteral("summarizer"), 1},
                                     {QStringLiteral("planner"), 7}};
        m_rig.killAt = kills.first();
        Run r = m_rig.cli(w, args);
        QVERIFY2(r.killed, "the first kill point was never reached");
        SessionStore store(w.db());
        QVERIFY(store.open());
        const QList<SessionRecord> sessions = store.sessions();
        QCOMPARE(sessions.size(), 1);
        const QString session = sessions.first().id;
        QCOMPARE(sessions.first().status, SessionRecord::Status::Running); // what a crash leaves
        for (int k = 1; k <= kills.size(); ++k) {
            m_rig.killAt = k < kills.size() ? std::optional<KillPoint>(kills.at(k)) : std::nullopt;
            r = m_rig.cli(w, {QStringLiteral("resume"), session.left(8), QStringLiteral("--json")});
            if (k < kills.size()) {
                QVERIFY2(r.killed,
                         qPrintable(QStringLiteral("kill point %1 was never reached: %2").arg(k).arg(r.err)));
            } else {
                QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
                QVERIFY(r.event(QStringLiteral("session")).value(QStringLiteral("resumed")).toBool());
            }
        }
        const QStringList got = OptimizeRig::snapshot(w, session);
        if (got != expected) {
            qInfo().noquote() << "uninterrupted:\n"
                              << expected.join(u'\n') << "\nresumed:\n"
                              << got.join(u'\n');
            QFAIL("the resumed session differs from the uninterrupted one");
        }
        // Nothing answered was asked again: only calls that were out at a kill were re-sent (at most the
        // endpoint's concurrency per kill).
        const int requests =
            m_rig.seen.value(QStringLiteral("planner")) + m_rig.seen.value(QStringLiteral("executor")) +
            m_rig.seen.value(QStringLiteral("fixer")) + m_rig.seen.value(QStringLiteral("summarizer"));
        QVERIFY2(
            requests <= wholeRequests + 4 * int(kills.size()),
            qPrintable(
                QStringLiteral("%1 requests against %2 uninterrupted").arg(requests).arg(wholeRequests)));
    }

    void ctrlCStopsCleanly()
    {
        Workspace w;
        m_rig.writeLlmConfig(w);
        m_rig.useAgents(m_rig.swiglu);
        m_rig.killAt = KillPoint{QStringLiteral("executor"), 1, SIGINT};
        Run r = m_rig.cli(w, OptimizeRig::optimizeArgs(QStringLiteral("swiglu"), 11));
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
        m_rig.killAt.reset();
        r = m_rig.cli(w, {QStringLiteral("resume"), session.left(8), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.event(QStringLiteral("finished")).value(QStringLiteral("stop_reason")).toString(),
                 QStringLiteral("iterations"));
        QCOMPARE(r.all(QStringLiteral("iteration")).size(), 2);
    }

    void resumeRefusals()
    {
        Workspace w;
        m_rig.writeLlmConfig(w);
        m_rig.useAgents(m_rig.swiglu);
        Run r = m_rig.cli(w, {QStringLiteral("resume"), QStringLiteral("0123abcd")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("0123abcd")), qPrintable(r.err));

        QStringList args = OptimizeRig::optimizeArgs(QStringLiteral("swiglu"), 11);
        args[args.indexOf(QStringLiteral("-T")) + 1] = QStringLiteral("1");
        args[args.indexOf(QStringLiteral("-N")) + 1] = QStringLiteral("1");
        r = m_rig.cli(w, args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString session =
            r.event(QStringLiteral("session")).value(QStringLiteral("session")).toString();

        // Finished: nothing to do, unless given more room.
        r = m_rig.cli(w, {QStringLiteral("resume"), session});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("has finished")), qPrintable(r.out));

        // Another process holds the session: refused, and the database is left alone.
        {
            QDir().mkpath(w.db() + QStringLiteral("-locks"));
            QLockFile held(w.db() + QStringLiteral("-locks/") + session + QStringLiteral(".lock"));
            QVERIFY(held.tryLock(0));
            r = m_rig.cli(w, {QStringLiteral("resume"), session, QStringLiteral("-T"), QStringLiteral("2")});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(QStringLiteral("another process")), qPrintable(r.err));
        }
        // More iterations: it goes on from where it ended and keeps the rest of its settings.
        r = m_rig.cli(w, {QStringLiteral("resume"), session, QStringLiteral("-T"), QStringLiteral("2"),
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
        m_rig.writeLlmConfig(w);
        m_rig.useAgents(m_rig.swiglu);
        auto expectUsage = [&](const QStringList &args, const QString &message) {
            const Run r = m_rig.cli(w, args);
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
        Run r = m_rig.cli(w, {QStringLiteral("optimize"), QStringLiteral("--task"), QStringLiteral("swiglu"),
                              QStringLiteral("--size"), QStringLiteral("small"), QStringLiteral("--kernel"),
                              broken});
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
        r = m_rig.cli(empty, {QStringLiteral("optimize"), QStringLiteral("--task"), QStringLiteral("silu")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("no model endpoints")), qPrintable(r.err));

        // A corrupt workspace database: a clear error, and the file is never touched.
        Workspace corrupt;
        m_rig.writeLlmConfig(corrupt);
        QFile db(corrupt.db());
        QVERIFY(db.open(QIODevice::WriteOnly));
        const QByteArray junk(4096, 'x');
        db.write(junk);
        db.close();
        r = m_rig.cli(corrupt, OptimizeRig::optimizeArgs(QStringLiteral("swiglu"), 1));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("workspace database")), qPrintable(r.err));
        QVERIFY(db.open(QIODevice::ReadOnly));
        QCOMPARE(db.readAll(), junk);
        QVERIFY(!QFile::exists(corrupt.db() + QStringLiteral("-wal")));
        r = m_rig.cli(corrupt, {QStringLiteral("resume"), QStringLiteral("abc")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("workspace database")), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliOptimize)
#include "tst_cli_optimize.moc"
