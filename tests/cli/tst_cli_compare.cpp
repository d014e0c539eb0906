#include "exportsession.h"

#include "store/sessionstore.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

// `accelopt compare` as a user runs it: on kernel files (with and without benchmarking them), on candidate ids
// of a real workspace database, and on the inputs people get wrong.
class TestCliCompare : public QObject
{
    Q_OBJECT

    struct Run
    {
        int exitCode;
        QString out;
        QString err;
    };
    Run run(const QStringList &args)
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("ACCELOPT_WORKSPACE_DB"), m_db);
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(ACCELOPT_CLI_PATH), QStringList{QStringLiteral("compare")} + args);
        if (!process.waitForFinished(180000))
            return {-1, {}, QStringLiteral("timed out")};
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2,
                QString::fromUtf8(process.readAllStandardOutput()),
                QString::fromUtf8(process.readAllStandardError())};
    }
    static QString fixture(const QString &name)
    {
        return QStringLiteral(ACCELOPT_SOURCE_DIR "/tests/fixtures/optimize/silu/") + name;
    }
    static QJsonObject json(const Run &r)
    {
        return QJsonDocument::fromJson(r.out.toUtf8()).object();
    }
    static QJsonObject delta(const QJsonObject &o, const QString &key)
    {
        for (const QJsonValue &v : o.value(QStringLiteral("deltas")).toArray())
            if (v.toObject().value(QStringLiteral("metric")).toString() == key)
                return v.toObject();
        return {};
    }
    QString write(const QString &name, const QByteArray &data)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(data) != data.size())
            return {};
        return path;
    }

    QTemporaryDir m_dir;
    QString m_db;
    ExportSession m_session;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("workspace.sqlite"));
        SessionStore store(m_db);
        QVERIFY2(store.open(), qPrintable(store.lastError()));
        QString error;
        QVERIFY2(m_session.create(store, error), qPrintable(error));
    }

    void filesGiveTheUnifiedDiff()
    {
        const Run r = run({fixture(QStringLiteral("slow1.py")), fixture(QStringLiteral("fast1.py"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.startsWith(QStringLiteral("--- ") + fixture(QStringLiteral("slow1.py")) + u'\n'));
        QVERIFY(r.out.contains(QStringLiteral("\n+++ ") + fixture(QStringLiteral("fast1.py")) + u'\n'));
        QVERIFY(r.out.contains(QStringLiteral("\n@@ -")));
        QVERIFY2(r.out.contains(QStringLiteral("no metric deltas: ") + fixture(QStringLiteral("slow1.py")) +
                                QStringLiteral(" has no evaluation")),
                 qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("(give --task to benchmark files)")));
    }

    void filesWithATaskAreBenchmarkedAndCompared()
    {
        const Run r = run({fixture(QStringLiteral("slow1.py")), fixture(QStringLiteral("fast1.py")),
                           QStringLiteral("--task"), QStringLiteral("silu"), QStringLiteral("--size"),
                           QStringLiteral("small"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = json(r);
        QVERIFY2(!o.value(QStringLiteral("hunks")).toArray().isEmpty(), qPrintable(r.out));
        const QJsonObject latency = delta(o, QStringLiteral("latency_ms"));
        QVERIFY2(!latency.isEmpty(), qPrintable(r.out));
        // nkisim's model: fast1 streams whole rows through the scalar engine, slow1 goes column by column.
        QCOMPARE(latency.value(QStringLiteral("verdict")).toString(), QStringLiteral("better"));
        QVERIFY(latency.value(QStringLiteral("ratio")).toDouble() < 0.9);
        const QJsonObject left =
            o.value(QStringLiteral("left")).toObject().value(QStringLiteral("evaluation")).toObject();
        // where the numbers come from (issue 34): nkisim on the local host
        QCOMPARE(left.value(QStringLiteral("provenance")).toString(), QStringLiteral("nkisim"));
        QCOMPARE(left.value(QStringLiteral("sdk")).toString(), QStringLiteral("nkisim"));
    }

    void candidatesBringTheirEvaluations()
    {
        const Run r = run({m_session.baselineId.left(8), m_session.c2a.left(8), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = json(r);
        QCOMPARE(o.value(QStringLiteral("left")).toObject().value(QStringLiteral("candidate")).toString(),
                 m_session.baselineId);
        QCOMPARE(o.value(QStringLiteral("right")).toObject().value(QStringLiteral("candidate")).toString(), m_session.c2a);
        QCOMPARE(o.value(QStringLiteral("changed")).toInt(), 1); // only the variant line differs
        const QJsonObject latency = delta(o, QStringLiteral("latency_ms"));
        QCOMPARE(latency.value(QStringLiteral("ratio")).toDouble(), ExportSession::bestMs / ExportSession::baselineMs);
        QCOMPARE(latency.value(QStringLiteral("verdict")).toString(), QStringLiteral("better"));
        const Run text = run({m_session.baselineId.left(8), m_session.c2a.left(8)});
        QVERIFY2(text.out.contains(QStringLiteral("\nA: nkisim on local/0\nB: nkisim on local/0\n")),
                 qPrintable(text.out));

        // A candidate against a file: the file has no evaluation, so no deltas, and the text says why.
        const Run mixed = run({m_session.baselineId.left(8), fixture(QStringLiteral("fast1.py"))});
        QVERIFY2(mixed.exitCode == 0, qPrintable(mixed.err));
        QVERIFY(mixed.out.contains(QStringLiteral("--- candidate ") + m_session.baselineId.left(8)));
        QVERIFY(mixed.out.contains(QStringLiteral("no metric deltas")));
    }

    void identicalKernelsSaySo()
    {
        const QByteArray text = "def kernel(x):\n    return x\n";
        QByteArray crlf = text;
        crlf.replace("\n", "\r\n");
        const Run r = run({write(QStringLiteral("a.py"), text), write(QStringLiteral("b.py"), crlf)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.startsWith(QStringLiteral("the kernels are the same (but for their line endings)")),
                 qPrintable(r.out));
    }

    void badInputIsRefusedWithTheReason_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString slow = fixture(QStringLiteral("slow1.py"));
        QTest::newRow("one kernel") << QStringList{slow} << QStringLiteral("give two kernels");
        QTest::newRow("missing file") << QStringList{slow, QStringLiteral("/nonexistent/fast.py")}
                                      << QStringLiteral("/nonexistent/fast.py is neither a file nor a candidate");
        QTest::newRow("unknown id") << QStringList{QStringLiteral("deadbeef"), slow}
                                    << QStringLiteral("no candidate 'deadbeef'");
        QTest::newRow("short id") << QStringList{QStringLiteral("ab"), slow}
                                  << QStringLiteral("give at least its first 4 characters");
        QTest::newRow("bad context") << QStringList{slow, slow, QStringLiteral("--context"), QStringLiteral("-1")}
                                     << QStringLiteral("--context wants a whole number");
    }
    void badInputIsRefusedWithTheReason()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = run(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    // The runner cannot measure: the diff still prints, the reason is given, and the exit code says it failed.
    void aBenchmarkThatFailsSaysWhy()
    {
        // An empty folder as the task: the runner refuses it (an unknown task name is a usage error now,
        // refused before anything runs).
        const QTemporaryDir notATask;
        QVERIFY(notATask.isValid());
        const QString slow = fixture(QStringLiteral("slow1.py"));
        const Run r = run({slow, fixture(QStringLiteral("fast1.py")), QStringLiteral("--task"), notATask.path(),
                           QStringLiteral("--size"), QStringLiteral("small")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.contains(QStringLiteral("\n@@ -")));
        QVERIFY2(r.out.contains(QStringLiteral("no metric deltas: ") + slow + QStringLiteral(": infra_error")),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("is neither a task folder")), qPrintable(r.out));
    }

    void nonUtf8FileIsRefused()
    {
        const QString bad = write(QStringLiteral("latin1.py"), "x = 1\n# caf\xe9\n");
        const Run r = run({bad, fixture(QStringLiteral("fast1.py"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("not valid UTF-8 (line 2")), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliCompare)
#include "tst_cli_compare.moc"
