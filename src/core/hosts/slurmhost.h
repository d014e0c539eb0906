#pragma once

#include "hosts/host.h"

#include <QJsonObject>
#include <QList>
#include <QSet>
#include <memory>

class RunnerClient;
class SshPrompter;

// A SLURM cluster (docs/architecture.md, "The runner protocol and the host side"), driven through the
// scheduler it already runs. One runner started under salloc holds the allocation (its hello names the job
// and the allocated nodes); every slot is a runner started under srun as a step of that allocation, pinned to
// a node and to a NeuronCore on it. The transport is this machine when it is a submit host (no ssh_host),
// else SSH to the head node, whose home is shared with the compute nodes as on ParallelCluster.
//
// The allocation lives exactly as long as its holder's stream: stopping the host closes it, and when the
// workbench exits or crashes the holder reads end-of-file, exits, and salloc gives the allocation back, which
// ends every step, so no job outlives us. A job that ends under us (its time limit, preemption, scancel, a
// lost node) closes the slots; HostPool retries their evaluations elsewhere, and the next openSlot allocates
// anew.
class SlurmHost : public Host
{
    Q_OBJECT
public:
    SlurmHost(const HostConfig &config, const QString &nkibenchDir, std::shared_ptr<SshPrompter> prompter,
              QObject *parent = nullptr);
    ~SlurmHost() override;

    void openSlot(int slot) override;
    void closeSlot(int slot) override;

    // The words that start the holder and a slot's runner, before the interpreter.
    QStringList allocationCommand() const;
    QStringList stepCommand(int slot) const;
    QString jobId() const { return m_jobId; }
    QStringList nodes() const { return m_nodes; }
    QStringList partitions() const { return m_partitions; }
    static HostConfig slotsOf(HostConfig config); // slotCount per node -> slots of the whole allocation

Q_SIGNALS:
    void allocated(const QString &jobId, const QStringList &nodes);

private:
    int holderSlot() const { return slotCount(); } // the transport's slot after the evaluation slots
    void allocate();
    void onTransportOpened(int slot, QIODevice *stream);
    void onTransportGone(int slot, const QString &reason, bool failedToOpen, bool transient);
    void onHolderHello(const QJsonObject &hello);
    void releaseAllocation();
    void forgetAllocation(); // the holder and what it said

    Host *m_transport;
    RunnerClient *m_holder = nullptr;
    bool m_allocating = false;
    QString m_jobId;
    QStringList m_nodes;
    QStringList m_partitions;
    QList<int> m_waiting; // evaluation slots to open once the allocation is granted
    QSet<int> m_open;
};
