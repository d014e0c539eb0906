#include "engine/settingsservice.h"

#include "common/logcategories.h"
#include "hosts/hostregistry.h"
#include "llm/apikeystore.h"
#include "llm/chatclient.h"

#include <QSet>

SettingsService::SettingsService(const QString &hostsFile, const QString &llmConfig, QObject *parent)
    : QObject(parent), m_hostsFile(hostsFile.isEmpty() ? HostRegistry::defaultPath() : hostsFile),
      m_llmConfig(llmConfig.isEmpty() ? LlmConfig::defaultPath() : llmConfig), m_keys(nullptr)
{
}

void SettingsService::loadHosts(quint64 job)
{
    HostRegistry registry(m_hostsFile);
    QString error;
    const bool ok = registry.load(error);
    Q_EMIT hostsLoaded(job, ok ? registry.hosts() : QList<HostConfig>{HostRegistry::builtinLocal()}, error);
}

void SettingsService::saveHosts(quint64 job, const QList<HostConfig> &hosts)
{
    const QString local = HostRegistry::builtinLocal().name;
    HostRegistry fresh(m_hostsFile);
    QSet<QString> names;
    QString error;
    int count = 0;
    for (const HostConfig &host : hosts) {
        if (names.contains(host.name) || host.name == local) {
            Q_EMIT hostsSaved(job, 0, QStringLiteral("two hosts are named %1; names must be unique").arg(host.name));
            return;
        }
        names.insert(host.name);
        if (!fresh.add(host, error)) {
            Q_EMIT hostsSaved(job, 0, error);
            return;
        }
        ++count;
    }
    if (!fresh.save(error)) {
        Q_EMIT hostsSaved(job, 0, error);
        return;
    }
    qCInfo(lcHosts).noquote() << "saved" << count << "host(s) to" << m_hostsFile;
    Q_EMIT hostsSaved(job, count, {});
}

void SettingsService::loadLlmConfig(quint64 job)
{
    QString error;
    QStringList notes;
    const std::optional<LlmConfig> config = LlmConfig::load(m_llmConfig, &error, &notes);
    Q_EMIT llmConfigLoaded(job, config, error, notes);
}

void SettingsService::saveLlmConfig(quint64 job, const LlmConfig &config)
{
    QString error;
    if (!config.save(m_llmConfig, &error)) {
        Q_EMIT llmConfigSaved(job, error);
        return;
    }
    qCInfo(lcLlm).noquote() << "LLM settings saved to" << m_llmConfig;
    Q_EMIT llmConfigSaved(job, {});
}

ApiKeyStore *SettingsService::keys()
{
    if (!m_keys)
        m_keys = new ApiKeyStore(this);
    return m_keys;
}

void SettingsService::testHost(quint64 job, const HostConfig &config,
                               const std::shared_ptr<SshPrompter> &prompter)
{
    auto *probe = new HostProbe(this);
    m_probes.insert(job, probe);
    connect(probe, &HostProbe::hostCreated, this, [this, job](Host *host) {
        connect(host, &Host::stateChanged, this,
                [this, job, name = host->name()](Host::State s, const QString &d) {
                    Q_EMIT hostTestState(job, name, s, d);
                });
        Q_EMIT hostTestState(job, host->name(), host->state(), host->stateDetail());
    });
    connect(probe, &HostProbe::finished, this, [this, job, probe](const HostProbe::Result &result) {
        m_probes.remove(job);
        probe->deleteLater(); // after the probe has let its host go (queued before this)
        Q_EMIT hostTested(job, result);
    });
    probe->start(config, prompter);
}

void SettingsService::testEndpoint(quint64 job, const Endpoint &endpoint, const RetryPolicy &retry)
{
    m_endpointJob = job;
    delete m_testClient; // cancels a test still running
    m_testClient = nullptr;
    keys()->lookup(endpoint, [this, job, endpoint, retry](const ApiKeyStore::Lookup &key) {
        if (job != m_endpointJob)
            return; // a newer test was asked for meanwhile
        if (!key.ok) {
            Q_EMIT endpointTested(job, false, key.message, {});
            return;
        }
        m_testClient = new ChatClient(endpoint, this);
        m_testClient->setApiKey(key.key);
        RetryPolicy policy = retry;
        policy.maxAttempts = 2;
        m_testClient->setRetryPolicy(policy);
        connect(m_testClient, &ChatClient::finished, this,
                [this, job, note = key.message](quint64, const ChatReply &reply) {
                    if (job == m_endpointJob)
                        Q_EMIT endpointTested(job, true, note, reply);
                });
        ChatRequest request;
        request.tag = QStringLiteral("models dialog test");
        request.messages = {
            ChatMessage::system(QStringLiteral("You are a connectivity check. Answer in one short line.")),
            ChatMessage::user(QStringLiteral("Reply with the word: ready"))};
        m_testClient->send(request);
    });
}

void SettingsService::keepKey(quint64 job, const Endpoint &endpoint, const QString &key)
{
    keys()->store(endpoint, key,
                  [this, job](bool ok, const QString &message) { Q_EMIT keyKept(job, ok, message); });
}
