#pragma once

#include "hosts/hostconfig.h"
#include "llm/llmconfig.h"

#include <QList>
#include <QObject>
#include <QStringList>

#include <optional>

// The engine's desk for the settings files it runs on: hosts.json and llm.json, read and written on the
// engine's thread at the paths the engine itself uses, so the Hosts, Models and Optimize dialogs and the
// welcome page never open a file of their own (or a default one beside the engine's). Every answer carries the
// caller's job id.
class SettingsService : public QObject
{
    Q_OBJECT
public:
    SettingsService(const QString &hostsFile, const QString &llmConfig, QObject *parent = nullptr);

    // hosts: the built-in local host first; on an unreadable file, the built-in host alone and the reason.
    void loadHosts(quint64 job);
    // Replaces the file's hosts by these (the built-in host is not among them). A name given twice, or
    // "local", is refused before anything is written.
    void saveHosts(quint64 job, const QList<HostConfig> &hosts);
    void loadLlmConfig(quint64 job);
    void saveLlmConfig(quint64 job, const LlmConfig &config);

    QString hostsFile() const { return m_hostsFile; }
    QString llmConfigFile() const { return m_llmConfig; }

Q_SIGNALS:
    void hostsLoaded(quint64 job, const QList<HostConfig> &hosts, const QString &error);
    void hostsSaved(quint64 job, int count, const QString &error);
    // config is nullopt when the file cannot be used (error says why); notes: what was fixed while reading.
    void llmConfigLoaded(quint64 job, const std::optional<LlmConfig> &config, const QString &error,
                         const QStringList &notes);
    void llmConfigSaved(quint64 job, const QString &error);

private:
    QString m_hostsFile;
    QString m_llmConfig;
};
