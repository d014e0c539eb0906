#include "hosts/sshhost.h"

#include "hosts/sshchanneldevice.h"
#include "hosts/sshconnection.h"
#include "hosts/sshprompter.h"

#include <QThread>

SshHost::SshHost(const HostConfig &config, const QString &nkibenchDir, std::shared_ptr<SshPrompter> prompter,
                 QObject *parent)
    : Host(config, parent), m_prompter(prompter ? std::move(prompter) : std::make_shared<SshPrompter>()),
      m_thread(new QThread), m_connection(new SshConnection(config, nkibenchDir, m_prompter.get()))
{
    m_thread->setObjectName(QStringLiteral("ssh:%1").arg(config.name));
    m_connection->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_thread, &QObject::deleteLater);
    connect(m_connection, &SshConnection::connected, this, &SshHost::onConnected);
    connect(m_connection, &SshConnection::connectFailed, this, &SshHost::onConnectFailed);
    connect(m_connection, &SshConnection::connectionLost, this, &SshHost::onLost);
    connect(m_connection, &SshConnection::channelOpened, this, [this](int slot) {
        auto *device = new SshChannelDevice(slot, this);
        connect(device, &SshChannelDevice::writeRequested, m_connection, &SshConnection::write);
        delete m_devices.take(slot);
        m_devices.insert(slot, device);
        Q_EMIT slotOpened(slot, device);
    });
    connect(m_connection, &SshConnection::channelFailed, this,
            [this](int slot, const QString &error, bool transient) {
                Q_EMIT slotFailed(slot, error, transient);
            });
    connect(m_connection, &SshConnection::channelData, this, [this](int slot, const QByteArray &data) {
        if (SshChannelDevice *device = m_devices.value(slot))
            device->appendData(data);
    });
    connect(m_connection, &SshConnection::channelClosed, this, [this](int slot, const QString &reason) {
        if (SshChannelDevice *device = m_devices.take(slot)) {
            device->deleteLater();
            Q_EMIT slotClosed(slot, reason);
        }
    });
    m_thread->start();
}

SshHost::~SshHost()
{
    // Nothing here waits for the connection's thread: it may be inside a blocking libssh call (a connect
    // timing out, a deploy) or waiting for this thread to answer a host-key prompt. It shuts the connection
    // down, deletes it and ends; the thread object goes once it has. The prompter lives until then.
    QMetaObject::invokeMethod(
        m_connection,
        [connection = m_connection, thread = m_thread, prompter = m_prompter] {
            connection->shutdown();
            delete connection;
            thread->quit();
        },
        Qt::QueuedConnection);
}

void SshHost::openSlot(int slot)
{
    if (m_link == Link::Up) {
        QMetaObject::invokeMethod(
            m_connection,
            [this, slot, prefix = runnerPrefix(slot)] { m_connection->openChannel(slot, prefix); },
            Qt::QueuedConnection);
        return;
    }
    if (!m_waiting.contains(slot))
        m_waiting.append(slot);
    if (m_link == Link::Down) {
        m_link = Link::Connecting;
        setState(State::Connecting, QStringLiteral("connecting to %1").arg(config().sshHost));
        QMetaObject::invokeMethod(m_connection, &SshConnection::connectAndDeploy, Qt::QueuedConnection);
    }
}

void SshHost::closeSlot(int slot)
{
    m_waiting.removeAll(slot);
    if (SshChannelDevice *device = m_devices.take(slot))
        device->deleteLater();
    QMetaObject::invokeMethod(
        m_connection, [this, slot] { m_connection->closeChannel(slot); }, Qt::QueuedConnection);
}

void SshHost::onConnected(const QString &fingerprint, const QString &remoteDir, int uploaded)
{
    m_link = Link::Up;
    if (!fingerprint.isEmpty())
        m_fingerprint = fingerprint;
    m_remoteDir = remoteDir;
    m_lastUploaded = uploaded;
    Q_EMIT deployed(remoteDir, uploaded);
    const QList<int> waiting = m_waiting;
    m_waiting.clear();
    for (int slot : waiting)
        QMetaObject::invokeMethod(
            m_connection,
            [this, slot, prefix = runnerPrefix(slot)] { m_connection->openChannel(slot, prefix); },
            Qt::QueuedConnection);
}

void SshHost::onConnectFailed(const QString &error, bool transient)
{
    m_link = Link::Down;
    const QList<int> waiting = m_waiting;
    m_waiting.clear();
    setState(State::Failed, error);
    for (int slot : waiting)
        Q_EMIT slotFailed(slot, error, transient);
}

void SshHost::onLost(const QString &reason)
{
    m_link = Link::Down;
    const QList<int> open = m_devices.keys();
    for (int slot : open) {
        m_devices.take(slot)->deleteLater();
        // The connection dropped, not the runner: a transient failure, tried again with backoff, and not
        // counted against the kernel that was running.
        Q_EMIT slotFailed(slot, reason, true);
    }
}
