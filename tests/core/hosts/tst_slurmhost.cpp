#include "hosts/hostpool.h"
#include "hosts/hostregistry.h"
#include "hosts/slurmhost.h"
#include "hosts/sshprompter.h"
#include "loopbackhost.h"
#include "runnergate.h"
#include "slurmfixture.h"
#include "sshdfixture.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

// SlurmHost against a real one-node SLURM (SlurmFixture: Debian's munge, slurmctld and slurmd on loopback)
// and the real runner under salloc and srun with nkisim. Faults: an allocation cancelled from outside, slurmd
// killed while jobs run, a job past its time limit, a settings error, and the workbench killed; every
// evaluation is reported once and nothing is left in squeue.
class TestSlurmHost : public QObject
{
    Q_OBJECT
    SlurmFixture m_slurm;
    bool m_ready = false;
    QString m_why;

    static HostConfig slurm(int slotsPerNode, const QString &timeLimit = QString())
    {
        HostConfig c;
        c.name = QStringLiteral("cluster");
        c.kind = HostConfig::Kind::Slurm;
        c.slotCount = slotsPerNode;
        c.python = QStringLiteral("/usr/bin/python3");
        c.partition = QLatin1String(SlurmFixture::partition);
        c.timeLimit = timeLimit;
        return c;
    }

    // The same settings with a runner that holds its results until the test opens the gate (tests/README.md).
    static HostConfig gated(HostConfig c, const RunnerGate &gate)
    {
        c.python = gate.interpreter();
        return c;
    }

    static EvalRequest silu(bool timingOnly = true)
    {
        EvalRequest request;
        request.task = {{QStringLiteral("name"), QStringLiteral("silu")}};
        QFile f(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py"));
        if (f.open(QIODevice::ReadOnly))
            request.kernelSource = QString::fromUtf8(f.readAll());
        request.size = QStringLiteral("small");
        request.timingOnly = timingOnly;
        request.timeoutSeconds = 120;
        return request;
    }

    struct Rig
    {
        HostPool pool;
        SlurmHost *host;
        QMap<quint64, int> reports; // job -> how often it was reported
        QList<Evaluation> results;
        explicit Rig(const HostConfig &config, std::shared_ptr<SshPrompter> prompter = nullptr)
            : host(
                  new SlurmHost(config, QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench"), std::move(prompter)))
        {
            pool.addHost(host);
            QObject::connect(&pool, &HostPool::evaluationFinished, &pool,
                             [this](quint64 job, const Evaluation &e) {
                                 ++reports[job];
                                 results << e;
                             });
            pool.start();
        }
        ~Rig() { pool.stop(); }
        QList<quint64> submit(int n, bool timingOnly = true)
        {
            QList<quint64> ids;
            for (int i = 0; i < n; ++i)
                ids << pool.submit(silu(timingOnly));
            return ids;
        }
        bool allReportedOnce(const QList<quint64> &ids) const
        {
            for (quint64 id : ids)
                if (reports.value(id) != 1)
                    return false;
            return reports.size() == ids.size();
        }
    };

private Q_SLOTS:
    void initTestCase()
    {
        m_ready = m_slurm.start(m_why);
        if (!m_ready)
            qWarning("no test SLURM cluster: %s", qPrintable(m_why));
    }
    void init()
    {
        if (!m_ready)
            QSKIP(qPrintable(m_why));
        QVERIFY2(m_slurm.waitForEmptyQueue(30000), qPrintable(m_slurm.queuedJobs().join(u' ')));
    }
    void cleanupTestCase() { m_slurm.stop(); }

    void settingsRoundTripAndBadOnesAreRefused()
    {
        HostConfig c = slurm(4, QStringLiteral("2:00:00"));
        c.account = QStringLiteral("ml");
        c.gres = QStringLiteral("neuron:16");
        c.nodes = 2;
        c.weight = 2.5;
        HostConfig back;
        QString error;
        QVERIFY2(HostConfig::fromJson(c.toJson(), back, error), qPrintable(error));
        QCOMPARE(back.toJson(), c.toJson());
        QCOMPARE(SlurmHost::slotsOf(back).slotCount, 8);
        const SlurmHost host(back, QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench"), nullptr);
        QCOMPARE(host.slotCount(), 8);
        QCOMPARE(host.allocationCommand(),
                 (QStringList{"salloc", "--job-name=accelopt-cluster", "--nodes=2", "--kill-command=TERM",
                              "--partition=trn", "--account=ml", "--time=2:00:00", "--gres=neuron:16"}));
        const struct
        {
            const char *key;
            QJsonValue value;
            const char *says;
        } bad[] = {{"partition", "--wrap=rm", "must not start with '-'"},
                   {"account", "a b", "hold spaces"},
                   {"nodes", 0, "nodes must be between 1 and 1024"},
                   {"nodes", "2", "'nodes' must be a whole number"},
                   {"weight", 0, "weight must be a number above 0"},
                   {"weight", "heavy", "'weight' must be a number"},
                   {"kind", "pbs", "kind must be 'local', 'ssh' or 'slurm'"}};
        for (const auto &b : bad) {
            QJsonObject o = c.toJson();
            o.insert(QLatin1String(b.key), b.value);
            QVERIFY(!HostConfig::fromJson(o, back, error));
            QVERIFY2(error.contains(QLatin1String(b.says)), qPrintable(error));
        }
    }

    void allocatesRunsOnEverySlotAndGivesTheJobBack()
    {
        // Each step holds its first result until both hold one, so both take work on any machine (without the
        // gate, a step that started late could find the queue already empty).
        RunnerGate gate(m_slurm.path(QStringLiteral("gate-every-slot")));
        Rig rig(gated(slurm(2), gate));
        QSignalSpy allocated(rig.host, &SlurmHost::allocated);
        const QList<quint64> ids = rig.submit(6);
        QTRY_COMPARE_WITH_TIMEOUT(gate.holders().size(), 2, 120000);
        gate.open();
        QTRY_VERIFY_WITH_TIMEOUT(rig.reports.size() == 6, 120000);
        QVERIFY(rig.allReportedOnce(ids));
        QSet<QString> used;
        for (const Evaluation &e : std::as_const(rig.results)) {
            QVERIFY2(e.ok(), qPrintable(e.error));
            used.insert(e.host);
        }
        QCOMPARE(used.size(), 2); // both steps took work
        QCOMPARE(allocated.size(), 1);
        QCOMPARE(rig.host->nodes(), QStringList{QStringLiteral("localhost")});
        QVERIFY(rig.host->partitions().contains(QStringLiteral("trn*")) ||
                rig.host->partitions().contains(QStringLiteral("trn")));
        const QString job = rig.host->jobId();
        QCOMPARE(m_slurm.queuedJobs(), QStringList{job});
        rig.pool.stop();
        QVERIFY2(m_slurm.waitForEmptyQueue(60000), qPrintable(m_slurm.queuedJobs().join(u' ')));
    }

    void reachesTheClusterThroughItsHeadNodeOverSsh()
    {
        // The head node is this machine behind a real sshd: the runner is deployed over SFTP, and salloc and
        // srun run in SSH sessions there.
        SshdFixture sshd;
        QString error;
        if (!sshd.start(error))
            QSKIP(qPrintable(error));
        auto prompter = std::make_shared<SshPrompter>();
        prompter->setAcceptedFingerprints({sshd.hostKeyFingerprint()});
        HostConfig c = loopbackHost(sshd); // the head node's reach, and the cluster's settings
        const HostConfig cluster = slurm(2);
        c.name = cluster.name;
        c.kind = cluster.kind;
        c.slotCount = cluster.slotCount;
        c.partition = cluster.partition;
        c.environment.insert(QStringLiteral("SLURM_CONF"), m_slurm.path(QStringLiteral("slurm.conf")));
        Rig rig(c, prompter);
        const QList<quint64> ids = rig.submit(4);
        QTRY_VERIFY_WITH_TIMEOUT(rig.reports.size() == 4, 120000);
        QVERIFY(rig.allReportedOnce(ids));
        for (const Evaluation &e : std::as_const(rig.results))
            QVERIFY2(e.ok(), qPrintable(e.error));
        QVERIFY(!rig.host->jobId().isEmpty());
        QCOMPARE(m_slurm.queuedJobs(), QStringList{rig.host->jobId()});
        rig.pool.stop();
        QVERIFY2(m_slurm.waitForEmptyQueue(60000), qPrintable(m_slurm.queuedJobs().join(u' ')));
    }

    void aSettingSallocRefusesFailsClearly()
    {
        HostConfig c = slurm(1);
        c.partition = QStringLiteral("nosuchpartition");
        Rig rig(c);
        const QList<quint64> ids = rig.submit(1);
        QTRY_VERIFY_WITH_TIMEOUT(rig.reports.size() == 1, 60000);
        const Evaluation &e = rig.results.first();
        QCOMPARE(e.status, EvalStatus::InfraError);
        QVERIFY2(e.error.contains(QStringLiteral("no SLURM allocation")) &&
                     e.error.contains(QStringLiteral("partition"), Qt::CaseInsensitive),
                 qPrintable(e.error));
        QVERIFY(m_slurm.queuedJobs().isEmpty());
    }

    void cancelledFromOutsideIsAllocatedAgainAndEachEvaluationReportedOnce()
    {
        // The gate opens only after the cancel, so the allocation goes with evaluations in flight on any machine.
        RunnerGate gate(m_slurm.path(QStringLiteral("gate-cancelled")));
        Rig rig(gated(slurm(2), gate));
        QList<quint64> ids = rig.submit(4, false);
        QTRY_VERIFY_WITH_TIMEOUT(!rig.host->jobId().isEmpty() && !gate.holders().isEmpty(), 60000);
        const QString first = rig.host->jobId();
        QVERIFY(m_slurm.cancel(first));
        gate.open();
        ids += rig.submit(4, false);
        QTRY_VERIFY_WITH_TIMEOUT(rig.reports.size() == 8, 180000);
        QVERIFY(rig.allReportedOnce(ids));
        for (const Evaluation &e : std::as_const(rig.results))
            QVERIFY2(e.ok() && e.isCorrect(), qPrintable(e.error));
        QVERIFY(rig.host->jobId() != first); // a new allocation took over
        rig.pool.stop();
        QVERIFY2(m_slurm.waitForEmptyQueue(60000), qPrintable(m_slurm.queuedJobs().join(u' ')));
    }

    void slurmdKilledWhileJobsRun()
    {
        RunnerGate gate(m_slurm.path(QStringLiteral("gate-slurmd")));
        Rig rig(gated(slurm(2), gate));
        const QList<quint64> ids = rig.submit(6, false);
        QTRY_VERIFY_WITH_TIMEOUT(!gate.holders().isEmpty(), 60000);
        m_slurm.killNodeDaemon(); // the steps (slurmstepd) live on without it
        gate.open();
        QTRY_VERIFY_WITH_TIMEOUT(rig.reports.size() == 6, 180000);
        QVERIFY(rig.allReportedOnce(ids));
        QString error;
        QVERIFY2(m_slurm.startNodeDaemon(error), qPrintable(error));
        rig.pool.stop();
        QVERIFY2(m_slurm.waitForEmptyQueue(30000), qPrintable(m_slurm.queuedJobs().join(u' ')));
    }

    void aJobPastItsTimeLimitIsReplaced()
    {
        // One minute, the least salloc takes; slurmctld checks time limits every 30 s or so.
        Rig rig(slurm(1, QStringLiteral("1")));
        QList<quint64> ids = rig.submit(1);
        QTRY_VERIFY_WITH_TIMEOUT(rig.reports.size() == 1, 60000);
        const QString first = rig.host->jobId();
        QTRY_VERIFY_WITH_TIMEOUT(!m_slurm.queuedJobs().contains(first), 150000);
        ids += rig.submit(2);
        QTRY_VERIFY_WITH_TIMEOUT(rig.reports.size() == 3, 120000);
        QVERIFY(rig.allReportedOnce(ids));
        for (const Evaluation &e : std::as_const(rig.results))
            QVERIFY2(e.ok(), qPrintable(e.error));
        QVERIFY(rig.host->jobId() != first);
        rig.pool.stop();
        QVERIFY2(m_slurm.waitForEmptyQueue(60000), qPrintable(m_slurm.queuedJobs().join(u' ')));
    }

    void aKilledWorkbenchLeavesNoJob()
    {
        // The CLI as the workbench: its suite runs on the SLURM host, and it is killed with SIGKILL mid-run.
        QTemporaryDir dir;
        const QString hosts = dir.filePath(QStringLiteral("hosts.json"));
        QFile f(hosts);
        QVERIFY(f.open(QIODevice::WriteOnly));
        // One row comes through; the rest are held, so the suite is mid-run, with its allocation, when it is killed.
        RunnerGate gate(dir.filePath(QStringLiteral("gate")));
        gate.release(1);
        HostConfig c = gated(slurm(2), gate);
        f.write(QJsonDocument(QJsonObject{{QStringLiteral("version"), HostRegistry::fileVersion},
                                          {QStringLiteral("hosts"), QJsonArray{c.toJson()}}})
                    .toJson());
        f.close();
        QProcess cli;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("ACCELOPT_HOSTS_FILE"), hosts);
        cli.setProcessEnvironment(env);
        cli.start(QStringLiteral(ACCELOPT_CLI_PATH),
                  {QStringLiteral("suite"), QStringLiteral("--host"), QStringLiteral("cluster"),
                   QStringLiteral("--size"), QStringLiteral("small"), QStringLiteral("--json")});
        QVERIFY(cli.waitForStarted());
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += cli.readAllStandardOutput()).contains('\n'), 120000);
        QCOMPARE(m_slurm.queuedJobs().size(), 1);
        ::kill(pid_t(cli.processId()), SIGKILL);
        QVERIFY(cli.waitForFinished(10000));
        QVERIFY2(m_slurm.waitForEmptyQueue(30000), qPrintable(m_slurm.queuedJobs().join(u' ')));
    }
};

QTEST_GUILESS_MAIN(TestSlurmHost)
#include "tst_slurmhost.moc"
