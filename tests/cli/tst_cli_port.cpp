#include "llm/agentrole.h"
#include "llm/llmconfig.h"
#include "scriptedllmserver.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

// accelopt port: a classic kernel to the current NKI API, by rules, else by the executor model (here
// ScriptedLlmServer, the stand-in for a hosted model), kept only when nkisim finds it equal.
class TestCliPort : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    ScriptedLlmServer m_server;

    struct Run
    {
        int exitCode = -1;
        QString out;
        QString err;
    };

    static QString read(const QString &path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }

    QString write(const QString &name, const QString &text)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (f.open(QIODevice::WriteOnly))
            f.write(text.toUtf8());
        return path;
    }

    // Runs the CLI while this thread's event loop serves the stand-in model.
    Run cli(const QStringList &args)
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("ACCELOPT_LLM_CONFIG"), m_dir.filePath(QStringLiteral("llm.json")));
        env.insert(QStringLiteral("ACCELOPT_HOSTS_FILE"), m_dir.filePath(QStringLiteral("hosts.json")));
        env.insert(QStringLiteral("ACCELOPT_NO_KEYCHAIN"), QStringLiteral("1"));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(ACCELOPT_CLI_PATH), args);
        QElapsedTimer clock;
        clock.start();
        while (process.state() != QProcess::NotRunning && clock.elapsed() < 240000)
            QTest::qWait(20);
        Run run;
        run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
        run.out = QString::fromUtf8(process.readAllStandardOutput());
        run.err = QString::fromUtf8(process.readAllStandardError());
        return run;
    }

    static QString baseline(const char *file)
    {
        return read(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/") + QLatin1String(file));
    }

    // silu's classic baseline with a helper defined inside the kernel, a construct no port rule takes.
    static QString unportable()
    {
        QString source = baseline("baseline.py");
        source.replace(QStringLiteral("    for j in nl.affine_range(J):\n"),
                       QStringLiteral("    def tile_of(j):\n        return x[ip, j, jf]\n\n"
                                      "    for j in nl.affine_range(J):\n"));
        source.replace(QStringLiteral("nl.load(x[ip, j, jf], "), QStringLiteral("nl.load(tile_of(j), "));
        return source;
    }

    static QString fenced(const QString &code) { return QStringLiteral("```python\n%1```\n").arg(code); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_server.start());
        LlmConfig config;
        Endpoint e;
        e.name = QStringLiteral("stand-in");
        e.baseUrl = m_server.baseUrl();
        e.model = QStringLiteral("stand-in-model");
        e.timeoutMs = 60000;
        config.endpoints << e;
        for (AgentRole role : AgentRoles::all())
            config.roster.assign(role, e.name);
        config.retry.maxAttempts = 1;
        QString error;
        QVERIFY2(config.save(m_dir.filePath(QStringLiteral("llm.json")), &error), qPrintable(error));
    }

    void rulesPortTheBaselineAndNothingAsksTheModel()
    {
        const QString out = m_dir.filePath(QStringLiteral("silu_rules.py"));
        const int before = m_server.requestCount();
        const Run r = cli({QStringLiteral("port"), QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py"),
                           QStringLiteral("--task"), QStringLiteral("silu"), QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("ported by rules")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("equal on nkisim")), qPrintable(r.out));
        const QString port = read(out);
        QVERIFY(port.startsWith(QStringLiteral("import nki")));
        QVERIFY(!port.contains(QStringLiteral("neuronxcc")));
        QCOMPARE(m_server.requestCount(), before);
        // Never over an existing file.
        const Run again = cli({QStringLiteral("port"), QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py"),
                               QStringLiteral("--task"), QStringLiteral("silu"), QStringLiteral("--out"), out});
        QCOMPARE(again.exitCode, 2);
        QVERIFY2(again.err.contains(QStringLiteral("exists")), qPrintable(again.err));
        QCOMPARE(read(out), port);
    }

    void withoutAModelAnUnportableKernelSaysWhichLine()
    {
        const QString kernel = write(QStringLiteral("nested.py"), unportable());
        const Run r = cli({QStringLiteral("port"), kernel, QStringLiteral("--task"), QStringLiteral("silu"),
                           QStringLiteral("--no-model")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("no rule ports")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("line 14")), qPrintable(r.err)); // the nested def
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("nested_current.py"))));
    }

    void theExecutorPortsWhatTheRulesCannotAndOnlyAnEqualPortIsKept()
    {
        // The model's first port is wrong (exp(-2x)); nkisim finds it unequal and says so in the second
        // request, whose answer is right.
        QString wrong = baseline("baseline_current.py");
        wrong.replace(QStringLiteral("scale=-1.0"), QStringLiteral("scale=-2.0"));
        m_server.enqueue(ScriptedLlmServer::completion(fenced(wrong)));
        m_server.enqueue(ScriptedLlmServer::completion(fenced(baseline("baseline_current.py"))));
        const int before = m_server.requestCount();
        const QString kernel = write(QStringLiteral("nested2.py"), unportable());
        const QString out = m_dir.filePath(QStringLiteral("nested2_current.py"));
        const Run r = cli({QStringLiteral("port"), kernel, QStringLiteral("--task"), QStringLiteral("silu")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("ported by model")), qPrintable(r.out));
        QCOMPARE(m_server.requestCount(), before + 2);
        const QString firstPrompt =
            QString::fromUtf8(m_server.requests().at(before).body);
        QVERIFY2(firstPrompt.contains(QStringLiteral("Port this kernel")), qPrintable(firstPrompt.left(400)));
        QVERIFY(firstPrompt.contains(QStringLiteral("line 14")));
        const QString secondPrompt = QString::fromUtf8(m_server.requests().at(before + 1).body);
        QVERIFY2(secondPrompt.contains(QStringLiteral("not numerically equal")), qPrintable(secondPrompt.left(400)));
        QCOMPARE(read(out), baseline("baseline_current.py"));
    }
};

QTEST_GUILESS_MAIN(TestCliPort)
#include "tst_cli_port.moc"
