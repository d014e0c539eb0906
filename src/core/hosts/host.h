#pragma once

#include "hosts/hostconfig.h"

#include <QMap>
#include <QObject>
#include <QStringList>

class QIODevice;

// A machine we can run the runner on. A host opens one runner stream per slot; HostPool drives the protocol
// over those streams and never cares whether they are a child process or an SSH channel.
class Host : public QObject
{
    Q_OBJECT
public:
    enum class State
    {
        Offline, // not connected (an SSH host before its first job); a local host is Ready from the start

        Connecting,
        Ready,
        Busy,
        Lost,
        VersionMismatch,
        Failed
    };
    Q_ENUM(State)

    explicit Host(const HostConfig &config, QObject *parent = nullptr);

    const HostConfig &config() const { return m_config; }
    QString name() const { return m_config.name; }
    int slotCount() const { return m_config.slotCount; }
    State state() const { return m_state; }
    QString stateDetail() const { return m_detail; }
    static QString stateName(State state);
    // What a host is before anything was asked of it: a local host starts its runners on demand, so it is
    // ready; a remote one is not connected yet.
    static State idleState(const HostConfig &config);
    void setState(State state, const QString &detail = {});

    // Starts the runner for a slot; answers with slotOpened or slotFailed, later slotClosed when the stream
    // ends. A failure is transient when the machine could not be reached (refused, timed out, not connected):
    // it may work in a moment. Otherwise (a host key, a login, an interpreter) it fails the same way again.
    virtual void openSlot(int slot) = 0;
    virtual void closeSlot(int slot) = 0;

    // Words that run the slot's runner, before its interpreter: a SLURM host's `srun ...` (or `salloc ...`
    // for the runner that holds its allocation). Empty: the runner itself. Taken at the next openSlot.
    void setRunnerPrefix(int slot, const QStringList &words) { m_prefixes.insert(slot, words); }
    QStringList runnerPrefix(int slot) const { return m_prefixes.value(slot); }

Q_SIGNALS:
    void slotOpened(int slot, QIODevice *stream);
    void slotFailed(int slot, const QString &error, bool transient);
    void slotClosed(int slot, const QString &reason);
    void stateChanged(Host::State state, const QString &detail);

private:
    HostConfig m_config;
    QMap<int, QStringList> m_prefixes;
    State m_state = State::Offline;
    QString m_detail;
};
