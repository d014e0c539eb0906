#include "hosts/hostpool.h"
#include "hosts/localhost.h"
#include "processtree.h"
#include "runnergate.h"

#include <QDir>
#include <QFile>
#include <QMap>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <csignal>
#include <unistd.h>

// HostPool on the local host with the real runner: scheduling, retries after a runner dies, refusal of a
// runner that speaks another protocol, an interpreter that cannot start, cancellation.
class TestHostPool : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    static HostConfig local(int slotCount, const QString &python = QStringLiteral("/usr/bin/python3"))
    {
        HostConfig c;
        c.name = QStringLiteral("here");
        c.slotCount = slotCount;
        c.python = python;
        return c;
    }

    static EvalRequest baseline(const QString &task, bool timingOnly = false)
    {
        EvalRequest request;
        request.task = {{QStringLiteral("name"), task}};
        QFile f(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/") + task +
                QStringLiteral("/baseline.py"));
        if (f.open(QIODevice::ReadOnly))
            request.kernelSource = QString::fromUtf8(f.readAll());
        request.size = QStringLiteral("small");
        request.timingOnly = timingOnly;
        request.timeoutSeconds = 120;
        return request;
    }

    QString script(const QString &name, const QByteArray &body)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        f.write(body);
        f.close();
        f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        return path;
    }

    // The nice value from /proc/PID/stat (field 19; the command name in field 2 may hold spaces).
    static int niceOf(pid_t pid)
    {
        QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!f.open(QIODevice::ReadOnly))
            return -100;
        const QByteArray stat = f.readAll();
        const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
        return fields.value(16).toInt(); // field 19 counted from field 3
    }

    // The state letter from /proc/PID/stat (R, S, Z, ...); 0 when there is no such process.
    static char stateOf(pid_t pid)
    {
        QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!f.open(QIODevice::ReadOnly))
            return 0;
        const QByteArray stat = f.readAll();
        return stat.mid(stat.lastIndexOf(')') + 2, 1).at(0);
    }

    static HostPool *pool(const HostConfig &config, QList<Evaluation> &results, QObject *owner)
    {
        auto *p = new HostPool(owner);
        p->addHost(new LocalHost(config, QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench")));
        QObject::connect(p, &HostPool::evaluationFinished, owner,
                         [&results](quint64, const Evaluation &e) { results << e; });
        p->start();
        return p;
    }

private Q_SLOTS:
    void weightsShareTheWorkAmongHosts()
    {
        // Two hosts of two slots, all idle: the work goes to the least loaded per unit of weight. Even
        // weights alternate the hosts; a host of weight 3 takes both of two jobs before the other gets one.
        for (const double heavy : {1.0, 3.0}) {
            HostPool p;
            HostConfig a = local(2), b = local(2);
            a.name = QStringLiteral("a");
            b.name = QStringLiteral("b");
            b.weight = heavy;
            p.addHost(new LocalHost(a, QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench")));
            p.addHost(new LocalHost(b, QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench")));
            QStringList ranOn;
            connect(&p, &HostPool::evaluationFinished, this,
                    [&ranOn](quint64, const Evaluation &e) { ranOn << e.host.section(u'#', 0, 0); });
            p.start();
            QTRY_COMPARE_WITH_TIMEOUT(p.liveSlotCount(), 4, 60000);
            p.submit(baseline(QStringLiteral("silu"), true));
            p.submit(baseline(QStringLiteral("silu"), true));
            QTRY_COMPARE_WITH_TIMEOUT(ranOn.size(), 2, 60000);
            ranOn.sort();
            QCOMPARE(ranOn, heavy == 1.0 ? (QStringList{"a", "b"}) : (QStringList{"b", "b"}));
            p.stop();
        }
    }

    void runsJobsOnEverySlot()
    {
        QList<Evaluation> results;
        HostPool *p = pool(local(2), results, this);
        QTRY_COMPARE_WITH_TIMEOUT(p->liveSlotCount(), 2, 60000); // else the first slot up may take all three
        for (const QString &task :
             {QStringLiteral("silu"), QStringLiteral("adamw"), QStringLiteral("rmsnorm_matmul")})
            p->submit(baseline(task));
        QTRY_COMPARE_WITH_TIMEOUT(results.size(), 3, 120000);
        QSet<QString> used;
        for (const Evaluation &e : std::as_const(results)) {
            QVERIFY2(e.ok(), qPrintable(e.error));
            QVERIFY(e.isCorrect());
            QVERIFY(e.latencyMeanMs > 0);
            QVERIFY(e.percentOfPeak > 0 && *e.percentOfPeak <= 100);
            used << e.host;
        }
        QCOMPARE(used.size(), 2);
        // Simulator workers run a little below the window's priority, so a busy laptop stays responsive.
        const QList<pid_t> runners = ProcessTree::descendants(getpid());
        QVERIFY(!runners.isEmpty());
        const int own = niceOf(getpid());
        for (pid_t runner : runners)
            QCOMPARE(niceOf(runner), std::min(own + 5, 19));
        delete p;
    }

    void deadRunnerIsRestartedAndTheJobReportedOnce()
    {
        // The gate holds the result back, so the runner dies mid-evaluation however fast the machine.
        RunnerGate gate(m_dir.filePath(QStringLiteral("gate-dead")));
        QList<Evaluation> results;
        QList<quint64> jobs;
        HostPool *p = pool(local(1, gate.interpreter()), results, this);
        connect(p, &HostPool::evaluationFinished, this, [&](quint64 job, const Evaluation &) { jobs << job; });
        const quint64 first = p->submit(baseline(QStringLiteral("silu")));
        QTRY_VERIFY_WITH_TIMEOUT(!gate.holders().isEmpty(), 60000);
        QCOMPARE(p->runningCount(), 1);
        const QList<pid_t> runners = ProcessTree::children(::getpid());
        QCOMPARE(runners.size(), 1);
        ::kill(runners.first(), SIGKILL);
        gate.open(); // after the kill: the held result must not get out before it
        QTRY_COMPARE_WITH_TIMEOUT(results.size(), 1, 120000);
        QVERIFY2(results.first().ok(), qPrintable(results.first().error));
        QCOMPARE(results.first().attempts, 2);
        // Never twice: a later job on the same single slot is reported after any duplicate would have been.
        const quint64 second = p->submit(baseline(QStringLiteral("silu"), true));
        QTRY_COMPARE_WITH_TIMEOUT(results.size(), 2, 120000);
        QCOMPARE(jobs, (QList<quint64>{first, second}));
        delete p;
    }

    void jobOfADeadHostMovesToAnIdleOne()
    {
        // Host "flaky" runs its runner once; every restart fails. Host "steady" sits idle meanwhile. Flaky's
        // runner holds its result (the gate is never opened), so it dies mid-evaluation on any machine.
        RunnerGate gate(m_dir.filePath(QStringLiteral("gate-flaky")));
        const QString marker = m_dir.filePath(QStringLiteral("flaky-started"));
        const QString flaky =
            script(QStringLiteral("flaky-python"),
                   QStringLiteral("#!/bin/sh\nif [ -e %1 ]; then echo 'gone for good' >&2; exit 1; fi\n"
                                  "touch %1\nexec '%2' \"$@\"\n")
                       .arg(marker, gate.interpreter())
                       .toUtf8());
        QList<Evaluation> results;
        auto *p = new HostPool(this);
        HostConfig first = local(1, flaky);
        first.name = QStringLiteral("flaky");
        first.environment.insert(QStringLiteral("ACCELOPT_TEST_HOST"), QStringLiteral("flaky"));
        HostConfig second = local(1);
        second.name = QStringLiteral("steady");
        p->addHost(new LocalHost(first, QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench")));
        p->addHost(new LocalHost(second, QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench")));
        connect(p, &HostPool::evaluationFinished, this, [&](quint64, const Evaluation &e) { results << e; });
        p->start();
        QTRY_COMPARE_WITH_TIMEOUT(p->liveSlotCount(), 2, 60000);
        p->submit(baseline(QStringLiteral("silu")));
        QTRY_VERIFY_WITH_TIMEOUT(!gate.holders().isEmpty(), 60000);
        QCOMPARE(p->runningCount(), 1);
        pid_t flakyRunner = 0;
        for (pid_t pid : ProcessTree::children(::getpid())) {
            QFile environment(QStringLiteral("/proc/%1/environ").arg(pid));
            if (environment.open(QIODevice::ReadOnly) &&
                environment.readAll().contains("ACCELOPT_TEST_HOST=flaky"))
                flakyRunner = pid;
        }
        QVERIFY(flakyRunner > 0);
        ::kill(flakyRunner, SIGKILL);
        QTRY_COMPARE_WITH_TIMEOUT(results.size(), 1, 120000);
        QVERIFY2(results.first().ok(), qPrintable(results.first().error));
        QCOMPARE(results.first().host, QStringLiteral("steady#0"));
        delete p;
    }

    void runnerOfAnotherProtocolIsRefused()
    {
        const QString fake =
            script(QStringLiteral("old-python"),
                   "#!/bin/sh\nexec /usr/bin/python3 " ACCELOPT_TEST_FIXTURES "/hosts/old_runner.py\n");
        QList<Evaluation> results;
        HostPool *p = pool(local(1, fake), results, this);
        QList<Host::State> states;
        connect(p, &HostPool::hostStateChanged, this,
                [&](Host *, Host::State s, const QString &) { states << s; });
        p->submit(baseline(QStringLiteral("silu")));
        QTRY_COMPARE_WITH_TIMEOUT(results.size(), 1, 30000);
        QCOMPARE(results.first().status, EvalStatus::InfraError);
        QVERIFY2(results.first().error.contains(QStringLiteral("protocol 99")),
                 qPrintable(results.first().error));
        QVERIFY(states.contains(Host::State::VersionMismatch));
        delete p;
    }

    void interpreterThatCannotStartFailsTheQueue()
    {
        QList<Evaluation> results;
        HostPool *p = pool(local(1, QStringLiteral("/nonexistent/python3")), results, this);
        p->submit(baseline(QStringLiteral("silu")));
        QTRY_COMPARE_WITH_TIMEOUT(results.size(), 1, 30000);
        QCOMPARE(results.first().status, EvalStatus::InfraError);
        QVERIFY2(results.first().error.contains(QStringLiteral("/nonexistent/python3")),
                 qPrintable(results.first().error));
        delete p;
    }

    void runnerThatExitsAtOnceSaysWhy()
    {
        const QString broken =
            script(QStringLiteral("broken-python"), "#!/bin/sh\necho 'No module named numpy' >&2\nexit 1\n");
        QList<Evaluation> results;
        HostPool *p = pool(local(1, broken), results, this);
        p->submit(baseline(QStringLiteral("silu")));
        QTRY_COMPARE_WITH_TIMEOUT(results.size(), 1, 60000);
        QCOMPARE(results.first().status, EvalStatus::InfraError);
        QVERIFY2(results.first().error.contains(QStringLiteral("No module named numpy")),
                 qPrintable(results.first().error));
        delete p;
    }

    void closingASlotDoesNotWaitForItsRunner()
    {
        // A runner that ignores the end of its input (stuck in a kernel, say). Closing its slot must return
        // at once, so the window that closes it never freezes; the runner is killed after the grace, by the
        // event loop. Nothing is processed between closeSlot and the check, so the kill cannot have come yet.
        const QString stuck = script(QStringLiteral("stuck-python"), "#!/bin/sh\nexec sleep 600\n");
        LocalHost host(local(1, stuck), QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench"));
        qint64 pid = 0;
        connect(&host, &Host::slotOpened, this,
                [&pid](int, QIODevice *stream) { pid = qobject_cast<QProcess *>(stream)->processId(); });
        host.openSlot(0);
        QTRY_VERIFY_WITH_TIMEOUT(pid > 0, 10000);
        host.closeSlot(0);
        const char state = stateOf(pid_t(pid)); // alive: neither killed nor waited for
        QVERIFY2(state != 0 && state != 'Z' && state != 'X', QByteArray(1, state).constData());
        QTRY_VERIFY_WITH_TIMEOUT(stateOf(pid_t(pid)) == 0, 10000); // killed after the grace, and reaped
    }

    void runnerGetsNoSecretsFromTheEnvironment()
    {
        // The runner and the kernel's process under it once saw the whole environment, LLM key included.
        qputenv("OPENAI_API_KEY", "sk-test-never-passed-on");
        qputenv("NEURON_API_TOKEN", "neuron-secret");
        qputenv("NEURON_RT_LOG_LEVEL", "ERROR");
        const QString seen = m_dir.filePath(QStringLiteral("runner-environment.txt"));
        const QString python = script(
            QStringLiteral("env-python"),
            QStringLiteral("#!/bin/sh\nenv > '%1'\nexec /usr/bin/python3 \"$@\"\n").arg(seen).toUtf8());
        QList<Evaluation> results;
        HostConfig config = local(1, python);
        config.environment.insert(QStringLiteral("MY_CHOSEN_VAR"), QStringLiteral("yes"));
        HostPool *p = pool(config, results, this);
        p->submit(baseline(QStringLiteral("silu"), true));
        QTRY_COMPARE_WITH_TIMEOUT(results.size(), 1, 60000);
        QVERIFY2(results.first().ok(), qPrintable(results.first().error));
        delete p;
        qunsetenv("OPENAI_API_KEY");
        qunsetenv("NEURON_API_TOKEN");
        qunsetenv("NEURON_RT_LOG_LEVEL");
        QFile f(seen);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString env = QString::fromUtf8(f.readAll());
        QVERIFY2(!env.contains(QStringLiteral("sk-test-never-passed-on")), qPrintable(env));
        QVERIFY2(!env.contains(QStringLiteral("neuron-secret")), qPrintable(env));
        QVERIFY2(env.contains(QStringLiteral("\nPATH=")) || env.startsWith(QStringLiteral("PATH=")),
                 qPrintable(env));
        QVERIFY2(env.contains(QStringLiteral("NEURON_RT_LOG_LEVEL=ERROR")), qPrintable(env));
        QVERIFY2(env.contains(QStringLiteral("MY_CHOSEN_VAR=yes")), qPrintable(env));
        QVERIFY2(env.contains(QStringLiteral("PYTHONPATH=")), qPrintable(env));
    }

    void watchdogOutlastsEveryTimeoutTheRunnerAccepts()
    {
        // NaN or infinity once made the timer's interval negative, which switched the watchdog off.
        const int longest = HostPool::watchdogMs(EvalRequest::maxTimeoutSeconds);
        QVERIFY(longest > 0);
        QCOMPARE(HostPool::watchdogMs(qQNaN()), longest);
        QCOMPARE(HostPool::watchdogMs(qInf()), longest);
        QCOMPARE(HostPool::watchdogMs(1e99), longest);
        QCOMPARE(HostPool::watchdogMs(-qInf()), longest);
        QCOMPARE(HostPool::watchdogMs(-5), HostPool::watchdogMs(EvalRequest::minTimeoutSeconds));
        QCOMPARE(HostPool::watchdogMs(60), 180000);
    }

    void eachKernelGoesToAHostWhoseSdkTakesItsNki()
    {
        // Two Trainium stand-ins: one with the classic SDK (neuronxcc.nki only), one with today's (the nki
        // namespace only). A classic kernel must not land on the second, nor a current one on the first.
        const QString fixtures = QStringLiteral(ACCELOPT_SOURCE_DIR "/tests/fixtures/runner/");
        const auto sdkPython = [&](const QString &name, const QString &standin) {
            return script(name,
                          QStringLiteral("#!/bin/sh\nPYTHONPATH='%1':\"$PYTHONPATH\" PATH='%1/bin':\"$PATH\" "
                                         "exec /usr/bin/python3 \"$@\"\n")
                              .arg(fixtures + standin)
                              .toUtf8());
        };
        HostConfig classicHost =
            local(1, sdkPython(QStringLiteral("classic-sdk-python"), QStringLiteral("fake_neuronxcc")));
        classicHost.name = QStringLiteral("trn-2025");
        classicHost.backend = QStringLiteral("neuron");
        HostConfig currentHost =
            local(1, sdkPython(QStringLiteral("current-sdk-python"), QStringLiteral("fake_nki_current")));
        currentHost.name = QStringLiteral("trn-today");
        currentHost.backend = QStringLiteral("neuron");
        auto *p = new HostPool(this);
        p->addHost(new LocalHost(classicHost, QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench")));
        p->addHost(new LocalHost(currentHost, QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench")));
        QMap<quint64, Evaluation> results;
        connect(p, &HostPool::evaluationFinished, this,
                [&](quint64 job, const Evaluation &e) { results.insert(job, e); });
        p->start();
        QMap<quint64, QString> expected;
        for (int round = 0; round < 2; ++round)
            for (const auto &[file, host] :
                 {std::pair{QStringLiteral("baseline_current.py"), QStringLiteral("trn-today")},
                  std::pair{QStringLiteral("baseline.py"), QStringLiteral("trn-2025")}}) {
                EvalRequest request = baseline(QStringLiteral("silu"), true);
                QFile f(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/") + file);
                QVERIFY(f.open(QIODevice::ReadOnly));
                request.kernelSource = QString::fromUtf8(f.readAll());
                request.backend = QStringLiteral("neuron");
                expected.insert(p->submit(request), host);
            }
        QTRY_COMPARE_WITH_TIMEOUT(results.size(), 4, 120000);
        for (auto it = expected.cbegin(); it != expected.cend(); ++it) {
            const Evaluation &e = results.value(it.key());
            QVERIFY2(e.ok(), qPrintable(e.error));
            QVERIFY2(e.host.startsWith(it.value() + u'#'),
                     qPrintable(e.host + QStringLiteral(" for ") + it.value()));
            // Provenance (issue 34): a Neuron host's numbers are the hardware's, and say which SDK
            QCOMPARE(e.backend, QStringLiteral("neuron"));
            QCOMPARE(e.provenance(), QStringLiteral("hardware"));
            QVERIFY2(e.sdk.startsWith(it.value() == QStringLiteral("trn-today")
                                          ? QStringLiteral("Neuron SDK 2.33 (")
                                          : QStringLiteral("Neuron SDK <=2.26")),
                     qPrintable(e.sdk));
            QVERIFY2(e.provenanceText().endsWith(QStringLiteral(" on ") + it.value()),
                     qPrintable(e.provenanceText()));
        }
        delete p;
    }

    void cancelledJobsAreNeverReported()
    {
        // The running job's result is held until after both cancels, so it is cancelled mid-evaluation on any
        // machine, and its result then crosses the cancel on the way: it must be dropped.
        RunnerGate gate(m_dir.filePath(QStringLiteral("gate-cancel")));
        QList<Evaluation> results;
        HostPool *p = pool(local(1, gate.interpreter()), results, this);
        const quint64 running = p->submit(baseline(QStringLiteral("silu")));
        const quint64 queued = p->submit(baseline(QStringLiteral("silu")));
        QTRY_VERIFY_WITH_TIMEOUT(!gate.holders().isEmpty(), 60000);
        QCOMPARE(p->runningCount(), 1);
        p->cancel(queued);
        p->cancel(running);
        gate.open();
        const quint64 after = p->submit(baseline(QStringLiteral("adamw"), true));
        quint64 finishedJob = 0;
        connect(p, &HostPool::evaluationFinished, this,
                [&](quint64 job, const Evaluation &) { finishedJob = job; });
        QTRY_COMPARE_WITH_TIMEOUT(results.size(), 1, 60000);
        QCOMPARE(finishedJob, after);
        QVERIFY(results.first().ok());
        delete p;
    }

    void shortJobsQueueAtTheRunnerAndSurviveItsDeath()
    {
        // After a short evaluation, the slot takes the next job before the running one ends; when the runner
        // dies with one running and one queued, both are retried and each is reported once. The gate keeps the
        // running one running until the kill, however fast the machine.
        RunnerGate gate(m_dir.filePath(QStringLiteral("gate-prefetch")));
        QList<Evaluation> results;
        QMap<quint64, int> reports, attempts;
        HostPool *p = pool(local(1, gate.interpreter()), results, this);
        p->setPrefetchBelowMs(600000); // "short" on any machine, however loaded
        connect(p, &HostPool::evaluationFinished, this, [&](quint64 job, const Evaluation &e) {
            ++reports[job];
            attempts[job] = e.attempts;
        });
        gate.release(1);
        p->submit(baseline(QStringLiteral("silu"), true)); // a short one: prefetching starts after it
        QTRY_COMPARE_WITH_TIMEOUT(results.size(), 1, 60000);
        QList<quint64> jobs;
        for (int i = 0; i < 4; ++i)
            jobs << p->submit(baseline(QStringLiteral("silu"), true));
        QTRY_VERIFY_WITH_TIMEOUT(!gate.holders().isEmpty(), 60000);
        QCOMPARE(p->runningCount(), 1);
        QCOMPARE(p->queuedCount(), 2); // the second already went to the runner, behind the first
        const QList<pid_t> runners = ProcessTree::children(::getpid());
        QCOMPARE(runners.size(), 1);
        ::kill(runners.first(), SIGKILL);
        gate.open(); // after the kill: the held result must not get out before it
        QTRY_COMPARE_WITH_TIMEOUT(results.size(), 5, 240000);
        for (quint64 job : jobs)
            QCOMPARE(reports.value(job), 1);
        for (const Evaluation &e : std::as_const(results))
            QVERIFY2(e.ok(), qPrintable(e.error));
        // the running one is on its second attempt; the queued one never started, so its retry is its first
        QCOMPARE(attempts.value(jobs.first()), 2);
        for (quint64 job : jobs.mid(1))
            QCOMPARE(attempts.value(job), 1);
        delete p;
    }
};

QTEST_GUILESS_MAIN(TestHostPool)
#include "tst_hostpool.moc"
