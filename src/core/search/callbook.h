#pragma once

#include "llm/chatreply.h"
#include "llm/llmcallrecord.h"
#include "search/agentcall.h"

#include <QList>
#include <QMap>
#include <QPair>

#include <optional>

class ChatClient;

// The model calls a search has out, by the client that runs them and its id, and how a call recorded by an
// earlier run of the session is answered again. ChatClient always finishes through the event loop, so a call
// is booked here before any reply for it can arrive.
class CallBook
{
public:
    using Key = QPair<ChatClient *, quint64>;

    quint64 nextNumber() { return ++m_number; } // LlmCallStarted's call, counted per run
    void add(ChatClient *client, quint64 id, const AgentCall &call) { m_calls.insert({client, id}, call); }
    // The call a reply belongs to; nothing for another user's call or one given up on.
    std::optional<AgentCall> take(ChatClient *client, quint64 id);
    // Every call still out, by client and then id (oldest first per client), forgotten here: the search
    // cancels them.
    QList<Key> takeAll();
    void clear();

    // A recorded reply as the client would have delivered it. Usage and cost stay unset: the call was booked
    // when it was made, and a resume counts it from the store.
    static ChatReply replyOf(const LlmCallRecord &recorded);

private:
    QMap<Key, AgentCall> m_calls;
    quint64 m_number = 0;
};
