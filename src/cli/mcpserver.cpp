#include "mcpserver.h"

#include "clilogging.h"
#include "common/buildinfo.h"
#include "mcpcall.h"
#include "mcpschema.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

namespace {
QString keyOf(const QJsonValue &id)
{
    return QString::fromUtf8(QJsonDocument(QJsonArray{id}).toJson(QJsonDocument::Compact));
}
} // namespace

QJsonObject McpTool::listing() const
{
    QJsonObject o{{QStringLiteral("name"), name},
                  {QStringLiteral("title"), title},
                  {QStringLiteral("description"), description},
                  {QStringLiteral("inputSchema"), inputSchema}};
    if (!outputSchema.isEmpty())
        o.insert(QStringLiteral("outputSchema"), outputSchema);
    return o;
}

QStringList McpServer::supportedVersions()
{
    return {QLatin1String(protocolVersion), QStringLiteral("2025-03-26"), QStringLiteral("2024-11-05")};
}

McpServer::McpServer(QObject *parent) : QObject(parent) {}

void McpServer::addTool(const McpTool &tool)
{
    m_tools.append(tool);
}

void McpServer::handleLine(const QByteArray &line)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(line, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        error(QJsonValue::Null, ParseError,
              QStringLiteral("parse error: %1 at byte %2 (each line must be one JSON-RPC message)")
                  .arg(parseError.errorString())
                  .arg(parseError.offset));
        return;
    }
    if (doc.isArray()) { // batches were removed from MCP in 2025-06-18
        error(QJsonValue::Null, InvalidRequest, QStringLiteral("JSON-RPC batches are not supported; send one message a line"));
        return;
    }
    handle(doc.object());
}

void McpServer::lineTooLong()
{
    error(QJsonValue::Null, ParseError,
          QStringLiteral("a message over %1 MiB was dropped").arg(64));
}

void McpServer::handle(const QJsonObject &message)
{
    const QJsonValue id = message.value(QStringLiteral("id"));
    const bool idValid = id.isString() || (id.isDouble());
    const QJsonValue methodValue = message.value(QStringLiteral("method"));
    if (message.value(QStringLiteral("jsonrpc")) != QJsonValue(QStringLiteral("2.0"))) {
        error(idValid ? id : QJsonValue(QJsonValue::Null), InvalidRequest, QStringLiteral("\"jsonrpc\" must be \"2.0\""));
        return;
    }
    if (methodValue.isUndefined() && (message.contains(QStringLiteral("result")) || message.contains(QStringLiteral("error"))))
        return; // a response: this server sends no requests, so there is nothing it answers
    if (!methodValue.isString()) {
        error(idValid ? id : QJsonValue(QJsonValue::Null), InvalidRequest, QStringLiteral("\"method\" must be a string"));
        return;
    }
    const QString method = methodValue.toString();
    const QJsonValue paramsValue = message.value(QStringLiteral("params"));
    if (!paramsValue.isUndefined() && !paramsValue.isObject()) {
        if (idValid)
            error(id, InvalidParams, QStringLiteral("\"params\" must be an object"));
        return;
    }
    const QJsonObject params = paramsValue.toObject();
    if (id.isUndefined()) { // a notification: never answered
        if (method == QStringLiteral("notifications/cancelled"))
            cancelled(params);
        else if (method == QStringLiteral("notifications/initialized"))
            qCDebug(lcCli) << "mcp: the client is initialized";
        return;
    }
    if (!idValid) {
        error(QJsonValue::Null, InvalidRequest, QStringLiteral("\"id\" must be a string or a number"));
        return;
    }
    if (m_calls.contains(keyOf(id))) {
        error(id, InvalidRequest, QStringLiteral("request id %1 is already in use by a call that runs").arg(keyOf(id)));
        return;
    }
    if (method == QStringLiteral("initialize"))
        return initialize(id, params);
    if (method == QStringLiteral("ping"))
        return respond(id, {});
    if (!m_initialized) {
        error(id, InvalidRequest, QStringLiteral("the server is not initialized: send \"initialize\" first"));
        return;
    }
    if (method == QStringLiteral("tools/list")) {
        QJsonArray tools;
        for (const McpTool &t : std::as_const(m_tools))
            tools.append(t.listing());
        return respond(id, {{QStringLiteral("tools"), tools}});
    }
    if (method == QStringLiteral("tools/call"))
        return callTool(id, params);
    error(id, MethodNotFound, QStringLiteral("method '%1' not found; this server offers initialize, ping, tools/list, tools/call").arg(method));
}

void McpServer::initialize(const QJsonValue &id, const QJsonObject &params)
{
    const QJsonValue asked = params.value(QStringLiteral("protocolVersion"));
    if (!asked.isString()) {
        error(id, InvalidParams, QStringLiteral("initialize needs params.protocolVersion (a string such as \"%1\")")
                                     .arg(QLatin1String(protocolVersion)));
        return;
    }
    // The client's revision when this server speaks it, else the newest one this server speaks: the client
    // decides whether it can go on.
    const QString version = supportedVersions().contains(asked.toString()) ? asked.toString()
                                                                           : QLatin1String(protocolVersion);
    const QString client = params.value(QStringLiteral("clientInfo")).toObject().value(QStringLiteral("name")).toString();
    qCInfo(lcCli) << "mcp: initialize from" << client << "protocol" << asked.toString() << "->" << version;
    m_initialized = true;
    QJsonObject result{{QStringLiteral("protocolVersion"), version},
                       {QStringLiteral("capabilities"),
                        QJsonObject{{QStringLiteral("tools"), QJsonObject{{QStringLiteral("listChanged"), false}}}}},
                       {QStringLiteral("serverInfo"),
                        QJsonObject{{QStringLiteral("name"), QStringLiteral("accelopt")},
                                    {QStringLiteral("title"), QStringLiteral("AccelOpt Workbench")},
                                    {QStringLiteral("version"), BuildInfo::appVersion()}}}};
    if (!m_instructions.isEmpty())
        result.insert(QStringLiteral("instructions"), m_instructions);
    respond(id, result);
}

void McpServer::callTool(const QJsonValue &id, const QJsonObject &params)
{
    const QString name = params.value(QStringLiteral("name")).toString();
    const auto tool = std::find_if(m_tools.cbegin(), m_tools.cend(), [&name](const McpTool &t) { return t.name == name; });
    if (tool == m_tools.cend()) {
        QStringList names;
        for (const McpTool &t : std::as_const(m_tools))
            names << t.name;
        error(id, InvalidParams,
              name.isEmpty() ? QStringLiteral("tools/call needs params.name, one of: %1").arg(names.join(QStringLiteral(", ")))
                             : QStringLiteral("unknown tool '%1'; the tools are: %2").arg(name, names.join(QStringLiteral(", "))));
        return;
    }
    const QJsonValue argumentsValue = params.value(QStringLiteral("arguments"));
    const QJsonValue arguments = argumentsValue.isUndefined() ? QJsonValue(QJsonObject{}) : argumentsValue;
    if (const QStringList problems = McpSchema::problems(tool->inputSchema, arguments); !problems.isEmpty()) {
        error(id, InvalidParams, QStringLiteral("invalid arguments for %1: %2").arg(name, problems.join(QStringLiteral("; "))),
              QJsonArray::fromStringList(problems));
        return;
    }
    const QJsonValue token = params.value(QStringLiteral("_meta")).toObject().value(QStringLiteral("progressToken"));
    auto *call = new McpCall(id, name, arguments.toObject(), (token.isString() || token.isDouble()) ? token : QJsonValue(), this);
    const QString key = keyOf(id);
    m_calls.insert(key, call);
    connect(call, &McpCall::progressed, this, [this](const QJsonObject &p) { notify(QStringLiteral("notifications/progress"), p); });
    connect(call, &McpCall::completed, this, [this, call, key](const QJsonObject &result) {
        m_calls.remove(key);
        respond(call->id(), result);
        call->deleteLater();
    });
    connect(call, &McpCall::cancelled, this, [this, call, key] {
        m_calls.remove(key);
        call->deleteLater();
    });
    qCInfo(lcCli) << "mcp: call" << key << name;
    tool->run(call);
}

void McpServer::cancelled(const QJsonObject &params)
{
    const QString key = keyOf(params.value(QStringLiteral("requestId")));
    // Unknown or finished ids are ignored, as the protocol says: the result may have crossed the notice.
    if (const QPointer<McpCall> call = m_calls.value(key)) {
        qCInfo(lcCli) << "mcp: call" << key << "cancelled:" << params.value(QStringLiteral("reason")).toString();
        call->cancel();
    }
}

void McpServer::cancelAll()
{
    const auto calls = m_calls.values();
    for (const QPointer<McpCall> &call : calls)
        if (call)
            call->cancel();
}

void McpServer::respond(const QJsonValue &id, const QJsonObject &result)
{
    send({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), id}, {QStringLiteral("result"), result}});
}

void McpServer::error(const QJsonValue &id, int code, const QString &message, const QJsonValue &data)
{
    QJsonObject e{{QStringLiteral("code"), code}, {QStringLiteral("message"), message}};
    if (!data.isUndefined() && !data.isNull())
        e.insert(QStringLiteral("data"), data);
    send({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), id}, {QStringLiteral("error"), e}});
}

void McpServer::notify(const QString &method, const QJsonObject &params)
{
    send({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("method"), method}, {QStringLiteral("params"), params}});
}

void McpServer::send(QJsonObject message)
{
    Q_EMIT outgoing(m_secrets.isEmpty() ? message : scrub(message).toObject());
}

QJsonValue McpServer::scrub(const QJsonValue &value) const
{
    if (value.isString()) {
        QString s = value.toString();
        for (const QString &secret : m_secrets)
            s.replace(secret, QStringLiteral("[redacted]"));
        return s;
    }
    if (value.isArray()) {
        QJsonArray a = value.toArray();
        for (qsizetype i = 0; i < a.size(); ++i)
            a[i] = scrub(a.at(i));
        return a;
    }
    if (value.isObject()) {
        QJsonObject o = value.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            it.value() = scrub(it.value());
        return o;
    }
    return value;
}
