// The two-stage evaluation's rule on its own (issue 34): which nkisim-timed children go to the hardware host,
// by hand, and over many generated iterations that the kernels it leaves "simulated only" never change the
// best kernel, against a device whose latency model is the Trainium stand-in's
// (tests/fixtures/runner/fake_nki_current/nrtpy/standin_latency.py: a launch overhead plus a per-engine
// scale).
#include "model/calibration.h"
#include "search/confirmation.h"

#include <QHash>
#include <QTest>

#include <algorithm>
#include <random>

namespace {
ScoredKernel kernel(const QString &id, double ms, const QString &bound = QStringLiteral("memory"),
                    const QString &parent = QStringLiteral("P"))
{
    ScoredKernel k;
    k.candidateId = id;
    k.parentId = id == QStringLiteral("P") ? QString() : parent;
    k.sourceHash = QStringLiteral("hash-") + id;
    k.evaluation.status = EvalStatus::Ok;
    k.evaluation.correct = true;
    k.evaluation.latencyMeanMs = ms;
    k.evaluation.bound = bound;
    return k;
}

Selection::CascadeScope scope(int width)
{
    Selection::CascadeScope s;
    s.width = width;
    return s;
}

Confirmation::Margin flat(double margin)
{
    return [margin](const ScoredKernel &) { return margin; };
}

// The stand-in device (standin_latency.py): 3 us launch overhead; DMA-bound kernels scaled by 1.8, compute-
// bound ones by 1.0 to 1.2 (by how much VectorE time they have).
double device(double nkisimMs, const QString &bound, double vectorShare)
{
    const double factor = bound == QStringLiteral("memory") ? 1.8 : 1.0 + 0.2 * vectorShare;
    return 0.003 + nkisimMs * factor;
}
} // namespace

class TestConfirmation : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void nearTheBeamByHand()
    {
        const QList<ScoredKernel> parents{kernel(QStringLiteral("P"), 10.0)};
        const QList<ScoredKernel> children{kernel(QStringLiteral("a"), 8.0),
                                           kernel(QStringLiteral("b"), 11.0),
                                           kernel(QStringLiteral("c"), 30.0)};
        // margin 50 %: b may be 11 / 1.5 = 7.3 ms on the device, ahead of P; c (20 ms at best) may not
        QCOMPARE(Confirmation::toConfirm(parents, children, {}, scope(2), flat(0.5)),
                 (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
        // margin 5 %: b is 10.5 ms at best, behind P: only a
        QCOMPARE(Confirmation::toConfirm(parents, children, {}, scope(2), flat(0.05)),
                 QStringList{QStringLiteral("a")});
        // one already measured on the device is not sent again
        QCOMPARE(Confirmation::toConfirm(parents, children, {QStringLiteral("a")}, scope(2), flat(0.5)),
                 QStringList{QStringLiteral("b")});
    }

    void thoseThatWouldMakeAnExperience()
    {
        const QList<ScoredKernel> parents{kernel(QStringLiteral("P"), 10.0)};
        QList<ScoredKernel> children{kernel(QStringLiteral("a"), 5.0), kernel(QStringLiteral("d"), 9.8),
                                     kernel(QStringLiteral("e"), 10.0)};
        children[2].sourceHash = QStringLiteral("hash-P"); // P again: nothing to learn
        Selection::CascadeScope s = scope(1);
        QCOMPARE(Confirmation::toConfirm(parents, children, {}, s, flat(0.05)), QStringList{QStringLiteral("a")});
        s.experiences = true;
        s.topK = 8;
        // d: 10 / 9.8 = 1.02x on nkisim, below the 1.04 gain, but within it once the 5 % margin is allowed
        QCOMPARE(Confirmation::toConfirm(parents, children, {}, s, flat(0.05)),
                 (QStringList{QStringLiteral("a"), QStringLiteral("d")}));
    }

    void anUncheckedChildCountsAsCorrectAFailedOneNever()
    {
        const QList<ScoredKernel> parents{kernel(QStringLiteral("P"), 10.0)};
        QList<ScoredKernel> children{kernel(QStringLiteral("a"), 5.0), kernel(QStringLiteral("f"), 4.0)};
        children[0].evaluation.correct.reset();
        children[1].evaluation.correct = false;
        QCOMPARE(Confirmation::toConfirm(parents, children, {}, scope(1), flat(0.0)),
                 QStringList{QStringLiteral("a")});
    }

    // Over generated iterations: the best of (beam parent + confirmed children) by device latency is the best
    // of all kernels by device latency, with the margin the calibration of the stand-in gives; and some
    // device evaluations are saved.
    void sameBestAsAllHardware()
    {
        std::mt19937 rng(34);
        std::uniform_real_distribution<double> ms(0.005, 0.5), share(0.0, 1.0);
        std::bernoulli_distribution memoryBound(0.5);
        const QString target = QStringLiteral("trn1");
        // Calibration from other kernels, including each kind's extremes (the overhead makes the ratio fall
        // with the latency, so the shortest and longest kernels bound it).
        QList<CalibrationRun> runs;
        int n = 0;
        const auto measure = [&](double nk, const QString &bound, double vec) {
            const QString hash = QStringLiteral("cal-%1").arg(n++);
            runs << CalibrationRun{hash,
                                   QStringLiteral("t"),
                                   target,
                                   bound,
                                   false,
                                   QStringLiteral("local"),
                                   QStringLiteral("nkisim"),
                                   nk};
            runs << CalibrationRun{hash,
                                   QStringLiteral("t"),
                                   target,
                                   bound,
                                   true,
                                   QStringLiteral("trn"),
                                   QStringLiteral("Neuron SDK 2.33"),
                                   device(nk, bound, vec)};
        };
        for (const QString &bound : {QStringLiteral("memory"), QStringLiteral("vector")})
            for (const double nk : {0.005, 0.5})
                for (const double vec : {0.0, 1.0})
                    measure(nk, bound, vec);
        const Calibration calibration = Calibration::fromRuns(runs);
        QVERIFY(calibration.margin(QStringLiteral("memory"), target) <
                calibration.margin(QStringLiteral("vector"), target));
        const Selection::CascadeScope s = scope(3);
        const Confirmation::Margin margin = [&](const ScoredKernel &k) {
            return calibration.margin(k.evaluation.bound, target);
        };

        int children = 0, confirmedTotal = 0;
        for (int trial = 0; trial < 300; ++trial) {
            QList<ScoredKernel> parents, kids;
            QHash<QString, double> onDevice;
            for (int i = 0; i < 3; ++i) {
                const QString bound = memoryBound(rng) ? QStringLiteral("memory") : QStringLiteral("vector");
                const QString id = QStringLiteral("P%1").arg(i);
                ScoredKernel p = kernel(id, ms(rng), bound);
                p.parentId.clear();
                onDevice.insert(id, device(*p.evaluation.latencyMeanMs, bound, share(rng)));
                parents << p;
            }
            for (int i = 0; i < 12; ++i) {
                const QString bound = memoryBound(rng) ? QStringLiteral("memory") : QStringLiteral("vector");
                const QString id = QStringLiteral("c%1").arg(i);
                const ScoredKernel c = kernel(id, ms(rng), bound, QStringLiteral("P%1").arg(i % 3));
                onDevice.insert(id, device(*c.evaluation.latencyMeanMs, bound, share(rng)));
                kids << c;
            }
            const QStringList confirm = Confirmation::toConfirm(parents, kids, {}, s, margin);
            children += int(kids.size());
            confirmedTotal += int(confirm.size());
            const auto bestOf = [&](const QStringList &ids) {
                return *std::min_element(ids.cbegin(), ids.cend(), [&](const QString &a, const QString &b) {
                    return onDevice.value(a) < onDevice.value(b);
                });
            };
            QStringList everything = onDevice.keys();
            QStringList twoStage = confirm;
            for (const ScoredKernel &p : parents)
                twoStage << p.candidateId;
            QCOMPARE(bestOf(twoStage), bestOf(everything));
        }
        // The figure: how many of the children's device evaluations the rule saved.
        qInfo("two-stage: %d of %d children confirmed on the device (%d saved)", confirmedTotal, children,
              children - confirmedTotal);
        QVERIFY(confirmedTotal < children);
    }
};

QTEST_GUILESS_MAIN(TestConfirmation)
#include "tst_confirmation.moc"
