#pragma once

#include "hosts/host.h"

#include <QList>
#include <QMap>
#include <memory>

class QThread;
class SshChannelDevice;
class SshConnection;
class SshPrompter;

// A host over SSH: one connection on its own worker thread, the runner deployed by content hash with SFTP,
// and one runner channel per slot. A dropped connection closes every slot; the next openSlot reconnects.
class SshHost : public Host
{
    Q_OBJECT
public:
    SshHost(const HostConfig &config, const QString &nkibenchDir, std::shared_ptr<SshPrompter> prompter,
            QObject *parent = nullptr);
    ~SshHost() override;

    void openSlot(int slot) override;
    void closeSlot(int slot) override;

    QString fingerprint() const { return m_fingerprint; }
    QString remoteDir() const { return m_remoteDir; }
    int lastUploadedFiles() const { return m_lastUploaded; }

Q_SIGNALS:
    void deployed(const QString &remoteDir, int uploadedFiles);

private:
    enum class Link
    {
        Down,
        Connecting,
        Up
    };
    void onConnected(const QString &fingerprint, const QString &remoteDir, int uploaded);
    void onConnectFailed(const QString &error, bool transient);
    void onLost(const QString &reason);

    std::shared_ptr<SshPrompter> m_prompter;
    QThread *m_thread;
    SshConnection *m_connection;
    Link m_link = Link::Down;
    QList<int> m_waiting; // slots to open once connected
    QMap<int, SshChannelDevice *> m_devices;
    QString m_fingerprint;
    QString m_remoteDir;
    int m_lastUploaded = 0;
};
