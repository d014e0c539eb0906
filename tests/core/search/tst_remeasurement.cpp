// Remeasurement on its own: the request it makes, and which kernels a failed re-measurement demotes.
#include "search/remeasurement.h"

#include <QTest>

namespace {
Candidate candidate(const QString &id, const QString &hash)
{
    Candidate c;
    c.id = id;
    c.sourceHash = hash;
    return c;
}
Evaluation result(EvalStatus status, std::optional<bool> correct)
{
    Evaluation e;
    e.status = status;
    e.correct = correct;
    e.latencyMeanMs = 1.0;
    return e;
}
} // namespace

class TestRemeasurement : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void requestIsSmallWithSeedsFixedBySessionAndKernel()
    {
        EvalRequest base;
        base.size = QStringLiteral("full");
        base.kernelName = QStringLiteral("k");
        const EvalRequest a = Remeasurement::request(base, 7, QStringLiteral("h"));
        QCOMPARE(a.size, QStringLiteral("small"));
        QCOMPARE(a.kernelName, QStringLiteral("k"));
        QCOMPARE(a.seeds.size(), Remeasurement::seeds);
        QVERIFY(a.seeds.at(0) != a.seeds.at(1));
        QCOMPARE(Remeasurement::request(base, 7, QStringLiteral("h")).seeds, a.seeds);
        QVERIFY(Remeasurement::request(base, 8, QStringLiteral("h")).seeds != a.seeds);
        QVERIFY(Remeasurement::request(base, 7, QStringLiteral("g")).seeds != a.seeds);
    }
    void aFailureDemotesEveryKernelOfItsSource()
    {
        Remeasurement r;
        r.started(5, EvalRequest{}, StopReason::Iterations);
        QCOMPARE(r.endReason(), StopReason::Iterations);
        QVERIFY(!r.landed(candidate(QStringLiteral("a"), QStringLiteral("h")), result(EvalStatus::Ok, true)));
        QVERIFY(r.isDone(QStringLiteral("a")));
        QVERIFY(r.landed(candidate(QStringLiteral("b"), QStringLiteral("g")), result(EvalStatus::Ok, false)));
        QVERIFY(r.isDemoted(candidate(QStringLiteral("twin of b"), QStringLiteral("g"))));
        QVERIFY(!r.isDemoted(candidate(QStringLiteral("a"), QStringLiteral("h"))));
        // Without a source hash a kernel is known by its id.
        QVERIFY(r.landed(candidate(QStringLiteral("c"), QString()), result(EvalStatus::Ok, false)));
        QVERIFY(r.isDemoted(candidate(QStringLiteral("c"), QString())));
        QVERIFY(!r.isDemoted(candidate(QStringLiteral("d"), QString())));
    }
    void restoreFromTheStore()
    {
        Remeasurement r;
        const QHash<QString, Candidate> candidates{
            {QStringLiteral("a"), candidate(QStringLiteral("a"), QStringLiteral("h"))},
            {QStringLiteral("b"), candidate(QStringLiteral("b"), QStringLiteral("g"))}};
        r.restore({{QStringLiteral("a"), result(EvalStatus::Ok, true)},
                   {QStringLiteral("b"), result(EvalStatus::Ok, false)}},
                  candidates);
        QVERIFY(r.isDone(QStringLiteral("a")) && r.isDone(QStringLiteral("b")));
        QVERIFY(!r.isDemoted(candidates.value(QStringLiteral("a"))));
        QVERIFY(r.isDemoted(candidates.value(QStringLiteral("b"))));
        r.clear();
        QVERIFY(!r.isDone(QStringLiteral("a")));
        QVERIFY(!r.isDemoted(candidates.value(QStringLiteral("b"))));
    }
};

QTEST_GUILESS_MAIN(TestRemeasurement)
#include "tst_remeasurement.moc"
