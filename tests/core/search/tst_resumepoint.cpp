#include "search/resumepoint.h"
#include "store/sessionstore.h"

#include <QTemporaryDir>
#include <QTest>

// ResumePoint on its own: where a stopped or crashed session picks up, read from a real workspace database
// that the test fills the way a search would (sessions, candidates, evaluations, steps, beams, LLM calls).
class TestResumePoint : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<SessionStore> m_store;
    QString m_session;
    QString m_baseline;

    static Evaluation measured(double latencyMs)
    {
        Evaluation e;
        e.status = EvalStatus::Ok;
        e.correct = true;
        e.latencyMeanMs = latencyMs;
        e.host = QStringLiteral("local/0");
        return e;
    }

    QString addChild(const QString &parent, int iteration, int sample, const QString &source, double latencyMs)
    {
        Candidate c;
        c.sessionId = m_session;
        c.iteration = iteration;
        c.parentId = parent;
        c.planIndex = 0;
        c.sampleIndex = sample;
        c.source = source;
        if (!m_store->addCandidate(c) || !m_store->addEvaluation(c.id, measured(latencyMs)))
            qFatal("cannot add a candidate: %s", qPrintable(m_store->lastError()));
        return c.id;
    }

    // Iteration `iteration` ran to its last step and kept `beam`.
    void finishIteration(int iteration, const QStringList &beam)
    {
        QVERIFY(m_store->setBeam(m_session, iteration, beam));
        QVERIFY(m_store->markStepCompleted(m_session, iteration,
                                           iteration == 0 ? ResumeStep::Baseline : ResumeStep::Summarize));
    }

private Q_SLOTS:
    void init()
    {
        m_store = std::make_unique<SessionStore>(
            m_dir.filePath(QStringLiteral("ws-%1.sqlite").arg(QTest::currentTestFunction())));
        QVERIFY2(m_store->open(), qPrintable(m_store->lastError()));
        SessionRecord s;
        s.taskName = QStringLiteral("silu");
        s.task = QJsonObject{{QStringLiteral("name"), QStringLiteral("silu")}};
        s.target = QStringLiteral("trn2");
        s.backend = QStringLiteral("sim");
        s.host = QStringLiteral("cluster");
        SearchConfig config;
        config.beamWidth = 2;
        config.iterations = 5;
        config.seed = 42;
        s.config = config.toJson();
        s.run = QJsonObject{{QStringLiteral("size"), QStringLiteral("small")},
                            {QStringLiteral("eval_timeout_s"), 77.0},
                            {QStringLiteral("reference"), QStringLiteral("def reference(x): return x")}};
        QVERIFY(m_store->createSession(s));
        m_session = s.id;
        Candidate base;
        base.sessionId = m_session;
        base.origin = Candidate::Origin::Baseline;
        base.source = QStringLiteral("def kernel(x):\n    return x\n");
        QVERIFY(m_store->addCandidate(base));
        m_baseline = base.id;
    }

    void cleanup() { m_store.reset(); }

    void unknownSessionIsAnError()
    {
        QString error;
        QVERIFY(!ResumePoint::load(*m_store, QStringLiteral("no-such-session"), error));
        QVERIFY2(error.contains(QStringLiteral("no session no-such-session")), qPrintable(error));
    }

    void sessionWithoutItsStartingKernelCannotResume()
    {
        SessionRecord s;
        s.taskName = QStringLiteral("silu");
        s.config = SearchConfig{}.toJson();
        QVERIFY(m_store->createSession(s));
        QString error;
        QVERIFY(!ResumePoint::load(*m_store, s.id, error));
        QVERIFY2(error.contains(QStringLiteral("no starting kernel")), qPrintable(error));
    }

    void unreadableSettingsAreAnError()
    {
        QVERIFY(m_store->setConfig(m_session, QJsonObject{{QStringLiteral("beam_width"), QStringLiteral("six")}}));
        QString error;
        QVERIFY(!ResumePoint::load(*m_store, m_session, error));
        QVERIFY2(error.contains(QStringLiteral("unreadable search settings")), qPrintable(error));
    }

    // Nothing measured yet: the baseline is evaluated first, and the task is the one the session ran, not
    // today's files.
    void freshSessionStartsAtTheBaseline()
    {
        QString error;
        const std::optional<ResumePoint> p = ResumePoint::load(*m_store, m_session, error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->iteration, 0);
        QVERIFY(p->beam.isEmpty());
        QCOMPARE(p->task.name, QStringLiteral("silu"));
        QCOMPARE(p->task.kernel, QStringLiteral("def kernel(x):\n    return x\n"));
        QCOMPARE(p->task.target, QStringLiteral("trn2"));
        QCOMPARE(p->task.host, QStringLiteral("cluster"));
        QCOMPARE(p->task.size, QStringLiteral("small"));
        QCOMPARE(p->task.evalTimeoutSeconds, 77.0);
        QCOMPARE(p->task.reference, QStringLiteral("def reference(x): return x"));
        QCOMPARE(p->config.beamWidth, 2);
        QCOMPARE(p->config.seed, 42);
        QCOMPARE(p->candidates.size(), 1);
        QVERIFY(p->evaluations.isEmpty());
    }

    // Two iterations finished, the third cut short: the third is rerun from the beam the second kept, and
    // what the third had already produced is there to be replayed.
    void unfinishedIterationIsRerunFromThePreviousBeam()
    {
        QVERIFY(m_store->addEvaluation(m_baseline, measured(10.0)));
        finishIteration(0, {m_baseline});
        const QString faster = addChild(m_baseline, 1, 0, QStringLiteral("def kernel(x):\n    return x  # 1\n"), 5.0);
        finishIteration(1, {faster, m_baseline});
        const QString same = addChild(faster, 2, 0, QStringLiteral("def kernel(x):\n    return x  # 2\n"), 5.0);
        finishIteration(2, {faster, same});
        const QString landed = addChild(faster, 3, 0, QStringLiteral("def kernel(x):\n    return x  # 3\n"), 1.0);
        QVERIFY(m_store->markStepCompleted(m_session, 3, ResumeStep::Plan));

        QString error;
        const std::optional<ResumePoint> p = ResumePoint::load(*m_store, m_session, error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->iteration, 3);
        QCOMPARE(p->beam.size(), 2);
        QCOMPARE(p->beam.at(0).candidateId, faster);
        QCOMPARE(p->beam.at(1).candidateId, same);
        QCOMPARE(*p->beam.at(0).evaluation.latencyMeanMs, 5.0);
        // Iteration 1 improved on the baseline, iteration 2 did not (same latency): one without improvement.
        QCOMPARE(p->iterationsWithoutImprovement, 1);
        QVERIFY(p->candidates.contains(landed));
        QVERIFY(p->evaluations.contains(landed));
        QCOMPARE(p->candidates.size(), 4);
    }

    void improvementResetsTheCount()
    {
        QVERIFY(m_store->addEvaluation(m_baseline, measured(10.0)));
        finishIteration(0, {m_baseline});
        finishIteration(1, {m_baseline});
        const QString faster = addChild(m_baseline, 2, 0, QStringLiteral("def kernel(x):\n    return 2 * x\n"), 2.0);
        finishIteration(2, {faster});
        QString error;
        const std::optional<ResumePoint> p = ResumePoint::load(*m_store, m_session, error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->iteration, 3);
        QCOMPARE(p->iterationsWithoutImprovement, 0);
        QCOMPARE(p->beam.first().candidateId, faster);
    }

    void beamNamingAnUnmeasuredKernelIsInconsistent()
    {
        QVERIFY(m_store->addEvaluation(m_baseline, measured(10.0)));
        finishIteration(0, {m_baseline});
        Candidate unmeasured;
        unmeasured.sessionId = m_session;
        unmeasured.iteration = 1;
        unmeasured.parentId = m_baseline;
        unmeasured.planIndex = 0;
        unmeasured.sampleIndex = 0;
        unmeasured.source = QStringLiteral("def kernel(x):\n    return x + 0\n");
        QVERIFY(m_store->addCandidate(unmeasured));
        finishIteration(1, {unmeasured.id});
        QString error;
        QVERIFY(!ResumePoint::load(*m_store, m_session, error));
        QVERIFY2(error.contains(QStringLiteral("inconsistent")), qPrintable(error));
    }

    void finishedIterationWithoutABeamIsAnError()
    {
        QVERIFY(m_store->addEvaluation(m_baseline, measured(10.0)));
        QVERIFY(m_store->markStepCompleted(m_session, 0, ResumeStep::Baseline));
        QString error;
        QVERIFY(!ResumePoint::load(*m_store, m_session, error));
        QVERIFY2(error.contains(QStringLiteral("no beam was kept after iteration 0")), qPrintable(error));
    }

    // The budgets go on from what the session's recorded calls cost, not from zero.
    void costSoFarComesFromTheRecordedCalls()
    {
        for (int i = 0; i < 3; ++i) {
            LlmCallRecord call;
            call.callId = quint64(i + 1);
            call.role = QStringLiteral("planner");
            call.endpoint = QStringLiteral("stand-in");
            call.model = QStringLiteral("m");
            call.tag = QStringLiteral("call-%1").arg(i);
            call.reply = QStringLiteral("ok");
            call.usage = TokenUsage{100, 20};
            call.costUsd = 0.25;
            call.startedUtc = QDateTime::currentDateTimeUtc();
            QVERIFY2(m_store->recordLlmCall(m_session, call), qPrintable(m_store->lastError()));
        }
        QString error;
        const std::optional<ResumePoint> p = ResumePoint::load(*m_store, m_session, error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->costUsd, 0.75);
        QCOMPARE(p->tokens, qint64(360));
    }
};

QTEST_GUILESS_MAIN(TestResumePoint)
#include "tst_resumepoint.moc"
