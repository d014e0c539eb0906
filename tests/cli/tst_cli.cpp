#include "common/buildinfo.h"

#include <QProcess>
#include <QTest>

class TestCli : public QObject
{
    Q_OBJECT

    struct Run
    {
        int exitCode;
        QString out;
        QString err;
    };
    static Run run(const QStringList &args)
    {
        QProcess process;
        process.start(QStringLiteral(ACCELOPT_CLI_PATH), args);
        if (!process.waitForFinished(30000))
            return {-1, {}, QStringLiteral("timed out")};
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2,
                QString::fromUtf8(process.readAllStandardOutput()),
                QString::fromUtf8(process.readAllStandardError())};
    }

private Q_SLOTS:
    void versionPrintsToolAndLibraries()
    {
        const Run r = run({QStringLiteral("--version")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith(QStringLiteral("accelopt ") + BuildInfo::appVersion()));
        QVERIFY(r.out.contains(QStringLiteral("Qt 6.")));
        QVERIFY(r.out.contains(QStringLiteral("libssh 0.")));
    }

    void helpDescribesUsage()
    {
        const Run r = run({QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QStringLiteral("Usage:")));
        QVERIFY(r.out.contains(QStringLiteral("--version")));
    }

    void unknownCommandAndOptionFailClearly()
    {
        Run r = run({QStringLiteral("frobnicate")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("unknown command 'frobnicate'")));
        QVERIFY(r.err.contains(QStringLiteral("accelopt --help")));
        r = run({QStringLiteral("--no-such-option")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("no-such-option")));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
