#include "model/evaluation.h"

#include <QJsonDocument>
#include <QTest>

// Evaluation::fromJson: what the workbench takes from a runner's result line.
class TestEvaluation : public QObject
{
    Q_OBJECT

    static QJsonObject result(double latencyMs, double peakMs, double percent)
    {
        return QJsonDocument::fromJson(QStringLiteral(R"({"op":"result","id":"x","status":"ok","correct":true,
            "latency_ms":{"mean":%1,"min":%1,"max":%1,"p50":%1},
            "roofline":{"peak_ms":%2,"bound":"memory","percent_of_peak":%3}})")
                                           .arg(latencyMs)
                                           .arg(peakMs)
                                           .arg(percent)
                                           .toUtf8())
            .object();
    }

private Q_SLOTS:
    void aResultAbovePeakIsRejectedWithItsNumbers()
    {
        // A kernel that forged its latency inside the harness reported 852 % of peak; an old or foreign runner
        // may still pass such a result on. It is never a win.
        const Evaluation forged = Evaluation::fromJson(result(0.0012, 0.010224, 852.0));
        QCOMPARE(forged.status, EvalStatus::Rejected);
        QVERIFY(!forged.ok());
        QVERIFY2(forged.error.contains(QStringLiteral("852 % of peak")) &&
                     forged.error.contains(QStringLiteral("0.0012 ms")) &&
                     forged.error.contains(QStringLiteral("0.01022 ms")),
                 qPrintable(forged.error));
    }

    void aResultAtOrBelowPeakStands()
    {
        for (const double percent : {19.09, 100.0}) {
            const Evaluation e = Evaluation::fromJson(result(0.05, 0.05 * percent / 100.0, percent));
            QCOMPARE(e.status, EvalStatus::Ok);
            QVERIFY(e.error.isEmpty());
        }
    }

    void aFailedResultKeepsItsOwnStatus()
    {
        QJsonObject o = result(0.0012, 0.010224, 852.0);
        o.insert(QStringLiteral("status"), QStringLiteral("incorrect"));
        o.insert(QStringLiteral("error"), QStringLiteral("seed 1: mismatch"));
        const Evaluation e = Evaluation::fromJson(o);
        QCOMPARE(e.status, EvalStatus::Incorrect);
        QCOMPARE(e.error, QStringLiteral("seed 1: mismatch"));
    }
};

QTEST_GUILESS_MAIN(TestEvaluation)
#include "tst_evaluation.moc"
