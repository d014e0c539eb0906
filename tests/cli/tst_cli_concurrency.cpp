#include "memory/experiencestore.h"
#include "optimizerig.h"
#include "store/sessionstore.h"

#include <QJsonDocument>
#include <QProcess>
#include <QTest>

#include <memory>

// Two `accelopt optimize` started at the same moment on one workspace (issue 33): both must exit 0 and both
// sessions must be in workspace.sqlite, on an existing workspace (one run's session used to vanish: a
// check of the file by one run removed the write-ahead log the other had begun to write) and on a fresh one
// (the second run used to fail creating the schema the first was creating).
//
// "The same moment" without a clock: each run is started behind `read go` in a shell, so both processes exist
// and wait before either has looked at a file; the test then lets both go with one line each, back to back,
// and from there both race through opening the databases, which is where the losses were. The model server
// then holds its replies until both runs have a request out (holdUntilInFlight), so each run's writes happen
// while the other still has the workspace open, whatever the speed of the machine. Ten rounds each.
class TestCliConcurrency : public QObject
{
    Q_OBJECT
    using Workspace = OptimizeRig::Workspace;

    OptimizeRig m_rig;

    static QString cli()
    {
        // ACCELOPT_CLI runs the suite against another build (e.g. to see it fail before a fix).
        return qEnvironmentVariable("ACCELOPT_CLI", QStringLiteral(ACCELOPT_CLI_PATH));
    }

    static QStringList args(int seed)
    {
        return {QStringLiteral("optimize"), QStringLiteral("--task"), QStringLiteral("swiglu"),
                QStringLiteral("--size"),   QStringLiteral("small"),  QStringLiteral("-B"),
                QStringLiteral("1"),        QStringLiteral("-N"),     QStringLiteral("1"),
                QStringLiteral("-K"),       QStringLiteral("1"),      QStringLiteral("-T"),
                QStringLiteral("1"),        QStringLiteral("-F"),     QStringLiteral("0"),
                QStringLiteral("--seed"),   QString::number(seed),    QStringLiteral("--json")};
    }

    static QString sessionOf(const QByteArray &out)
    {
        for (const QByteArray &line : out.split('\n')) {
            const QJsonObject e = QJsonDocument::fromJson(line).object();
            if (e.value(QStringLiteral("event")).toString() == QStringLiteral("session"))
                return e.value(QStringLiteral("session")).toString();
        }
        return {};
    }

    // Runs two optimize together on `w` and checks both ran and both sessions are stored.
    void runTogether(const Workspace &w, int round)
    {
        std::unique_ptr<QProcess> runs[2];
        for (int i = 0; i < 2; ++i) {
            runs[i] = std::make_unique<QProcess>();
            runs[i]->setProcessEnvironment(m_rig.environment(w));
            runs[i]->start(
                QStringLiteral("/bin/sh"),
                QStringList{QStringLiteral("-c"), QStringLiteral("read go && exec \"$0\" \"$@\""), cli()} +
                    args(round * 2 + i));
            QVERIFY(runs[i]->waitForStarted(60000));
        }
        m_rig.server.holdUntilInFlight(2);
        for (auto &run : runs)
            run->write("go\n");
        QTRY_VERIFY_WITH_TIMEOUT(
            runs[0]->state() == QProcess::NotRunning && runs[1]->state() == QProcess::NotRunning, 600000);
        SessionStore store(w.db());
        QVERIFY2(store.open(), qPrintable(store.lastError()));
        for (auto &run : runs) {
            const QByteArray out = run->readAllStandardOutput();
            const QString err = QString::fromUtf8(run->readAllStandardError());
            QVERIFY2(
                run->exitStatus() == QProcess::NormalExit && run->exitCode() == 0,
                qPrintable(QStringLiteral("round %1: exit %2: %3").arg(round).arg(run->exitCode()).arg(err)));
            const QString session = sessionOf(out);
            QVERIFY2(!session.isEmpty(), qPrintable(err));
            QVERIFY2(store.session(session),
                     qPrintable(QStringLiteral("round %1: session %2 was announced but is not in %3")
                                    .arg(round)
                                    .arg(session, w.db())));
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_rig.start(error), qPrintable(error));
        m_rig.useAgents(m_rig.swiglu);
    }

    void existingWorkspaceKeepsBothSessions()
    {
        Workspace w;
        m_rig.writeLlmConfig(w);
        {
            // A workspace and a memory that exist, closed cleanly (no -wal beside them), as after any run.
            SessionStore store(w.db());
            QVERIFY2(store.open(), qPrintable(store.lastError()));
            ExperienceStore memory(w.memory());
            QVERIFY2(memory.open(), qPrintable(memory.lastError()));
        }
        for (int round = 0; round < 10; ++round) {
            runTogether(w, round);
            if (QTest::currentTestFailed())
                return;
            SessionStore store(w.db());
            QVERIFY(store.open());
            QCOMPARE(store.sessions().size(), 2 * (round + 1));
        }
    }

    void freshWorkspaceKeepsBothSessions()
    {
        for (int round = 0; round < 10; ++round) {
            Workspace w; // nothing in it: both runs create workspace.sqlite and memory.sqlite
            m_rig.writeLlmConfig(w);
            runTogether(w, round);
            if (QTest::currentTestFailed())
                return;
            SessionStore store(w.db());
            QVERIFY(store.open());
            QCOMPARE(store.sessions().size(), 2);
        }
    }
};

QTEST_GUILESS_MAIN(TestCliConcurrency)
#include "tst_cli_concurrency.moc"
