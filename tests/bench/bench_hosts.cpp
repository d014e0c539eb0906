// Benchmark (CTest label bench): per-evaluation overhead of a warm SSH slot over the local host, against a
// fresh `ssh` process per evaluation, and throughput with 1, 2 and 4 slots. Prints its figures; asserts
// nothing.
#include "benchpool.h"
#include "hosts/hostpool.h"
#include "hosts/localhost.h"
#include "hosts/sshhost.h"
#include "hosts/sshprompter.h"
#include "loopbackhost.h"
#include "sshdfixture.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QProcess>
#include <QTextStream>
#include <QThread>
#include <QTimer>

#include <algorithm>

namespace {
const QString nkibench = QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench");

using BenchPool::median;
using BenchPool::startAndWarm;
using BenchPool::timedEval;
using BenchPool::trivialEval;

double throughput(HostPool &pool, int count)
{
    QEventLoop loop;
    int done = 0;
    auto c = QObject::connect(&pool, &HostPool::evaluationFinished, &loop, [&](quint64, const Evaluation &) {
        if (++done == count)
            loop.quit();
    });
    QElapsedTimer clock;
    clock.start();
    for (int i = 0; i < count; ++i)
        pool.submit(trivialEval());
    loop.exec();
    QObject::disconnect(c);
    return count / (clock.nsecsElapsed() / 1e9);
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("accelopt.*.info=false\naccelopt.*.debug=false"));
    const int n = argc > 1 ? QString::fromLatin1(argv[1]).toInt() : 50;
    QTextStream out(stdout);
    SshdFixture sshd;
    QString error;
    if (!sshd.start(error)) {
        out << "bench_hosts: skipped: " << error << "\n";
        return 0;
    }
    auto prompter = std::make_shared<SshPrompter>();
    prompter->setAcceptedFingerprints({sshd.hostKeyFingerprint()});

    HostConfig local;
    local.name = QStringLiteral("local");
    local.python = QStringLiteral("/usr/bin/python3");
    HostPool localPool;
    localPool.addHost(new LocalHost(local, nkibench));
    startAndWarm(localPool, 1);
    HostPool sshPool;
    auto *ssh = new SshHost(loopbackHost(sshd, 1), nkibench, prompter);
    sshPool.addHost(ssh);
    startAndWarm(sshPool, 1);
    timedEval(localPool); // first evaluations warm caches on both sides and are not counted
    timedEval(sshPool);
    // Alternate, so that drift in the machine's load lands on both sides equally.
    QList<double> localTimes, sshTimes;
    for (int i = 0; i < n; ++i) {
        localTimes << timedEval(localPool);
        sshTimes << timedEval(sshPool);
    }
    const QString remote = ssh->remoteDir();

    // A fresh ssh process per evaluation: what a script without a warm slot would do.
    QFile job(sshd.path(QStringLiteral("job.json")));
    job.open(QIODevice::WriteOnly);
    job.write(QJsonDocument(trivialEval().toJson(QStringLiteral("b"))).toJson(QJsonDocument::Compact));
    job.close();
    QList<double> freshTimes;
    for (int i = 0; i < n; ++i) {
        QProcess p;
        QElapsedTimer clock;
        clock.start();
        p.start(QStringLiteral("ssh"),
                {QStringLiteral("-q"), QStringLiteral("-i"), sshd.clientKey(), QStringLiteral("-p"),
                 QString::number(sshd.port()), QStringLiteral("-o"),
                 QStringLiteral("UserKnownHostsFile=") + sshd.knownHosts(), QStringLiteral("-o"),
                 QStringLiteral("BatchMode=yes"), QStringLiteral("-F"), QStringLiteral("/dev/null"),
                 SshdFixture::userName() + QStringLiteral("@127.0.0.1"),
                 QStringLiteral(
                     "cd %1 && PYTHONPATH=%1/runner:%1 /usr/bin/python3 -m accelopt_runner eval --job %2")
                     .arg(remote, job.fileName())});
        p.waitForFinished(60000);
        const QJsonObject result = QJsonDocument::fromJson(p.readAllStandardOutput().trimmed()).object();
        if (p.exitCode() != 0 || result.value(QStringLiteral("status")).toString() != QStringLiteral("ok"))
            qFatal("fresh ssh eval failed: %s", p.readAllStandardError().constData());
        freshTimes << clock.nsecsElapsed() / 1e6;
    }

    const double mLocal = median(localTimes), mSsh = median(sshTimes), mFresh = median(freshTimes);
    out << "Per-evaluation wall time, trivial kernel (silu small, timing-only), median of " << n << ":\n";
    out << QStringLiteral("  local host, warm slot       %1 ms\n").arg(mLocal, 8, 'f', 1);
    out << QStringLiteral("  ssh loopback, warm slot     %1 ms   overhead over local %2 ms (target <= 30)\n")
               .arg(mSsh, 8, 'f', 1)
               .arg(mSsh - mLocal, 0, 'f', 1);
    out << QStringLiteral("  fresh ssh process per eval  %1 ms   overhead over local %2 ms\n")
               .arg(mFresh, 8, 'f', 1)
               .arg(mFresh - mLocal, 0, 'f', 1);

    out << "Throughput over ssh loopback (" << 4 * n / 5 << " evaluations per row, this machine has "
        << QThread::idealThreadCount() << " cores):\n";
    for (int slotCount : {1, 2, 4}) {
        HostPool pool;
        pool.addHost(new SshHost(loopbackHost(sshd, slotCount), nkibench, prompter));
        startAndWarm(pool, slotCount);
        const double rate = throughput(pool, 4 * n / 5);
        out << QStringLiteral("  %1 slot(s): %2 evaluations/s\n").arg(slotCount).arg(rate, 0, 'f', 2);
    }
    return 0;
}
