#pragma once

#include "engine/engine.h"
#include "engine/settingsservice.h"
#include "llm/llmconfig.h"
#include "memory/experiencepage.h"
#include "memory/experiencepagerequest.h"
#include "memory/experiencestore.h"
#include "memory/retrievalrecord.h"

#include <QObject>
#include <QString>

#include <optional>

class QThread;
class SearchState;
class SessionListModel;

// The live state of one workbench window, which its docks and dialogs observe instead of building clients of
// their own (RenderDoc's capture context, Kate's managers): the Engine on its own thread (stores, host pools,
// the running search), the session the Search dock shows (SearchState), the workspace's sessions, and the
// hosts' states. Requests go to the engine's thread as queued calls; answers come back as signals on the GUI
// thread, tagged with a job id so a view can drop answers it no longer waits for.
class AppContext : public QObject
{
    Q_OBJECT
public:
    explicit AppContext(const Engine::Settings &settings, QObject *parent = nullptr);
    ~AppContext() override; // stops the search (resumable) and the hosts, then ends the engine's thread

    SearchState *search() const { return m_search; }
    SessionListModel *sessions() const { return m_sessions; }
    bool isSearching() const { return m_searching; }
    QString runningSessionId() const { return m_runningSession; }
    QString shownSessionId() const;
    QString workspacePath() const { return m_settings.workspaceDb; }
    // The files the engine reads: the dialogs and docks that edit them open these, never defaults of their own.
    QString llmConfigPath() const { return m_settings.llmConfig; }
    QString hostsPath() const { return m_settings.hostsFile; }
    QString memoryPath() const { return m_settings.memoryDb; }
    // The engine lives on its own thread: only for connecting to its signals (benchmarks time them there).
    Engine *engine() const { return m_engine; }

    quint64 benchmark(const EvalRequest &request, const QString &host);
    void startSearch(const SearchTask &task, const SearchConfig &config, const QString &host, bool useMemory);
    // Shows the session in the Search dock, then continues it there.
    void resumeSession(const QString &sessionId, const std::optional<SearchConfig> &config, bool useMemory);
    void stopSearch();
    void openSession(const QString &sessionId); // into the Search dock (read-only unless it runs here)
    void refreshSessions();
    quint64 deleteSession(const QString &sessionId);
    quint64 loadCalibration(const QString &host); // calibrationLoaded follows; host empty: every host
    quint64 importProfile(const QString &candidateId, const QStringList &files); // profileImported follows
    quint64 exportSession(const SessionExport::Request &request);
    void refreshHosts();
    quint64 findLesson(const QString &leftText, const QString &rightText);
    quint64 summarizePair(const ComparePair &pair);
    quint64 storeLesson(const ExperienceRecord &record);
    quint64 loadExperiencePair(const ExperienceRecord &record);
    // The memory, through the engine's desk (MemoryService): the Memory dock's list, detail and curating.
    quint64 memoryPage(const ExperiencePageRequest &request);
    quint64 memoryChoices();
    quint64 loadExperience(qint64 id);
    quint64 editExperience(qint64 id, const QString &title, const QString &lesson);
    quint64 pinExperience(qint64 id, bool pinned);
    quint64 removeExperience(qint64 id);
    quint64 restoreExperience(const ExperienceRecord &record, const QList<RetrievalRecord> &retrievals);
    quint64 importMemory(const QString &path);
    quint64 exportMemory(const QString &path);
    // The settings files the engine runs on (SettingsService): the Hosts and Models dialogs edit these.
    quint64 loadHosts();
    quint64 saveHosts(const QList<HostConfig> &hosts); // refreshHosts() follows a save
    quint64 loadLlmConfig();
    quint64 saveLlmConfig(const LlmConfig &config); // llmConfigChanged() follows a save
    quint64 portKernel(const KernelPort::Request &request);
    // Tried out on the engine's thread (SettingsService): the dialogs make no host, client or keychain call.
    quint64 testHost(const HostConfig &config, const std::shared_ptr<SshPrompter> &prompter);
    quint64 testEndpoint(const Endpoint &endpoint, const RetryPolicy &retry);
    quint64 keepKey(const Endpoint &endpoint, const QString &key);
    // New Task's Check and Create (Engine::createTask); referenceFile empty: the draft's own reference text.
    quint64 createTask(const TaskDraft &draft, const QString &referenceFile, const QString &parentDir,
                       const QString &shippedDir, const QString &nearPath);
    void cancelTaskCreation(quint64 job);
    // A window part made a task (New Task from This Kernel…): the lists of tasks read their folders again.
    void announceTaskCreated(const QString &folder) { Q_EMIT taskCreated(folder); }

Q_SIGNALS:
    void taskCreated(const QString &folder);
    void benchmarkFinished(quint64 job, const Evaluation &evaluation);
    void searchStarted(const QString &sessionId);
    void searchFailed(const QString &error);
    void searchFinished(const QString &sessionId, StopReason reason, const QString &error);
    void searchingChanged(bool searching);
    void sessionOpened(const QString &sessionId);
    void sessionOpenFailed(const QString &error);
    void sessionsRefreshFailed(const QString &error);
    void sessionDeleted(quint64 job, const QString &sessionId, const QString &error);
    void calibrationLoaded(quint64 job, const Calibration &calibration, const QString &error);
    void profileImported(quint64 job, const Evaluation &evaluation, const QString &error);
    void exported(quint64 job, const SessionExport::Result &result);
    void hostsListed(const QList<HostConfig> &hosts, const QString &error);
    void hostStateChanged(const QString &host, Host::State state, const QString &detail);
    void notice(const QString &message);
    void lessonFound(quint64 job, const std::optional<ExperienceRecord> &record, const QString &error);
    void pairSummarized(quint64 job, const std::optional<ExperienceRecord> &record, const QString &error);
    void lessonStored(quint64 job, const ExperienceRecord &record, const QString &error);
    void experiencePairLoaded(quint64 job, const ComparePair &pair);
    void memoryPaged(quint64 job, const ExperiencePage &page, const QString &error);
    void memoryChoicesListed(quint64 job, const QStringList &tasks, const QStringList &targets,
                             const QStringList &sessions, const QString &error);
    void experienceLoaded(quint64 job, const std::optional<ExperienceRecord> &record,
                          const QList<RetrievalRecord> &retrievals, const QString &error);
    void experienceChanged(quint64 job, const QString &error);
    void memoryImported(quint64 job, const QString &path, const ExperienceStore::ImportResult &result,
                        const QString &fileError);
    void memoryExported(quint64 job, const QString &path, int count, const QString &error);
    // Written through the Memory dock's desk: the Compare tabs read the lessons they show again.
    void memoryChanged();
    void hostsLoaded(quint64 job, const QList<HostConfig> &hosts, const QString &error);
    void hostsSaved(quint64 job, int count, const QString &error);
    void llmConfigLoaded(quint64 job, const std::optional<LlmConfig> &config, const QString &error,
                         const QStringList &notes);
    void llmConfigSaved(quint64 job, const QString &error);
    void llmConfigChanged(); // saved: views that show the models read it again
    void portProgress(quint64 job, const QString &message);
    void kernelPorted(quint64 job, const KernelPort::Result &result);
    void hostTestState(quint64 job, const QString &host, Host::State state, const QString &detail);
    void hostTested(quint64 job, const HostProbe::Result &result);
    void endpointTested(quint64 job, bool keyFound, const QString &keyMessage, const ChatReply &reply);
    void keyKept(quint64 job, bool ok, const QString &message);
    void taskProgress(quint64 job, const QString &message);
    void taskCreationFinished(quint64 job, const TaskCreation::Result &result);

private:
    template<typename F> void onEngine(F &&work);
    // A job id, and `call(job)` queued to the engine's thread.
    template<typename F> quint64 ask(F &&call);
    quint64 nextJob() { return ++m_lastJob; }
    void setSearching(bool searching);
    void drainEvents(bool all);                  // all: every waiting event now, else one slice
    static constexpr qint64 sliceNs = 4'000'000; // of applying events, before the window gets its turn

    Engine::Settings m_settings;
    QThread *m_thread;
    Engine *m_engine;
    SearchState *m_search;
    SessionListModel *m_sessions;
    bool m_searching = false;
    QString m_runningSession;
    quint64 m_lastJob = 0;
    quint64 m_openJob = 0;       // the newest openSession: older loads are dropped
    quint64 m_sessionsJob = 0;   // the newest refreshSessions
    QList<SearchEvent> m_events; // arrived, not applied yet
    bool m_draining = false;
};
