#include "memory/pairsummary.h"

#include "agents/promptlibrary.h"
#include "agents/summarizer.h"
#include "common/datapaths.h"
#include "llm/agentclients.h"
#include "llm/apikeystore.h"
#include "llm/chatclient.h"
#include "llm/chatrequest.h"
#include "llm/llmconfig.h"
#include "model/kernelnormalizer.h"

#include <QPointer>

struct PairSummary::Parts
{
    ComparePair pair;
    double speedup = 1.0;
    std::unique_ptr<AgentClients> clients;
    ChatClient *client = nullptr;
    PromptLibrary prompts;
    ApiKeyStore keys;
    quint64 call = 0;
    bool running = false;
};

PairSummary::PairSummary(const QString &llmConfig, QObject *parent)
    : QObject(parent), m_parts(std::make_unique<Parts>()), m_llmConfig(llmConfig)
{
}

PairSummary::~PairSummary() = default;

bool PairSummary::start(const ComparePair &pair, QString &error)
{
    if (m_parts->running) {
        error = QStringLiteral("a summary is already being written");
        return false;
    }
    const std::optional<double> speedup = pair.speedup();
    if (!speedup) {
        error = QStringLiteral("both kernels need a correct measurement before the summarizer can say what "
                               "the change taught: measure them first");
        return false;
    }
    const QString path = m_llmConfig.isEmpty() ? LlmConfig::defaultPath() : m_llmConfig;
    const std::optional<LlmConfig> config = LlmConfig::load(path, &error);
    if (!config)
        return false;
    auto clients = std::make_unique<AgentClients>(*config);
    ChatClient *client = clients->pick(AgentRole::Summarizer, KernelNormalizer::hash(pair.right.text));
    if (!client) {
        error = QStringLiteral("no model is assigned to the summarizer: assign one in Tools > Models (%1)")
                    .arg(path);
        return false;
    }
    if (!m_parts->prompts.load(DataPaths::promptsDir())) {
        error =
            QStringLiteral("the agents' prompts are broken: %1").arg(m_parts->prompts.errors().join(u'\n'));
        return false;
    }
    m_parts->pair = pair;
    m_parts->speedup = *speedup;
    m_parts->clients = std::move(clients);
    m_parts->client = client;
    m_parts->running = true;
    // The client is this summary's own, so whatever it finishes is the one call (always after send() returns,
    // also when the endpoint is unusable).
    connect(client, &ChatClient::finished, this, [this](quint64, const ChatReply &reply) {
        if (!m_parts->running)
            return;
        if (!reply.ok()) {
            done(std::nullopt, QStringLiteral("the summarizer's call failed: %1").arg(reply.errorText));
            return;
        }
        const ParseResult<Experience> parsed = Summarizer::parse(reply.content, m_parts->speedup);
        if (!parsed.ok()) {
            done(std::nullopt,
                 QStringLiteral("the summarizer's answer is unusable: %1").arg(parsed.error().message));
            return;
        }
        const ComparePair &p = m_parts->pair;
        ExperienceRecord record;
        record.task = p.task;
        record.target = p.target;
        record.experience = parsed.value();
        // slow = the slower kernel of the two, whichever way the change went (as the search stores it)
        const bool negative = record.isNegative();
        const ComparePair::Side &slow = negative ? p.right : p.left;
        const ComparePair::Side &fast = negative ? p.left : p.right;
        record.slowCandidateId = slow.candidateId;
        record.fastCandidateId = fast.candidateId;
        record.slowHash = KernelNormalizer::hash(slow.text);
        record.fastHash = KernelNormalizer::hash(fast.text);
        record.sessionId = fast.sessionId.isEmpty() ? slow.sessionId : fast.sessionId;
        done(record, QString());
    });
    // The key first (the keychain may take seconds; nothing waits for it), then the call.
    const Endpoint endpoint = client->endpoint();
    if (endpoint.keySource == Endpoint::KeySource::None) {
        ask();
        return true;
    }
    m_parts->keys.lookup(endpoint, [this, endpoint](const ApiKeyStore::Lookup &l) {
        if (!m_parts->running)
            return;
        if (!l.ok) {
            done(std::nullopt,
                 QStringLiteral("no API key for endpoint '%1': %2").arg(endpoint.name, l.message));
            return;
        }
        m_parts->clients->setApiKey(endpoint.name, l.key);
        ask();
    });
    return true;
}

void PairSummary::ask()
{
    Summarizer::Input input;
    const ComparePair &p = m_parts->pair;
    input.beforeKernel = p.left.text;
    input.afterKernel = p.right.text;
    input.speedup = m_parts->speedup;
    input.beforeLatencyMs = p.left.evaluation->latencyMeanMs;
    input.beforeMetrics = p.left.evaluation->metrics;
    input.afterLatencyMs = p.right.evaluation->latencyMeanMs;
    input.afterMetrics = p.right.evaluation->metrics;
    ChatRequest request;
    request.messages = Summarizer::messages(m_parts->prompts, input);
    request.role = AgentRole::Summarizer;
    request.tag = QStringLiteral("compare");
    const quint64 id = m_parts->client->send(request);
    if (m_parts->running)
        m_parts->call = id;
}

void PairSummary::cancel()
{
    if (!m_parts->running)
        return;
    // Finished first: the client reports the cancelled call from inside cancel(), and that report must find
    // nothing running, or finished() would come twice (tst_pairsummary).
    const quint64 call = m_parts->call;
    const QPointer<ChatClient> client = m_parts->client; // goes with this, should a listener delete it
    done(std::nullopt, QStringLiteral("cancelled"));
    if (call && client)
        client->cancel(call);
}

void PairSummary::done(const std::optional<ExperienceRecord> &record, const QString &error)
{
    m_parts->running = false;
    m_parts->call = 0;
    Q_EMIT finished(record, error);
}
