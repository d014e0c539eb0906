#include "hosts/sshchanneldevice.h"

#include <cstring>

SshChannelDevice::SshChannelDevice(int slot, QObject *parent) : QIODevice(parent), m_slot(slot)
{
    open(QIODevice::ReadWrite | QIODevice::Unbuffered);
}

void SshChannelDevice::appendData(const QByteArray &data)
{
    m_buffer += data;
    Q_EMIT readyRead();
}

qint64 SshChannelDevice::bytesAvailable() const
{
    return m_buffer.size() + QIODevice::bytesAvailable();
}

qint64 SshChannelDevice::readData(char *data, qint64 maxSize)
{
    const qint64 n = qMin<qint64>(maxSize, m_buffer.size());
    std::memcpy(data, m_buffer.constData(), size_t(n));
    m_buffer.remove(0, n);
    return n;
}

qint64 SshChannelDevice::writeData(const char *data, qint64 size)
{
    Q_EMIT writeRequested(m_slot, QByteArray(data, size));
    return size;
}
