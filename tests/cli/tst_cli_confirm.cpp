#include "memory/experiencestore.h"
#include "optimizerig.h"
#include "store/sessionstore.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QSet>
#include <QTest>

// "Simulate first, confirm on hardware" (issue 34) end to end: `accelopt optimize` with the scripted model
// (ScriptedLlmServer playing tests/fixtures/optimize/silu_current, current-API kernels of our own), nkisim on the
// local host as the search's host and the Trainium STAND-IN (tests/fixtures/runner/fake_nki_current: a current
// Neuron SDK whose device time is nkisim's through a per-engine scale and a launch overhead) as the confirm host.
// The same scripted session is run once with every evaluation on the stand-in device, and the two must report
// the same best kernel; the two-stage run must have saved device evaluations, and nothing it only simulated may
// be in the beam's best or the memory's experiences.
class TestCliConfirm : public QObject
{
    Q_OBJECT

    using Workspace = OptimizeRig::Workspace;
    using Run = OptimizeRig::Run;
    OptimizeRig m_rig;
    ScriptedAgents m_silu;

    static QString baseline() { return QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline_current.py"); }

    static void addStandInHost(const Workspace &w)
    {
        OptimizeRig::addNeuronStandIn(w, QStringLiteral("trn-standin"));
    }

    Run optimize(const Workspace &w, const QStringList &extra)
    {
        QStringList args = OptimizeRig::optimizeArgs(QStringLiteral("silu"), 7);
        args << QStringLiteral("--kernel") << baseline() << extra;
        return m_rig.cli(w, args, 900000);
    }

    static QString bestHash(const Workspace &w, const Run &r)
    {
        SessionStore store(w.db());
        if (!store.open())
            return QStringLiteral("cannot open: ") + store.lastError();
        const std::optional<Candidate> best = store.bestCandidate(r.event(QStringLiteral("session")).value(QStringLiteral("session")).toString());
        return best ? best->sourceHash : QStringLiteral("no best");
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_rig.start(error), qPrintable(error));
        QVERIFY2(m_silu.load(QStringLiteral(ACCELOPT_TEST_FIXTURES "/optimize/silu_current"), baseline(), error),
                 qPrintable(error));
    }

    void sameBestAsAllHardwareWithFewerDeviceEvaluations()
    {
        Workspace twoStage, allDevice;
        for (Workspace *w : {&twoStage, &allDevice}) {
            m_rig.writeLlmConfig(*w);
            addStandInHost(*w);
        }
        m_rig.useAgents(m_silu);
        const Run confirmed = optimize(twoStage, {QStringLiteral("--confirm-on"), QStringLiteral("trn-standin")});
        QVERIFY2(confirmed.exitCode == 0, qPrintable(confirmed.out.right(3000) + confirmed.err.right(3000)));
        m_rig.useAgents(m_silu);
        const Run device = optimize(allDevice, {QStringLiteral("--host"), QStringLiteral("trn-standin")});
        QVERIFY2(device.exitCode == 0, qPrintable(device.out.right(3000) + device.err.right(3000)));

        // The same best kernel, by its normalized source.
        const QString best = bestHash(twoStage, confirmed);
        QVERIFY2(best.size() > 16, qPrintable(best));
        QCOMPARE(best, bestHash(allDevice, device));

        // Device evaluations saved, and the counts agree with each other and with the rows.
        const QJsonObject done = confirmed.event(QStringLiteral("finished"));
        QCOMPARE(done.value(QStringLiteral("confirm_on")).toString(), QStringLiteral("trn-standin"));
        const int candidates = done.value(QStringLiteral("candidates")).toInt();
        const int onDevice = done.value(QStringLiteral("device_evaluations")).toInt();
        const int saved = done.value(QStringLiteral("device_evaluations_saved")).toInt();
        qInfo("two-stage: %d candidates, %d measured on the stand-in device, %d simulated only", candidates,
              onDevice, saved);
        QVERIFY2(saved > 0, qPrintable(QJsonDocument(done).toJson()));
        QVERIFY(onDevice > 0);
        QCOMPARE(saved, candidates - onDevice);
        QVERIFY(!device.event(QStringLiteral("finished")).contains(QStringLiteral("device_evaluations")));

        const QString sessionId = confirmed.event(QStringLiteral("session")).value(QStringLiteral("session")).toString();
        SessionStore store(twoStage.db());
        QVERIFY2(store.open(), qPrintable(store.lastError()));
        QSet<QString> onHardware, simulatedOnly;
        for (const Candidate &c : store.candidates(sessionId)) {
            const std::optional<Evaluation> e = store.evaluation(c.id);
            QVERIFY2(e, qPrintable(c.id));
            (e->onHardware() ? onHardware : simulatedOnly).insert(c.id);
            // A confirmed kernel keeps nkisim's run beside the device's.
            if (e->onHardware() && c.origin != Candidate::Origin::Baseline && e->reusedFrom.isEmpty()) {
                const std::optional<Evaluation> sim = store.evaluation(c.id, SessionStore::simulatedRun);
                QVERIFY2(sim && sim->backend == QStringLiteral("sim"), qPrintable(c.id));
            }
        }
        QCOMPARE(int(onHardware.size()), onDevice);
        QCOMPARE(int(simulatedOnly.size()), saved);
        // The baseline is measured on the device too: the speedup compares like with like.
        QVERIFY(onHardware.contains(SessionStore::baselineCandidateId(sessionId)));
        QVERIFY(onHardware.contains(done.value(QStringLiteral("best_candidate")).toString()));
        // Every beam holds confirmed kernels only.
        for (int it = 0; it <= 2; ++it)
            for (const QString &id : store.beam(sessionId, it))
                QVERIFY2(onHardware.contains(id), qPrintable(QStringLiteral("iteration %1: %2").arg(it).arg(id)));

        // No experience names a kernel that was only simulated, and each says it was measured on hardware.
        ExperienceStore memory(twoStage.memory());
        QVERIFY2(memory.open(), qPrintable(memory.lastError()));
        const QList<ExperienceRecord> lessons = memory.list();
        for (const ExperienceRecord &r : lessons) {
            QVERIFY2(!simulatedOnly.contains(r.slowCandidateId) && !simulatedOnly.contains(r.fastCandidateId),
                     qPrintable(r.experience.title));
            QVERIFY2(r.measuredOn.startsWith(QStringLiteral("hardware")), qPrintable(r.measuredOn));
        }
        QVERIFY(!lessons.isEmpty());

        // What the CLI says at the end, and what `sessions show` reads back from the rows.
        QVERIFY2(confirmed.out.contains(QStringLiteral("\"device_evaluations_saved\"")), qPrintable(confirmed.out.right(2000)));
        const Run shown = m_rig.cli(twoStage, {QStringLiteral("sessions"), QStringLiteral("show"), sessionId.left(8)});
        QVERIFY2(shown.exitCode == 0, qPrintable(shown.err));
        QVERIFY2(shown.out.contains(QStringLiteral("confirmed on trn-standin: %1 candidates measured on the device, "
                                                   "%2 simulated only")
                                        .arg(onDevice)
                                        .arg(saved)),
                 qPrintable(shown.out));
    }

    void aConfirmHostThatCannotConfirmIsRefused()
    {
        Workspace w;
        m_rig.writeLlmConfig(w);
        addStandInHost(w);
        m_rig.useAgents(m_silu);
        // the search's own host
        Run r = optimize(w, {QStringLiteral("--confirm-on"), QStringLiteral("local")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("search's own host")), qPrintable(r.err));
        // a host that does not exist
        r = optimize(w, {QStringLiteral("--confirm-on"), QStringLiteral("no-such-host")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("no host named 'no-such-host'")), qPrintable(r.err));
        // a search host that is itself the device
        r = optimize(w, {QStringLiteral("--host"), QStringLiteral("trn-standin"), QStringLiteral("--confirm-on"),
                         QStringLiteral("local")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("sim backend")), qPrintable(r.err));
        QCOMPARE(m_rig.requests(), 0); // refused before any model call
    }
};

QTEST_GUILESS_MAIN(TestCliConfirm)
#include "tst_cli_confirm.moc"
