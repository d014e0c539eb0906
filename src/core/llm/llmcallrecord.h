#pragma once

#include "llm/chatmessage.h"
#include "llm/tokenusage.h"

#include <QDateTime>

#include <optional>

// Everything about one LLM call that the session store keeps (docs/architecture.md, "Stores and files":
// llm_calls). No key material: the request headers are deliberately not part of it.
struct LlmCallRecord
{
    quint64 callId = 0;
    QString role; // AgentRoles::name
    QString endpoint;
    QString model;
    QString tag;
    ChatMessages messages;
    QString reply;
    QString reasoning;
    QString finishReason;
    std::optional<TokenUsage> usage;
    std::optional<double> costUsd;
    qint64 latencyMs = 0;
    int attempts = 0;
    QString error; // empty on success
    QDateTime startedUtc;
};
