#include "hosts/localhost.h"

#include "common/logcategories.h"
#include "hosts/runnerenvironment.h"

#include <QDeadlineTimer>
#include <QProcess>
#include <QTimer>

#include <cerrno>
#include <unistd.h>

LocalHost::LocalHost(const HostConfig &config, const QString &nkibenchDir, QObject *parent)
    : Host(config, parent), m_nkibenchDir(nkibenchDir)
{
}

LocalHost::~LocalHost()
{
    for (QProcess *process : std::as_const(m_processes)) {
        process->disconnect(this);
        process->kill();
        process->waitForFinished(2000);
    }
    // Slots closed a moment ago get what is left of their grace, together, to exit on their own.
    const QDeadlineTimer grace(closeGraceMs);
    for (QProcess *process : std::as_const(m_closing)) {
        process->disconnect(this);
        if (!process->waitForFinished(int(grace.remainingTime()))) {
            process->kill();
            process->waitForFinished(2000);
        }
    }
}

void LocalHost::openSlot(int slot)
{
    closeSlot(slot);
    auto *process = new QProcess(this);
    m_processes.insert(slot, process);
    QProcessEnvironment env = RunnerEnvironment::forLocalRunner(m_nkibenchDir);
    if (config().backend == QStringLiteral("neuron"))
        env.insert(QStringLiteral("NEURON_RT_VISIBLE_CORES"), QString::number(slot));
    for (auto it = config().environment.begin(); it != config().environment.end(); ++it)
        env.insert(it.key(), it.value());
    process->setProcessEnvironment(env);
    process->setWorkingDirectory(m_nkibenchDir);
    QStringList command = runnerPrefix(slot);
    command << config().pythonForLocal() << QStringLiteral("-m") << QStringLiteral("accelopt_runner")
            << QStringLiteral("serve");
    process->setProgram(command.takeFirst());
    process->setArguments(command);
    // Simulator workers fill every core of a laptop; a little lower priority keeps the window (and the rest
    // of the desktop) responsive meanwhile. nkisim's latencies are modelled, not timed, so they do not
    // change. Hardware timing (the neuron backend) keeps the normal priority.
    if (config().backend == QStringLiteral("sim"))
        process->setChildProcessModifier([] {
            errno = 0;
            if (::nice(5) == -1 && errno != 0)
                return; // not allowed to change it: run as it is
        });

    connect(process, &QProcess::started, this, [this, slot, process] { Q_EMIT slotOpened(slot, process); });
    connect(process, &QProcess::errorOccurred, this, [this, slot, process](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            Q_EMIT slotFailed(slot,
                              QStringLiteral("cannot start %1: %2. Set the host's python interpreter.")
                                  .arg(process->program(), process->errorString()),
                              false);
    });
    connect(process, &QProcess::finished, this, [this, slot, process](int code, QProcess::ExitStatus status) {
        if (m_processes.value(slot) != process)
            return; // an old process of a slot that was reopened
        m_processes.remove(slot);
        process->deleteLater();
        QString reason = status == QProcess::CrashExit
                             ? QStringLiteral("the runner crashed")
                             : QStringLiteral("the runner exited with status %1").arg(code);
        // The runner's last words usually say why (a missing module, a bad interpreter): pass them on.
        const QString lastWords = process->property("lastStderr").toString().trimmed();
        if (!lastWords.isEmpty())
            reason += QStringLiteral(": ") + lastWords;
        Q_EMIT slotClosed(slot, reason);
    });
    connect(process, &QProcess::readyReadStandardError, this, [this, slot, process] {
        const QList<QByteArray> lines = process->readAllStandardError().split('\n');
        for (const QByteArray &line : lines) {
            if (line.trimmed().isEmpty())
                continue;
            qCDebug(lcHosts).noquote() << name() << "slot" << slot << "runner:" << QString::fromUtf8(line);
            process->setProperty("lastStderr", QString::fromUtf8(line.left(500)));
        }
    });
    process->start();
}

void LocalHost::closeSlot(int slot)
{
    QProcess *process = m_processes.take(slot);
    if (!process)
        return;
    process->disconnect(this);
    // The runner exits when its input ends; one that has not within the grace is killed. Nothing here waits:
    // a stuck runner must not freeze the window that closes it.
    m_closing.insert(process);
    connect(process, &QProcess::finished, this, [this, process] {
        m_closing.remove(process);
        process->deleteLater();
    });
    QTimer::singleShot(closeGraceMs, process, [process] { process->kill(); });
    process->closeWriteChannel();
}
