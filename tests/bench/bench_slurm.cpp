// Benchmark (CTest label bench): a SLURM host on a real one-node SLURM (SlurmFixture), against the local host
// and an SSH host on loopback. Prints, for 1, 2, 4 and 8 slots, the slot utilization with evaluations short
// enough that scheduling is the bottleneck (silu small, timing-only: tens of ms each): the time the runners
// spent in evaluations (each result's wall_s) over slots x the wall time from the first submit to the last
// result. And the per-evaluation wall time on a warm slot through SLURM (srun step), plain SSH and the local
// host. Asserts nothing.
#include "benchpool.h"
#include "hosts/hostpool.h"
#include "hosts/localhost.h"
#include "hosts/slurmhost.h"
#include "hosts/sshhost.h"
#include "hosts/sshprompter.h"
#include "loopbackhost.h"
#include "slurmfixture.h"
#include "sshdfixture.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QLoggingCategory>
#include <QTextStream>
#include <QThread>
#include <QTimer>

#include <algorithm>

namespace {
const QString nkibench = QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench");

using BenchPool::startAndWarm;
using BenchPool::trivialEval;

// (utilization, evaluations per second) of `count` evaluations submitted at once.
std::pair<double, double> utilization(HostPool &pool, int slotCount, int count)
{
    QEventLoop loop;
    int done = 0;
    double busy = 0;
    auto c = QObject::connect(&pool, &HostPool::evaluationFinished, &loop, [&](quint64, const Evaluation &e) {
        if (!e.ok())
            qFatal("evaluation failed: %s", qPrintable(e.error));
        busy += e.wallSeconds.value_or(0);
        if (++done == count)
            loop.quit();
    });
    QElapsedTimer clock;
    clock.start();
    for (int i = 0; i < count; ++i)
        pool.submit(trivialEval());
    loop.exec();
    QObject::disconnect(c);
    const double wall = clock.nsecsElapsed() / 1e9;
    return {busy / (slotCount * wall), count / wall};
}

double medianEvalMs(HostPool &pool, int n)
{
    QList<double> times;
    for (int i = 0; i < n; ++i)
        times << BenchPool::timedEval(pool);
    return BenchPool::median(times);
}

HostConfig slurmConfig(int slotCount)
{
    HostConfig c;
    c.name = QStringLiteral("cluster");
    c.kind = HostConfig::Kind::Slurm;
    c.slotCount = slotCount;
    c.python = QStringLiteral("/usr/bin/python3");
    c.partition = QLatin1String(SlurmFixture::partition);
    return c;
}
} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("accelopt.*.info=false\naccelopt.*.debug=false"));
    const int n = argc > 1 ? QString::fromLatin1(argv[1]).toInt() : 30;
    QTextStream out(stdout);
    SlurmFixture slurm;
    QString error;
    if (!slurm.start(error)) {
        out << "bench_slurm: skipped: " << error << "\n";
        return 0;
    }
    out << "Slot utilization through SLURM (silu small, timing-only; " << QThread::idealThreadCount()
        << " cores here, so above 2 slots the evaluations share CPUs, which lengthens each but not the idle "
           "gaps "
           "between them):\n";
    for (int slotCount : {1, 2, 4, 8}) {
        HostPool pool;
        pool.addHost(new SlurmHost(slurmConfig(slotCount), nkibench, nullptr));
        startAndWarm(pool, slotCount);
        // 20 per slot: the ramp-up (a slot queues a second job only behind a measured short one) and the
        // tail (the last results do not end together) are a small part of the figure, as in a search's batch
        const auto [used, rate] = utilization(pool, slotCount, 20 * slotCount);
        out << QStringLiteral("  %1 slot(s): utilization %2 %, %3 evaluations/s\n")
                   .arg(slotCount)
                   .arg(100.0 * used, 0, 'f', 1)
                   .arg(rate, 0, 'f', 2);
        out.flush();
        pool.stop();
        slurm.waitForEmptyQueue(15000);
    }

    out << "Per-evaluation wall time on a warm slot, median of " << n << ":\n";
    HostPool slurmPool;
    slurmPool.addHost(new SlurmHost(slurmConfig(1), nkibench, nullptr));
    startAndWarm(slurmPool, 1);
    medianEvalMs(slurmPool, 2);
    const double viaSlurm = medianEvalMs(slurmPool, n);
    slurmPool.stop();
    HostConfig local;
    local.name = QStringLiteral("local");
    local.python = QStringLiteral("/usr/bin/python3");
    HostPool localPool;
    localPool.addHost(new LocalHost(local, nkibench));
    startAndWarm(localPool, 1);
    medianEvalMs(localPool, 2);
    const double viaLocal = medianEvalMs(localPool, n);
    localPool.stop();
    out << QStringLiteral("  local host                %1 ms\n").arg(viaLocal, 8, 'f', 1);
    out << QStringLiteral("  SLURM (srun step)         %1 ms   over local %2 ms\n")
               .arg(viaSlurm, 8, 'f', 1)
               .arg(viaSlurm - viaLocal, 0, 'f', 1);
    SshdFixture sshd;
    if (!sshd.start(error)) {
        out << "  ssh: skipped: " << error << "\n";
        return 0;
    }
    auto prompter = std::make_shared<SshPrompter>();
    prompter->setAcceptedFingerprints({sshd.hostKeyFingerprint()});
    const HostConfig c = loopbackHost(sshd, 1);
    HostPool sshPool;
    sshPool.addHost(new SshHost(c, nkibench, prompter));
    startAndWarm(sshPool, 1);
    medianEvalMs(sshPool, 2);
    const double viaSsh = medianEvalMs(sshPool, n);
    sshPool.stop();
    out << QStringLiteral("  ssh loopback              %1 ms   over local %2 ms; SLURM over ssh %3 ms\n")
               .arg(viaSsh, 8, 'f', 1)
               .arg(viaSsh - viaLocal, 0, 'f', 1)
               .arg(viaSlurm - viaSsh, 0, 'f', 1);
    return 0;
}
