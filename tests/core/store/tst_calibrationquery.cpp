// Calibration (issue 34) on a real workspace file: kernels evaluated on nkisim in some sessions and on
// hardware hosts in others, paired by source hash, against numbers computed by hand.
#include "model/calibration.h"
#include "model/kernelnormalizer.h"
#include "store/calibrationquery.h"
#include "store/sessionstore.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

class TestCalibrationQuery : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<SessionStore> m_store;

    static QString kernel(int n) { return QStringLiteral("def kernel(x):\n    return x + %1\n").arg(n); }

    static Evaluation run(double ms, const QString &backend, const QString &host, const QString &bound,
                          const QString &status = QStringLiteral("ok"))
    {
        Evaluation e;
        e.status = *EvalStatuses::fromName(status);
        e.correct = status == QStringLiteral("ok");
        e.latencyMeanMs = ms;
        e.bound = bound;
        e.backend = backend;
        e.host = host;
        e.sdk =
            backend == QStringLiteral("sim") ? QStringLiteral("nkisim") : QStringLiteral("Neuron SDK 2.33");
        return e;
    }

    // One session whose baseline is kernel(kernels[0]) and whose children are the others; each gets `runs`'
    // evaluation at the same index (none when the latency is 0).
    void session(const QString &backend, const QString &host, const QList<int> &kernels,
                 const QList<Evaluation> &runs, const QString &reusedFromFirst = {})
    {
        SessionRecord s;
        s.taskName = QStringLiteral("add");
        s.task = QJsonObject{{QStringLiteral("name"), QStringLiteral("add")}};
        s.target = QStringLiteral("trn1");
        s.backend = backend;
        s.host = host;
        QVERIFY(m_store->createSession(s));
        Candidate base;
        base.sessionId = s.id;
        base.origin = Candidate::Origin::Baseline;
        base.source = kernel(kernels.first());
        QVERIFY(m_store->addCandidate(base));
        QList<Candidate> ids{base};
        for (int i = 1; i < kernels.size(); ++i) {
            Candidate c;
            c.sessionId = s.id;
            c.iteration = 1;
            c.parentId = base.id;
            c.planIndex = i;
            c.sampleIndex = 0;
            c.source = kernel(kernels.at(i));
            QVERIFY(m_store->addCandidate(c));
            ids.append(c);
        }
        for (int i = 0; i < runs.size(); ++i) {
            Evaluation e = runs.at(i);
            if (!reusedFromFirst.isEmpty() && i > 0 && kernels.at(i) == kernels.first())
                e.reusedFrom = ids.first().id;
            QVERIFY2(m_store->addEvaluation(ids.at(i).id, e), qPrintable(m_store->lastError()));
        }
    }

private Q_SLOTS:
    void init()
    {
        m_store = std::make_unique<SessionStore>(m_dir.filePath(QStringLiteral("ws.sqlite")));
        QVERIFY2(m_store->open(), qPrintable(m_store->lastError()));
        const QString sim = QStringLiteral("sim"), neuron = QStringLiteral("neuron");
        const QString memory = QStringLiteral("memory"), matmul = QStringLiteral("matmul");
        // nkisim, session 1: kernels 1, 2, 3, 4, and kernel 1 again as a twin (a copy: left out)
        session(sim, QStringLiteral("local#0"), {1, 2, 3, 4, 1},
                {run(0.010, sim, QStringLiteral("local#0"), memory),
                 run(0.020, sim, QStringLiteral("local#0"), memory),
                 run(0.100, sim, QStringLiteral("local#1"), matmul),
                 run(0.050, sim, QStringLiteral("local#1"), memory),
                 run(0.010, sim, QStringLiteral("local#0"), memory)},
                QStringLiteral("twin"));
        // nkisim, session 2: kernel 2 again (its predictions: 0.020 and 0.022, median 0.021); kernel 5
        session(sim, QStringLiteral("local#0"), {2, 5},
                {run(0.022, sim, QStringLiteral("local#0"), memory),
                 run(0.040, sim, QStringLiteral("local#0"), memory)});
        // hardware trn-a: kernels 1 and 2; kernel 5 is wrong there (no pair)
        session(neuron, QStringLiteral("trn-a"), {1, 2, 5},
                {run(0.018, neuron, QStringLiteral("trn-a#0"), memory),
                 run(0.030, neuron, QStringLiteral("trn-a#1"), memory),
                 run(0.045, neuron, QStringLiteral("trn-a#0"), memory, QStringLiteral("incorrect"))});
        // hardware trn-b: kernels 1 and 3 (kernel 4 was only simulated)
        session(neuron, QStringLiteral("trn-b"), {1, 3},
                {run(0.020, neuron, QStringLiteral("trn-b#0"), memory),
                 run(0.105, neuron, QStringLiteral("trn-b#1"), matmul)});
    }

    void cleanup()
    {
        m_store.reset();
        QFile::remove(m_dir.filePath(QStringLiteral("ws.sqlite")));
    }

    void pairsAndGroupsByHand()
    {
        CalibrationQuery query(m_store->database());
        const QList<CalibrationRun> runs = query.runs();
        QVERIFY2(query.lastError().isEmpty(), qPrintable(query.lastError()));
        QCOMPARE(runs.size(), 10); // 12 stored, minus the twin's copy and the wrong kernel's run
        const Calibration c = Calibration::fromRuns(runs);
        QCOMPARE(c.pairs().size(), 3); // kernels 1, 2, 3; 4 only simulated, 5 never right on hardware
        const CalibrationPair &k1 = c.pairs().at(0);
        QCOMPARE(k1.sourceHash, KernelNormalizer::hash(kernel(1)));
        QCOMPARE(k1.predictedMs, 0.010);
        QCOMPARE(k1.measuredMs, 0.019); // median of trn-a's 0.018 and trn-b's 0.020
        QCOMPARE(k1.measuredRuns, 2);
        QCOMPARE(k1.host, QStringLiteral("trn-a, trn-b"));
        QVERIFY(qFuzzyCompare(k1.error(), (0.010 - 0.019) / 0.019)); // -47.4 %
        const CalibrationPair &k2 = c.pairs().at(1);
        QVERIFY(qFuzzyCompare(k2.predictedMs, 0.021)); // median of 0.020 and 0.022
        QCOMPARE(k2.predictedRuns, 2);
        QVERIFY(qFuzzyCompare(k2.error(), -0.3)); // (0.021 - 0.030) / 0.030
        const CalibrationPair &k3 = c.pairs().at(2);
        QCOMPARE(k3.kernelClass, QStringLiteral("matmul"));
        QVERIFY(qFuzzyCompare(k3.error(), (0.100 - 0.105) / 0.105));

        QCOMPARE(c.groups().size(), 2); // sorted by class: matmul, memory
        const CalibrationGroup mem = *c.group(QStringLiteral("memory"), QStringLiteral("trn1"));
        QCOMPARE(mem.kernels, 2);
        QVERIFY(qFuzzyCompare(mem.medianAbsError, (0.009 / 0.019 + 0.3) / 2.0));
        QVERIFY(qFuzzyCompare(mem.worstAbsError, 0.009 / 0.019));
        // ratios 1.9 and 0.030 / 0.021: nkisim's ranking of two memory kernels can be off by 1.9 / 1.4286 - 1
        QVERIFY(qFuzzyCompare(*mem.rankingMargin(), 1.9 / (0.030 / 0.021) - 1.0));
        QVERIFY(qFuzzyCompare(c.margin(QStringLiteral("memory"), QStringLiteral("trn1")), 0.33));
        // one matmul kernel: no spread measured yet, so the documented default
        QVERIFY(!c.group(QStringLiteral("matmul"), QStringLiteral("trn1"))->rankingMargin());
        QCOMPARE(c.margin(QStringLiteral("matmul"), QStringLiteral("trn1")), Calibration::defaultMargin);
        QCOMPARE(c.margin(QStringLiteral("vector"), QStringLiteral("trn2")), Calibration::defaultMargin);

        const QJsonObject json = c.toJson();
        QCOMPARE(json.value(QStringLiteral("pairs")).toArray().size(), 3);
        QCOMPARE(
            json.value(QStringLiteral("groups")).toArray().at(1).toObject().value(QStringLiteral("kernels")),
            2);
    }

    void oneHostOnly()
    {
        CalibrationQuery query(m_store->database());
        const Calibration c = Calibration::fromRuns(query.runs(), QStringLiteral("trn-a"));
        QCOMPARE(c.pairs().size(), 2); // kernel 3 was measured on trn-b only
        QCOMPARE(c.pairs().at(0).measuredMs, 0.018);
        QCOMPARE(c.pairs().at(0).host, QStringLiteral("trn-a"));
        QCOMPARE(c.groups().size(), 1);
        QCOMPARE(Calibration::fromRuns(query.runs(), QStringLiteral("nowhere")).pairs().size(), 0);
    }

    void medianOfEvenAndOdd()
    {
        QCOMPARE(Calibration::median({3.0, 1.0, 2.0}), 2.0);
        QCOMPARE(Calibration::median({4.0, 1.0, 2.0, 3.0}), 2.5);
        QCOMPARE(Calibration::median({}), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestCalibrationQuery)
#include "tst_calibrationquery.moc"
