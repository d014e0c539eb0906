#pragma once

#include <QList>
#include <QString>

// One message of a chat completions conversation: role is "system", "user" or "assistant".
struct ChatMessage
{
    QString role;
    QString content;

    static ChatMessage system(const QString &text) { return {QStringLiteral("system"), text}; }
    static ChatMessage user(const QString &text) { return {QStringLiteral("user"), text}; }
    bool operator==(const ChatMessage &) const = default;
};

using ChatMessages = QList<ChatMessage>;
