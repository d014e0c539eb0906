#include "hosts/slurmhost.h"

#include "common/logcategories.h"
#include "hosts/localhost.h"
#include "hosts/runnerclient.h"
#include "hosts/sshhost.h"
#include "hosts/sshprompter.h"

#include <QJsonArray>
#include <QProcess>

#include <algorithm>

namespace {
// The machine that runs salloc and srun: this one, or the head node. It has one slot more than the host: the
// allocation's holder.
HostConfig transportConfig(const HostConfig &config, int slots)
{
    HostConfig t = config;
    t.kind = config.sshHost.isEmpty() ? HostConfig::Kind::Local : HostConfig::Kind::Ssh;
    t.slotCount = slots + 1;
    return t;
}
} // namespace

HostConfig SlurmHost::slotsOf(HostConfig config)
{
    config.slotCount = config.slotCount * std::max(1, config.nodes);
    return config;
}

SlurmHost::SlurmHost(const HostConfig &config, const QString &nkibenchDir,
                     std::shared_ptr<SshPrompter> prompter, QObject *parent)
    : Host(slotsOf(config), parent)
{
    const HostConfig t = transportConfig(config, slotCount());
    if (t.kind == HostConfig::Kind::Local)
        m_transport = new LocalHost(t, nkibenchDir, this);
    else
        m_transport = new SshHost(t, nkibenchDir, std::move(prompter), this);
    connect(m_transport, &Host::slotOpened, this, &SlurmHost::onTransportOpened);
    connect(m_transport, &Host::slotFailed, this, [this](int slot, const QString &error, bool transient) {
        onTransportGone(slot, error, true, transient);
    });
    connect(m_transport, &Host::slotClosed, this,
            [this](int slot, const QString &reason) { onTransportGone(slot, reason, false, false); });
    // What the head node's connection goes through (connecting, a refused key) is this host's state too.
    connect(m_transport, &Host::stateChanged, this, [this](Host::State state, const QString &detail) {
        if (state == State::Connecting || state == State::Failed)
            setState(state, detail);
    });
}

SlurmHost::~SlurmHost()
{
    releaseAllocation();
}

QStringList SlurmHost::allocationCommand() const
{
    const HostConfig &c = config();
    // --kill-command: when the job is revoked (time limit, preemption, scancel) the holder is told at once,
    // which tells this host; without it salloc leaves its command running on a job that is gone.
    QStringList words{QStringLiteral("salloc"), QStringLiteral("--job-name=accelopt-") + c.name,
                      QStringLiteral("--nodes=%1").arg(std::max(1, c.nodes)),
                      QStringLiteral("--kill-command=TERM")};
    const std::pair<const char *, QString> optional[] = {{"--partition=", c.partition},
                                                         {"--account=", c.account},
                                                         {"--time=", c.timeLimit},
                                                         {"--gres=", c.gres},
                                                         {"--constraint=", c.constraint}};
    for (const auto &[option, value] : optional)
        if (!value.isEmpty())
            words << QLatin1String(option) + value;
    if (c.backend == QStringLiteral("neuron"))
        words << QStringLiteral("--exclusive"); // every NeuronCore of a node is one of our slots
    return words;
}

QStringList SlurmHost::stepCommand(int slot) const
{
    const int perNode = std::max(1, config().slotCount / std::max(1, config().nodes));
    QStringList words{QStringLiteral("srun"), QStringLiteral("--jobid=") + m_jobId,
                      QStringLiteral("--nodes=1"), QStringLiteral("--ntasks=1"),
                      // the steps share the allocation's CPUs: a slot is a NeuronCore, not a CPU
                      QStringLiteral("--overlap"), QStringLiteral("--unbuffered"), QStringLiteral("--quiet"),
                      QStringLiteral("--job-name=accelopt-%1-slot%2").arg(name()).arg(slot),
                      QStringLiteral("--export=ALL,NEURON_RT_VISIBLE_CORES=%1").arg(slot % perNode)};
    if (!m_nodes.isEmpty())
        words << QStringLiteral("--nodelist=") +
                     m_nodes.value(std::min(slot / perNode, int(m_nodes.size()) - 1));
    return words;
}

void SlurmHost::openSlot(int slot)
{
    m_waiting.removeAll(slot);
    if (!m_jobId.isEmpty()) {
        m_transport->setRunnerPrefix(slot, stepCommand(slot));
        m_transport->openSlot(slot);
        return;
    }
    m_waiting.append(slot);
    allocate();
}

void SlurmHost::closeSlot(int slot)
{
    m_waiting.removeAll(slot);
    m_open.remove(slot);
    m_transport->closeSlot(slot);
    if (m_open.isEmpty() && m_waiting.isEmpty())
        releaseAllocation();
}

void SlurmHost::allocate()
{
    if (m_allocating)
        return;
    m_allocating = true;
    const QStringList command = allocationCommand();
    setState(State::Connecting, QStringLiteral("waiting for a SLURM allocation: %1").arg(command.join(u' ')));
    m_transport->setRunnerPrefix(holderSlot(), command);
    m_transport->openSlot(holderSlot());
}

void SlurmHost::onTransportOpened(int slot, QIODevice *stream)
{
    if (slot != holderSlot()) {
        m_open.insert(slot);
        Q_EMIT slotOpened(slot, stream);
        return;
    }
    // salloc runs its command once the allocation is granted; until then the hello waits in the pipe.
    if (m_holder)
        m_holder->deleteLater();
    m_holder = new RunnerClient(stream, this);
    connect(m_holder, &RunnerClient::helloReceived, this, &SlurmHost::onHolderHello);
    m_holder->sendHello();
}

void SlurmHost::onHolderHello(const QJsonObject &hello)
{
    m_allocating = false;
    const QJsonObject slurm = hello.value(QStringLiteral("slurm")).toObject();
    const QString job = slurm.value(QStringLiteral("job_id")).toString();
    if (job.isEmpty()) {
        const QString why =
            QStringLiteral("the runner started under salloc is in no SLURM job (salloc did not "
                           "allocate?); check that salloc works on %1")
                .arg(config().sshHost.isEmpty() ? QStringLiteral("this machine") : config().sshHost);
        const QList<int> waiting = std::exchange(m_waiting, {});
        releaseAllocation();
        for (int slot : waiting)
            Q_EMIT slotFailed(slot, why, false);
        return;
    }
    m_jobId = job;
    m_nodes.clear();
    for (const QJsonValue &node : slurm.value(QStringLiteral("nodes")).toArray())
        m_nodes << node.toString();
    m_partitions.clear();
    for (const QJsonValue &partition : slurm.value(QStringLiteral("partitions")).toArray())
        m_partitions << partition.toString();
    qCInfo(lcHosts).noquote() << name() << "SLURM job" << m_jobId << "on" << m_nodes.join(u',');
    Q_EMIT allocated(m_jobId, m_nodes);
    const QList<int> waiting = std::exchange(m_waiting, {});
    for (int slot : waiting)
        openSlot(slot);
}

void SlurmHost::onTransportGone(int slot, const QString &reason, bool failedToOpen, bool transient)
{
    if (slot != holderSlot()) {
        m_open.remove(slot);
        // srun saying the job is gone is news before the holder's: allocate anew at the next openSlot.
        static const QStringList gone{QStringLiteral("has expired"), QStringLiteral("Invalid job id"),
                                      QStringLiteral("Unable to confirm allocation"),
                                      QStringLiteral("Job has been cancelled")};
        if (!m_jobId.isEmpty() && std::any_of(gone.cbegin(), gone.cend(), [&](const QString &words) {
                return reason.contains(words, Qt::CaseInsensitive);
            }))
            releaseAllocation();
        // A step that ran and ended most likely went with its job (time limit, preemption, scancel), whose
        // holder may not have told us yet: a transient failure, so the slot is tried again once the host has
        // allocated anew, not given up after a few quick restarts against the job that is gone.
        Q_EMIT slotFailed(slot, reason, failedToOpen ? transient : true);
        return;
    }
    // The holder ended: its allocation is gone, and with it every step (each slot reports its own end).
    const bool hadJob = !m_jobId.isEmpty();
    forgetAllocation();
    const QString why = hadJob ? QStringLiteral("the SLURM allocation ended: %1").arg(reason)
                               : QStringLiteral("no SLURM allocation: %1").arg(reason);
    const QList<int> waiting = std::exchange(m_waiting, {});
    // A job that ended (time limit, preemption, scancel) is allocated anew; salloc refusing the settings
    // would refuse them again.
    for (int waitingSlot : waiting)
        Q_EMIT slotFailed(waitingSlot, why, hadJob || transient);
}

void SlurmHost::releaseAllocation()
{
    // The holder's end of the stream closes, the holder exits, and salloc returns the allocation.
    if (m_holder)
        m_holder->sendShutdown();
    m_transport->closeSlot(holderSlot());
    // The transport kills a holder that takes over a second to go, and salloc killed so gives nothing back:
    // cancel the job too (a job already gone makes scancel say so, and nothing else).
    if (!m_jobId.isEmpty() && config().sshHost.isEmpty())
        QProcess::startDetached(QStringLiteral("scancel"), {QStringLiteral("--quiet"), m_jobId});
    forgetAllocation();
}

void SlurmHost::forgetAllocation()
{
    if (m_holder) {
        m_holder->deleteLater();
        m_holder = nullptr;
    }
    m_allocating = false;
    m_jobId.clear();
    m_nodes.clear();
}
