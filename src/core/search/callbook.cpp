#include "search/callbook.h"

std::optional<AgentCall> CallBook::take(ChatClient *client, quint64 id)
{
    const auto it = m_calls.find({client, id});
    if (it == m_calls.end())
        return std::nullopt;
    AgentCall call = it.value();
    m_calls.erase(it);
    return call;
}

QList<CallBook::Key> CallBook::takeAll()
{
    const QList<Key> keys = m_calls.keys();
    m_calls.clear();
    return keys;
}

void CallBook::clear()
{
    m_calls.clear();
    m_number = 0;
}

ChatReply CallBook::replyOf(const LlmCallRecord &recorded)
{
    ChatReply reply;
    reply.content = recorded.reply;
    reply.reasoning = recorded.reasoning;
    reply.finishReason = recorded.finishReason;
    reply.model = recorded.model;
    reply.endpoint = recorded.endpoint;
    if (!recorded.error.isEmpty()) {
        reply.error = ChatReply::Error::Http;
        reply.errorText = recorded.error;
    }
    return reply;
}
