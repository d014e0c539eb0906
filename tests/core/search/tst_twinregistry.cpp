// TwinRegistry on its own: which candidate stands for a normalized source, and who waits for it.
#include "search/twinregistry.h"

#include <QTest>

namespace {
SearchJob job(const QString &id)
{
    SearchJob j;
    j.candidateId = id;
    return j;
}
Evaluation measured(const QString &id, EvalStatus status = EvalStatus::Ok)
{
    Evaluation e;
    e.id = id;
    e.status = status;
    e.latencyMeanMs = 1.0;
    return e;
}
} // namespace

class TestTwinRegistry : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void firstMeasuresTwinsWaitThenReuse()
    {
        TwinRegistry twins;
        QHash<QString, Evaluation> evaluations;
        QCOMPARE(twins.claim(job(QStringLiteral("a")), QStringLiteral("h"), evaluations).claim,
                 TwinRegistry::Claim::Measure);
        QVERIFY(twins.standsFor(QStringLiteral("h"), QStringLiteral("a")));
        // The stand-in asking again (a check, a resubmission) measures.
        QCOMPARE(twins.claim(job(QStringLiteral("a")), QStringLiteral("h"), evaluations).claim,
                 TwinRegistry::Claim::Measure);
        const TwinRegistry::Claimed b =
            twins.claim(job(QStringLiteral("b")), QStringLiteral("h"), evaluations);
        QCOMPARE(b.claim, TwinRegistry::Claim::Wait);
        QCOMPARE(b.standIn, QStringLiteral("a"));
        // Another twin's result does not settle the waiting ones; the stand-in's does.
        QVERIFY(
            twins.settle(QStringLiteral("h"), QStringLiteral("b"), measured(QStringLiteral("b"))).isEmpty());
        const QList<SearchJob> waiting =
            twins.settle(QStringLiteral("h"), QStringLiteral("a"), measured(QStringLiteral("a")));
        QCOMPARE(waiting.size(), 1);
        QCOMPARE(waiting.first().candidateId, QStringLiteral("b"));
        evaluations.insert(QStringLiteral("a"), measured(QStringLiteral("a")));
        const TwinRegistry::Claimed c =
            twins.claim(job(QStringLiteral("c")), QStringLiteral("h"), evaluations);
        QCOMPARE(c.claim, TwinRegistry::Claim::Reuse);
        QCOMPARE(c.standIn, QStringLiteral("a"));
    }
    void aHostFailureHandsTheSourceOn()
    {
        TwinRegistry twins;
        const QHash<QString, Evaluation> none;
        twins.claim(job(QStringLiteral("a")), QStringLiteral("h"), none);
        twins.claim(job(QStringLiteral("b")), QStringLiteral("h"), none);
        twins.claim(job(QStringLiteral("c")), QStringLiteral("h"), none);
        const QList<SearchJob> waiting = twins.settle(QStringLiteral("h"), QStringLiteral("a"),
                                                      measured(QStringLiteral("a"), EvalStatus::InfraError));
        QCOMPARE(waiting.size(), 2);
        QVERIFY(!twins.standsFor(QStringLiteral("h"), QStringLiteral("a")));
        // The first waiting twin is measured itself; the next waits for it.
        QCOMPARE(twins.claim(waiting.at(0), QStringLiteral("h"), none).claim, TwinRegistry::Claim::Measure);
        QCOMPARE(twins.claim(waiting.at(1), QStringLiteral("h"), none).claim, TwinRegistry::Claim::Wait);
    }
    void withoutASourceEveryKernelIsMeasured()
    {
        TwinRegistry twins;
        const QHash<QString, Evaluation> none;
        QCOMPARE(twins.claim(job(QStringLiteral("a")), QString(), none).claim, TwinRegistry::Claim::Measure);
        QCOMPARE(twins.claim(job(QStringLiteral("b")), QString(), none).claim, TwinRegistry::Claim::Measure);
    }
    void noteMeasuredKeepsOnlyOwnMeasurements()
    {
        TwinRegistry twins;
        Evaluation reused = measured(QStringLiteral("x"));
        reused.reusedFrom = QStringLiteral("y");
        twins.noteMeasured(QStringLiteral("h"), QStringLiteral("x"), reused, true);
        twins.noteMeasured(QStringLiteral("h"), QStringLiteral("z"),
                           measured(QStringLiteral("z"), EvalStatus::InfraError), true);
        QVERIFY(!twins.standsFor(QStringLiteral("h"), QStringLiteral("x")));
        QVERIFY(!twins.standsFor(QStringLiteral("h"), QStringLiteral("z")));
        twins.noteMeasured(QStringLiteral("h"), QStringLiteral("a"), measured(QStringLiteral("a")), false);
        twins.noteMeasured(QStringLiteral("h"), QStringLiteral("b"), measured(QStringLiteral("b")), false);
        QVERIFY(twins.standsFor(QStringLiteral("h"), QStringLiteral("a"))); // the first stays
        twins.noteMeasured(QStringLiteral("h"), QStringLiteral("b"), measured(QStringLiteral("b")), true);
        QVERIFY(twins.standsFor(QStringLiteral("h"), QStringLiteral("b"))); // a resume's later one wins
        twins.clear();
        QVERIFY(!twins.standsFor(QStringLiteral("h"), QStringLiteral("b")));
    }
};

QTEST_GUILESS_MAIN(TestTwinRegistry)
#include "tst_twinregistry.moc"
