#include "hosts/runnerclient.h"

#include "common/logcategories.h"

#include <QIODevice>
#include <QJsonDocument>
#include <QJsonParseError>

RunnerClient::RunnerClient(QIODevice *device, QObject *parent) : QObject(parent), m_device(device)
{
    connect(device, &QIODevice::readyRead, this, &RunnerClient::readLines);
}

void RunnerClient::sendHello()
{
    send(QJsonObject{{QStringLiteral("op"), QStringLiteral("hello")}});
}

void RunnerClient::sendEval(const QJsonObject &evalMessage)
{
    send(evalMessage);
}

void RunnerClient::sendPort(const QJsonObject &portMessage)
{
    send(portMessage);
}

void RunnerClient::sendTaskCheck(const QJsonObject &checkMessage)
{
    send(checkMessage);
}

void RunnerClient::sendCancel(const QString &id)
{
    send(QJsonObject{{QStringLiteral("op"), QStringLiteral("cancel")}, {QStringLiteral("id"), id}});
}

void RunnerClient::sendShutdown()
{
    send(QJsonObject{{QStringLiteral("op"), QStringLiteral("shutdown")}});
}

void RunnerClient::send(const QJsonObject &message)
{
    if (!m_device || !m_device->isWritable()) {
        qCWarning(lcHosts) << "runner stream closed; dropped"
                           << message.value(QStringLiteral("op")).toString();
        return;
    }
    m_device->write(QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n');
}

void RunnerClient::readLines()
{
    if (!m_device)
        return;
    m_buffer += m_device->readAll();
    qsizetype newline;
    while ((newline = m_buffer.indexOf('\n')) >= 0) {
        const QByteArray line = m_buffer.left(newline).trimmed();
        m_buffer.remove(0, newline + 1);
        if (!line.isEmpty())
            handleLine(line);
    }
    if (m_buffer.size() > maxLineBytes) {
        Q_EMIT protocolNoise(
            QStringLiteral("dropped %1 bytes without a line end from the runner").arg(m_buffer.size()));
        m_buffer.clear();
    }
}

void RunnerClient::handleLine(const QByteArray &line)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject()) {
        Q_EMIT protocolNoise(
            QStringLiteral("not a protocol line: %1").arg(QString::fromUtf8(line.left(200))));
        return;
    }
    const QJsonObject o = doc.object();
    const QString op = o.value(QStringLiteral("op")).toString();
    if (op == QStringLiteral("hello") || o.contains(QStringLiteral("protocol_version"))) {
        m_hello = o;
        Q_EMIT helloReceived(o);
        return;
    }
    if (op == QStringLiteral("port_result")) {
        Q_EMIT portResultReceived(o);
        return;
    }
    if (op == QStringLiteral("task_check_result")) {
        Q_EMIT taskCheckResultReceived(o);
        return;
    }
    if (o.contains(QStringLiteral("id")) && o.contains(QStringLiteral("status"))) {
        Q_EMIT resultReceived(Evaluation::fromJson(o));
        return;
    }
    // Acknowledgements (cancel, shutdown) and errors about a request that had no id land here.
    if (o.contains(QStringLiteral("error")))
        Q_EMIT protocolNoise(QStringLiteral("runner: %1").arg(o.value(QStringLiteral("error")).toString()));
    else
        qCDebug(lcHosts) << "runner said" << line.left(200);
}
