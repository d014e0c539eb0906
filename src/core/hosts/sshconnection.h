#pragma once

#include "hosts/hostconfig.h"
#include "hosts/sshhandles.h"

#include <QObject>

#include <map>

class QSocketNotifier;
class QTimer;
class SshPrompter;

// One SSH connection and its channels, living on its own worker thread because libssh's calls block.
// Everything is driven by queued calls from SshHost and answered with signals; nothing here touches the GUI.
class SshConnection : public QObject
{
    Q_OBJECT
public:
    SshConnection(const HostConfig &config, const QString &nkibenchDir, SshPrompter *prompter);
    ~SshConnection() override;

    // Worker-thread entry points (invoke with Qt::QueuedConnection).
    void connectAndDeploy();
    void openChannel(int slot, const QStringList &prefix = {}); // prefix: Host::runnerPrefix
    void write(int slot, const QByteArray &data);
    void closeChannel(int slot);
    void shutdown();

Q_SIGNALS:
    void connected(const QString &fingerprint, const QString &remoteDir, int uploadedFiles);
    void connectFailed(const QString &error, bool transient);
    void channelOpened(int slot);
    void channelFailed(int slot, const QString &error, bool transient);
    void channelData(int slot, const QByteArray &data);
    void channelClosed(int slot, const QString &reason);
    void connectionLost(const QString &reason);

private:
    bool connectSession(QString &error, QString &fingerprint);
    bool verifyHostKey(QString &error, QString &fingerprint);
    bool authenticate(QString &error);
    bool deploy(QString &error, int &uploaded);
    bool uploadFile(sftp_session sftp, const QString &local, const QString &remote, QString &error);
    QString remoteCommand(int slot, const QStringList &prefix) const;
    QString endpoint() const;
    void pump();
    void dropConnection(const QString &reason);

    HostConfig m_config;
    QString m_nkibenchDir;
    SshPrompter *m_prompter;
    SshSessionPtr m_session;
    std::map<int, SshChannelPtr> m_channels;
    // The last lines each runner wrote to stderr: why it stopped (a bad interpreter, a missing module) is
    // there, and belongs in the message, not only in a verbose log.
    std::map<int, QString> m_stderrTail;
    QString m_remoteDir;
    QString m_knownHostsPath; // where this session reads and records host keys
    QSocketNotifier *m_notifier = nullptr;
    QTimer *m_poll = nullptr;
    QTimer *m_keepalive = nullptr;
};
