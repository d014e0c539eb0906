#include "mcpcall.h"

#include <QJsonArray>
#include <QJsonDocument>

McpCall::McpCall(const QJsonValue &id, const QString &tool, const QJsonObject &arguments,
                 const QJsonValue &progressToken, QObject *parent)
    : QObject(parent), m_id(id), m_tool(tool), m_arguments(arguments), m_progressToken(progressToken)
{
}

void McpCall::progress(const QString &message)
{
    if (m_done || m_progressToken.isUndefined() || m_progressToken.isNull())
        return;
    Q_EMIT progressed(QJsonObject{{QStringLiteral("progressToken"), m_progressToken},
                                  {QStringLiteral("progress"), ++m_progress},
                                  {QStringLiteral("message"), message}});
}

void McpCall::succeed(const QJsonObject &structured, const QString &text)
{
    if (m_done)
        return;
    m_done = true;
    const QString json = QString::fromUtf8(QJsonDocument(structured).toJson(QJsonDocument::Compact));
    Q_EMIT completed(QJsonObject{
        {QStringLiteral("content"),
         QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                                {QStringLiteral("text"), text.isEmpty() ? json : text + u'\n' + json}}}},
        {QStringLiteral("structuredContent"), structured},
        {QStringLiteral("isError"), false}});
}

void McpCall::fail(const QString &text, const QJsonObject &structured)
{
    if (m_done)
        return;
    m_done = true;
    QJsonObject result{{QStringLiteral("isError"), true}};
    QString all = text;
    if (!structured.isEmpty()) {
        result.insert(QStringLiteral("structuredContent"), structured);
        all += u'\n' + QString::fromUtf8(QJsonDocument(structured).toJson(QJsonDocument::Compact));
    }
    result.insert(QStringLiteral("content"),
                  QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")}, {QStringLiteral("text"), all}}});
    Q_EMIT completed(result);
}

void McpCall::cancel()
{
    if (m_done)
        return;
    m_done = true;
    Q_EMIT cancelled();
}
