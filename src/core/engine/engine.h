#pragma once

#include "diff/comparepair.h"
#include "export/sessionexport.h"
#include "hosts/host.h"
#include "hosts/hostconfig.h"
#include "memory/experiencerecord.h"
#include "model/calibration.h"
#include "model/evalrequest.h"
#include "model/evaluation.h"
#include "port/kernelport.h"
#include "search/searchconfig.h"
#include "search/searchevent.h"
#include "search/searchtask.h"
#include "search/taskcreation.h"
#include "store/sessionsnapshot.h"
#include "store/sessionsummary.h"

#include <QMap>
#include <QObject>
#include <QPair>

#include <functional>
#include <memory>
#include <optional>

class ExperienceStore;
class Host;
class HostPool;
class MemoryService;
class SettingsService;
class OptimizationRun;
class SessionStore;
class SshPrompter;

// The workbench's engine room, one per window, living on a thread of its own (RenderDoc's replay thread is
// the model): it owns the workspace and memory stores, one host pool per host, and the running search, so
// SQLite, memory retrieval, prompt building and the runner protocol never run on the GUI thread. Every
// request is a plain call made on the engine's thread (AppContext queues them there); every answer is a
// signal carrying the caller's job id, so a stale answer can be recognised and dropped.
class Engine : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        QString workspaceDb; // empty: SessionStore::defaultPath()
        QString memoryDb;    // empty: ExperienceStore::defaultPath()
        QString llmConfig;   // empty: LlmConfig::defaultPath()
        QString hostsFile;   // empty: HostRegistry::defaultPath()
        int localSlots = 2;  // simulator workers of the local host
        std::shared_ptr<SshPrompter> prompter;
    };

    explicit Engine(const Settings &settings, QObject *parent = nullptr);
    ~Engine() override;

    void benchmark(quint64 job, const EvalRequest &request, const QString &host);
    // One search at a time per window; searchStarted or searchFailed follows.
    void startSearch(const SearchTask &task, const SearchConfig &config, const QString &host, bool useMemory);
    // `config` replaces the session's settings (more iterations, a larger budget); the host is the session's.
    void resumeSearch(const QString &sessionId, const std::optional<SearchConfig> &config, bool useMemory);
    void stopSearch();
    void listSessions(quint64 job);
    void loadSession(quint64 job, const QString &sessionId);
    void deleteSession(quint64 job, const QString &sessionId);
    // nkisim against the hardware for every kernel the workspace measured on both (the Profile dock's
    // Calibration tab); `host` empty: every hardware host. calibrationLoaded follows.
    void loadCalibration(quint64 job, const QString &host);
    // Attaches a Neuron Explorer CSV export to the candidate's hardware evaluation (ExplorerProfileImport);
    // profileImported follows with the evaluation as stored.
    void importProfile(quint64 job, const QString &candidateId, const QStringList &files);
    void exportSession(quint64 job, const SessionExport::Request &request);
    void listHosts(quint64 job);
    // The memory's lesson for a pair of kernels (either way round), by their normalized sources.
    void findLesson(quint64 job, const QString &leftText, const QString &rightText);
    // Asks the summarizer for the lesson of a measured pair; stores nothing (storeLesson does, when confirmed).
    void summarizePair(quint64 job, const ComparePair &pair);
    void storeLesson(quint64 job, const ExperienceRecord &record);
    // The two kernels of a memory item, slow on the left: its candidates from the workspace with their
    // evaluations, or, when they are not there (a lesson imported from elsewhere), its two snippets.
    void loadExperiencePair(quint64 job, const ExperienceRecord &record);
    // Tools > Port to Current NKI: on this machine's simulator (equality is nkisim's to decide, whatever the run
    // target), with the engine's llm.json for the model's turn. One port at a time; portProgress, then
    // kernelPorted follow.
    void portKernel(quint64 job, const KernelPort::Request &request);
    // New Task from This Kernel…'s Check and Create: the reference read from referenceFile when one is named
    // (else the draft's text), then TaskCreation on this machine's simulator (whether a task is right is
    // nkisim's to decide, whatever the run target). One at a time: a newer request drops an older one, as
    // does cancelTaskCreation (Back while checking: the hidden draft folder goes with it). taskProgress, then
    // taskCreationFinished follow.
    void createTask(quint64 job, const TaskDraft &draft, const QString &referenceFile,
                    const QString &parentDir, const QString &shippedDir, const QString &nearPath);
    void cancelTaskCreation(quint64 job);
    // The Memory dock's desk and the settings files' desk: objects of this thread, called like the engine.
    MemoryService *memory() const { return m_memoryService; }
    SettingsService *settingsFiles() const { return m_settingsFiles; }
    // Stops the search (resumable) and every host; call before the engine's thread ends.
    void shutdown();

    bool isSearching() const;

Q_SIGNALS:
    void benchmarkFinished(quint64 job, const Evaluation &evaluation);
    void searchStarted(const QString &sessionId);
    void searchFailed(const QString &error);
    void searchEvent(const SearchEvent &event);
    void searchFinished(const QString &sessionId, StopReason reason, const QString &error);
    void sessionsListed(quint64 job, const QList<SessionSummary> &sessions, const QString &error);
    void sessionLoaded(quint64 job, const SessionSnapshot &snapshot, const QString &error);
    void sessionDeleted(quint64 job, const QString &sessionId, const QString &error);
    void calibrationLoaded(quint64 job, const Calibration &calibration, const QString &error);
    void profileImported(quint64 job, const Evaluation &evaluation, const QString &error);
    void exported(quint64 job, const SessionExport::Result &result);
    void hostsListed(quint64 job, const QList<HostConfig> &hosts, const QString &error);
    void lessonFound(quint64 job, const std::optional<ExperienceRecord> &record, const QString &error);
    void pairSummarized(quint64 job, const std::optional<ExperienceRecord> &record, const QString &error);
    void lessonStored(quint64 job, const ExperienceRecord &record, const QString &error);
    void experiencePairLoaded(quint64 job, const ComparePair &pair);
    void hostStateChanged(const QString &host, Host::State state, const QString &detail);
    void notice(const QString &message); // worth telling the user, not fatal
    void portProgress(quint64 job, const QString &message);
    void kernelPorted(quint64 job, const KernelPort::Result &result);
    void taskProgress(quint64 job, const QString &message);
    void taskCreationFinished(quint64 job, const TaskCreation::Result &result);
    // The memory was written through the Memory dock's desk (edit, pin, delete, restore, import): other views
    // of it read it again.
    void memoryChanged();

private:
    bool openWorkspace(QString &error);
    bool openMemory(QString &error);
    HostPool *poolFor(const QString &host, HostConfig &config, QString &error);
    void launch(const std::function<int(OptimizationRun &)> &begin, bool useMemory, const QString &host);

    Settings m_settings;
    std::unique_ptr<SessionStore> m_store;
    std::unique_ptr<ExperienceStore> m_memory;
    QMap<QString, HostPool *> m_pools; // owned (children)
    QMap<QString, HostConfig> m_hostConfigs;
    std::unique_ptr<OptimizationRun> m_run;
    QMap<quint64, QPair<quint64, HostPool *>> m_benchmarks; // pool job -> (caller's job, pool)
    MemoryService *m_memoryService;  // child
    SettingsService *m_settingsFiles; // child
    std::unique_ptr<Host> m_portHost; // the running port's own local host, apart from the run targets' pools
    std::unique_ptr<KernelPort> m_port;
    std::unique_ptr<Host> m_taskHost; // New Task's check host, kept for a second try
    std::unique_ptr<TaskCreation> m_creation;
    quint64 m_creationJob = 0;
};
