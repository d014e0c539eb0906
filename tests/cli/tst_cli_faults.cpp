#include "hosts/hostregistry.h"
#include "loopbackhost.h"
#include "optimizerig.h"
#include "processtree.h"
#include "runnergate.h"
#include "sshdfixture.h"
#include "store/sessionstore.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonDocument>
#include <QSet>
#include <QTest>

#include <optional>

#include <signal.h>

// Fault injection, end to end through the real CLI: whatever goes wrong on the way (a model server that fails
// one call in five, an SSH connection dropped again and again, the CLI killed and resumed), nothing is lost,
// nothing is done twice, and the session or suite ends exactly as an undisturbed run of the same script does.
class TestCliFaults : public QObject
{
    Q_OBJECT
    using Workspace = OptimizeRig::Workspace;
    using Run = OptimizeRig::Run;
    using KillPoint = OptimizeRig::KillPoint;

    OptimizeRig m_rig;

    // The model server's retries as a user would set them, with short waits so the test does not sleep.
    static RetryPolicy patientRetries()
    {
        RetryPolicy p;
        p.maxAttempts = 4;
        p.baseDelayMs = 20;
        p.maxDelayMs = 100;
        return p;
    }

    QStringList wholeRun(const QStringList &args, std::optional<RetryPolicy> retry = std::nullopt,
                         int timeoutMs = 60000)
    {
        Workspace w;
        m_rig.writeLlmConfig(w, true, retry, timeoutMs);
        m_rig.useAgents(m_rig.swiglu);
        const Run r = m_rig.cli(w, args);
        if (r.exitCode != 0)
            return {QStringLiteral("the undisturbed run failed: ") + r.err + r.out};
        return OptimizeRig::snapshot(
            w, r.event(QStringLiteral("session")).value(QStringLiteral("session")).toString());
    }

    static bool sameSession(const QStringList &expected, const QStringList &got)
    {
        if (got == expected)
            return true;
        qInfo().noquote() << "undisturbed:\n" << expected.join(u'\n') << "\ndisturbed:\n" << got.join(u'\n');
        return false;
    }

    // One JSON row per task of `accelopt suite --json`, by task; a task reported twice is kept twice.
    static QMultiMap<QString, QJsonObject> rows(const QString &out)
    {
        QMultiMap<QString, QJsonObject> byTask;
        for (const QString &line : out.split(u'\n', Qt::SkipEmptyParts)) {
            const QJsonObject row = QJsonDocument::fromJson(line.toUtf8()).object();
            if (row.contains(QStringLiteral("task")))
                byTask.insert(row.value(QStringLiteral("task")).toString(), row);
        }
        return byTask;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_rig.start(error), qPrintable(error));
    }

    void modelFailingOneCallInFiveChangesNothing()
    {
        const QStringList args = OptimizeRig::optimizeArgs(QStringLiteral("swiglu"), 11);
        const int timeoutMs = 3000; // the hung calls below end after this, and are asked again
        const QStringList expected = wholeRun(args, patientRetries(), timeoutMs);

        // Every fifth new request (a request asked again is the same request, known by its content) fails on
        // its first attempt, in turn: 429 with Retry-After, 500, no answer at all, and a 200 whose body is
        // garbage.
        QHash<QByteArray, int> attempts;
        QMap<QString, int> injected;
        int kind = 0;
        m_rig.fault = [&](const ScriptedLlmServer::Request &r) -> std::optional<ScriptedLlmServer::Response> {
            const QByteArray key = QCryptographicHash::hash(r.body, QCryptographicHash::Sha256);
            if (attempts[key]++ > 0 || attempts.size() % 5 != 0)
                return std::nullopt;
            switch (kind++ % 4) {
            case 0:
                ++injected[QStringLiteral("429")];
                return ScriptedLlmServer::error(429, "{\"error\": {\"message\": \"Rate limit reached\"}}",
                                                {{"Retry-After", "0"}});
            case 1:
                ++injected[QStringLiteral("500")];
                return ScriptedLlmServer::error(500, "{\"error\": {\"message\": \"internal error\"}}");
            case 2: {
                ++injected[QStringLiteral("timeout")];
                ScriptedLlmServer::Response hang;
                hang.hang = true;
                return hang;
            }
            default: {
                ++injected[QStringLiteral("garbage")];
                ScriptedLlmServer::Response garbage;
                garbage.body = "<html><body>502 Bad Gateway</body></html>\x01\xff";
                garbage.contentType = "text/html";
                return garbage;
            }
            }
        };
        Workspace w;
        m_rig.writeLlmConfig(w, true, patientRetries(), timeoutMs);
        m_rig.useAgents(m_rig.swiglu);
        const Run r = m_rig.cli(w, args);
        m_rig.fault = nullptr;
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const int faults = injected.value(QStringLiteral("429")) + injected.value(QStringLiteral("500")) +
                           injected.value(QStringLiteral("timeout")) +
                           injected.value(QStringLiteral("garbage"));
        qInfo() << "injected" << injected << "in" << m_rig.requests() << "requests";
        QVERIFY2(faults == int(attempts.size()) / 5 && injected.size() == 4,
                 "the run should have met one fault in five requests, of every kind");
        const QStringList got = OptimizeRig::snapshot(
            w, r.event(QStringLiteral("session")).value(QStringLiteral("session")).toString());
        QVERIFY2(sameSession(expected, got), "the faults changed the session");
    }

    void killedAtTenPointsAndResumedEqualsUninterrupted()
    {
        const QStringList args = OptimizeRig::optimizeArgs(QStringLiteral("swiglu"), 11);
        const int before = m_rig.server.requestCount();
        const QStringList expected = wholeRun(args);
        const int wholeRequests = m_rig.requests();

        // SIGKILL, runners included, at ten calls spread evenly over the undisturbed run (the n-th call of a
        // role, so each is met in the same order), each while the call is out; resumed after each.
        QList<KillPoint> kills;
        QMap<QString, int> nth;
        const QList<ScriptedLlmServer::Request> calls = m_rig.server.requests().mid(before);
        for (int i = 0, next = 1; i < calls.size() && kills.size() < 10; ++i) {
            const QString role = ScriptedAgents::roleOf(calls.at(i));
            ++nth[role];
            if (i + 1 >= next * calls.size() / 11) {
                kills << KillPoint{role, nth.value(role)};
                ++next;
            }
        }
        QCOMPARE(kills.size(), 10);
        Workspace w;
        m_rig.writeLlmConfig(w);
        m_rig.useAgents(m_rig.swiglu);
        m_rig.killAt = kills.first();
        Run r = m_rig.cli(w, args);
        QVERIFY2(r.killed, "the first kill point was never reached");
        SessionStore store(w.db());
        QVERIFY(store.open());
        QCOMPARE(store.sessions().size(), 1);
        const QString session = store.sessions().first().id;
        for (int k = 1; k <= kills.size(); ++k) {
            m_rig.killAt = k < kills.size() ? std::optional<KillPoint>(kills.at(k)) : std::nullopt;
            r = m_rig.cli(w, {QStringLiteral("resume"), session.left(8), QStringLiteral("--json")});
            if (k < kills.size())
                QVERIFY2(r.killed, qPrintable(QStringLiteral("kill point %1 (%2 %3) was never reached: %4")
                                                  .arg(k)
                                                  .arg(kills.at(k).role)
                                                  .arg(kills.at(k).occurrence)
                                                  .arg(r.err + r.out.right(2000))));
            else
                QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        }
        QVERIFY2(sameSession(expected, OptimizeRig::snapshot(w, session)),
                 "the resumed session differs from the uninterrupted one");
        // Nothing answered was asked again: only the calls out at a kill were sent twice (at most the
        // endpoint's concurrency of 4 per kill).
        QVERIFY2(m_rig.requests() <= wholeRequests + 4 * int(kills.size()),
                 qPrintable(QStringLiteral("%1 requests against %2 uninterrupted")
                                .arg(m_rig.requests())
                                .arg(wholeRequests)));
    }

    void sshDroppedTenTimesLosesNothing()
    {
        SshdFixture sshd;
        QString error;
        if (!sshd.start(error))
            QSKIP(qPrintable(error));
        // The server's key is known, as after a first confirmed connection.
        QFile key(sshd.path(QStringLiteral("host_key.pub")));
        QFile known(sshd.knownHosts());
        QVERIFY(key.open(QIODevice::ReadOnly) && known.open(QIODevice::WriteOnly));
        known.write(QStringLiteral("[127.0.0.1]:%1 ").arg(sshd.port()).toUtf8() + key.readAll());
        known.close();
        const QStringList tasks{QStringLiteral("silu"),
                                QStringLiteral("swiglu"),
                                QStringLiteral("adamw"),
                                QStringLiteral("add_rmsnorm_matmul"),
                                QStringLiteral("bmm"),
                                QStringLiteral("bmm_softmax"),
                                QStringLiteral("lora"),
                                QStringLiteral("mamba"),
                                QStringLiteral("matmul"),
                                QStringLiteral("matmul_add_rmsnorm"),
                                QStringLiteral("rmsnorm_matmul"),
                                QStringLiteral("rope_single_freq_apply"),
                                QStringLiteral("transpose_matmul")};
        const QStringList args{
            QStringLiteral("suite"),    QStringLiteral("--tasks"),       tasks.join(u','),
            QStringLiteral("--size"),   QStringLiteral("small"),         QStringLiteral("--host"),
            QStringLiteral("loopback"), QStringLiteral("--timing-only"), QStringLiteral("--json")};
        // What a failed run says: its rows that are not ok, and the end of its log.
        const auto why = [](const Run &r) {
            QStringList bad;
            for (const QJsonObject &row : rows(r.out))
                if (row.value(QStringLiteral("status")).toString() != QStringLiteral("ok"))
                    bad << QString::fromUtf8(QJsonDocument(row).toJson(QJsonDocument::Compact)).left(400);
            return QStringLiteral("exit %1; rows not ok: %2; log: %3")
                .arg(r.exitCode)
                .arg(bad.join(QStringLiteral(" | ")), r.err.right(1500));
        };
        const auto suite = [&](bool drop) {
            Workspace w;
            HostConfig host = loopbackHost(sshd, 2);
            // The stormy run's runners hold each result until the test lets it go, so every drop lands
            // mid-evaluation and the run cannot end before its ten drops, however fast the machine.
            std::optional<RunnerGate> gate;
            if (drop) {
                gate.emplace(sshd.path(QStringLiteral("gate-drops")));
                host.python = gate->interpreter();
            }
            HostRegistry hosts(w.hosts());
            QString e;
            if (!hosts.load(e) || !hosts.add(host, e) || !hosts.save(e))
                qFatal("cannot write hosts.json: %s", qPrintable(e));
            int drops = 0;
            QSet<pid_t> dropped;
            // A drop whenever a runner holds a finished result; after each, one result goes through (after the
            // tenth, all), so the drops are spread over the run.
            m_rig.whileRunning = [&](const QString &) {
                if (!drop || drops >= 10)
                    return;
                const QSet<pid_t> holding = gate->holders() - dropped;
                const QList<pid_t> sessions = ProcessTree::children(pid_t(sshd.pid()));
                if (holding.isEmpty() || sessions.isEmpty())
                    return;
                for (pid_t s : sessions)
                    ::kill(s, SIGKILL);
                dropped += holding;
                if (++drops < 10)
                    gate->release(1);
                else
                    gate->open();
            };
            const Run r = m_rig.cli(w, args, 600000);
            m_rig.whileRunning = nullptr;
            if (drop && drops < 10)
                qFatal("only %d drops happened", drops);
            return r;
        };
        const Run calm = suite(false);
        QVERIFY2(calm.exitCode == 0, qPrintable(why(calm)));
        const Run stormy = suite(true);
        QVERIFY2(stormy.exitCode == 0, qPrintable(why(stormy)));
        const QMultiMap<QString, QJsonObject> expected = rows(calm.out);
        const QMultiMap<QString, QJsonObject> got = rows(stormy.out);
        QCOMPARE(QSet<QString>(got.keyBegin(), got.keyEnd()), QSet<QString>(tasks.cbegin(), tasks.cend()));
        for (const QString &task : tasks) {
            QCOMPARE(got.count(task), 1); // nothing lost, nothing reported twice
            const QJsonObject a = expected.value(task), b = got.value(task);
            QCOMPARE(b.value(QStringLiteral("status")), a.value(QStringLiteral("status")));
            QCOMPARE(b.value(QStringLiteral("latency_ms")), a.value(QStringLiteral("latency_ms")));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliFaults)
#include "tst_cli_faults.moc"
