// accelopt profile import (issue 34): a Neuron Explorer CSV export (the stand-in's, tests/fixtures/runner/
// explorer_csv) attached to a hardware evaluation in a real workspace file, read back through the store.
#include "model/candidate.h"
#include "model/evaluation.h"
#include "store/sessionstore.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestCliProfile : public QObject
{
    Q_OBJECT

    struct Run
    {
        int exitCode;
        QString out;
        QString err;
    };
    Run run(QStringList args) const
    {
        args << QStringLiteral("--db") << m_db;
        QProcess process;
        process.start(QStringLiteral(ACCELOPT_CLI_PATH), args);
        if (!process.waitForFinished(120000))
            return {-1, {}, QStringLiteral("timed out")};
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2,
                QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
    }
    static QString fixture(const QString &name)
    {
        return QStringLiteral(ACCELOPT_TEST_FIXTURES "/runner/explorer_csv/") + name;
    }
    QStringList exportFiles() const { return {fixture(QStringLiteral("Instruction.csv")), fixture(QStringLiteral("DmaPacketAggregated.csv"))}; }

    QTemporaryDir m_dir;
    QString m_db, m_hardware, m_simulated, m_failed;

    QString addCandidate(SessionStore &store, const QString &sessionId, const QString &source, Evaluation e)
    {
        Candidate c;
        c.sessionId = sessionId;
        c.iteration = 1;
        c.planIndex = int(store.candidates(sessionId).size());
        c.source = source;
        if (!store.addCandidate(c) || !store.addEvaluation(c.id, e))
            return {};
        return c.id;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("workspace.sqlite"));
        QFile kernel(fixture(QStringLiteral("kernel.py")));
        QVERIFY(kernel.open(QIODevice::ReadOnly));
        const QString source = QString::fromUtf8(kernel.readAll());
        SessionStore store(m_db);
        QVERIFY2(store.open(), qPrintable(store.lastError()));
        SessionRecord s;
        s.taskName = QStringLiteral("add");
        s.target = QStringLiteral("trn2");
        QVERIFY(store.createSession(s));
        Evaluation hw;
        hw.status = EvalStatus::Ok;
        hw.correct = true;
        hw.backend = QStringLiteral("neuron");
        hw.host = QStringLiteral("trn-standin#1");
        hw.sdk = QStringLiteral("Neuron SDK 2.33 (stand-in)");
        hw.latencyMeanMs = 0.009314427345194987;
        QFile summary(fixture(QStringLiteral("summary.json"))); // the stand-in eval's metrics (Explorer's Summary)
        QVERIFY(summary.open(QIODevice::ReadOnly));
        hw.metrics = QJsonDocument::fromJson(summary.readAll()).object();
        QCOMPARE(hw.metrics.value(QStringLiteral("vector_engine_instruction_time")).toDouble(), 925e-9);
        m_hardware = addCandidate(store, s.id, source, hw);
        Evaluation sim = hw;
        sim.backend = QStringLiteral("sim");
        sim.host = QStringLiteral("local#0");
        m_simulated = addCandidate(store, s.id, source + QStringLiteral("\n# another\n"), sim);
        Evaluation failed = hw;
        failed.status = EvalStatus::RuntimeError;
        failed.error = QStringLiteral("the compiled kernel failed on the device");
        m_failed = addCandidate(store, s.id, source + QStringLiteral("\n# a third\n"), failed);
        QVERIFY(!m_hardware.isEmpty() && !m_simulated.isEmpty() && !m_failed.isEmpty());
    }

    // The numbers against the fixture's README, computed by hand from its rows.
    void importAttachesTheProfileToTheHardwareEvaluation()
    {
        const Run r = run(QStringList{QStringLiteral("profile"), QStringLiteral("import"), m_hardware.left(8)} +
                          exportFiles());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("instructions 9, busy ns: tensor 0 vector 925 scalar 0 gpsimd 0 "
                                               "dma 7463")),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("line 14: 2955 ns, 2 instructions")), qPrintable(r.out));
        SessionStore store(m_db);
        QVERIFY(store.open());
        const std::optional<Evaluation> e = store.evaluation(m_hardware);
        QVERIFY(e && e->profile);
        QCOMPARE(e->profile->source, QStringLiteral("neuron-explorer"));
        QVERIFY(e->profile->available);
        QCOMPARE(e->profile->instructionCount, 9);
        QCOMPARE(e->profile->engineBusyNs[EvalProfile::Vector], 925.0);
        QCOMPARE(e->profile->engineBusyNs[EvalProfile::Dma], 7463.0);
        QList<int> lines;
        for (const EvalProfile::LineCost &c : e->profile->lineCosts)
            lines << c.line;
        QCOMPARE(lines, (QList<int>{0, 13, 14, 16, 17}));
        QCOMPARE(e->profile->costOfLine(16)->ns[EvalProfile::Vector], 925.0);
        // what the import keeps: where it came from and how much of the run it covers; the rest of the row stays
        const QJsonObject stored = e->raw.value(QStringLiteral("profile")).toObject();
        QCOMPARE(stored.value(QStringLiteral("origin")).toString(), QStringLiteral("csv export"));
        QCOMPARE(stored.value(QStringLiteral("imported_from")).toString(),
                 QStringLiteral("Instruction.csv, DmaPacketAggregated.csv"));
        QVERIFY(stored.value(QStringLiteral("coverage")).toDouble() > 0.95);
        QCOMPARE(stored.value(QStringLiteral("completeness")).toObject().value(QStringLiteral("vector")).toDouble(),
                 1.0); // the export holds every VectorE instruction the device's summary counts
        QCOMPARE(e->latencyMeanMs.value_or(0), 0.009314427345194987);
        QCOMPARE(e->host, QStringLiteral("trn-standin#1"));
    }

    void badRequestsSayWhatToDo_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        const QStringList files = exportFiles();
        QTest::newRow("simulated") << (QStringList{QStringLiteral("import"), m_simulated} + files) << 1
                                   << QStringLiteral("was measured on sim, not on a device");
        QTest::newRow("failed") << (QStringList{QStringLiteral("import"), m_failed} + files) << 1
                                << QStringLiteral("did not succeed");
        QTest::newRow("unknown candidate") << (QStringList{QStringLiteral("import"), QStringLiteral("zzzz")} + files)
                                           << 1 << QStringLiteral("no candidate 'zzzz'");
        QTest::newRow("missing file")
            << QStringList{QStringLiteral("import"), m_hardware, m_dir.filePath(QStringLiteral("Instruction.csv"))}
            << 1 << QStringLiteral("no such file");
        QTest::newRow("not an export") << QStringList{QStringLiteral("import"), m_hardware, fixture(QStringLiteral("kernel.py"))}
                                       << 1 << QStringLiteral("not an Instruction, DmaPacketAggregated or DmaPacket export");
        QTest::newRow("bad run") << (QStringList{QStringLiteral("import"), m_hardware, QStringLiteral("--run"),
                                                 QStringLiteral("-1")} + files)
                                 << 2 << QStringLiteral("--run takes a run index");
        QTest::newRow("no run 5") << (QStringList{QStringLiteral("import"), m_hardware, QStringLiteral("--run"),
                                                  QStringLiteral("5")} + files)
                                  << 1 << QStringLiteral("has no run 5");
        QTest::newRow("no action") << QStringList{m_hardware} << 2 << QStringLiteral("usage: accelopt profile import");
    }
    void badRequestsSayWhatToDo()
    {
        QFETCH(QStringList, args);
        QFETCH(int, code);
        QFETCH(QString, message);
        args.prepend(QStringLiteral("profile"));
        const Run r = run(args);
        QCOMPARE(r.exitCode, code);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        // nothing was stored on a refused import
        SessionStore store(m_db);
        QVERIFY(store.open());
        const std::optional<Evaluation> sim = store.evaluation(m_simulated);
        QVERIFY(sim && !sim->raw.contains(QStringLiteral("profile")));
    }

    void jsonPrintsTheStoredProfile()
    {
        const Run r = run(QStringList{QStringLiteral("profile"), QStringLiteral("import"), m_hardware,
                                      QStringLiteral("--json")} + exportFiles());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("instruction_count")).toInt(), 9);
        QCOMPARE(o.value(QStringLiteral("line_costs")).toArray().size(), 5);
    }
};

QTEST_GUILESS_MAIN(TestCliProfile)
#include "tst_cli_profile.moc"
