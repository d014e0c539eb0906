#pragma once

#include "hosts/host.h"
#include "hosts/hostconfig.h"
#include "search/searchconfig.h"
#include "search/searchevent.h"
#include "search/searchtask.h"
#include "search/stoprules.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

class BeamSearch;
class ExperienceStore;
class HostPool;
class SessionLock;
class SessionStore;
class SshPrompter;

// Everything one optimization needs, wired once for both front ends (`accelopt optimize/resume` and the
// workbench's engine): the workspace and memory stores, the models from llm.json with their API keys (looked
// up without blocking), the agents' prompts, the host and its pool, the BeamSearch and the session lock. The
// front ends only choose the options and show the events.
//
// The stores and the pool can be lent by the caller (the workbench keeps them for the window's lifetime);
// otherwise the run opens its own at the default places. Lives on one thread and never blocks it.
class OptimizationRun : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        QString host; // empty: 'local' for a new session, the session's own host for a resume
        int jobs = 2; // slots on a local host, when the run makes its own pool
        bool useMemory = true;
        QString llmConfig;                     // empty: LlmConfig::defaultPath()
        std::shared_ptr<SshPrompter> prompter; // answers an SSH host's questions; empty: refuse unknown keys
    };
    // The pool to evaluate on for a host name, with the host's settings; null with `error` when there is
    // none.
    using PoolProvider = std::function<HostPool *(const QString &host, HostConfig &config, QString &error)>;

    enum class Begin
    {
        Pending,    // started() or failed() follows
        Failed,     // error() says why; nothing was changed
        NothingToDo // a finished session and no new settings that give it room to go on
    };

    explicit OptimizationRun(const Options &options, QObject *parent = nullptr);
    ~OptimizationRun() override;

    void setWorkspace(SessionStore *store);      // not owned
    void setMemory(ExperienceStore *memory);     // not owned; ignored when options.useMemory is false
    void setPoolProvider(PoolProvider provider); // default: a pool of its own for the named host

    Begin start(const SearchTask &task, const SearchConfig &config);
    Begin resume(const QString &sessionPrefix, const std::optional<SearchConfig> &config);
    void stop(); // clean and resumable; finished(Stopped) follows

    QString error() const { return m_error; }
    QString sessionId() const;
    bool isRunning() const;
    BeamSearch *search() const { return m_search.get(); }
    SessionStore *workspace() const { return m_store; }

Q_SIGNALS:
    void started(const QString &sessionId);
    void failed(const QString &error); // after Pending: the search never started
    void event(const SearchEvent &event);
    void finished(StopReason reason);    // the session's lock is released and its evaluations cancelled
    void notice(const QString &message); // worth telling the user, not fatal: a key's source, a host lost

private:
    bool prepare(const QString &hostName, const QString &confirmOn);
    bool prepareConfirmHost(const QString &confirmOn);
    bool budgetCanBeKept(const SearchConfig &config);
    void checkTaskFirst(const QString &folder, const std::function<void()> &then);
    void beginSearch(const SearchTask &task, const SearchConfig &config);
    void lookUpKeys(const std::function<void()> &then);
    bool lock(const QString &sessionId);
    void fail(const QString &error);
    void onFinished(StopReason reason);

    Options m_options;
    QString m_error;
    SessionStore *m_store = nullptr;
    std::unique_ptr<SessionStore> m_ownStore;
    ExperienceStore *m_memory = nullptr;
    std::unique_ptr<ExperienceStore> m_ownMemory;
    PoolProvider m_poolProvider;
    std::vector<std::unique_ptr<HostPool>> m_ownPools; // the default provider's: the host's and the confirm host's
    HostPool *m_pool = nullptr;
    HostConfig m_hostConfig;
    HostPool *m_confirmPool = nullptr; // SearchConfig::confirmOn's, when set
    HostConfig m_confirmConfig;
    struct Parts;
    std::unique_ptr<Parts> m_parts; // clients, prompts, key store
    std::unique_ptr<BeamSearch> m_search;
    std::unique_ptr<SessionLock> m_lock;
    quint64 m_generation = 0; // a stop or a new start drops a key lookup still under way
    bool m_pending = false;   // between Begin::Pending and started()/failed()
    bool m_quietStop = false; // stopping a search that could not be locked: failed() tells it
};
