// Cascade on its own: how results change an iteration's children, which twins a check stands for, and one
// check per source.
#include "search/cascade.h"

#include <QTest>

namespace {
Evaluation timed(double ms)
{
    Evaluation e;
    e.status = EvalStatus::Ok;
    e.latencyMeanMs = ms;
    return e;
}
Evaluation checked(double ms, bool correct)
{
    Evaluation e = timed(ms);
    e.correct = correct;
    return e;
}
Candidate candidate(const QString &id, const QString &hash)
{
    Candidate c;
    c.id = id;
    c.sourceHash = hash;
    return c;
}
SearchJob job(const QString &id, bool check)
{
    SearchJob j;
    j.candidateId = id;
    j.beamParentId = QStringLiteral("p");
    j.check = check;
    return j;
}
} // namespace

class TestCascade : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void keepReplacesTheTimedChild()
    {
        QList<ScoredKernel> children;
        const Candidate a = candidate(QStringLiteral("a"), QStringLiteral("h"));
        Cascade::keep(children, job(a.id, false), a, timed(1.0));
        QCOMPARE(children.size(), 1);
        QVERIFY(Selection::isUnchecked(children.first().evaluation));
        Cascade::keep(children, job(a.id, true), a, checked(1.0, true));
        QCOMPARE(children.size(), 1);
        QVERIFY(Selection::isUsable(children.first().evaluation));
        // A failed check drops it; so does an unchecked answer to a check.
        Cascade::keep(children, job(a.id, true), a, checked(1.0, false));
        QVERIFY(children.isEmpty());
        Cascade::keep(children, job(a.id, false), a, timed(1.0));
        Cascade::keep(children, job(a.id, true), a, timed(1.0));
        QVERIFY(children.isEmpty());
    }
    void uncheckedTwinsShareTheSource()
    {
        QList<ScoredKernel> children{
            {QStringLiteral("a"), QStringLiteral("p"), QStringLiteral("h"), checked(1, true)},
            {QStringLiteral("b"), QStringLiteral("p"), QStringLiteral("h"), timed(1)},
            {QStringLiteral("c"), QStringLiteral("p"), QStringLiteral("g"), timed(1)}};
        const QList<ScoredKernel> twins =
            Cascade::uncheckedTwins(children, candidate(QStringLiteral("a"), QStringLiteral("h")));
        QCOMPARE(twins.size(), 1);
        QCOMPARE(twins.first().candidateId, QStringLiteral("b"));
        QVERIFY(Cascade::uncheckedTwins(children, candidate(QStringLiteral("x"), QString())).isEmpty());
    }
    void oneCheckPerSourceInIdOrder()
    {
        SearchConfig config;
        config.beamWidth = 4;
        const QHash<QString, Candidate> candidates;
        const QList<ScoredKernel> beam{
            {QStringLiteral("p"), QString(), QStringLiteral("p"), checked(10, true)}};
        QList<ScoredKernel> children{
            {QStringLiteral("c"), QStringLiteral("p"), QStringLiteral("g"), timed(2)},
            {QStringLiteral("b"), QStringLiteral("p"), QStringLiteral("h"), timed(1)},
            {QStringLiteral("a"), QStringLiteral("p"), QStringLiteral("h"), timed(1)}};
        const QList<ScoredKernel> checks =
            Cascade::toCheck(beam, children, {&config, false, {}, &candidates});
        QCOMPARE(children.first().candidateId,
                 QStringLiteral("a")); // sorted, so ties never depend on arrival
        QStringList ids;
        for (const ScoredKernel &k : checks)
            ids << k.candidateId;
        QCOMPARE(ids, (QStringList{QStringLiteral("a"), QStringLiteral("c")}));
    }
};

QTEST_GUILESS_MAIN(TestCascade)
#include "tst_cascade.moc"
