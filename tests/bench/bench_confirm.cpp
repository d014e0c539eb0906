#include "optimizerig.h"
#include "store/sessionstore.h"

#include <QTest>

// Benchmark (label bench): how many device evaluations "simulate first, confirm on hardware" (issue 34) saves.
// The same scripted session (OptimizeRig with tests/fixtures/optimize/silu_current, seed 7, B=2 N=3 K=1 T=2) is
// run three times: every evaluation on the Trainium STAND-IN (tests/fixtures/runner/fake_nki_current); nkisim
// with confirmation on the stand-in in a fresh workspace (no calibration: Calibration::defaultMargin); and
// again in that workspace, whose first session calibrated nkisim against the stand-in. It prints, from the
// rows, the runs made on the device and on nkisim (twins that took over a measurement made none), the
// candidates left without a device number, and the best kernel's device latency. Figures only.
class BenchConfirm : public QObject
{
    Q_OBJECT

    using Workspace = OptimizeRig::Workspace;
    using Run = OptimizeRig::Run;
    OptimizeRig m_rig;
    ScriptedAgents m_silu;

    static QString baseline()
    {
        return QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline_current.py");
    }

    Run optimize(const Workspace &w, const QStringList &extra)
    {
        m_rig.useAgents(m_silu);
        QStringList args = OptimizeRig::optimizeArgs(QStringLiteral("silu"), 7);
        args << QStringLiteral("--kernel") << baseline() << extra;
        return m_rig.cli(w, args, 1800000);
    }

    // Runs made, from the rows: on the device and on nkisim, every run index (the best's re-measurement
    // included), leaving out evaluations taken over from a twin (no run was made for them).
    static void print(const char *what, const Workspace &w, const Run &r)
    {
        const QJsonObject done = r.event(QStringLiteral("finished"));
        const QString session = r.event(QStringLiteral("session")).value(QStringLiteral("session")).toString();
        SessionStore store(w.db());
        int deviceRuns = 0, nkisimRuns = 0, candidates = 0;
        if (store.open())
            for (const Candidate &c : store.candidates(session)) {
                ++candidates;
                for (int run : {0, SessionStore::remeasureRun, SessionStore::simulatedRun})
                    if (const auto e = store.evaluation(c.id, run); e && e->reusedFrom.isEmpty())
                        (e->onHardware() ? deviceRuns : nkisimRuns) += 1;
            }
        qInfo("%-34s candidates %3d  device runs %3d  nkisim runs %3d  candidates without a device number %3d  "
              "best %.4f ms  (exit %d)",
              what, candidates, deviceRuns, nkisimRuns,
              done.value(QStringLiteral("device_evaluations_saved")).toInt(),
              done.value(QStringLiteral("best_latency_ms")).toDouble(), r.exitCode);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_rig.start(error), qPrintable(error));
        QVERIFY2(m_silu.load(QStringLiteral(ACCELOPT_TEST_FIXTURES "/optimize/silu_current"), baseline(), error),
                 qPrintable(error));
    }

    void deviceEvaluationsWithAndWithoutConfirmation()
    {
        Workspace allDevice, twoStage;
        for (Workspace *w : {&allDevice, &twoStage}) {
            m_rig.writeLlmConfig(*w);
            OptimizeRig::addNeuronStandIn(*w, QStringLiteral("trn-standin"));
        }
        const QStringList confirm{QStringLiteral("--confirm-on"), QStringLiteral("trn-standin")};
        const Run device = optimize(allDevice, {QStringLiteral("--host"), QStringLiteral("trn-standin")});
        const Run fresh = optimize(twoStage, confirm);
        const Run calibrated = optimize(twoStage, confirm);
        print("all on the stand-in device", allDevice, device);
        print("nkisim + confirm (no calibration)", twoStage, fresh);
        print("nkisim + confirm (calibrated)", twoStage, calibrated);
        QCOMPARE(device.exitCode, 0);
        QCOMPARE(fresh.exitCode, 0);
        QCOMPARE(calibrated.exitCode, 0);
    }
};

QTEST_GUILESS_MAIN(BenchConfirm)
#include "bench_confirm.moc"
