#include "search/selection.h"

#include <QRandomGenerator>
#include <QTest>

#include <cmath>

// Selection on hand-made evaluations: elitism, distinctness, the noise rule, experience pairs.
class TestSelection : public QObject
{
    Q_OBJECT

    static Evaluation eval(double latencyMs, double spread = 0.0,
                           const QString &status = QStringLiteral("ok"), bool correct = true)
    {
        Evaluation e;
        e.status = *EvalStatuses::fromName(status);
        if (status == QLatin1String("ok") || status == QLatin1String("incorrect")) {
            e.correct = correct && status == QLatin1String("ok");
            e.latencyMeanMs = latencyMs;
        }
        e.relSpread = spread;
        return e;
    }
    static ScoredKernel k(const QString &id, const QString &parent, const QString &hash, const Evaluation &e)
    {
        return ScoredKernel{id, parent, hash, e};
    }
    static QStringList ids(const QList<ScoredKernel> &beam)
    {
        QStringList out;
        for (const ScoredKernel &s : beam)
            out << s.candidateId;
        return out;
    }

private Q_SLOTS:
    void usable()
    {
        QVERIFY(Selection::isUsable(eval(1.0)));
        QVERIFY(!Selection::isUsable(eval(1.0, 0, QStringLiteral("incorrect"), false)));
        QVERIFY(!Selection::isUsable(eval(1.0, 0, QStringLiteral("compile_error"))));
        Evaluation unknown = eval(1.0);
        unknown.correct.reset(); // a timing-only run says nothing about correctness
        QVERIFY(!Selection::isUsable(unknown));
    }
    void fasterOnlyBeyondTheNoise()
    {
        // Floor 1 %: 0.985 * 1.01 = 0.99485 < 1 -> faster; 0.995 * 1.01 > 1 -> not.
        QVERIFY(Selection::isFaster(eval(0.985), eval(1.0)));
        QVERIFY(!Selection::isFaster(eval(0.995), eval(1.0)));
        // The larger spread of the two counts: 5 % noise on the parent hides a 3 % gain.
        QVERIFY(!Selection::isFaster(eval(0.97, 0.0), eval(1.0, 0.05)));
        QVERIFY(!Selection::isFaster(eval(0.97, 0.05), eval(1.0, 0.0)));
        QVERIFY(Selection::isFaster(eval(0.90, 0.05), eval(1.0, 0.02)));
        QCOMPARE(Selection::relativeNoise(eval(1, 0.002), eval(1, 0.003)), 0.01);
        QCOMPARE(Selection::relativeNoise(eval(1, 0.2), eval(1, 0.003)), 0.2);
        // Unusable kernels are never faster.
        QVERIFY(!Selection::isFaster(eval(0.1, 0, QStringLiteral("incorrect"), false), eval(1.0)));
    }
    void nextBeamIsElitistAndDistinct()
    {
        const QList<ScoredKernel> parents{k("p1", {}, "hp1", eval(10)), k("p2", {}, "hp2", eval(20))};
        const QList<ScoredKernel> children{
            k("c1", "p1", "hc1", eval(12)),                                       // slower than p1
            k("c2", "p2", "hp1", eval(5)),                                        // same source as p1
            k("c3", "p2", "hc3", eval(8)),                                        // fastest distinct
            k("c4", "p1", "hc4", eval(1, 0, QStringLiteral("incorrect"), false)), // wrong
            k("c5", "p1", "hc5", eval(2, 0, QStringLiteral("compile_error"))),    // broken
            k("c6", "p2", "hc3", eval(7)),                                        // same source as c3
        };
        QCOMPARE(ids(Selection::nextBeam(parents, children, 2)), (QStringList{"c3", "p1"}));
        QCOMPARE(ids(Selection::nextBeam(parents, children, 4)), (QStringList{"c3", "p1", "c1", "p2"}));
        QCOMPARE(ids(Selection::nextBeam(parents, children, 10)).size(), 4);
        // Every child slower or broken: the parents stay (elitism).
        const QList<ScoredKernel> bad{k("c1", "p1", "hc1", eval(12)),
                                      k("c5", "p1", "hc5", eval(2, 0, QStringLiteral("timeout")))};
        QCOMPARE(ids(Selection::nextBeam(parents, bad, 1)), (QStringList{"p1"}));
        QVERIFY(Selection::nextBeam({}, {}, 3).isEmpty());
    }
    void noiseLevelChildDoesNotDisplaceItsParent()
    {
        const QList<ScoredKernel> parents{k("p", {}, "hp", eval(1.0, 0.02))};
        const QList<ScoredKernel> children{k("noise", "p", "hn", eval(0.99, 0.0)),
                                           k("real", "p", "hr", eval(0.9, 0.0))};
        QCOMPARE(ids(Selection::nextBeam(parents, children, 1)), (QStringList{"real"}));
        QCOMPARE(ids(Selection::nextBeam(parents, children, 3)), (QStringList{"real", "p", "noise"}));
        QCOMPARE(ids(Selection::nextBeam(parents, {children.first()}, 1)), (QStringList{"p"}));
    }
    void experiencePairsKeepSignAndRank()
    {
        const QList<ScoredKernel> parents{k("p1", {}, "hp1", eval(10)), k("p2", {}, "hp2", eval(20))};
        const QList<ScoredKernel> children{
            k("a", "p1", "ha", eval(5)),   // 2.0x positive
            k("b", "p1", "hb", eval(9.8)), // 1.02x: below gain
            k("c", "p1", "hc", eval(9.6)), // 1.0417x: positive (>= 1.04)
            k("d", "p2", "hd", eval(40)),  // 0.5x negative
            k("e", "p2", "he", eval(21)),  // 0.952x: above loss
            k("f", "p2", "hp2", eval(10)), // same source as parent: skipped
            k("g", "p2", "hd", eval(41)),  // same child source again: skipped
            k("h", "p2", "hh", eval(1, 0, QStringLiteral("incorrect"), false)),
            k("i", "px", "hi", eval(1)), // unknown parent
        };
        const auto pairs = Selection::experiencePairs(parents, children, 1.04, 1.0 / 1.15, 8);
        QCOMPARE(pairs.size(), 3);
        QCOMPARE(pairs[0].after.candidateId, QStringLiteral("a"));
        QCOMPARE(pairs[0].speedup, 2.0);
        QCOMPARE(pairs[1].after.candidateId, QStringLiteral("d"));
        QCOMPARE(pairs[1].before.candidateId, QStringLiteral("p2")); // not flipped
        QCOMPARE(pairs[1].speedup, 0.5);
        QVERIFY(pairs[1].isNegative());
        QCOMPARE(pairs[2].after.candidateId, QStringLiteral("c"));
        QVERIFY(!pairs[2].isNegative());
        // TopK caps the count, keeping the strongest.
        const auto top1 = Selection::experiencePairs(parents, children, 1.04, 1.0 / 1.15, 1);
        QCOMPARE(top1.size(), 1);
        QCOMPARE(top1[0].after.candidateId, QStringLiteral("a"));
        QVERIFY(Selection::experiencePairs(parents, children, 1.04, 1.0 / 1.15, 0).isEmpty());
        // Exactly at the loss threshold counts as negative.
        const auto edge = Selection::experiencePairs({k("p", {}, "hp", eval(1.0))},
                                                     {k("s", "p", "hs", eval(1.15))}, 1.04, 1.0 / 1.15, 8);
        QCOMPARE(edge.size(), 1);
    }

    void cascadeChecksWhatCouldMatter()
    {
        // Parents at 1.0 and 0.9; children timed only. The fastest two unchecked would enter a beam of 2; a
        // slow one makes a negative experience; the rest matter to nothing.
        QList<ScoredKernel> parents{k(QStringLiteral("p1"), {}, QStringLiteral("hp1"), eval(1.0)),
                                    k(QStringLiteral("p2"), {}, QStringLiteral("hp2"), eval(0.9))};
        auto timed = [](double ms) {
            Evaluation e = eval(ms);
            e.correct.reset();
            return e;
        };
        QList<ScoredKernel> children{k(QStringLiteral("a"), QStringLiteral("p1"), QStringLiteral("ha"), timed(0.5)),
                                     k(QStringLiteral("b"), QStringLiteral("p1"), QStringLiteral("hb"), timed(0.6)),
                                     k(QStringLiteral("c"), QStringLiteral("p1"), QStringLiteral("hc"), timed(0.97)),
                                     k(QStringLiteral("d"), QStringLiteral("p2"), QStringLiteral("hd"), timed(2.0))};
        QVERIFY(Selection::isUnchecked(children.at(0).evaluation));
        QVERIFY(!Selection::isUsable(children.at(0).evaluation));
        Selection::CascadeScope scope;
        scope.width = 2;
        QCOMPARE(Selection::toCheck(parents, children, scope), (QStringList{"a", "b"}));
        scope.experiences = true;
        scope.topK = 8; // c (1.03x) is inside both thresholds; d (0.45x) is a negative experience
        QCOMPARE(Selection::toCheck(parents, children, scope), (QStringList{"a", "b", "d"}));
        // a turned out incorrect: the next fastest is a contender now.
        children[0].evaluation.correct = false;
        children[0].evaluation.status = EvalStatus::Incorrect;
        scope.experiences = false;
        QCOMPARE(Selection::toCheck(parents, children, scope), (QStringList{"b"}));
        children[1].evaluation = children.at(0).evaluation; // b too: c (0.97, faster than p1) joins p2
        QCOMPARE(Selection::toCheck(parents, children, scope), (QStringList{"c"}));
    }

    void cascadeEndsWhereCheckingEverythingEnds()
    {
        // Random iterations: checking what toCheck names, round after round, gives the beam, the experiences
        // and the plans' hits that checking every child gives.
        QRandomGenerator rng(20261201);
        for (int trial = 0; trial < 400; ++trial) {
            QList<ScoredKernel> parents;
            const int beamWidth = 1 + int(rng.bounded(4));
            for (int i = 0; i < beamWidth; ++i)
                parents << k(QStringLiteral("p%1").arg(i), {}, QStringLiteral("hp%1").arg(i),
                             eval(0.5 + rng.generateDouble(), 0.02 * rng.generateDouble()));
            QList<ScoredKernel> truth, timed;
            QHash<QString, QString> planOf;
            QHash<QString, std::pair<Evaluation, Evaluation>> measured; // hash -> (truth, timed)
            const int count = int(rng.bounded(30));
            for (int i = 0; i < count; ++i) {
                const QString id = QStringLiteral("c%1").arg(i, 3, 10, QLatin1Char('0'));
                const QString parent = parents.at(int(rng.bounded(beamWidth))).candidateId;
                // a few children share a source (hash) with another, some with a parent
                const QString hash = rng.bounded(6) == 0 ? QStringLiteral("hp0")
                                     : rng.bounded(5) == 0 ? QStringLiteral("hshared")
                                                           : QStringLiteral("h") + id;
                // the search measures a source once: a twin shares its measurement (a parent's is checked)
                Evaluation e = eval(0.3 + 1.5 * rng.generateDouble(), 0.03 * rng.generateDouble());
                if (rng.bounded(4) == 0) {
                    e.correct = false;
                    e.status = EvalStatus::Incorrect;
                }
                Evaluation t = e;
                t.status = EvalStatus::Ok;
                t.correct.reset();
                if (hash == QLatin1String("hp0"))
                    e = t = parents.at(0).evaluation;
                else if (measured.contains(hash))
                    std::tie(e, t) = measured.value(hash);
                measured.insert(hash, {e, t});
                truth << k(id, parent, hash, e);
                planOf.insert(id, parent + QStringLiteral("/plan") + QString::number(rng.bounded(3)));
                timed << k(id, parent, hash, t);
            }
            Selection::CascadeScope scope;
            scope.width = beamWidth;
            scope.experiences = true;
            scope.topK = int(rng.bounded(5));
            scope.planOf = planOf;
            for (const QString &plan : std::as_const(planOf))
                if (rng.bounded(2) == 0)
                    scope.hitPlans.insert(plan);
            int rounds = 0;
            for (QStringList next; !(next = Selection::toCheck(parents, timed, scope)).isEmpty(); ++rounds) {
                QVERIFY(rounds < 40);
                for (const ScoredKernel &t : std::as_const(timed))
                    QVERIFY(!next.contains(t.candidateId) || Selection::isUnchecked(t.evaluation));
                for (int i = 0; i < timed.size(); ++i)
                    if (next.contains(timed.at(i).candidateId)) {
                        for (int j = 0; j < timed.size(); ++j) // the check settles its twins too
                            if (timed.at(j).sourceHash == timed.at(i).sourceHash)
                                timed[j].evaluation = truth.at(j).evaluation;
                    }
            }
            QCOMPARE(ids(Selection::nextBeam(parents, timed, beamWidth)),
                     ids(Selection::nextBeam(parents, truth, beamWidth)));
            auto pairs = [&](const QList<ScoredKernel> &children) {
                QStringList out;
                for (const ExperiencePair &p :
                     Selection::experiencePairs(parents, children, scope.gain, scope.loss, scope.topK))
                    out << p.before.candidateId + QStringLiteral(">") + p.after.candidateId;
                return out;
            };
            QCOMPARE(pairs(timed), pairs(truth));
            auto hits = [&](const QList<ScoredKernel> &children) {
                QSet<QString> out;
                for (const ScoredKernel &c : children)
                    for (const ScoredKernel &p : std::as_const(parents))
                        if (p.candidateId == c.parentId && Selection::isFaster(c.evaluation, p.evaluation))
                            out.insert(planOf.value(c.candidateId));
                return out & scope.hitPlans;
            };
            QCOMPARE(hits(timed), hits(truth));
        }
    }
};

QTEST_GUILESS_MAIN(TestSelection)
#include "tst_selection.moc"
