#include "hosts/localhost.h"
#include "llm/llmconfig.h"
#include "port/kernelport.h"
#include "scriptedllmserver.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

// KernelPort on its own, in process (accelopt port, the MCP port tool and the workbench's port controller all
// drive it): a port by rules, a given candidate checked instead of ported, an unportable kernel without a
// model, the model giving up after its attempts, a model that cannot be asked, and a host that cannot start.
// The local host with the real runner (the port op and nkisim's equality check), and ScriptedLlmServer, a
// stand-in for a real model server on loopback.
class TestKernelPort : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    ScriptedLlmServer m_server;
    QString m_llm;
    std::unique_ptr<LocalHost> m_host;

    static QString read(const QString &path)
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            qFatal("cannot read %s", qPrintable(path));
        return QString::fromUtf8(f.readAll());
    }
    static QString silu(const char *file)
    {
        return read(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/") + QLatin1String(file));
    }
    // silu's classic baseline with a helper defined inside the kernel, a construct no port rule takes.
    static QString unportable()
    {
        QString source = silu("baseline.py");
        source.replace(QStringLiteral("    for j in nl.affine_range(J):\n"),
                       QStringLiteral("    def tile_of(j):\n        return x[ip, j, jf]\n\n"
                                      "    for j in nl.affine_range(J):\n"));
        source.replace(QStringLiteral("nl.load(x[ip, j, jf], "), QStringLiteral("nl.load(tile_of(j), "));
        return source;
    }
    // A current port of silu that computes exp(-2x) where silu needs exp(-x): runs, but is not equal.
    static QString wrongPort()
    {
        QString wrong = silu("baseline_current.py");
        wrong.replace(QStringLiteral("scale=-1.0"), QStringLiteral("scale=-2.0"));
        return wrong;
    }

    KernelPort::Request request(const QString &kernel) const
    {
        KernelPort::Request r;
        r.kernel = kernel;
        r.task = {{QStringLiteral("name"), QStringLiteral("silu")}};
        r.seeds = {1};
        r.llmConfig = m_llm;
        return r;
    }

    // Runs one port to its end; the result, with the progress messages in `progress`.
    KernelPort::Result port(Host *host, const KernelPort::Request &r, QStringList *progress = nullptr)
    {
        KernelPort job(host);
        QSignalSpy finished(&job, &KernelPort::finished);
        if (progress)
            connect(&job, &KernelPort::progress, this, [progress](const QString &m) { *progress << m; });
        job.start(r);
        if (!QTest::qWaitFor([&] { return finished.count() > 0; }, 600000))
            qWarning("the port did not finish");
        if (finished.count() != 1)
            return {};
        return finished.first().at(0).value<KernelPort::Result>();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
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
        m_llm = m_dir.filePath(QStringLiteral("llm.json"));
        QString error;
        QVERIFY2(config.save(m_llm, &error), qPrintable(error));
        HostConfig c;
        c.name = QStringLiteral("here");
        c.slotCount = 1;
        c.python = QStringLiteral("/usr/bin/python3");
        m_host = std::make_unique<LocalHost>(c, QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench"));
    }

    void rulesPortTheBaselineWithoutTheModel()
    {
        const int before = m_server.requestCount();
        QStringList progress;
        const KernelPort::Result r = port(m_host.get(), request(silu("baseline.py")), &progress);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.by, QStringLiteral("rules"));
        QVERIFY(!r.rules.isEmpty());
        QVERIFY(r.kernel.startsWith(QStringLiteral("import nki")));
        QVERIFY(!r.kernel.contains(QStringLiteral("neuronxcc")));
        QVERIFY(r.unported.isEmpty());
        QVERIFY(!r.equal.isEmpty());
        QVERIFY2(progress.value(0).contains(QStringLiteral("porting by rules")),
                 qPrintable(progress.join(u'\n')));
        QCOMPARE(m_server.requestCount(), before);
    }

    // A given candidate is checked, not ported: a right one is kept as it is, a wrong one refused, and the
    // model is never asked to mend the user's own port.
    void givenCandidateIsCheckedNotPorted()
    {
        const int before = m_server.requestCount();
        KernelPort::Request r = request(silu("baseline.py"));
        r.candidate = silu("baseline_current.py");
        const KernelPort::Result good = port(m_host.get(), r);
        QVERIFY2(good.ok, qPrintable(good.error));
        QCOMPARE(good.by, QStringLiteral("candidate"));
        QVERIFY(good.rules.isEmpty());
        QCOMPARE(good.kernel, r.candidate);

        r.candidate = wrongPort();
        const KernelPort::Result bad = port(m_host.get(), r);
        QVERIFY(!bad.ok);
        QCOMPARE(bad.by, QStringLiteral("candidate"));
        QVERIFY(!bad.error.isEmpty());
        QVERIFY(bad.equal.contains(QStringLiteral("equal")));
        QCOMPARE(bad.equal.value(QStringLiteral("equal")).toBool(true), false);
        QCOMPARE(m_server.requestCount(), before);
    }

    void unportableKernelWithoutTheModelSaysWhichLine()
    {
        const int before = m_server.requestCount();
        KernelPort::Request r = request(unportable());
        r.useModel = false;
        const KernelPort::Result result = port(m_host.get(), r);
        QVERIFY(!result.ok);
        QVERIFY2(result.error.startsWith(QStringLiteral("no rule ports these constructs")),
                 qPrintable(result.error));
        QVERIFY(!result.unported.isEmpty());
        QVERIFY2(result.unported.join(u'\n').contains(QStringLiteral("def tile_of")),
                 qPrintable(result.unported.join(u'\n')));
        QCOMPARE(m_server.requestCount(), before);
    }

    // The model's ports are checked like any other; after maxModelAttempts wrong ones it gives up, saying
    // what the rules could not port and what became of the model's attempts.
    void modelGivesUpAfterItsAttempts()
    {
        const int before = m_server.requestCount();
        m_server.setHandler([](const ScriptedLlmServer::Request &) {
            return ScriptedLlmServer::completion(QStringLiteral("```python\n") + wrongPort() +
                                                 QStringLiteral("```\n"));
        });
        const KernelPort::Result r = port(m_host.get(), request(unportable()));
        m_server.setHandler({});
        QVERIFY(!r.ok);
        QCOMPARE(r.by, QStringLiteral("model"));
        QCOMPARE(m_server.requestCount() - before, KernelPort::maxModelAttempts);
        QVERIFY2(r.error.contains(QStringLiteral("after %1 attempts").arg(KernelPort::maxModelAttempts)),
                 qPrintable(r.error));
        QVERIFY(r.error.startsWith(QStringLiteral("no rule ports these constructs")));
        QVERIFY(!r.unported.isEmpty());
        // The second request tells the model why its first port was refused.
        const QString second = QString::fromUtf8(m_server.requests().at(before + 1).body);
        QVERIFY(second.contains(QStringLiteral("not numerically equal")));
    }

    void modelThatCannotBeAskedIsSaid()
    {
        LlmConfig config; // no role assigned: no executor
        Endpoint e;
        e.name = QStringLiteral("stand-in");
        e.baseUrl = m_server.baseUrl();
        e.model = QStringLiteral("m");
        config.endpoints << e;
        const QString llm = m_dir.filePath(QStringLiteral("no-executor.json"));
        QString error;
        QVERIFY2(config.save(llm, &error), qPrintable(error));
        KernelPort::Request r = request(unportable());
        r.llmConfig = llm;
        const int before = m_server.requestCount();
        const KernelPort::Result result = port(m_host.get(), r);
        QVERIFY(!result.ok);
        QVERIFY2(result.error.contains(QStringLiteral("could not be asked to port it")),
                 qPrintable(result.error));
        QVERIFY(result.error.contains(QStringLiteral("no model is assigned to the executor")));
        QVERIFY(!result.unported.isEmpty());
        QCOMPARE(m_server.requestCount(), before);
    }

    void hostThatCannotStartFails()
    {
        HostConfig c;
        c.name = QStringLiteral("broken");
        c.slotCount = 1;
        c.python = m_dir.filePath(QStringLiteral("no-such-python"));
        LocalHost broken(c, QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench"));
        const KernelPort::Result r = port(&broken, request(silu("baseline.py")));
        QVERIFY(!r.ok);
        QVERIFY(!r.error.isEmpty());
        QVERIFY(r.kernel.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestKernelPort)
#include "tst_kernelport.moc"
