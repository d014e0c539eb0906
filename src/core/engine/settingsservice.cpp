#include "engine/settingsservice.h"

#include "common/logcategories.h"
#include "hosts/hostregistry.h"

#include <QSet>

SettingsService::SettingsService(const QString &hostsFile, const QString &llmConfig, QObject *parent)
    : QObject(parent), m_hostsFile(hostsFile.isEmpty() ? HostRegistry::defaultPath() : hostsFile),
      m_llmConfig(llmConfig.isEmpty() ? LlmConfig::defaultPath() : llmConfig)
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
