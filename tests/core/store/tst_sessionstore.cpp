#include "model/kernelnormalizer.h"
#include "store/sessionlock.h"
#include "store/sessionsnapshot.h"
#include "store/sessionstore.h"

#include <QFileInfo>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

class TestSessionStore : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<SessionStore> m_store;
    QString m_session;

    static Evaluation evaluation(const QString &status, double latencyMs, double percent)
    {
        Evaluation e;
        e.status = *EvalStatuses::fromName(status);
        if (status == QStringLiteral("ok") || status == QStringLiteral("incorrect"))
            e.correct = status == QStringLiteral("ok");
        e.latencyMeanMs = latencyMs;
        e.percentOfPeak = percent;
        e.host = QStringLiteral("local/0");
        e.metrics = QJsonObject{{QStringLiteral("hbm_read_bytes"), 1024}};
        return e;
    }

    Candidate child(const QString &parent, int iteration, int plan, int sample, const QString &source)
    {
        Candidate c;
        c.sessionId = m_session;
        c.iteration = iteration;
        c.parentId = parent;
        c.planIndex = plan;
        c.sampleIndex = sample;
        c.source = source;
        return c;
    }

    int rows(const QString &table)
    {
        QSqlQuery q(m_store->database().connection());
        q.exec(QStringLiteral("SELECT count(*) FROM ") + table);
        q.next();
        return q.value(0).toInt();
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
        s.target = QStringLiteral("trn1");
        s.backend = QStringLiteral("sim");
        s.host = QStringLiteral("local");
        s.config = QJsonObject{{QStringLiteral("B"), 6}, {QStringLiteral("N"), 12}, {QStringLiteral("K"), 2}};
        QVERIFY(m_store->createSession(s));
        m_session = s.id;
    }

    void cleanup() { m_store.reset(); }

    void sessionRoundTrip()
    {
        const auto s = m_store->session(m_session);
        QVERIFY(s);
        QCOMPARE(s->taskName, QStringLiteral("silu"));
        QCOMPARE(s->config.value(QStringLiteral("N")).toInt(), 12);
        QCOMPARE(s->status, SessionRecord::Status::Running);
        QVERIFY(m_store->setStatus(m_session, SessionRecord::Status::Crashed));
        QCOMPARE(m_store->session(m_session)->status, SessionRecord::Status::Crashed);
        QVERIFY(!m_store->setStatus(QStringLiteral("nope"), SessionRecord::Status::Finished));
        QCOMPARE(m_store->findSession(m_session.left(8))->id, m_session);
        QVERIFY(!m_store->findSession(QStringLiteral("zzzz")));
    }

    void idempotentReAdds()
    {
        Candidate base;
        base.sessionId = m_session;
        base.origin = Candidate::Origin::Baseline;
        base.source = QStringLiteral("def kernel(x):\n    return x\n");
        QVERIFY(m_store->addCandidate(base));
        QCOMPARE(base.id, SessionStore::baselineCandidateId(m_session));
        PlanRecord plan;
        plan.sessionId = m_session;
        plan.iteration = 1;
        plan.parentCandidateId = base.id;
        plan.planIndex = 0;
        plan.plan = Plan{QStringLiteral("Fuse"),
                         {QStringLiteral("a"), QStringLiteral("b")},
                         QStringLiteral("Title: Fuse")};
        QVERIFY(m_store->addPlan(plan));
        QList<Candidate> batch{child(base.id, 1, 0, 0, QStringLiteral("k0")),
                               child(base.id, 1, 0, 1, QStringLiteral("k1"))};
        for (Candidate &c : batch)
            c.planId = plan.id;
        QVERIFY(m_store->addCandidates(batch));
        QVERIFY(m_store->addEvaluation(batch.at(0).id, evaluation(QStringLiteral("ok"), 2.0, 0.3)));

        // The resumed session replays the same step: same ids, nothing new.
        Candidate baseAgain = base;
        baseAgain.id.clear();
        PlanRecord planAgain = plan;
        planAgain.id.clear();
        QList<Candidate> batchAgain{child(base.id, 1, 0, 0, QStringLiteral("k0")),
                                    child(base.id, 1, 0, 1, QStringLiteral("k1"))};
        QVERIFY(m_store->addCandidate(baseAgain));
        QVERIFY(m_store->addPlan(planAgain));
        QVERIFY(m_store->addCandidates(batchAgain));
        QVERIFY(m_store->addEvaluation(batch.at(0).id, evaluation(QStringLiteral("ok"), 9.0, 0.1)));
        QCOMPARE(planAgain.id, plan.id);
        QCOMPARE(batchAgain.at(1).id, batch.at(1).id);
        QCOMPARE(rows(QStringLiteral("candidates")), 3);
        QCOMPARE(rows(QStringLiteral("plans")), 1);
        QCOMPARE(rows(QStringLiteral("evaluations")), 1);
        QCOMPARE(m_store->evaluation(batch.at(0).id)->latencyMeanMs, 2.0);
        // The cascade's check replaces a timing-only evaluation: one row, the checked one, which a resumed
        // session replays.
        Evaluation timed = evaluation(QStringLiteral("ok"), 3.0, 0.2);
        timed.correct.reset();
        QVERIFY(m_store->addEvaluation(batch.at(1).id, timed));
        QVERIFY(!m_store->evaluation(batch.at(1).id)->correct.has_value());
        QVERIFY(m_store->replaceEvaluation(batch.at(1).id, evaluation(QStringLiteral("incorrect"), 3.0, 0.2)));
        QCOMPARE(rows(QStringLiteral("evaluations")), 2);
        QCOMPARE(m_store->evaluation(batch.at(1).id)->correct, std::optional<bool>(false));
        QCOMPARE(m_store->evaluation(batch.at(1).id)->status, EvalStatus::Incorrect);
        QCOMPARE(m_store->plans(m_session, 1).first().plan.steps,
                 (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    }

    void failedBatchWritesNothing()
    {
        QList<Candidate> batch{child({}, 1, 0, 0, QStringLiteral("k0")),
                               child(QStringLiteral("no-such-parent"), 1, 0, 1, QStringLiteral("k1"))};
        QVERIFY(!m_store->addCandidates(batch)); // the second row breaks the parent foreign key
        QVERIFY2(m_store->lastError().contains(QStringLiteral("FOREIGN KEY")),
                 qPrintable(m_store->lastError()));
        QCOMPARE(rows(QStringLiteral("candidates")), 0);

        // A caller's own group of writes is all or nothing too.
        Candidate ok = child({}, 0, 0, 0, QStringLiteral("k"));
        QVERIFY(!m_store->transaction([&] {
            return m_store->addCandidate(ok) &&
                   m_store->markStepCompleted(m_session, 1, ResumeStep::Execute) &&
                   m_store->addEvaluation(QStringLiteral("missing-candidate"),
                                          evaluation(QStringLiteral("ok"), 1, 1));
        }));
        QCOMPARE(rows(QStringLiteral("candidates")), 0);
        QVERIFY(!m_store->isStepCompleted(m_session, 1, ResumeStep::Execute));
    }

    void lineageBestAndSummaries()
    {
        Candidate base;
        base.sessionId = m_session;
        base.origin = Candidate::Origin::Baseline;
        base.source = QStringLiteral("base");
        QVERIFY(m_store->addCandidate(base));
        QVERIFY(m_store->addEvaluation(base.id, evaluation(QStringLiteral("ok"), 10.0, 0.1)));
        Candidate a = child(base.id, 1, 0, 0, QStringLiteral("a"));
        Candidate broken = child(base.id, 1, 1, 0, QStringLiteral("broken"));
        QVERIFY(m_store->addCandidate(a) && m_store->addCandidate(broken));
        QVERIFY(m_store->addEvaluation(a.id, evaluation(QStringLiteral("ok"), 5.0, 0.2)));
        QVERIFY(m_store->addEvaluation(broken.id, evaluation(QStringLiteral("compile_error"), -1, -1)));
        Candidate fixed = child(broken.id, 1, 1, 0, QStringLiteral("fixed"));
        fixed.origin = Candidate::Origin::Fixer;
        fixed.fixRound = 1;
        QVERIFY(m_store->addCandidate(fixed));
        Candidate b = child(a.id, 2, 0, 0, QStringLiteral("b"));
        QVERIFY(m_store->addCandidate(b));
        QVERIFY(m_store->addEvaluation(b.id, evaluation(QStringLiteral("ok"), 2.5, 0.4)));

        QStringList chain;
        for (const Candidate &c : m_store->lineage(b.id))
            chain.append(c.id);
        QCOMPARE(chain, (QStringList{base.id, a.id, b.id}));
        QCOMPARE(m_store->lineage(fixed.id).size(), 3);
        QCOMPARE(m_store->lineage(fixed.id).last().origin, Candidate::Origin::Fixer);
        QCOMPARE(m_store->children(base.id).size(), 2);
        QCOMPARE(m_store->bestCandidate(m_session)->id, b.id);
        QVERIFY(m_store->hasSource(m_session, KernelNormalizer::hash(QStringLiteral("a  \n"))));

        const auto summaries = m_store->statistics().iterationSummaries(m_session);
        QCOMPARE(summaries.size(), 3);
        QCOMPARE(summaries.at(1).candidates, 3);
        QCOMPARE(summaries.at(1).correct, 1);
        QCOMPARE(*summaries.at(1).bestLatencyMs, 5.0);
        QCOMPARE(*summaries.at(2).bestPercentOfPeak, 0.4);
        const auto counts = m_store->statistics().candidateCountsByStatus(m_session);
        QCOMPARE(counts.value(QStringLiteral("ok")), 3);
        QCOMPARE(counts.value(QStringLiteral("compile_error")), 1);
        QCOMPARE(counts.value(QStringLiteral("pending")), 1);

        QVERIFY(m_store->setBeam(m_session, 1, {a.id, base.id}));
        QVERIFY(m_store->setBeam(m_session, 1, {a.id, base.id}));
        QCOMPARE(m_store->beam(m_session, 1), (QStringList{a.id, base.id}));
        QCOMPARE(rows(QStringLiteral("beams")), 2);
    }

    void aKernelThatFailsItsRemeasurementIsNeverTheBest()
    {
        Candidate base;
        base.sessionId = m_session;
        base.origin = Candidate::Origin::Baseline;
        base.source = QStringLiteral("base");
        QVERIFY(m_store->addCandidate(base));
        QVERIFY(m_store->addEvaluation(base.id, evaluation(QStringLiteral("ok"), 10.0, 0.1)));
        Candidate cheat = child(base.id, 1, 0, 0, QStringLiteral("cheat"));
        Candidate honest = child(base.id, 1, 1, 0, QStringLiteral("honest"));
        Candidate twin = child(honest.id, 2, 0, 0, QStringLiteral("cheat  \n")); // the same normalized source
        QVERIFY(m_store->addCandidate(cheat) && m_store->addCandidate(honest) && m_store->addCandidate(twin));
        QVERIFY(m_store->addEvaluation(cheat.id, evaluation(QStringLiteral("ok"), 5.0, 0.5)));
        QVERIFY(m_store->addEvaluation(honest.id, evaluation(QStringLiteral("ok"), 6.0, 0.4)));
        QVERIFY(m_store->addEvaluation(twin.id, evaluation(QStringLiteral("ok"), 5.0, 0.5)));
        QCOMPARE(m_store->bestCandidate(m_session)->id, cheat.id);

        // A host failure says nothing about the kernel: it stays the best.
        QVERIFY(m_store->addEvaluation(cheat.id, evaluation(QStringLiteral("infra_error"), -1, -1),
                                       SessionStore::remeasureRun));
        QCOMPARE(m_store->bestCandidate(m_session)->id, cheat.id);
        // Incorrect on fresh seeds: it and its twin are out of every best-kernel answer.
        QVERIFY(m_store->replaceEvaluation(cheat.id, evaluation(QStringLiteral("incorrect"), 5.0, 0.5),
                                           SessionStore::remeasureRun));
        QCOMPARE(m_store->bestCandidate(m_session)->id, honest.id);
        QVERIFY(m_store->addEvaluation(honest.id, evaluation(QStringLiteral("ok"), 3.0, 0.8),
                                       SessionStore::remeasureRun));
        QCOMPARE(m_store->bestCandidate(m_session)->id, honest.id);
        const auto summaries = m_store->statistics().iterationSummaries(m_session);
        QCOMPARE(summaries.at(1).bestCandidateId, honest.id);
        QVERIFY(!summaries.at(2).bestLatencyMs); // the twin was the only kernel of iteration 2
        QCOMPARE(*m_store->sessionSummaries().first().bestLatencyMs, 6.0); // the first run's measurement
        // The re-measurements are read back by candidate and are not counted as evaluations of their own.
        const QHash<QString, Evaluation> remeasured = m_store->remeasurements(m_session);
        QCOMPARE(remeasured.size(), 2);
        QCOMPARE(remeasured.value(cheat.id).status, EvalStatus::Incorrect);
        QCOMPARE(remeasured.value(honest.id).correct, std::optional<bool>(true));
        QCOMPARE(m_store->statistics().candidateCountsByStatus(m_session).value(QStringLiteral("ok")), 4);
        QString error;
        const auto snapshot = SessionSnapshot::load(*m_store, m_session, error);
        QVERIFY2(snapshot, qPrintable(error));
        QCOMPARE(snapshot->bestCandidateId, honest.id);
        QCOMPARE(snapshot->remeasurements.size(), 2);
    }

    void summariesSnapshotAndDelete()
    {
        Candidate base;
        base.sessionId = m_session;
        base.origin = Candidate::Origin::Baseline;
        base.source = QStringLiteral("base");
        QVERIFY(m_store->addCandidate(base));
        QVERIFY(m_store->addEvaluation(base.id, evaluation(QStringLiteral("ok"), 10.0, 10)));
        PlanRecord plan;
        plan.sessionId = m_session;
        plan.iteration = 1;
        plan.parentCandidateId = base.id;
        plan.plan.title = QStringLiteral("fuse");
        QVERIFY(m_store->addPlan(plan));
        Candidate a = child(base.id, 1, 0, 0, QStringLiteral("a"));
        a.planId = plan.id;
        Candidate twin = child(base.id, 1, 0, 1, QStringLiteral("a "));
        twin.planId = plan.id;
        QVERIFY(m_store->addCandidate(a) && m_store->addCandidate(twin));
        QVERIFY(m_store->addEvaluation(a.id, evaluation(QStringLiteral("ok"), 2.5, 40)));
        Evaluation reused = evaluation(QStringLiteral("ok"), 2.5, 40);
        reused.reusedFrom = a.id;
        QVERIFY(m_store->addEvaluation(twin.id, reused));
        QVERIFY(m_store->setBeam(m_session, 0, {base.id}) && m_store->setBeam(m_session, 1, {a.id, base.id}));
        LlmCallRecord call;
        call.role = QStringLiteral("planner");
        call.costUsd = 0.25;
        QVERIFY(m_store->recordLlmCall(m_session, call));

        // One rule for "best": a tie in latency goes to the earlier iteration, then the smaller id.
        const QString expectedBest = std::min(a.id, twin.id);
        QCOMPARE(m_store->bestCandidate(m_session)->id, expectedBest);

        const QList<SessionSummary> list = m_store->sessionSummaries();
        QCOMPARE(list.size(), 1);
        const SessionSummary &summary = list.first();
        QCOMPARE(summary.session.id, m_session);
        QCOMPARE(summary.candidates, 3);
        QCOMPARE(summary.baselineLatencyMs, 10.0);
        QCOMPARE(summary.bestLatencyMs, 2.5);
        QCOMPARE(summary.bestPercentOfPeak, 40.0);
        QCOMPARE(summary.speedup(), 4.0);
        QCOMPARE(summary.costUsd, 0.25);
        QCOMPARE(summary.calls, 1);
        QCOMPARE(summary.unpricedCalls, 0);
        QCOMPARE(summary.iterationsDone, 1); // the last selected beam, as the Search dock counts
        QVERIFY(!summary.live);

        QString error;
        const std::optional<SessionSnapshot> snapshot =
            SessionSnapshot::load(*m_store, m_session.left(8), error);
        QVERIFY2(snapshot, qPrintable(error));
        QCOMPARE(snapshot->candidates.size(), 3);
        QCOMPARE(snapshot->candidates.first().id, base.id);
        QCOMPARE(snapshot->evaluations.value(twin.id).reusedFrom, a.id);
        QCOMPARE(snapshot->plans.value(plan.id).plan.title, QStringLiteral("fuse"));
        QCOMPARE(snapshot->beams.value(1), (QStringList{a.id, base.id}));
        QCOMPARE(snapshot->cost.calls, 1);
        QCOMPARE(snapshot->bestCandidateId, expectedBest);
        QVERIFY(!SessionSnapshot::load(*m_store, QStringLiteral("nosuch"), error));
        QVERIFY2(error.contains(QStringLiteral("no session 'nosuch'")), qPrintable(error));

        // Deleting takes everything the session produced, and nothing of another session.
        SessionRecord other;
        other.taskName = QStringLiteral("adamw");
        QVERIFY(m_store->createSession(other));
        Candidate otherBase;
        otherBase.sessionId = other.id;
        otherBase.origin = Candidate::Origin::Baseline;
        otherBase.source = QStringLiteral("other");
        QVERIFY(m_store->addCandidate(otherBase));
        QVERIFY(m_store->deleteSession(m_session));
        for (const QString &table : {QStringLiteral("plans"), QStringLiteral("evaluations"),
                                     QStringLiteral("beams"), QStringLiteral("llm_calls")})
            QCOMPARE(rows(table), 0);
        QCOMPARE(rows(QStringLiteral("candidates")), 1);
        QCOMPARE(m_store->sessions().size(), 1);
        QVERIFY(!m_store->deleteSession(m_session));
        QVERIFY(m_store->lastError().contains(QStringLiteral("no session")));
    }

    void stepsAndResumePoint()
    {
        QVERIFY(!m_store->isStepCompleted(m_session, 2, ResumeStep::Plan));
        QVERIFY(m_store->markStepCompleted(m_session, 2, ResumeStep::Plan));
        QVERIFY(m_store->markStepCompleted(m_session, 2, ResumeStep::Plan));
        QVERIFY(m_store->isStepCompleted(m_session, 2, ResumeStep::Plan));
        QCOMPARE(m_store->session(m_session)->currentIteration, 2);
        QCOMPARE(m_store->session(m_session)->currentStep, QStringLiteral("plan"));
    }

    void llmCallsAndCosts()
    {
        LlmCallRecord call;
        call.role = QStringLiteral("planner");
        call.model = QStringLiteral("m");
        call.messages = {ChatMessage::user(QStringLiteral("hi"))};
        call.reply = QStringLiteral("plan");
        call.usage = TokenUsage{100, 20};
        call.costUsd = 0.5;
        QVERIFY(m_store->recordLlmCall(m_session, call));
        LlmCallRecord unknown = call;
        unknown.role = QStringLiteral("executor");
        unknown.usage.reset();
        unknown.costUsd.reset();
        unknown.error = QStringLiteral("timeout");
        m_store->setActiveSession(m_session);
        m_store->record(unknown);
        const auto totals = m_store->statistics().costTotals(m_session);
        QCOMPARE(totals.calls, 2);
        QCOMPARE(totals.failedCalls, 1);
        QCOMPARE(totals.promptTokens, 100);
        QCOMPARE(totals.completionTokens, 20);
        QCOMPARE(totals.callsWithoutTokens, 1);
        QCOMPARE(totals.callsWithoutCost, 1);
        QCOMPARE(totals.costUsd, 0.5);
        QCOMPARE(totals.costByRole.value(QStringLiteral("planner")), 0.5);
        QSqlQuery q(m_store->database().connection());
        QVERIFY(q.exec(QStringLiteral(
            "SELECT prompt_tokens IS NULL, cost_usd IS NULL FROM llm_calls WHERE role = 'executor'")));
        QVERIFY(q.next());
        QCOMPARE(q.value(0).toInt(), 1);
        QCOMPARE(q.value(1).toInt(), 1);
    }

    // The Progress chart's cost axis: a call counts for the iteration of the plan or candidate it was made for.
    void costByIterationFollowsTheCallsTags()
    {
        PlanRecord plan;
        plan.sessionId = m_session;
        plan.iteration = 2;
        plan.planIndex = 7;
        plan.plan = Plan{QStringLiteral("t"), {QStringLiteral("s")}, QStringLiteral("t")};
        QVERIFY2(m_store->addPlan(plan), qPrintable(m_store->lastError()));
        LlmCallRecord call;
        call.role = QStringLiteral("planner");
        call.model = QStringLiteral("m");
        call.messages = {ChatMessage::user(QStringLiteral("hi"))};
        call.tag = plan.id;
        call.costUsd = 0.25;
        QVERIFY(m_store->recordLlmCall(m_session, call));
        LlmCallRecord untagged = call;
        untagged.tag.clear();
        untagged.costUsd = 0.5;
        QVERIFY(m_store->recordLlmCall(m_session, untagged));
        LlmCallRecord unpriced = call;
        unpriced.costUsd.reset();
        QVERIFY(m_store->recordLlmCall(m_session, unpriced));
        const QMap<int, double> cost = m_store->statistics().costByIteration(m_session);
        QCOMPARE(cost.value(2), 0.25); // unpriced calls count nothing
        QCOMPARE(cost.value(0), 0.5);  // a call for no plan or candidate
        double all = 0;
        for (double c : cost)
            all += c;
        QCOMPARE(all, m_store->statistics().costTotals(m_session).costUsd);
    }

    // The lock folder names the sessions being run and by whom: 0700, and tightened if an older build left
    // it open (issue 33).
    void sessionLockFolderIsPrivate()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("workspace.sqlite"));
        const QString folder = QFileInfo(SessionLock::path(db, QStringLiteral("abc"))).absolutePath();
        QString error;
        {
            SessionLock lock(db, QStringLiteral("abc"));
            QVERIFY2(lock.tryLock(error), qPrintable(error));
        }
        QCOMPARE(QFileInfo(folder).permissions() & 0x0077, QFileDevice::Permissions());
        QVERIFY(QFile::setPermissions(folder, QFileDevice::Permissions(0x7755)));
        QTest::ignoreMessage(QtWarningMsg,
                             qPrintable(QStringLiteral("tightened %1 from 0755 to 0700, so other "
                                                       "local users cannot read it")
                                            .arg(folder)));
        SessionLock again(db, QStringLiteral("abc"));
        QVERIFY2(again.tryLock(error), qPrintable(error));
        QCOMPARE(QFileInfo(folder).permissions() & 0x0077, QFileDevice::Permissions());
    }
};

QTEST_GUILESS_MAIN(TestSessionStore)
#include "tst_sessionstore.moc"
