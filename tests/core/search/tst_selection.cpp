#include "search/selection.h"

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
};

QTEST_GUILESS_MAIN(TestSelection)
#include "tst_selection.moc"
