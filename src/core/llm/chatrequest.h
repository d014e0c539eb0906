#pragma once

#include "llm/agentrole.h"
#include "llm/chatmessage.h"

#include <optional>

// What an agent asks an endpoint. `tag` travels into the call record so the session store can tie the call to
// the candidate or experience it was made for.
struct ChatRequest
{
    ChatMessages messages;
    AgentRole role = AgentRole::Planner;
    bool stream = false; // deliver the reply piece by piece through ChatClient::delta
    QString tag;
    std::optional<qint64> seed; // sent as "seed" when the endpoint allows it (Endpoint::sendSeed)
};
