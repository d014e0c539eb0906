#pragma once

#include "llm/agentrole.h"
#include "llm/costledger.h"
#include "llm/llmconfig.h"

#include <QObject>

#include <map>

class ChatClient;
class LlmCallRecorder;

// The chat clients one search talks to, built from the LLM settings: one ChatClient per endpoint and model the
// roster uses (so a model's concurrency limit holds across the roles sharing it, and each call is priced by
// its own model), all sharing the retry policy, one cost ledger with the price table, and the call recorder.
// A role with an ensemble gets a weighted pick per call.
class AgentClients : public QObject
{
    Q_OBJECT
public:
    explicit AgentClients(const LlmConfig &config, QObject *parent = nullptr);

    // What stops a search from using these settings, in words: no endpoints, unassigned roles, bad entries.
    QStringList problems() const;
    QList<Endpoint> endpointsInUse() const; // one per endpoint name: what needs a key
    void setApiKey(const QString &endpointName, const QString &key); // every model of that endpoint
    void setRecorder(LlmCallRecorder *recorder);

    // The client for an endpoint's model (its default model when `model` is empty).
    ChatClient *client(const QString &endpointName, const QString &model = {}) const;
    QList<ChatClient *> clients() const;
    // The client for one call. The draw comes from a hash of `key` (BeamSearch: the call's seed), not
    // from a running generator, so the same call picks the same model in every run, a resumed one included.
    ChatClient *pick(AgentRole role, const QString &key) const;

    const CostLedger &ledger() const { return m_ledger; }

private:
    QString clientKey(const QString &endpointName, const QString &model) const;

    LlmConfig m_config;
    CostLedger m_ledger;
    std::map<QString, ChatClient *> m_clients;
};
