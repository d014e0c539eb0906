#include "port/kernelport.h"

#include "agents/executor.h"
#include "agents/promptlibrary.h"
#include "common/datapaths.h"
#include "hosts/host.h"
#include "hosts/runnerclient.h"
#include "hosts/runnersession.h"
#include "llm/agentclients.h"
#include "llm/apikeystore.h"
#include "llm/chatclient.h"
#include "llm/chatrequest.h"
#include "llm/llmconfig.h"
#include "model/kernelnormalizer.h"
#include "model/tasksources.h"

#include <QJsonArray>

namespace {
// Our own statement of what changes from the classic API to the current one (Neuron SDK 2.27 on), for the
// executor: the plan it carries out is the port itself.
QString migrationPlan(const QString &why)
{
    return QStringLiteral(
               "Port this kernel from the classic NKI API (neuronxcc.nki) to the current one (the nki "
               "namespace, NKI 0.3 and later). Change nothing else: the same signature, the same algorithm, "
               "tiling and engines, so that it computes the same outputs.\n"
               "1. Imports: `import nki`, `import nki.language as nl`, `import nki.isa as nisa`; no "
               "neuronxcc import remains. Decorate the kernel with @nki.jit.\n"
               "2. Every nisa instruction writes into an explicit destination: allocate it first with "
               "nl.ndarray(shape, dtype=..., buffer=nl.sbuf or nl.psum) and pass it as dst=; the call "
               "returns "
               "nothing.\n"
               "3. There is no nl.arange, nl.mgrid or mask=: index tiles with slices (a:b, nl.ds(start, "
               "size)); "
               "a partial last tile is a slice bounded with min(...).\n"
               "4. Block dimensions are gone: a tile's first dimension is its partition dimension.\n"
               "5. Outputs are nl.ndarray(..., buffer=nl.shared_hbm) and are returned.\n"
               "6. Classic conveniences (nl.exp, nl.add, nl.matmul, nl.transpose, ...) become the nisa "
               "instruction they stand for (activation, tensor_tensor, nc_matmul, nc_transpose) with dst=.\n"
               "Why the rules could not port it alone:\n%1")
        .arg(why);
}

QString unportedLines(const QJsonArray &unported, QStringList &out)
{
    for (const QJsonValue &v : unported) {
        const QJsonObject u = v.toObject();
        out << QStringLiteral("line %1: %2: %3")
                   .arg(u.value(QStringLiteral("line")).toInt())
                   .arg(u.value(QStringLiteral("construct")).toString(),
                        u.value(QStringLiteral("why")).toString());
    }
    return out.join(u'\n');
}
} // namespace

struct KernelPort::Parts
{
    explicit Parts(Host *host) : session(host) {}
    RunnerSession session;
    Request request;
    std::unique_ptr<AgentClients> clients;
    ChatClient *client = nullptr;
    PromptLibrary prompts;
    ApiKeyStore keys;
    Result pending; // what the rules reached, reported if the model cannot do better
    int modelAttempts = 0;
    int requests = 0;
    bool running = false;
};

KernelPort::KernelPort(Host *host, QObject *parent) : QObject(parent), m_parts(std::make_unique<Parts>(host))
{
}

KernelPort::~KernelPort() = default;

void KernelPort::start(const Request &request)
{
    m_parts->request = request;
    if (request.reference.isEmpty()) {
        // The model reads the task's reference; found as a search finds it, and optional here.
        QString ignored;
        if (const auto sources = TaskSources::load(request.task, DataPaths::tasksDir(), ignored))
            m_parts->request.reference = sources->reference;
    }
    m_parts->running = true;
    connect(&m_parts->session, &RunnerSession::failed, this, [this](const QString &error) {
        Result r;
        r.error = error;
        done(r);
    });
    connect(&m_parts->session, &RunnerSession::opened, this, [this](RunnerClient *runner) {
        connect(runner, &RunnerClient::portResultReceived, this, &KernelPort::onPortResult);
        Q_EMIT progress(m_parts->request.candidate.isEmpty()
                            ? QStringLiteral("porting by rules, then checking both kernels on nkisim")
                            : QStringLiteral("checking the given port against the original on nkisim"));
        sendPort(m_parts->request.candidate);
    });
    m_parts->session.start();
}

void KernelPort::sendPort(const QString &candidate)
{
    const Request &q = m_parts->request;
    QJsonObject message{{QStringLiteral("op"), QStringLiteral("port")},
                        {QStringLiteral("id"), QStringLiteral("port%1").arg(++m_parts->requests)},
                        {QStringLiteral("kernel"), q.kernel},
                        {QStringLiteral("task"), q.task},
                        {QStringLiteral("size"), q.size}};
    if (!q.seeds.isEmpty()) {
        QJsonArray seeds;
        for (int s : q.seeds)
            seeds.append(s);
        message.insert(QStringLiteral("seeds"), seeds);
    }
    if (!candidate.isEmpty())
        message.insert(QStringLiteral("candidate"), candidate);
    m_parts->session.runner()->sendPort(message);
}

void KernelPort::onPortResult(const QJsonObject &o)
{
    if (!m_parts->running)
        return;
    const QString status = o.value(QStringLiteral("status")).toString();
    Result r;
    r.kernel = o.value(QStringLiteral("kernel")).toString();
    r.equal = o.value(QStringLiteral("equal")).toObject();
    for (const QJsonValue &v : o.value(QStringLiteral("rules")).toArray())
        r.rules << v.toString();
    const bool fromModel = m_parts->modelAttempts > 0;
    r.by = fromModel ? QStringLiteral("model")
                     : (m_parts->request.candidate.isEmpty() ? QStringLiteral("rules")
                                                             : QStringLiteral("candidate"));
    if (status == QStringLiteral("ok")) {
        r.ok = true;
        done(r);
        return;
    }
    QString why;
    if (status == QStringLiteral("unported")) {
        why = unportedLines(o.value(QStringLiteral("unported")).toArray(), r.unported);
        r.error = QStringLiteral("no rule ports these constructs:\n%1").arg(why);
    } else {
        why = o.value(QStringLiteral("error")).toString();
        const int line = o.value(QStringLiteral("line")).toInt(0);
        r.error = line > 0 ? QStringLiteral("%1 (line %2)").arg(why).arg(line) : why;
        if (status == QStringLiteral("error")) {
            done(r); // bad input or an original that does not run: no model can mend that
            return;
        }
        why = QStringLiteral("the port is not numerically equal to the original: %1").arg(r.error);
    }
    if (!fromModel)
        m_parts->pending = r;
    if (!m_parts->request.useModel || !m_parts->request.candidate.isEmpty() ||
        m_parts->modelAttempts >= maxModelAttempts) {
        if (fromModel) {
            r.error = QStringLiteral("%1\nThe executor's port, after %2 attempts: %3")
                          .arg(m_parts->pending.error)
                          .arg(m_parts->modelAttempts)
                          .arg(r.error);
            r.unported = m_parts->pending.unported;
        }
        done(r);
        return;
    }
    askModel(why);
}

void KernelPort::askModel(const QString &why)
{
    if (!m_parts->client) {
        QString error;
        const QString path =
            m_parts->request.llmConfig.isEmpty() ? LlmConfig::defaultPath() : m_parts->request.llmConfig;
        const std::optional<LlmConfig> config = LlmConfig::load(path, &error);
        if (config) {
            m_parts->clients = std::make_unique<AgentClients>(*config);
            m_parts->client =
                m_parts->clients->pick(AgentRole::Executor, KernelNormalizer::hash(m_parts->request.kernel));
            if (!m_parts->client)
                error = QStringLiteral("no model is assigned to the executor (%1)").arg(path);
        }
        if (m_parts->client && !m_parts->prompts.load(DataPaths::promptsDir()))
            error = QStringLiteral("the agents' prompts are broken: %1")
                        .arg(m_parts->prompts.errors().join(u'\n'));
        if (!error.isEmpty()) {
            Result r = m_parts->pending;
            r.error += QStringLiteral("\nThe executor model could not be asked to port it: %1").arg(error);
            m_parts->client = nullptr;
            done(r);
            return;
        }
        connect(m_parts->client, &ChatClient::finished, this, [this](quint64, const ChatReply &reply) {
            if (!m_parts->running)
                return;
            Result r = m_parts->pending;
            if (!reply.ok()) {
                r.error += QStringLiteral("\nThe executor's call failed: %1").arg(reply.errorText);
                done(r);
                return;
            }
            const ParseResult<KernelProposal> parsed = Executor::parse(reply.content);
            if (!parsed.ok()) {
                r.error +=
                    QStringLiteral("\nThe executor's answer is unusable: %1").arg(parsed.error().message);
                done(r);
                return;
            }
            Q_EMIT progress(QStringLiteral("checking the executor's port on nkisim"));
            sendPort(parsed.value().source);
        });
    }
    ++m_parts->modelAttempts;
    Q_EMIT progress(QStringLiteral("asking the executor model to port it (attempt %1 of %2)")
                        .arg(m_parts->modelAttempts)
                        .arg(maxModelAttempts));
    const auto send = [this, why] {
        Executor::Input input;
        input.reference = m_parts->request.reference;
        input.kernel = m_parts->request.kernel;
        input.plan.title = QStringLiteral("Port to the current NKI API");
        input.writes = NkiGeneration::Kind::Current;
        input.plan.text = migrationPlan(why);
        ChatRequest request;
        request.messages = Executor::messages(m_parts->prompts, input);
        request.role = AgentRole::Executor;
        request.tag = QStringLiteral("port");
        m_parts->client->send(request);
    };
    const Endpoint endpoint = m_parts->client->endpoint();
    if (endpoint.keySource == Endpoint::KeySource::None || m_parts->modelAttempts > 1) {
        send();
        return;
    }
    m_parts->keys.lookup(endpoint, [this, endpoint, send](const ApiKeyStore::Lookup &l) {
        if (!m_parts->running)
            return;
        if (!l.ok) {
            Result r = m_parts->pending;
            r.error += QStringLiteral("\nNo API key for endpoint '%1': %2").arg(endpoint.name, l.message);
            done(r);
            return;
        }
        m_parts->clients->setApiKey(endpoint.name, l.key);
        send();
    });
}

void KernelPort::done(Result result)
{
    if (!m_parts->running)
        return;
    m_parts->running = false;
    Q_EMIT finished(result);
}
