#include "llm/agentclients.h"

#include "llm/chatclient.h"

#include <QCryptographicHash>
#include <QRandomGenerator>
#include <QSet>

AgentClients::AgentClients(const LlmConfig &config, QObject *parent) : QObject(parent), m_config(config)
{
    m_ledger.setPrices(config.prices);
    for (AgentRole role : AgentRoles::all())
        for (const ModelRoster::Member &m : config.roster.members(role)) {
            const Endpoint *endpoint = config.endpoint(m.endpoint);
            const QString key = clientKey(m.endpoint, m.model);
            if (!endpoint || m_clients.count(key))
                continue;
            auto *client = new ChatClient(endpoint->forModel(m.model), this);
            client->setRetryPolicy(config.retry);
            client->setLedger(&m_ledger);
            m_clients.emplace(key, client);
        }
}

QStringList AgentClients::problems() const
{
    if (m_config.endpoints.isEmpty())
        return {QStringLiteral("no model endpoints are configured; add one in the workbench (Tools > "
                               "Models...) or in the LLM settings file")};
    QStringList out = m_config.problems();
    for (AgentRole role : AgentRoles::all())
        if (!m_config.roster.isAssigned(role))
            out << QStringLiteral("no model is assigned to the %1 role; assign one in the workbench (Tools > "
                                  "Models...) or in the LLM settings file")
                       .arg(AgentRoles::name(role));
    return out;
}

QList<Endpoint> AgentClients::endpointsInUse() const
{
    QList<Endpoint> out;
    QSet<QString> names; // a key is looked up once per endpoint, whatever number of its models are used
    for (const auto &[key, client] : m_clients)
        if (!names.contains(client->endpoint().name)) {
            names.insert(client->endpoint().name);
            out << client->endpoint();
        }
    return out;
}

void AgentClients::setApiKey(const QString &endpointName, const QString &key)
{
    for (const auto &[name, client] : m_clients)
        if (client->endpoint().name == endpointName)
            client->setApiKey(key);
}

void AgentClients::setRecorder(LlmCallRecorder *recorder)
{
    for (const auto &[name, client] : m_clients)
        client->setRecorder(recorder);
}

QString AgentClients::clientKey(const QString &endpointName, const QString &model) const
{
    // The default model named outright and left unnamed are one client.
    const Endpoint *e = m_config.endpoint(endpointName);
    const QString which = model.isEmpty() && e ? e->model.trimmed() : model;
    return endpointName + QChar(u'\n') + which;
}

ChatClient *AgentClients::client(const QString &endpointName, const QString &model) const
{
    const auto it = m_clients.find(clientKey(endpointName, model));
    return it == m_clients.end() ? nullptr : it->second;
}

QList<ChatClient *> AgentClients::clients() const
{
    QList<ChatClient *> out;
    for (const auto &[name, client] : m_clients)
        out << client;
    return out;
}

ChatClient *AgentClients::pick(AgentRole role, const QString &key) const
{
    const QByteArray digest = QCryptographicHash::hash(key.toUtf8(), QCryptographicHash::Sha256);
    quint32 seed = 0;
    for (int i = 0; i < 4; ++i)
        seed = (seed << 8) | quint8(digest.at(i));
    QRandomGenerator rng(seed);
    const std::optional<ModelRoster::Member> m = m_config.roster.pickMember(role, rng);
    return m ? client(m->endpoint, m->model) : nullptr;
}
