// `accelopt models` end to end: the real CLI binary against ScriptedLlmServer, a stand-in for a model server.
#include "llm/llmconfig.h"
#include "scriptedllmserver.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestModelsCommand : public QObject
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
    // Asynchronous, so the in-process server keeps answering while the CLI runs.
    Run run(const QStringList &args, const QStringList &env = {})
    {
        QProcess process;
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        e.insert(QStringLiteral("ACCELOPT_NO_KEYCHAIN"), QStringLiteral("1"));
        for (const QString &kv : env)
            e.insert(kv.section(u'=', 0, 0), kv.section(u'=', 1));
        process.setProcessEnvironment(e);
        process.start(QStringLiteral(ACCELOPT_CLI_PATH), args);
        if (!QTest::qWaitFor([&] { return process.state() == QProcess::NotRunning; }, 30000))
            return {};
        return {process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()),
                QString::fromUtf8(process.readAllStandardError())};
    }
    QString configPath() const { return m_dir.filePath(QStringLiteral("llm.json")); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_server.start());
        LlmConfig config;
        Endpoint e;
        e.name = QStringLiteral("standin");
        e.baseUrl = m_server.baseUrl();
        e.model = QStringLiteral("stand-in-model");
        e.keySource = Endpoint::KeySource::Environment;
        e.keyEnvVar = QStringLiteral("ACCELOPT_MODELS_TEST_KEY");
        config.endpoints << e;
        Endpoint dead = e;
        dead.name = QStringLiteral("dead");
        dead.baseUrl = QStringLiteral("http://127.0.0.1:9/v1"); // the discard port: nothing listens
        dead.keySource = Endpoint::KeySource::None;
        config.endpoints << dead;
        config.roster.assign(AgentRole::Planner,
                             {{QStringLiteral("standin"), 2.0}, {QStringLiteral("dead"), 1.0}});
        config.prices.set(QStringLiteral("stand-in-model"), {1.0, 4.0});
        config.retry.baseDelayMs = 10;
        QString error;
        QVERIFY2(config.save(configPath(), &error), qPrintable(error));
    }

    void listShowsEndpointsRolesPrices()
    {
        const Run r =
            run({QStringLiteral("models"), QStringLiteral("list"), QStringLiteral("--config"), configPath()});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QStringLiteral("standin")));
        QVERIFY(r.out.contains(QStringLiteral("key from $ACCELOPT_MODELS_TEST_KEY")));
        QVERIFY(r.out.contains(QStringLiteral("standin:2, dead")));
        QVERIFY(r.out.contains(QStringLiteral("stand-in-model 1 / 4")));
        QVERIFY(r.out.contains(QStringLiteral("no model is assigned to the executor")));
    }

    void testMakesARealCall()
    {
        m_server.enqueue(ScriptedLlmServer::completion(QStringLiteral("ready\nand more"),
                                                       ScriptedLlmServer::Usage{20, 3}));
        const Run r = run({QStringLiteral("models"), QStringLiteral("test"), QStringLiteral("--endpoint"),
                           QStringLiteral("standin"), QStringLiteral("--config"), configPath()},
                          {QStringLiteral("ACCELOPT_MODELS_TEST_KEY=sk-cli-secret")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY(r.out.contains(QStringLiteral("standin: ok in")));
        QVERIFY(r.out.contains(QStringLiteral("tokens 20 in / 3 out")));
        QVERIFY(r.out.contains(QStringLiteral("reply: ready")));
        QVERIFY(!r.out.contains(QStringLiteral("and more")));
        QVERIFY(!(r.out + r.err).contains(QStringLiteral("sk-cli-secret")));
        QCOMPARE(m_server.requests().last().headers.value("authorization"),
                 QByteArray("Bearer sk-cli-secret"));
    }

    // `models list` was quadratic in the number of endpoints (15 s for 100,000; bench_models_list has the
    // figures). This is the functional half: a large file still lists every endpoint and its problems.
    void aLargeConfigListsEveryEndpoint()
    {
        const int count = 20000;
        QByteArray text = "{\"version\": 1, \"endpoints\": [";
        for (int i = 0; i <= count; ++i) // the last one takes the first one's name
            text += QStringLiteral(
                        "%1{\"name\": \"e%2\", \"base_url\": \"http://127.0.0.1:9/v1\", \"model\": \"m%2\"}")
                        .arg(i ? QStringLiteral(",") : QString())
                        .arg(i % count)
                        .toUtf8();
        text += "], \"roles\": {\"planner\": [{\"endpoint\": \"e7\"}, {\"endpoint\": \"gone\"}]}}";
        const QString path = m_dir.filePath(QStringLiteral("large.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
        f.close();
        const Run r =
            run({QStringLiteral("models"), QStringLiteral("list"), QStringLiteral("--config"), path});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.split(u'\n');
        QCOMPARE(lines.filter(QStringLiteral("  http://127.0.0.1:9/v1  model m")).size(), count + 1);
        for (int i : {0, 1, 9999, count - 1})
            QVERIFY(
                lines.contains(QStringLiteral("  e%1  http://127.0.0.1:9/v1  model m%1, no key, 4 at once, "
                                              "timeout 600 s")
                                   .arg(i)));
        QCOMPARE(lines.filter(QStringLiteral("Problem: two endpoints are named")),
                 QStringList{QStringLiteral("Problem: two endpoints are named 'e0'")});
        QVERIFY(lines.contains(
            QStringLiteral("Problem: the planner uses endpoint 'gone', which does not exist")));
        QVERIFY(lines.contains(QStringLiteral("  planner     e7, gone")));
    }

    // A server that redirects used to fail with "HTTP 301: " and nothing after it.
    void aRedirectIsExplained()
    {
        ScriptedLlmServer::Response moved;
        moved.status = 301;
        moved.headers = {{"Location", "https://models.example.com/v1/chat/completions"}};
        m_server.enqueue(moved);
        const int before = m_server.requestCount();
        const Run r = run({QStringLiteral("models"), QStringLiteral("test"), QStringLiteral("--endpoint"),
                           QStringLiteral("standin"), QStringLiteral("--config"), configPath()},
                          {QStringLiteral("ACCELOPT_MODELS_TEST_KEY=sk-cli-secret")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(
            r.out.contains(QStringLiteral(
                "HTTP 301: the server redirects to https://models.example.com/v1/chat/completions; redirects "
                "are not followed (they would carry the API key elsewhere): set the endpoint's base URL to "
                "https://models.example.com/v1\n")),
            qPrintable(r.out + r.err));
        QCOMPARE(m_server.requestCount(), before + 1);
    }

    void testFailsClearly()
    {
        Run r = run({QStringLiteral("models"), QStringLiteral("test"), QStringLiteral("--endpoint"),
                     QStringLiteral("standin"), QStringLiteral("--config"), configPath()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains(QStringLiteral("ACCELOPT_MODELS_TEST_KEY is not set")), qPrintable(r.out));
        r = run({QStringLiteral("models"), QStringLiteral("test"), QStringLiteral("--endpoint"),
                 QStringLiteral("dead"), QStringLiteral("--attempts"), QStringLiteral("1"),
                 QStringLiteral("--config"), configPath()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains(QStringLiteral("dead: FAILED")), qPrintable(r.out));
        r = run({QStringLiteral("models"), QStringLiteral("test"), QStringLiteral("--endpoint"),
                 QStringLiteral("nope"), QStringLiteral("--config"), configPath()});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("no endpoint named 'nope'")));
    }
};

QTEST_GUILESS_MAIN(TestModelsCommand)
#include "tst_modelscommand.moc"
