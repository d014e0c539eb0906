#include "exportsession.h"

#include "export/kernelexporter.h"
#include "store/sessionstore.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestCliExport : public QObject
{
    Q_OBJECT

    struct Run
    {
        int exitCode;
        QString out;
        QString err;
    };
    // The workspace comes from ACCELOPT_WORKSPACE_DB, as for a user who set it once in their shell.
    Run run(const QStringList &args, const QString &db = {})
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("ACCELOPT_WORKSPACE_DB"), db.isEmpty() ? m_db : db);
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(ACCELOPT_CLI_PATH), QStringList{QStringLiteral("export")} + args);
        if (!process.waitForFinished(60000))
            return {-1, {}, QStringLiteral("timed out")};
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2,
                QString::fromUtf8(process.readAllStandardOutput()),
                QString::fromUtf8(process.readAllStandardError())};
    }

    static QByteArray bytes(const QString &path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
    }

    static bool writeBytes(const QString &path, const QByteArray &data)
    {
        QFile f(path);
        return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(data) == data.size();
    }

    QString out(const QString &name) const { return m_dir.filePath(name); }

    QTemporaryDir m_dir;
    QString m_db;
    ExportSession m_session;
    QString m_stem;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("workspace.sqlite"));
        SessionStore store(m_db);
        QVERIFY2(store.open(), qPrintable(store.lastError()));
        QString error;
        QVERIFY2(m_session.create(store, error), qPrintable(error));
        m_stem = QStringLiteral("silu_") + m_session.sessionId.left(8);
    }

    void exportsByIdPrefixIntoANewFolder()
    {
        const QString folder = out(QStringLiteral("project/new"));
        const Run r = run({m_session.sessionId.left(6), QStringLiteral("--to"), folder});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QDir dir(folder);
        const QStringList files = dir.entryList(QDir::Files | QDir::Hidden, QDir::Name);
        QCOMPARE(files, (QStringList{m_stem + QStringLiteral(".candidates.csv"),
                                     m_stem + QStringLiteral(".candidates.json"),
                                     m_stem + QStringLiteral(".py"), m_stem + QStringLiteral(".report.md")}));
        for (const QString &f : files)
            QVERIFY2(r.out.contains(QDir::toNativeSeparators(dir.absoluteFilePath(f))), qPrintable(r.out));
        QVERIFY2(
            r.out.contains(QStringLiteral("exported candidate %1 (iteration 2)").arg(m_session.c2a.left(8))),
            qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("1.6 ms, 2.50x over the baseline (4 ms), 25.0% of peak")),
                 qPrintable(r.out));

        const QString kernel = QString::fromUtf8(bytes(dir.filePath(m_stem + QStringLiteral(".py"))));
        QVERIFY(kernel.startsWith(KernelExporter::headerBegin));
        QVERIFY(kernel.endsWith(QStringLiteral("\n\n") + m_session.bestSource));
        QVERIFY(kernel.contains(QStringLiteral("# session:    ") + m_session.sessionId));
        QCOMPARE(QJsonDocument::fromJson(bytes(dir.filePath(m_stem + QStringLiteral(".candidates.json"))))
                     .object()
                     .value(QStringLiteral("best"))
                     .toObject()
                     .value(QStringLiteral("candidate"))
                     .toString(),
                 m_session.c2a);
        QVERIFY(bytes(dir.filePath(m_stem + QStringLiteral(".report.md")))
                    .startsWith("# AccelOpt session report: silu"));
    }

    void refusesToOverwriteAndWritesNothing()
    {
        const QString folder = out(QStringLiteral("refuse"));
        QVERIFY(QDir().mkpath(folder));
        // Only the report is in the way; the kernel, CSV and JSON must not be written either.
        const QString report = QDir(folder).filePath(m_stem + QStringLiteral(".report.md"));
        QVERIFY(writeBytes(report, "my notes\n"));
        Run r = run({m_session.sessionId, QStringLiteral("--to"), folder});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("already exists; nothing was written")) &&
                     r.err.contains(QStringLiteral("--force")) &&
                     r.err.contains(m_stem + QStringLiteral(".report.md")),
                 qPrintable(r.err));
        QCOMPARE(bytes(report), QByteArray("my notes\n"));
        QCOMPARE(QDir(folder).entryList(QDir::Files | QDir::Hidden),
                 QStringList{m_stem + QStringLiteral(".report.md")});

        r = run({m_session.sessionId, QStringLiteral("--to"), folder, QStringLiteral("--force")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(bytes(report).startsWith("# AccelOpt session report: silu"));
        QCOMPARE(QDir(folder).entryList(QDir::Files | QDir::Hidden).size(), 4);
    }

    void chosenCandidateAndNameWithoutReports()
    {
        const QString folder = out(QStringLiteral("chosen"));
        const Run r = run({m_session.sessionId.left(8), QStringLiteral("--to"), folder,
                           QStringLiteral("--candidate"), m_session.c1d.left(12), QStringLiteral("--name"),
                           QStringLiteral("tiles"), QStringLiteral("--no-report")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(QDir(folder).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("tiles.py")});
        const QString kernel = QString::fromUtf8(bytes(QDir(folder).filePath(QStringLiteral("tiles.py"))));
        QVERIFY(kernel.contains(
            QStringLiteral("# candidate:  %1 (iteration 1, fixer round 1)").arg(m_session.c1d)));
        QVERIFY2(r.out.contains(QStringLiteral("2.5 ms, 1.60x over the baseline")), qPrintable(r.out));
    }

    void failureHalfwayTakesBackWhatItWrote()
    {
        // 240 + ".candidates.json" is one byte over the file system's 255-byte name limit, while the kernel
        // and the CSV fit: the export fails on its third file, even for root, and must not leave the first
        // two.
        const QString folder = out(QStringLiteral("halfway"));
        const QString stem(240, u'k');
        const Run r = run({m_session.sessionId, QStringLiteral("--to"), folder, QStringLiteral("--name"),
                           stem + QStringLiteral(".py")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("cannot write")) &&
                     r.err.contains(QStringLiteral(".candidates.")) &&
                     r.err.contains(QStringLiteral("removed the files this export had written")),
                 qPrintable(r.err));
        QCOMPARE(QDir(folder).entryList(QDir::Files | QDir::Hidden), QStringList());
    }

    void clearFailures()
    {
        const QString folder = out(QStringLiteral("failures"));
        Run r = run({QStringLiteral("ffffffff"), QStringLiteral("--to"), folder});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("no session 'ffffffff'")), qPrintable(r.err));

        QString hopeless;
        {
            SessionStore store(m_db);
            QVERIFY(store.open());
            hopeless = ExportSession::createHopeless(store);
        }
        r = run({hopeless, QStringLiteral("--to"), folder});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(
                     QStringLiteral("nothing to export: no candidate of session %1 (silu) passed correctness "
                                    "yet")
                         .arg(hopeless.left(8))),
                 qPrintable(r.err));

        r = run({m_session.sessionId, QStringLiteral("--to"), folder, QStringLiteral("--candidate"),
                 m_session.c2b});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("did not pass correctness (status timeout: ran past 60 s)")),
                 qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(folder)); // nothing to write, so not even the folder

        QCOMPARE(run({m_session.sessionId}).exitCode, 2); // no --to
        QCOMPARE(run({QStringLiteral("--to"), folder}).exitCode, 2);
        r = run({m_session.sessionId, QStringLiteral("--to"), folder, QStringLiteral("--name"),
                 QStringLiteral("../escape.py")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--name takes a file name")), qPrintable(r.err));
        QCOMPARE(
            run({m_session.sessionId, QStringLiteral("--to"), folder, QStringLiteral("--bogus")}).exitCode,
            2);

        const QString missing = out(QStringLiteral("missing.sqlite"));
        r = run({m_session.sessionId, QStringLiteral("--to"), folder}, missing);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("no workspace database")), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(missing)); // exporting creates no workspace
    }

    void corruptDatabaseIsRefusedAndLeftAlone()
    {
        // A real database with a page overwritten in the middle, and a text file under a database's name.
        const QString damaged = out(QStringLiteral("damaged.sqlite"));
        QByteArray data = bytes(m_db);
        QVERIFY(data.size() > 8192);
        for (qsizetype i = 4096; i < 8192; ++i)
            data[i] = char(0x5a);
        QVERIFY(writeBytes(damaged, data));
        const QString text = out(QStringLiteral("text.sqlite"));
        QVERIFY(writeBytes(text, QByteArray("this is not a database\n").repeated(100)));

        for (const QString &db : {damaged, text}) {
            const QByteArray before = QCryptographicHash::hash(bytes(db), QCryptographicHash::Sha256);
            const QString folder = out(QStringLiteral("from-corrupt"));
            const Run r =
                run({m_session.sessionId, QStringLiteral("--to"), folder, QStringLiteral("--db"), db});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(QStringLiteral("left untouched")), qPrintable(r.err));
            QCOMPARE(QCryptographicHash::hash(bytes(db), QCryptographicHash::Sha256), before);
            QVERIFY(!QFileInfo::exists(db + QStringLiteral("-wal")));
            QVERIFY(!QFileInfo::exists(db + QStringLiteral("-journal")));
            QVERIFY(!QFileInfo::exists(folder));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliExport)
#include "tst_cli_export.moc"
