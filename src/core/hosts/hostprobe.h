#pragma once

#include "hosts/host.h"
#include "hosts/hostconfig.h"

#include <QElapsedTimer>
#include <QIODevice>
#include <QJsonObject>
#include <QObject>
#include <memory>

class RunnerClient;
class SshPrompter;

// "Test connection": reach a host, verify its key, deploy the runner, start one runner and exchange hello.
// Asynchronous, for the Hosts dialog; the CLI's `hosts check` waits on it with an event loop.
class HostProbe : public QObject
{
    Q_OBJECT
public:
    struct Result
    {
        bool ok = false;
        QString error;
        QJsonObject hello;
        QString fingerprint; // SSH hosts
        QString remoteDir;   // SSH hosts
        int uploadedFiles = 0;
        double seconds = 0;
        QJsonObject toJson(const QString &hostName) const;
        // Which NKI each backend takes, a line each ("neuron: SDK 2.33 (...): takes current NKI", then why
        // a generation is refused); from hello, for `hosts check` and the Hosts dialog.
        QStringList nkiLines() const;
        // A SLURM host's allocation: "job 12 on trn-1, trn-2; partitions: trn*, debug"; empty for others.
        QString slurmLine() const;
    };

    explicit HostProbe(QObject *parent = nullptr);
    ~HostProbe() override;

    void start(const HostConfig &config, std::shared_ptr<SshPrompter> prompter, int timeoutMs = 120000);
    Host *host() const { return m_host.get(); } // valid from start() until finished, for state displays

Q_SIGNALS:
    void hostCreated(Host *host);
    void finished(const HostProbe::Result &result);

private:
    void finish(bool ok, const QString &error);

    std::unique_ptr<Host> m_host;
    std::unique_ptr<RunnerClient> m_client;
    QElapsedTimer m_clock;
    Result m_result;
    bool m_done = true;
    quint64 m_generation = 0; // which start() the pending timer and cleanup belong to
};
