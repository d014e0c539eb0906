#pragma once

#include <QString>
#include <QStringList>
#include <QTemporaryDir>

// A real one-node SLURM cluster for tests, from Debian's packages (munge, slurmctld, slurmd): its own munge
// key and socket, a generated slurm.conf with the controller and the node on 127.0.0.1 at free ports, state,
// spool and logs in a temporary folder; every daemon started and stopped by PID. start() points SLURM_CONF at
// it for this process and its children, so salloc, srun, squeue and the runner find the cluster. Root only
// (slurmd starts jobs as their users); otherwise start() says why and the tests skip.
class SlurmFixture
{
public:
    static constexpr const char *partition = "trn";

    SlurmFixture();
    ~SlurmFixture();

    bool start(QString &error);
    void stop(); // cancels what is queued, then stops every daemon

    // For fault tests: slurmd dies as a node daemon does (SIGKILL, its job steps live on), and comes back.
    void killNodeDaemon();
    bool startNodeDaemon(QString &error);

    QStringList queuedJobs() const; // job ids squeue lists
    bool waitForEmptyQueue(int timeoutMs) const;
    bool cancel(const QString &jobId) const; // scancel, as someone outside the workbench would
    QString
    log(const QString &daemon) const; // the tail of slurmctld's or slurmd's log, for a failure message
    QString path(const QString &name) const { return m_dir.filePath(name); }

private:
    static bool run(const QString &program, const QStringList &args, QString &error, QString *out = nullptr);
    bool waitForNodeIdle(int timeoutMs, QString &error) const;
    void killPidFile(const QString &file) const;
    void killStepDaemons() const;

    QTemporaryDir m_dir;
    QByteArray m_previousConf;
    bool m_started = false;
};
