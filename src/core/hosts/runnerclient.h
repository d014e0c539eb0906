#pragma once

#include "model/evaluation.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>

class QIODevice;

// Speaks the runner protocol (nkibench/runner/README.md) over any byte stream: a local child's stdin/stdout,
// or an SSH channel. One request line out, one result line back per eval. Anything on the stream that is not
// a protocol line (a stray print, a banner, garbage) is reported and skipped, never fatal.
class RunnerClient : public QObject
{
    Q_OBJECT
public:
    static constexpr int protocolVersion = 1;
    static constexpr qint64 maxLineBytes = 64 * 1024 * 1024;

    explicit RunnerClient(QIODevice *device, QObject *parent = nullptr);

    void sendHello();
    void sendEval(const QJsonObject &evalMessage);
    void sendCancel(const QString &id);
    void sendShutdown();
    void sendPort(const QJsonObject &portMessage); // {"op": "port", ...}; answered by portResultReceived
    // {"op": "task_check", ...}; answered by taskCheckResultReceived
    void sendTaskCheck(const QJsonObject &checkMessage);
    QJsonObject hello() const { return m_hello; }

Q_SIGNALS:
    void helloReceived(const QJsonObject &hello);
    void resultReceived(const Evaluation &evaluation);
    void portResultReceived(const QJsonObject &result);
    void taskCheckResultReceived(const QJsonObject &result);
    void protocolNoise(const QString &message);

private:
    void send(const QJsonObject &message);
    void readLines();
    void handleLine(const QByteArray &line);

    QPointer<QIODevice> m_device;
    QByteArray m_buffer;
    QJsonObject m_hello;
};
