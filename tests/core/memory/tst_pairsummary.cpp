#include "llm/llmconfig.h"
#include "memory/pairsummary.h"
#include "model/kernelnormalizer.h"
#include "scriptedllmserver.h"

#include <QFile>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

// PairSummary on its own (the Compare view's Summarize button): what it refuses before asking, the lesson it
// makes of the summarizer's answer for a faster and for a slower pair, a failed call, and a cancel. The model
// is ScriptedLlmServer, a stand-in for a real model server on loopback; llm.json is a real file.
class TestPairSummary : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    static constexpr auto kSummary =
        "Title: Use the fused silu activation\n"
        "Lesson: One scalar-engine activation replaces four instructions per tile.\n"
        "Before:\n```python\ne = nisa.activation(op=nl.exp, data=x)\n```\n"
        "After:\n```python\ny = nisa.activation(op=nl.silu, data=x)\n```\n";

    static Evaluation measured(double latencyMs)
    {
        Evaluation e;
        e.status = EvalStatus::Ok;
        e.correct = true;
        e.latencyMeanMs = latencyMs;
        return e;
    }

    static ComparePair pair(double leftMs, double rightMs)
    {
        ComparePair p;
        p.task = QStringLiteral("silu");
        p.target = QStringLiteral("trn1");
        p.left.name = QStringLiteral("slow.py");
        p.left.text = QStringLiteral("def kernel(x):\n    return slow(x)\n");
        p.left.candidateId = QStringLiteral("left-candidate");
        p.left.sessionId = QStringLiteral("left-session");
        p.left.evaluation = measured(leftMs);
        p.right.name = QStringLiteral("fast.py");
        p.right.text = QStringLiteral("def kernel(x):\n    return fast(x)\n");
        p.right.candidateId = QStringLiteral("right-candidate");
        p.right.sessionId = QStringLiteral("right-session");
        p.right.evaluation = measured(rightMs);
        return p;
    }

    // llm.json with one endpoint at the stand-in; the summarizer assigned unless `summarizer` is false.
    QString writeConfig(const ScriptedLlmServer &server, bool summarizer = true)
    {
        LlmConfig config;
        Endpoint e;
        e.name = QStringLiteral("stand-in");
        e.baseUrl = server.baseUrl();
        e.model = QStringLiteral("stand-in-model");
        e.timeoutMs = 60000;
        config.endpoints << e;
        config.roster.assign(AgentRole::Planner, e.name);
        if (summarizer)
            config.roster.assign(AgentRole::Summarizer, e.name);
        config.retry.maxAttempts = 1;
        const QString path = m_dir.filePath(QStringLiteral("llm-%1.json").arg(QTest::currentTestFunction()));
        QString error;
        if (!config.save(path, &error))
            qFatal("cannot write llm.json: %s", qPrintable(error));
        return path;
    }

    static QString sentText(const ScriptedLlmServer::Request &request)
    {
        QString text;
        for (const QJsonValue &m : request.json.value(QStringLiteral("messages")).toArray())
            text += m.toObject().value(QStringLiteral("content")).toString();
        return text;
    }

private Q_SLOTS:
    void unmeasuredPairIsRefusedWithoutAsking()
    {
        ScriptedLlmServer server;
        QVERIFY(server.start());
        PairSummary summary(writeConfig(server));
        QSignalSpy finished(&summary, &PairSummary::finished);
        ComparePair p = pair(2.0, 1.0);
        p.right.evaluation->correct = false; // measured, but wrong: its latency says nothing
        p.right.evaluation->status = EvalStatus::Incorrect;
        QString error;
        QVERIFY(!summary.start(p, error));
        QVERIFY2(error.contains(QStringLiteral("measure them first")), qPrintable(error));
        p.right.evaluation.reset();
        QVERIFY(!summary.start(p, error));
        QCOMPARE(server.requestCount(), 0);
        QCOMPARE(finished.count(), 0);
    }

    void noSummarizerModelIsRefused()
    {
        ScriptedLlmServer server;
        QVERIFY(server.start());
        PairSummary summary(writeConfig(server, false));
        QString error;
        QVERIFY(!summary.start(pair(2.0, 1.0), error));
        QVERIFY2(error.contains(QStringLiteral("no model is assigned to the summarizer")), qPrintable(error));
        QCOMPARE(server.requestCount(), 0);
    }

    void brokenSettingsAreRefused()
    {
        const QString path = m_dir.filePath(QStringLiteral("broken.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{ not json");
        f.close();
        PairSummary summary(path);
        QString error;
        QVERIFY(!summary.start(pair(2.0, 1.0), error));
        QVERIFY(!error.isEmpty());
    }

    // A faster right kernel: a positive lesson, slow = left, with the measured speedup (not the model's).
    void fasterPairGivesAPositiveLesson()
    {
        ScriptedLlmServer server;
        QVERIFY(server.start());
        server.setHandler([](const ScriptedLlmServer::Request &) {
            return ScriptedLlmServer::completion(QString::fromLatin1(kSummary));
        });
        PairSummary summary(writeConfig(server));
        QSignalSpy finished(&summary, &PairSummary::finished);
        const ComparePair p = pair(3.0, 1.5);
        QString error;
        QVERIFY2(summary.start(p, error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        const auto record = finished.first().at(0).value<std::optional<ExperienceRecord>>();
        QVERIFY2(record, qPrintable(finished.first().at(1).toString()));
        QCOMPARE(record->experience.title, QStringLiteral("Use the fused silu activation"));
        QVERIFY(record->experience.lesson.contains(QStringLiteral("four instructions")));
        QCOMPARE(record->experience.speedup, 2.0);
        QVERIFY(!record->isNegative());
        QCOMPARE(record->slowCandidateId, QStringLiteral("left-candidate"));
        QCOMPARE(record->fastCandidateId, QStringLiteral("right-candidate"));
        QCOMPARE(record->slowHash, KernelNormalizer::hash(p.left.text));
        QCOMPARE(record->fastHash, KernelNormalizer::hash(p.right.text));
        QCOMPARE(record->sessionId, QStringLiteral("right-session"));
        QCOMPARE(record->task, QStringLiteral("silu"));
        // One call, and the model saw both kernels.
        QCOMPARE(server.requestCount(), 1);
        const QString sent = sentText(server.requests().first());
        QVERIFY(sent.contains(QStringLiteral("return slow(x)")));
        QVERIFY(sent.contains(QStringLiteral("return fast(x)")));
    }

    // A slower right kernel: kept negative (speedup < 1, not flipped), slow = the attempted change.
    void slowerPairGivesANegativeLesson()
    {
        ScriptedLlmServer server;
        QVERIFY(server.start());
        server.setHandler([](const ScriptedLlmServer::Request &) {
            return ScriptedLlmServer::completion(QString::fromLatin1(kSummary));
        });
        PairSummary summary(writeConfig(server));
        QSignalSpy finished(&summary, &PairSummary::finished);
        QString error;
        QVERIFY2(summary.start(pair(1.0, 4.0), error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        const auto record = finished.first().at(0).value<std::optional<ExperienceRecord>>();
        QVERIFY2(record, qPrintable(finished.first().at(1).toString()));
        QCOMPARE(record->experience.speedup, 0.25);
        QVERIFY(record->isNegative());
        QCOMPARE(record->slowCandidateId, QStringLiteral("right-candidate"));
        QCOMPARE(record->fastCandidateId, QStringLiteral("left-candidate"));
    }

    void failedCallIsReported()
    {
        ScriptedLlmServer server;
        QVERIFY(server.start());
        server.enqueue(ScriptedLlmServer::error(500, "the model fell over"));
        PairSummary summary(writeConfig(server));
        QSignalSpy finished(&summary, &PairSummary::finished);
        QString error;
        QVERIFY2(summary.start(pair(2.0, 1.0), error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QVERIFY(!finished.first().at(0).value<std::optional<ExperienceRecord>>());
        QVERIFY2(finished.first().at(1).toString().contains(QStringLiteral("the summarizer's call failed")),
                 qPrintable(finished.first().at(1).toString()));
    }

    void unusableAnswerIsReported()
    {
        ScriptedLlmServer server;
        QVERIFY(server.start());
        server.enqueue(ScriptedLlmServer::completion(QStringLiteral("I would rather not say.")));
        PairSummary summary(writeConfig(server));
        QSignalSpy finished(&summary, &PairSummary::finished);
        QString error;
        QVERIFY2(summary.start(pair(2.0, 1.0), error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QVERIFY(!finished.first().at(0).value<std::optional<ExperienceRecord>>());
        QVERIFY2(finished.first().at(1).toString().contains(QStringLiteral("unusable")),
                 qPrintable(finished.first().at(1).toString()));
    }

    // Cancelled while the model thinks: finished once, "cancelled"; a second start is refused while one runs,
    // and once the first is over the same object can ask again, and that answer is the only other one.
    void cancelFinishesOnceAndFreesTheSummary()
    {
        ScriptedLlmServer server;
        QVERIFY(server.start());
        server.setHolding(true);
        server.setHandler([](const ScriptedLlmServer::Request &) {
            return ScriptedLlmServer::completion(QString::fromLatin1(kSummary));
        });
        PairSummary summary(writeConfig(server));
        QSignalSpy finished(&summary, &PairSummary::finished);
        QString error;
        QVERIFY2(summary.start(pair(2.0, 1.0), error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(server.requestCount(), 1, 60000);
        QVERIFY(!summary.start(pair(2.0, 1.0), error));
        QVERIFY2(error.contains(QStringLiteral("already")), qPrintable(error));
        summary.cancel();
        QCOMPARE(finished.count(), 1);
        QVERIFY(!finished.first().at(0).value<std::optional<ExperienceRecord>>());
        QCOMPARE(finished.first().at(1).toString(), QStringLiteral("cancelled"));
        summary.cancel(); // nothing runs: nothing to tell
        QCOMPARE(finished.count(), 1);

        server.setHolding(false);
        server.releaseHeld();
        QVERIFY2(summary.start(pair(2.0, 1.0), error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 60000);
        QVERIFY(finished.at(1).at(0).value<std::optional<ExperienceRecord>>());
        // The cancelled call's late answer (if any) was not taken for a second summary.
        QCOMPARE(finished.count(), 2);
    }
};

QTEST_GUILESS_MAIN(TestPairSummary)
#include "tst_pairsummary.moc"
