#pragma once

#include "hosts/host.h"
#include "hosts/hostconfig.h"
#include "hosts/hostprobe.h"
#include "llm/chatreply.h"
#include "llm/llmconfig.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QStringList>

#include <memory>
#include <optional>

class ApiKeyStore;
class ChatClient;
class SshPrompter;

// The engine's desk for the settings files it runs on: hosts.json and llm.json, read and written on the
// engine's thread at the paths the engine itself uses, so the Hosts, Models and Optimize dialogs and the
// welcome page never open a file of their own (or a default one beside the engine's). It also tries out what
// those dialogs edit (Test Connection, the Models dialog's test call, a typed key kept in the keychain), so
// no host, network client or keychain of theirs runs on the GUI thread. Every answer carries the caller's job
// id.
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
    // Test Connection on the dialog's values (saved or not): reach the host, deploy, exchange hello. The
    // probe's host reports its states (hostTestState), then hostTested. The prompter answers SSH questions.
    void testHost(quint64 job, const HostConfig &config, const std::shared_ptr<SshPrompter> &prompter);
    // One tiny chat call to the endpoint, its key looked up here (keychain, session, variable); a newer test
    // cancels an older one still running, whose answer never comes.
    void testEndpoint(quint64 job, const Endpoint &endpoint, const RetryPolicy &retry);
    // A key typed in the Models dialog: into the keychain, else kept for this session (ApiKeyStore).
    void keepKey(quint64 job, const Endpoint &endpoint, const QString &key);

    QString hostsFile() const { return m_hostsFile; }
    QString llmConfigFile() const { return m_llmConfig; }

Q_SIGNALS:
    void hostsLoaded(quint64 job, const QList<HostConfig> &hosts, const QString &error);
    void hostsSaved(quint64 job, int count, const QString &error);
    // config is nullopt when the file cannot be used (error says why); notes: what was fixed while reading.
    void llmConfigLoaded(quint64 job, const std::optional<LlmConfig> &config, const QString &error,
                         const QStringList &notes);
    void llmConfigSaved(quint64 job, const QString &error);
    void hostTestState(quint64 job, const QString &host, Host::State state, const QString &detail);
    void hostTested(quint64 job, const HostProbe::Result &result);
    // keyFound false: no key could be found (keyMessage says why) and nothing was sent; else keyMessage is a
    // note about where the key came from, if worth saying, and reply the call's outcome.
    void endpointTested(quint64 job, bool keyFound, const QString &keyMessage, const ChatReply &reply);
    void keyKept(quint64 job, bool ok, const QString &message);

private:
    QString m_hostsFile;
    QString m_llmConfig;
    QHash<quint64, HostProbe *> m_probes; // running host tests (children)
    ApiKeyStore *m_keys;                  // child, made on first use (its keychain calls run on this thread)
    ChatClient *m_testClient = nullptr;   // the endpoint test running (child)
    quint64 m_endpointJob = 0;            // its job: an older lookup's answer is dropped
    ApiKeyStore *keys();
};
