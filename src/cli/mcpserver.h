#pragma once

#include "mcptool.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QStringList>

class McpCall;

// The Model Context Protocol (revision 2025-06-18) over JSON-RPC 2.0, without its transport: one message in
// (handleLine), messages out (outgoing). Lifecycle (initialize, then notifications/initialized), ping,
// tools/list and tools/call, progress and cancellation. Calls run concurrently on this thread's event loop:
// a long tools/call never holds up ping or another call. Every outgoing string has the process's secrets
// replaced (see setSecrets), whatever a tool or an error message carried.
class McpServer : public QObject
{
    Q_OBJECT
public:
    static constexpr const char *protocolVersion = "2025-06-18";
    static QStringList supportedVersions(); // newest first

    enum ErrorCode
    {
        ParseError = -32700,
        InvalidRequest = -32600,
        MethodNotFound = -32601,
        InvalidParams = -32602,
        InternalError = -32603,
    };

    explicit McpServer(QObject *parent = nullptr);

    void addTool(const McpTool &tool);
    const QList<McpTool> &tools() const { return m_tools; }
    void setInstructions(const QString &instructions) { m_instructions = instructions; }
    // Values never to send: API keys and other secrets of this process's environment (McpSecrets).
    void setSecrets(const QStringList &secrets) { m_secrets = secrets; }

    void handleLine(const QByteArray &line);
    void lineTooLong(); // the transport dropped a line
    // Cancels every call still running (the client is gone); their tools stop their work.
    void cancelAll();
    int callsRunning() const { return int(m_calls.size()); }

Q_SIGNALS:
    void outgoing(const QJsonObject &message);

private:
    void handle(const QJsonObject &message);
    void respond(const QJsonValue &id, const QJsonObject &result);
    void error(const QJsonValue &id, int code, const QString &message, const QJsonValue &data = {});
    void notify(const QString &method, const QJsonObject &params);
    void send(QJsonObject message);
    QJsonValue scrub(const QJsonValue &value) const;

    void initialize(const QJsonValue &id, const QJsonObject &params);
    void callTool(const QJsonValue &id, const QJsonObject &params);
    void cancelled(const QJsonObject &params);

    QList<McpTool> m_tools;
    QString m_instructions;
    QStringList m_secrets;
    bool m_initialized = false; // initialize answered
    QHash<QString, QPointer<McpCall>> m_calls; // by the request id, as JSON text
};
