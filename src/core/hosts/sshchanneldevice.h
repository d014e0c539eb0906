#pragma once

#include <QIODevice>

// The GUI-thread face of one runner channel: reads come from the connection's worker through appendData(),
// writes go out through the writeRequested signal. RunnerClient reads it like any other stream.
class SshChannelDevice : public QIODevice
{
    Q_OBJECT
public:
    explicit SshChannelDevice(int slot, QObject *parent = nullptr);

    void appendData(const QByteArray &data);
    qint64 bytesAvailable() const override;
    bool isSequential() const override { return true; }

Q_SIGNALS:
    void writeRequested(int slot, const QByteArray &data);

protected:
    qint64 readData(char *data, qint64 maxSize) override;
    qint64 writeData(const char *data, qint64 size) override;

private:
    int m_slot;
    QByteArray m_buffer;
};
