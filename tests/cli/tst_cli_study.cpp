#include "llm/llmconfig.h"
#include "optimizerig.h"
#include "store/sessionstore.h"
#include "study/studystate.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <algorithm>

// `accelopt study` end to end through OptimizeRig: the real CLI, the local nkisim host, real SQLite files and
// the model stand-in (ScriptedLlmServer) with two endpoints whose answers differ in a scripted way: the
// "frontier" model plays the fixture's agents (plans towards fast1 and fast2), the "weak" model's planner
// only ever proposes slow1, a change that makes the kernel slower. Three arms: beam search with memory on the
// frontier model; beam search without memory with a frontier+weak planner ensemble; repeated sampling with
// the weak planner. Only the frontier model has a price.
class TestCliStudy : public QObject
{
    Q_OBJECT

    using Workspace = OptimizeRig::Workspace;
    using Run = OptimizeRig::Run;
    OptimizeRig m_rig;

    void writeLlmConfig(const Workspace &w)
    {
        LlmConfig config;
        for (const char *name : {"frontier", "weak"}) {
            Endpoint e;
            e.name = QLatin1String(name);
            e.baseUrl = m_rig.server.baseUrl();
            e.model = e.name + QStringLiteral("-model");
            e.timeoutMs = 60000;
            e.concurrency = 1; // one call at a time, so a run is the same run every time
            config.endpoints << e;
        }
        for (AgentRole role : AgentRoles::all())
            config.roster.assign(role, QStringLiteral("frontier"));
        config.prices.set(QStringLiteral("frontier-model"),
                          {OptimizeRig::inputPrice, OptimizeRig::outputPrice});
        config.retry.maxAttempts = 1;
        QString error;
        QVERIFY2(config.save(w.llm(), &error), qPrintable(error));
    }

    // Fresh evaluations per run, in two rounds of 2: round 1 cuts every arm (the sampling arm has exactly 2
    // fresh evaluations to make, the baseline and slow1), round 2 the beam arms again.
    static constexpr int budget = 4;

    static QStringList studyArgs(const QString &csv)
    {
        return {QStringLiteral("study"),
                QStringLiteral("--task"),
                QStringLiteral("swiglu"),
                QStringLiteral("--budget-evals"),
                QString::number(budget),
                QStringLiteral("--slices"),
                QStringLiteral("2"),
                QStringLiteral("--repeats"),
                QStringLiteral("2"),
                QStringLiteral("--jobs"),
                QStringLiteral("1"),
                QStringLiteral("--arm"),
                QStringLiteral("mem=beam,width=1,plans=2,models=all:frontier"),
                QStringLiteral("--arm"),
                QStringLiteral("ens=beam,width=1,plans=2,memory=off,models=planner:frontier+weak"),
                QStringLiteral("--arm"),
                QStringLiteral("rs=sample,n=6,models=planner:weak"),
                QStringLiteral("--json"),
                QStringLiteral("--csv"),
                csv};
    }

    static QJsonObject lastJson(const Run &r) { return r.events.isEmpty() ? QJsonObject() : r.events.last(); }

    static StudyState onlyStudy(const Workspace &w)
    {
        const QString dir = StudyState::studiesDir(w.db());
        const QStringList files = QDir(dir).entryList({QStringLiteral("*.json")}, QDir::Files);
        QString error;
        if (files.size() != 1)
            return {};
        return StudyState::load(dir, files.first().chopped(5), &error).value_or(StudyState());
    }

    struct Hand
    {
        double best = 0;
        double speedup = 0;
        qint64 tokens = 0;
        int calls = 0;
        int evaluations = 0;
        int unpriced = 0;
    };
    // What a session's result should be, worked out here from the workspace's rows: each stand-in call
    // reports the same usage, a fresh evaluation is one not taken over from a twin, and the speedup is the
    // baseline's latency over the best kernel's.
    static Hand byHand(const Workspace &w, const QString &sessionId)
    {
        SessionStore store(w.db());
        Hand h;
        if (!store.open())
            return h;
        double baselineMs = 0;
        for (const Candidate &c : store.candidates(sessionId)) {
            for (int run : {0, 1}) {
                const auto e = store.evaluation(c.id, run);
                if (e && e->reusedFrom.isEmpty())
                    ++h.evaluations;
            }
            if (c.parentId.isEmpty() && c.iteration == 0)
                baselineMs = store.evaluation(c.id)->latencyMeanMs.value_or(0);
        }
        const auto best = store.evaluation(store.bestCandidate(sessionId)->id);
        h.best = best->percentOfPeak.value_or(-1);
        h.speedup = baselineMs / best->latencyMeanMs.value_or(1);
        const auto totals = store.statistics().costTotals(sessionId);
        h.calls = totals.calls;
        h.unpriced = totals.callsWithoutCost;
        h.tokens = qint64(totals.calls) * (ScriptedAgents::promptTokens + ScriptedAgents::completionTokens);
        return h;
    }

    static QStringList withoutSessions(QJsonObject result)
    {
        result.remove(QStringLiteral("study"));
        result.remove(QStringLiteral("sessions"));
        QStringList lines;
        // Device time is the evaluations' wall time: a measurement of this machine, not of the search.
        for (const QJsonValue &row : result.value(QStringLiteral("rows")).toArray()) {
            QJsonObject r = row.toObject();
            r.remove(QStringLiteral("device_seconds"));
            lines << QString::fromUtf8(QJsonDocument(r).toJson(QJsonDocument::Compact));
        }
        for (const QJsonValue &s : result.value(QStringLiteral("chart")).toArray())
            lines << QString::fromUtf8(QJsonDocument(s.toObject()).toJson(QJsonDocument::Compact));
        lines << result.value(QStringLiteral("basis")).toString()
              << result.value(QStringLiteral("note")).toString();
        return lines;
    }

    QStringList m_uninterrupted; // the first study's result, for the resumed one to match

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_rig.start(error), qPrintable(error));
        m_rig.useAgents(m_rig.swiglu);
        // A study of two tasks asks about both: a request that shows one of adamw's kernels is adamw's.
        m_rig.fault =
            [this](const ScriptedLlmServer::Request &r) -> std::optional<ScriptedLlmServer::Response> {
            const bool adamw = !m_rig.adamw.variantIn(ScriptedAgents::userText(r)).isEmpty();
            const ScriptedAgents &agents = adamw ? m_rig.adamw : m_rig.swiglu;
            if (r.json.value(QStringLiteral("model")).toString() == QStringLiteral("weak-model") &&
                ScriptedAgents::roleOf(r) == QStringLiteral("planner"))
                return ScriptedLlmServer::completion(
                    agents.plan(QStringLiteral("slow1")),
                    ScriptedLlmServer::Usage{ScriptedAgents::promptTokens, ScriptedAgents::completionTokens});
            if (adamw)
                return m_rig.adamw.reply(r);
            return std::nullopt;
        };
    }

    void badArmsAreUsageErrors()
    {
        Workspace w;
        writeLlmConfig(w);
        Run r = m_rig.cli(w, {QStringLiteral("study"), QStringLiteral("--task"), QStringLiteral("swiglu"),
                              QStringLiteral("--budget-evals"), QStringLiteral("4"), QStringLiteral("--arm"),
                              QStringLiteral("x=beam,depth=2")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("'depth' is not a key of beam")), qPrintable(r.err));
        r = m_rig.cli(w, {QStringLiteral("study"), QStringLiteral("--task"), QStringLiteral("swiglu"),
                          QStringLiteral("--arm"), QStringLiteral("x=beam")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("give exactly one budget")), qPrintable(r.err));
        r = m_rig.cli(w, {QStringLiteral("study"), QStringLiteral("--task"), QStringLiteral("swiglu"),
                          QStringLiteral("--budget-evals"), QStringLiteral("4"), QStringLiteral("--arm"),
                          QStringLiteral("x=beam,models=planner:nowhere")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("'nowhere'")) &&
                     r.err.contains(QStringLiteral("frontier, weak")),
                 qPrintable(r.err));
        // A money budget with an unpriced model: refused before anything runs, saying what to do instead.
        r = m_rig.cli(w, {QStringLiteral("study"), QStringLiteral("--task"), QStringLiteral("swiglu"),
                          QStringLiteral("--budget-usd"), QStringLiteral("0.01"), QStringLiteral("--arm"),
                          QStringLiteral("rs=sample,models=planner:weak")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("weak-model has no price")) &&
                     r.err.contains(QStringLiteral("--budget-tokens")),
                 qPrintable(r.err));
        QCOMPARE(m_rig.requests(), 0);
        QVERIFY(!QFileInfo::exists(w.db() + QStringLiteral("-studies/")) ||
                QDir(w.db() + QStringLiteral("-studies")).entryList({QStringLiteral("*.json")}).isEmpty());
    }

    // The table, the CSV and the chart's data against the workspace's rows, worked out by hand.
    void threeArmsUnderOneEvaluationBudget()
    {
        Workspace w;
        writeLlmConfig(w);
        const QString csvPath = w.dir.filePath(QStringLiteral("study.csv"));
        const Run r = m_rig.cli(w, studyArgs(csvPath));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const QJsonObject result = lastJson(r);
        QVERIFY2(result.value(QStringLiteral("finished")).toBool(), qPrintable(r.out));
        const StudyState state = onlyStudy(w);
        QCOMPARE(state.runs.size(), 6);
        QVERIFY(state.finished);

        // Each run against its session.
        QMap<QString, QList<Hand>> byArm;
        for (const StudyState::Run &run : state.runs) {
            QVERIFY2(!run.sessionId.isEmpty(), qPrintable(run.arm));
            const Hand h = byHand(w, run.sessionId);
            const RunMeasure &m = run.checkpoints.last().measure;
            QCOMPARE(m.evaluations, h.evaluations);
            QCOMPARE(m.tokens, h.tokens);
            QCOMPARE(*m.bestPercentOfPeak, h.best);
            QVERIFY(qAbs(*m.speedup - h.speedup) < 1e-12);
            if (run.arm == QStringLiteral("mem")) {
                // Only the frontier model: priced, every call at the stand-in's price.
                QVERIFY(m.costUsd && qAbs(*m.costUsd - h.calls * OptimizeRig::callCost()) < 1e-9);
            } else if (run.arm == QStringLiteral("rs")) {
                QVERIFY(!m.costUsd); // the weak planner has no price
                // The weak planner only proposes a slower kernel: the best stays the baseline.
                QCOMPARE(*m.speedup, 1.0);
            }
            // The budget stopped every beam run part-way: round 1 at half of it or just past, the end at all
            // of it or just past (evaluations under way when the limit is reached still land); a run that
            // ended by its own rules first (a sampling arm's one iteration) took no more turns and stayed
            // under it.
            qInfo().noquote() << run.arm << "repeat" << run.repeat + 1 << "ended" << run.stopReason << "after"
                              << m.evaluations << "evaluations";
            QCOMPARE(run.checkpoints.size(), 2); // every run was cut at round 1's limit and had a second turn
            QVERIFY2(run.checkpoints.at(0).measure.evaluations >= budget / 2, qPrintable(run.arm));
            if (run.done) {
                QVERIFY2(m.evaluations <= budget + 2, qPrintable(run.arm));
            } else {
                QCOMPARE(run.checkpoints.size(), 2);
                QVERIFY2(run.checkpoints.at(0).measure.evaluations >= budget / 2, qPrintable(run.arm));
                QVERIFY2(m.evaluations >= budget && m.evaluations <= budget + 2,
                         qPrintable(QString::number(m.evaluations)));
            }
            byArm[run.arm] << h;
        }

        // The table's rows: means and spread over the two repeats.
        const QJsonArray rows = result.value(QStringLiteral("rows")).toArray();
        QCOMPARE(rows.size(), 3);
        for (const QJsonValue &v : rows) {
            const QJsonObject row = v.toObject();
            const QList<Hand> &hands = byArm.value(row.value(QStringLiteral("arm")).toString());
            QCOMPARE(hands.size(), 2);
            const QJsonObject best = row.value(QStringLiteral("best_percent_of_peak")).toObject();
            QVERIFY(qAbs(best.value(QStringLiteral("mean")).toDouble() -
                         (hands[0].best + hands[1].best) / 2) < 1e-9);
            QCOMPARE(best.value(QStringLiteral("min")).toDouble(), std::min(hands[0].best, hands[1].best));
            QCOMPARE(best.value(QStringLiteral("max")).toDouble(), std::max(hands[0].best, hands[1].best));
            QCOMPARE(row.value(QStringLiteral("tokens")).toDouble(),
                     (hands[0].tokens + hands[1].tokens) / 2.0);
            QCOMPARE(row.value(QStringLiteral("evaluations")).toDouble(),
                     (hands[0].evaluations + hands[1].evaluations) / 2.0);
        }
        // Two arms use the unpriced weak model: the comparison is on tokens, and says so.
        QCOMPARE(result.value(QStringLiteral("basis")).toString(), QStringLiteral("tokens"));
        const QString note = result.value(QStringLiteral("note")).toString();
        QStringList unpricedArms;
        for (const QString &arm : {QStringLiteral("mem"), QStringLiteral("ens"), QStringLiteral("rs")})
            if (std::any_of(byArm[arm].cbegin(), byArm[arm].cend(),
                            [](const Hand &h) { return h.unpriced > 0; }))
                unpricedArms << arm;
        QVERIFY(!unpricedArms.contains(QStringLiteral("mem")));
        QVERIFY2(note.contains(QStringLiteral(" ") + unpricedArms.join(QStringLiteral(", ")) +
                               QStringLiteral(":")),
                 qPrintable(note));

        // The CSV: one line per run, the same figures.
        QFile csv(csvPath);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 7);
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QStringList f = lines.at(i).split(u',');
            const Hand h = byHand(w, f.at(4));
            QCOMPARE(f.at(6).toDouble(), QString::number(h.best, 'f', 6).toDouble());
            QCOMPARE(f.at(9).toLongLong(), h.tokens);
            QCOMPARE(f.at(10).toInt(), h.evaluations);
            // Money only where every call had a price: an ensemble run may have drawn only the frontier
            // model.
            QCOMPARE(f.at(8).isEmpty(), h.unpriced > 0);
            QCOMPARE(f.at(12).toInt(), h.unpriced);
            if (f.at(2) == QStringLiteral("rs"))
                QVERIFY(h.unpriced > 0);
        }

        // The chart: per arm and round, mean tokens against the mean best of both repeats at that round.
        const QJsonArray chart = result.value(QStringLiteral("chart")).toArray();
        QCOMPARE(chart.size(), 3);
        for (const QJsonValue &v : chart) {
            const QString arm = v.toObject().value(QStringLiteral("arm")).toString();
            const QJsonArray points = v.toObject().value(QStringLiteral("points")).toArray();
            QCOMPARE(points.size(), 2);
            for (int round = 1; round <= 2; ++round) {
                double tokens = 0, best = 0;
                for (const StudyState::Run &run : state.runs) {
                    if (run.arm != arm)
                        continue;
                    const StudyState::Checkpoint *at = nullptr;
                    for (const StudyState::Checkpoint &c : run.checkpoints)
                        if (c.round <= round)
                            at = &c;
                    tokens += double(at->measure.tokens) / 2;
                    best += *at->measure.bestPercentOfPeak / 2;
                }
                const QJsonObject p = points.at(round - 1).toObject();
                QCOMPARE(p.value(QStringLiteral("cost")).toDouble(), tokens);
                QVERIFY(qAbs(p.value(QStringLiteral("best_percent_of_peak"))
                                 .toObject()
                                 .value(QStringLiteral("mean"))
                                 .toDouble() -
                             best) < 1e-9);
            }
        }
        // Every arm's session is an ordinary one.
        const Run list = m_rig.cli(w, {QStringLiteral("sessions"), QStringLiteral("list")});
        QCOMPARE(list.exitCode, 0);
        for (const StudyState::Run &run : state.runs)
            QVERIFY2(list.out.contains(run.sessionId.left(8)), qPrintable(list.out));
        m_uninterrupted = withoutSessions(result);
    }

    // Killed mid-turn (SIGKILL, runners and all), then resumed: the same result as the study never killed.
    void killedStudyResumesToTheSameResult()
    {
        if (m_uninterrupted.isEmpty())
            QSKIP("needs threeArmsUnderOneEvaluationBudget's result");
        Workspace w;
        writeLlmConfig(w);
        const QString csvPath = w.dir.filePath(QStringLiteral("study.csv"));
        m_rig.useAgents(m_rig.swiglu);
        m_rig.killAt = OptimizeRig::KillPoint{QStringLiteral("executor"), 5};
        const Run killed = m_rig.cli(w, studyArgs(csvPath));
        QVERIFY2(killed.killed, qPrintable(killed.err));
        const StudyState partial = onlyStudy(w);
        QVERIFY(!partial.id.isEmpty());
        QVERIFY(!partial.finished);
        const Run resumed = m_rig.cli(w, {QStringLiteral("study"), QStringLiteral("--resume"), partial.id,
                                          QStringLiteral("--json"), QStringLiteral("--csv"), csvPath});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err + resumed.out));
        const QStringList got = withoutSessions(lastJson(resumed));
        QCOMPARE(got.size(), m_uninterrupted.size());
        for (qsizetype i = 0; i < got.size(); ++i)
            QVERIFY2(got.at(i) == m_uninterrupted.at(i),
                     qPrintable(got.at(i) + QStringLiteral("\n   expected:\n") + m_uninterrupted.at(i)));
        // And --show prints the same result again, without running anything.
        const int before = m_rig.requests();
        const Run shown = m_rig.cli(
            w, {QStringLiteral("study"), QStringLiteral("--show"), partial.id, QStringLiteral("--json")});
        QCOMPARE(shown.exitCode, 0);
        QCOMPARE(withoutSessions(lastJson(shown)), m_uninterrupted);
        QCOMPARE(m_rig.requests(), before);
        // The table for people: one line per arm, the spread over the repeats, and why tokens.
        const Run table = m_rig.cli(w, {QStringLiteral("study"), QStringLiteral("--show"), partial.id});
        QCOMPARE(table.exitCode, 0);
        qInfo().noquote() << table.out;
        for (const QString &arm : {QStringLiteral("mem"), QStringLiteral("ens"), QStringLiteral("rs")})
            QVERIFY2(table.out.contains(QStringLiteral("\nswiglu  ") + arm), qPrintable(table.out));
        QVERIFY2(table.out.contains(QStringLiteral("cost basis tokens")) &&
                     table.out.contains(QStringLiteral("note: the cost in money is unknown")),
                 qPrintable(table.out));
    }

    // Ctrl+C as soon as the study's file shows a run's first turn done (a session with its first checkpoint):
    // the study stops cleanly, exit 130, saying how to go on; its file is a partial study; resumed, it ends
    // with the uninterrupted study's result.
    void interruptedStudyResumesToTheSameResult()
    {
        if (m_uninterrupted.isEmpty())
            QSKIP("needs threeArmsUnderOneEvaluationBudget's result");
        Workspace w;
        writeLlmConfig(w);
        const QString csvPath = w.dir.filePath(QStringLiteral("study.csv"));
        m_rig.useAgents(m_rig.swiglu);
        bool interrupted = false;
        m_rig.whileRunning = [&](const QString &) {
            if (interrupted)
                return;
            for (const StudyState::Run &run : onlyStudy(w).runs)
                if (!run.checkpoints.isEmpty() && !run.sessionId.isEmpty()) {
                    interrupted = true;
                    m_rig.signalNow(SIGINT);
                    return;
                }
        };
        const Run stopped = m_rig.cli(w, studyArgs(csvPath));
        m_rig.whileRunning = nullptr;
        QVERIFY2(interrupted, qPrintable(stopped.err));
        QVERIFY2(!stopped.killed && stopped.exitCode == 130, qPrintable(stopped.err));
        QVERIFY2(stopped.err.contains(QStringLiteral("stopped; resume with 'accelopt study --resume")),
                 qPrintable(stopped.err));
        const StudyState partial = onlyStudy(w);
        QVERIFY(!partial.finished);
        int withCheckpoints = 0;
        for (const StudyState::Run &run : partial.runs)
            withCheckpoints += run.checkpoints.isEmpty() ? 0 : 1;
        QVERIFY(withCheckpoints >= 1 && withCheckpoints < partial.runs.size());
        // What it printed on the way out is the partial result, marked so.
        QVERIFY2(!lastJson(stopped).value(QStringLiteral("finished")).toBool(true), qPrintable(stopped.out));
        const Run resumed = m_rig.cli(w, {QStringLiteral("study"), QStringLiteral("--resume"), partial.id,
                                          QStringLiteral("--json"), QStringLiteral("--csv"), csvPath});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err + resumed.out));
        const QStringList got = withoutSessions(lastJson(resumed));
        QCOMPARE(got.size(), m_uninterrupted.size());
        for (qsizetype i = 0; i < got.size(); ++i)
            QVERIFY2(got.at(i) == m_uninterrupted.at(i),
                     qPrintable(got.at(i) + QStringLiteral("\n   expected:\n") + m_uninterrupted.at(i)));
        // The interrupted turn's session was resumed, not replaced: each run still has one session.
        const StudyState done = onlyStudy(w);
        for (qsizetype i = 0; i < done.runs.size(); ++i)
            if (!partial.runs.at(i).sessionId.isEmpty())
                QCOMPARE(done.runs.at(i).sessionId, partial.runs.at(i).sessionId);
    }

    // --tasks A,B: every (task, arm) is a run of its own, on its own task's session, with its own row and
    // line; the figures are each session's, worked out by hand.
    void twoTasksRunAsOneStudy()
    {
        Workspace w;
        writeLlmConfig(w);
        m_rig.useAgents(m_rig.swiglu);
        const Run r = m_rig.cli(
            w, {QStringLiteral("study"), QStringLiteral("--tasks"), QStringLiteral("swiglu,adamw"),
                QStringLiteral("--budget-evals"), QStringLiteral("4"), QStringLiteral("--slices"),
                QStringLiteral("2"), QStringLiteral("--jobs"), QStringLiteral("1"), QStringLiteral("--arm"),
                QStringLiteral("mem=beam,width=1,plans=2,models=all:frontier"), QStringLiteral("--arm"),
                QStringLiteral("rs=sample,n=6,models=planner:weak"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const StudyState state = onlyStudy(w);
        QVERIFY(state.finished);
        QCOMPARE(state.tasks, (QStringList{QStringLiteral("swiglu"), QStringLiteral("adamw")}));
        QCOMPARE(state.runs.size(), 4);
        SessionStore store(w.db());
        QVERIFY(store.open());
        QMap<QString, Hand> byRun;
        for (const StudyState::Run &run : state.runs) {
            const std::optional<SessionRecord> session = store.session(run.sessionId);
            QVERIFY2(session, qPrintable(run.task + u' ' + run.arm));
            QCOMPARE(session->taskName, run.task);
            byRun.insert(run.task + u'/' + run.arm, byHand(w, run.sessionId));
        }
        // Each task's sessions measured that task's kernels (the stand-in answered each from its fixture),
        // and more than the baseline.
        for (const StudyState::Run &run : state.runs) {
            const ScriptedAgents &own = run.task == QStringLiteral("adamw") ? m_rig.adamw : m_rig.swiglu;
            const QList<Candidate> candidates = store.candidates(run.sessionId);
            QVERIFY2(candidates.size() > 1, qPrintable(run.task + u' ' + run.arm));
            for (const Candidate &c : candidates)
                QVERIFY2(c.source.trimmed().isEmpty() || !own.variantIn(c.source).isEmpty() ||
                             c.parentId.isEmpty(),
                         qPrintable(run.task + QStringLiteral(": a kernel not of this task's fixture\n") + c.source));
        }
        const QJsonObject result = lastJson(r);
        const QJsonArray rows = result.value(QStringLiteral("rows")).toArray();
        QCOMPARE(rows.size(), 4);
        for (const QJsonValue &v : rows) {
            const QJsonObject row = v.toObject();
            const QString key = row.value(QStringLiteral("task")).toString() + u'/' +
                                row.value(QStringLiteral("arm")).toString();
            QVERIFY2(byRun.contains(key), qPrintable(key));
            const Hand h = byRun.value(key);
            QCOMPARE(row.value(QStringLiteral("best_percent_of_peak")).toObject().value(QStringLiteral("mean")).toDouble(),
                     h.best);
            QCOMPARE(row.value(QStringLiteral("tokens")).toDouble(), double(h.tokens));
            QCOMPARE(row.value(QStringLiteral("evaluations")).toDouble(), double(h.evaluations));
        }
        const QJsonArray chart = result.value(QStringLiteral("chart")).toArray();
        QCOMPARE(chart.size(), 4);
        QStringList lines;
        for (const QJsonValue &v : chart)
            lines << v.toObject().value(QStringLiteral("task")).toString() + u'/' +
                         v.toObject().value(QStringLiteral("arm")).toString();
        QCOMPARE(lines, (QStringList{QStringLiteral("swiglu/mem"), QStringLiteral("swiglu/rs"),
                                     QStringLiteral("adamw/mem"), QStringLiteral("adamw/rs")}));
    }
};

QTEST_GUILESS_MAIN(TestCliStudy)
#include "tst_cli_study.moc"
