#include "slurmfixture.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTcpServer>
#include <QThread>

#include <csignal>
#include <unistd.h>

namespace {
quint16 freePort()
{
    QTcpServer server;
    server.listen(QHostAddress::LocalHost, 0);
    return server.serverPort();
}
} // namespace

// Short paths without spaces: slurm.conf cannot quote them, and munge's socket path has a length limit.
SlurmFixture::SlurmFixture() : m_dir(QDir::tempPath() + QStringLiteral("/accelopt-slurm-XXXXXX")) {}

SlurmFixture::~SlurmFixture()
{
    stop();
}

bool SlurmFixture::run(const QString &program, const QStringList &args, QString &error, QString *out)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        error = QStringLiteral("%1 %2 failed: %3%4")
                    .arg(program, args.join(u' '), QString::fromLocal8Bit(p.readAllStandardError()),
                         p.error() == QProcess::FailedToStart ? p.errorString() : QString());
        return false;
    }
    if (out)
        *out = QString::fromLocal8Bit(p.readAllStandardOutput());
    return true;
}

bool SlurmFixture::start(QString &error)
{
    if (::geteuid() != 0) {
        error = QStringLiteral("a test SLURM cluster needs root here (slurmd starts jobs as their users)");
        return false;
    }
    for (const char *daemon : {"/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd"})
        if (!QFile::exists(QLatin1String(daemon))) {
            error = QStringLiteral("%1 is missing: install munge, slurmctld and slurmd "
                                   "(packaging/install-deps.sh)")
                        .arg(QLatin1String(daemon));
            return false;
        }
    if (!m_dir.isValid()) {
        error = QStringLiteral("cannot create a temporary folder");
        return false;
    }
    for (const char *sub : {"munge", "state", "spool", "log"})
        QDir(m_dir.path()).mkpath(QLatin1String(sub));
    // munged refuses a key or a socket folder that others may read or write.
    QFile::setPermissions(m_dir.path(),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QFile key(path(QStringLiteral("munge/munge.key")));
    QFile random(QStringLiteral("/dev/urandom"));
    if (!key.open(QIODevice::WriteOnly) || !random.open(QIODevice::ReadOnly) ||
        key.write(random.read(1024)) != 1024) {
        error = QStringLiteral("cannot write a munge key");
        return false;
    }
    key.close();
    key.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    const QString socket = path(QStringLiteral("munge/sock"));
    if (!run(QStringLiteral("/usr/sbin/munged"),
             {QStringLiteral("--force"), QStringLiteral("--socket=") + socket,
              QStringLiteral("--key-file=") + key.fileName(),
              QStringLiteral("--log-file=") + path(QStringLiteral("munge/log")),
              QStringLiteral("--pid-file=") + path(QStringLiteral("munge/pid")),
              QStringLiteral("--seed-file=") + path(QStringLiteral("munge/seed"))},
             error))
        return false;

    const int cpus = std::max(1, QThread::idealThreadCount());
    const QString conf =
        QStringLiteral("ClusterName=accelopt-test\n"
                       "SlurmctldHost=localhost\n"
                       "SlurmctldPort=%1\n"
                       "SlurmdPort=%2\n"
                       "SlurmUser=root\n"
                       "SlurmdUser=root\n"
                       "AuthType=auth/munge\n"
                       "AuthInfo=socket=%3\n"
                       "CredType=cred/munge\n"
                       "StateSaveLocation=%4\n"
                       "SlurmdSpoolDir=%5\n"
                       "SlurmctldPidFile=%6\n"
                       "SlurmdPidFile=%7\n"
                       "SlurmctldLogFile=%8\n"
                       "SlurmdLogFile=%9\n"
                       // no cgroups in a container: track a job's processes by process group
                       "ProctrackType=proctrack/pgid\n"
                       "TaskPlugin=task/none\n"
                       "SwitchType=switch/none\n"
                       "MpiDefault=none\n"
                       "SelectType=select/cons_tres\n"
                       "SelectTypeParameters=CR_Core\n"
                       "SchedulerType=sched/backfill\n"
                       "ReturnToService=2\n"
                       "JobCompType=jobcomp/none\n"
                       "AccountingStorageType=accounting_storage/none\n"
                       "JobAcctGatherType=jobacct_gather/none\n"
                       "InactiveLimit=0\n"
                       "KillWait=2\n"
                       "MinJobAge=2\n"
                       "SlurmctldTimeout=30\n"
                       "SlurmdTimeout=30\n")
            .arg(freePort())
            .arg(freePort())
            .arg(socket, path(QStringLiteral("state")), path(QStringLiteral("spool")),
                 path(QStringLiteral("slurmctld.pid")), path(QStringLiteral("slurmd.pid")),
                 path(QStringLiteral("log/slurmctld.log")), path(QStringLiteral("log/slurmd.log"))) +
        QStringLiteral("NodeName=localhost NodeAddr=127.0.0.1 CPUs=%1 State=UNKNOWN\n"
                       "PartitionName=%2 Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n")
            .arg(cpus)
            .arg(QLatin1String(partition));
    QFile file(path(QStringLiteral("slurm.conf")));
    if (!file.open(QIODevice::WriteOnly) || file.write(conf.toUtf8()) != conf.toUtf8().size()) {
        error = QStringLiteral("cannot write %1").arg(file.fileName());
        return false;
    }
    file.close();
    m_previousConf = qgetenv("SLURM_CONF");
    qputenv("SLURM_CONF", file.fileName().toUtf8());
    m_started = true;
    if (!run(QStringLiteral("/usr/sbin/slurmctld"), {QStringLiteral("-i")}, error) || !startNodeDaemon(error))
        return false;
    return waitForNodeIdle(30000, error);
}

bool SlurmFixture::startNodeDaemon(QString &error)
{
    return run(QStringLiteral("/usr/sbin/slurmd"), {}, error);
}

bool SlurmFixture::waitForNodeIdle(int timeoutMs, QString &error) const
{
    QElapsedTimer clock;
    clock.start();
    QString out;
    while (clock.elapsed() < timeoutMs) {
        if (run(QStringLiteral("sinfo"), {QStringLiteral("-h"), QStringLiteral("-o"), QStringLiteral("%t")},
                error, &out) &&
            out.trimmed() == QStringLiteral("idle"))
            return true;
        QThread::msleep(200);
    }
    error = QStringLiteral("the test node did not become idle (sinfo: %1); slurmctld's log ends: %2")
                .arg(out.trimmed(), log(QStringLiteral("slurmctld")));
    return false;
}

void SlurmFixture::killPidFile(const QString &file) const
{
    QFile f(path(file));
    if (!f.open(QIODevice::ReadOnly))
        return;
    const pid_t pid = pid_t(f.readAll().trimmed().toLongLong());
    if (pid <= 1)
        return;
    ::kill(pid, SIGTERM);
    for (int i = 0; i < 50 && ::kill(pid, 0) == 0; ++i)
        QThread::msleep(100);
    ::kill(pid, SIGKILL);
}

void SlurmFixture::killNodeDaemon()
{
    QFile f(path(QStringLiteral("slurmd.pid")));
    if (f.open(QIODevice::ReadOnly)) {
        const pid_t pid = pid_t(f.readAll().trimmed().toLongLong());
        if (pid > 1) {
            ::kill(pid, SIGKILL);
            for (int i = 0; i < 50 && ::kill(pid, 0) == 0; ++i)
                QThread::msleep(100);
        }
    }
}

QStringList SlurmFixture::queuedJobs() const
{
    QString out, error;
    if (!run(QStringLiteral("squeue"), {QStringLiteral("-h"), QStringLiteral("-o"), QStringLiteral("%i")},
             error, &out))
        return {QStringLiteral("squeue failed: ") + error};
    return out.split(u'\n', Qt::SkipEmptyParts);
}

bool SlurmFixture::waitForEmptyQueue(int timeoutMs) const
{
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < timeoutMs) {
        if (queuedJobs().isEmpty())
            return true;
        QThread::msleep(200);
    }
    return false;
}

bool SlurmFixture::cancel(const QString &jobId) const
{
    QString error;
    return run(QStringLiteral("scancel"), {jobId}, error);
}

QString SlurmFixture::log(const QString &daemon) const
{
    QFile f(path(QStringLiteral("log/%1.log").arg(daemon)));
    if (!f.open(QIODevice::ReadOnly))
        return QString();
    const QByteArray all = f.readAll();
    return QString::fromUtf8(all.right(1500));
}

void SlurmFixture::stop()
{
    if (!m_started)
        return;
    m_started = false;
    for (const QString &job : queuedJobs())
        cancel(job);
    killPidFile(QStringLiteral("slurmd.pid"));
    killPidFile(QStringLiteral("slurmctld.pid"));
    killPidFile(QStringLiteral("munge/pid"));
    killStepDaemons();
    if (m_previousConf.isEmpty())
        qunsetenv("SLURM_CONF");
    else
        qputenv("SLURM_CONF", m_previousConf);
}

void SlurmFixture::killStepDaemons() const
{
    // A step's slurmstepd whose slurmd went first (a test kills it on purpose) can outlive the cluster; it works
    // in the cluster's folder, which is how it is found, and nothing else of this machine's is touched.
    const QString root = QDir(m_dir.path()).canonicalPath() + u'/';
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : entries) {
        bool numeric = false;
        const pid_t pid = pid_t(entry.toInt(&numeric));
        if (!numeric || pid <= 1)
            continue;
        const QString cwd = QFile::symLinkTarget(QStringLiteral("/proc/%1/cwd").arg(pid));
        QFile comm(QStringLiteral("/proc/%1/comm").arg(pid));
        if (!cwd.startsWith(root) || !comm.open(QIODevice::ReadOnly) || !comm.readAll().startsWith("slurmstepd"))
            continue;
        ::kill(pid, SIGKILL);
    }
}
