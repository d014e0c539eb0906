#include "appcontext.h"

#include "applogging.h"
#include "engine/memoryservice.h"
#include "engine/settingsservice.h"
#include "hosts/hostregistry.h"
#include "itemmodels/searchstate.h"
#include "itemmodels/sessionlistmodel.h"
#include "llm/llmconfig.h"
#include "memory/experiencestore.h"
#include "store/sessionstore.h"

#include <QElapsedTimer>
#include <QThread>
#include <QTimer>

AppContext::AppContext(const Engine::Settings &settings, QObject *parent)
    : QObject(parent), m_settings(settings), m_thread(new QThread(this)), m_engine(new Engine(settings)),
      m_search(new SearchState(this)), m_sessions(new SessionListModel(this))
{
    // Resolved as the engine resolves them, once, so every window part edits what the engine reads.
    if (m_settings.workspaceDb.isEmpty())
        m_settings.workspaceDb = SessionStore::defaultPath();
    if (m_settings.memoryDb.isEmpty())
        m_settings.memoryDb = ExperienceStore::defaultPath();
    if (m_settings.llmConfig.isEmpty())
        m_settings.llmConfig = LlmConfig::defaultPath();
    if (m_settings.hostsFile.isEmpty())
        m_settings.hostsFile = HostRegistry::defaultPath();
    m_thread->setObjectName(QStringLiteral("engine"));
    m_engine->moveToThread(m_thread);
    // Every signal below crosses from the engine's thread and is delivered, in order, on this one.
    connect(m_engine, &Engine::benchmarkFinished, this, &AppContext::benchmarkFinished);
    connect(m_engine, &Engine::lessonFound, this, &AppContext::lessonFound);
    connect(m_engine, &Engine::pairSummarized, this, &AppContext::pairSummarized);
    connect(m_engine, &Engine::lessonStored, this, &AppContext::lessonStored);
    connect(m_engine, &Engine::experiencePairLoaded, this, &AppContext::experiencePairLoaded);
    // A search's events come in bursts (24 replies landing in one second); they are taken in slices of a few
    // milliseconds, with the window's own painting and input in between, so the GUI thread never stalls.
    connect(m_engine, &Engine::searchEvent, this, [this](const SearchEvent &event) {
        m_events.append(event);
        if (!m_draining) {
            m_draining = true;
            QTimer::singleShot(0, this, [this] { drainEvents(false); });
        }
    });
    connect(m_engine, &Engine::searchStarted, this, [this](const QString &sessionId) {
        m_runningSession = sessionId;
        setSearching(true);
        Q_EMIT searchStarted(sessionId);
        refreshSessions();
    });
    connect(m_engine, &Engine::searchFailed, this, [this](const QString &error) {
        setSearching(false);
        Q_EMIT searchFailed(error);
    });
    connect(m_engine, &Engine::searchFinished, this,
            [this](const QString &sessionId, StopReason reason, const QString &error) {
                drainEvents(true); // the search's last events first: what the end is announced with
                m_runningSession.clear();
                setSearching(false);
                Q_EMIT searchFinished(sessionId, reason, error);
                refreshSessions();
            });
    connect(m_engine, &Engine::sessionsListed, this,
            [this](quint64 job, const QList<SessionSummary> &list, const QString &error) {
                if (job != m_sessionsJob)
                    return; // an older refresh
                if (!error.isEmpty()) {
                    Q_EMIT sessionsRefreshFailed(error);
                    return;
                }
                m_sessions->setSessions(list);
            });
    connect(m_engine, &Engine::sessionLoaded, this,
            [this](quint64 job, const SessionSnapshot &snapshot, const QString &error) {
                if (job != m_openJob)
                    return; // the user opened another one since
                if (!error.isEmpty()) {
                    Q_EMIT sessionOpenFailed(error);
                    return;
                }
                drainEvents(true); // events from before the snapshot are in it already
                m_search->load(snapshot, snapshot.session.id == m_runningSession);
                Q_EMIT sessionOpened(snapshot.session.id);
            });
    connect(m_engine, &Engine::sessionDeleted, this,
            [this](quint64 job, const QString &sessionId, const QString &error) {
                if (error.isEmpty() && m_search->sessionId() == sessionId)
                    m_search->clear();
                Q_EMIT sessionDeleted(job, sessionId, error);
                refreshSessions();
            });
    connect(m_engine, &Engine::exported, this, &AppContext::exported);
    connect(m_engine, &Engine::calibrationLoaded, this, &AppContext::calibrationLoaded);
    connect(m_engine, &Engine::profileImported, this, &AppContext::profileImported);
    connect(m_engine, &Engine::hostsListed, this,
            [this](quint64, const QList<HostConfig> &hosts, const QString &error) {
                Q_EMIT hostsListed(hosts, error);
            });
    const MemoryService *memory = m_engine->memory();
    connect(memory, &MemoryService::paged, this, &AppContext::memoryPaged);
    connect(memory, &MemoryService::choicesListed, this, &AppContext::memoryChoicesListed);
    connect(memory, &MemoryService::loaded, this, &AppContext::experienceLoaded);
    connect(memory, &MemoryService::changed, this, &AppContext::experienceChanged);
    connect(memory, &MemoryService::imported, this, &AppContext::memoryImported);
    connect(memory, &MemoryService::exported, this, &AppContext::memoryExported);
    connect(m_engine, &Engine::memoryChanged, this, &AppContext::memoryChanged);
    const SettingsService *files = m_engine->settingsFiles();
    connect(files, &SettingsService::hostsLoaded, this, &AppContext::hostsLoaded);
    connect(files, &SettingsService::hostsSaved, this, [this](quint64 job, int count, const QString &error) {
        Q_EMIT hostsSaved(job, count, error);
        if (error.isEmpty())
            refreshHosts(); // the run targets offer what was saved
    });
    connect(files, &SettingsService::llmConfigLoaded, this, &AppContext::llmConfigLoaded);
    connect(files, &SettingsService::llmConfigSaved, this, [this](quint64 job, const QString &error) {
        Q_EMIT llmConfigSaved(job, error);
        if (error.isEmpty())
            Q_EMIT llmConfigChanged();
    });
    connect(files, &SettingsService::hostTestState, this, &AppContext::hostTestState);
    connect(files, &SettingsService::hostTested, this, &AppContext::hostTested);
    connect(files, &SettingsService::endpointTested, this, &AppContext::endpointTested);
    connect(files, &SettingsService::keyKept, this, &AppContext::keyKept);
    connect(m_engine, &Engine::taskProgress, this, &AppContext::taskProgress);
    connect(m_engine, &Engine::taskCreationFinished, this, &AppContext::taskCreationFinished);
    connect(m_engine, &Engine::portProgress, this, &AppContext::portProgress);
    connect(m_engine, &Engine::kernelPorted, this, &AppContext::kernelPorted);
    connect(m_engine, &Engine::hostStateChanged, this, &AppContext::hostStateChanged);
    connect(m_engine, &Engine::notice, this, &AppContext::notice);
    m_thread->start();
    qCInfo(lcApp).noquote() << "engine thread started; workspace" << m_settings.workspaceDb;
}

AppContext::~AppContext()
{
    // The engine's objects (pools, runners, the search) belong to its thread and end there; the window waits
    // for that once, at close.
    Engine *engine = m_engine;
    QMetaObject::invokeMethod(
        engine,
        [engine] {
            engine->shutdown();
            delete engine;
        },
        Qt::BlockingQueuedConnection);
    m_thread->quit();
    m_thread->wait();
}

void AppContext::drainEvents(bool all)
{
    QElapsedTimer slice;
    slice.start();
    while (!m_events.isEmpty() && (all || slice.nsecsElapsed() < sliceNs)) {
        const SearchEvent event = m_events.takeFirst();
        m_search->apply(event);
        if (event.as<SearchEvents::IterationFinished>())
            refreshSessions(); // the Sessions dock's iteration count and best
    }
    if (m_events.isEmpty())
        m_draining = false;
    else if (!all)
        QTimer::singleShot(0, this, [this] { drainEvents(false); });
}

template<typename F> void AppContext::onEngine(F &&work)
{
    QMetaObject::invokeMethod(m_engine, std::forward<F>(work), Qt::QueuedConnection);
}

void AppContext::setSearching(bool searching)
{
    if (m_searching == searching)
        return;
    m_searching = searching;
    Q_EMIT searchingChanged(searching);
}

QString AppContext::shownSessionId() const
{
    return m_search->sessionId();
}

quint64 AppContext::benchmark(const EvalRequest &request, const QString &host)
{
    const quint64 job = nextJob();
    Engine *engine = m_engine;
    onEngine([engine, job, request, host] { engine->benchmark(job, request, host); });
    return job;
}

quint64 AppContext::findLesson(const QString &leftText, const QString &rightText)
{
    const quint64 job = nextJob();
    Engine *engine = m_engine;
    onEngine([engine, job, leftText, rightText] { engine->findLesson(job, leftText, rightText); });
    return job;
}

quint64 AppContext::summarizePair(const ComparePair &pair)
{
    const quint64 job = nextJob();
    Engine *engine = m_engine;
    onEngine([engine, job, pair] { engine->summarizePair(job, pair); });
    return job;
}

quint64 AppContext::storeLesson(const ExperienceRecord &record)
{
    const quint64 job = nextJob();
    Engine *engine = m_engine;
    onEngine([engine, job, record] { engine->storeLesson(job, record); });
    return job;
}

quint64 AppContext::loadExperiencePair(const ExperienceRecord &record)
{
    const quint64 job = nextJob();
    Engine *engine = m_engine;
    onEngine([engine, job, record] { engine->loadExperiencePair(job, record); });
    return job;
}

void AppContext::startSearch(const SearchTask &task, const SearchConfig &config, const QString &host,
                             bool useMemory)
{
    m_openJob = nextJob(); // a session still loading into the dock gives way to the new search
    drainEvents(true);
    m_search->clear();
    setSearching(true); // until the engine says it started or failed: no second start meanwhile
    Engine *engine = m_engine;
    onEngine([engine, task, config, host, useMemory] { engine->startSearch(task, config, host, useMemory); });
}

void AppContext::resumeSession(const QString &sessionId, const std::optional<SearchConfig> &config,
                               bool useMemory)
{
    // The snapshot reaches the dock before the resumed search's first event: both come from the engine's
    // thread, in the order asked.
    openSession(sessionId);
    setSearching(true);
    Engine *engine = m_engine;
    onEngine([engine, sessionId, config, useMemory] { engine->resumeSearch(sessionId, config, useMemory); });
}

void AppContext::stopSearch()
{
    Engine *engine = m_engine;
    onEngine([engine] { engine->stopSearch(); });
}

void AppContext::openSession(const QString &sessionId)
{
    const quint64 job = m_openJob = nextJob();
    Engine *engine = m_engine;
    onEngine([engine, job, sessionId] { engine->loadSession(job, sessionId); });
}

quint64 AppContext::loadCalibration(const QString &host)
{
    const quint64 job = nextJob();
    Engine *engine = m_engine;
    onEngine([engine, job, host] { engine->loadCalibration(job, host); });
    return job;
}

quint64 AppContext::importProfile(const QString &candidateId, const QStringList &files)
{
    const quint64 job = nextJob();
    Engine *engine = m_engine;
    onEngine([engine, job, candidateId, files] { engine->importProfile(job, candidateId, files); });
    return job;
}

void AppContext::refreshSessions()
{
    const quint64 job = m_sessionsJob = nextJob();
    Engine *engine = m_engine;
    onEngine([engine, job] { engine->listSessions(job); });
}

quint64 AppContext::deleteSession(const QString &sessionId)
{
    const quint64 job = nextJob();
    Engine *engine = m_engine;
    onEngine([engine, job, sessionId] { engine->deleteSession(job, sessionId); });
    return job;
}

quint64 AppContext::exportSession(const SessionExport::Request &request)
{
    const quint64 job = nextJob();
    Engine *engine = m_engine;
    onEngine([engine, job, request] { engine->exportSession(job, request); });
    return job;
}

void AppContext::refreshHosts()
{
    const quint64 job = nextJob();
    Engine *engine = m_engine;
    onEngine([engine, job] { engine->listHosts(job); });
}

template<typename F> quint64 AppContext::ask(F &&call)
{
    const quint64 job = nextJob();
    onEngine([call = std::forward<F>(call), job] { call(job); });
    return job;
}

quint64 AppContext::memoryPage(const ExperiencePageRequest &request)
{
    MemoryService *memory = m_engine->memory();
    return ask([memory, request](quint64 job) { memory->page(job, request); });
}

quint64 AppContext::memoryChoices()
{
    MemoryService *memory = m_engine->memory();
    return ask([memory](quint64 job) { memory->choices(job); });
}

quint64 AppContext::loadExperience(qint64 id)
{
    MemoryService *memory = m_engine->memory();
    return ask([memory, id](quint64 job) { memory->load(job, id); });
}

quint64 AppContext::editExperience(qint64 id, const QString &title, const QString &lesson)
{
    MemoryService *memory = m_engine->memory();
    return ask([memory, id, title, lesson](quint64 job) { memory->edit(job, id, title, lesson); });
}

quint64 AppContext::pinExperience(qint64 id, bool pinned)
{
    MemoryService *memory = m_engine->memory();
    return ask([memory, id, pinned](quint64 job) { memory->setPinned(job, id, pinned); });
}

quint64 AppContext::removeExperience(qint64 id)
{
    MemoryService *memory = m_engine->memory();
    return ask([memory, id](quint64 job) { memory->remove(job, id); });
}

quint64 AppContext::restoreExperience(const ExperienceRecord &record, const QList<RetrievalRecord> &retrievals)
{
    MemoryService *memory = m_engine->memory();
    return ask([memory, record, retrievals](quint64 job) { memory->restore(job, record, retrievals); });
}

quint64 AppContext::importMemory(const QString &path)
{
    MemoryService *memory = m_engine->memory();
    return ask([memory, path](quint64 job) { memory->importFile(job, path); });
}

quint64 AppContext::exportMemory(const QString &path)
{
    MemoryService *memory = m_engine->memory();
    return ask([memory, path](quint64 job) { memory->exportFile(job, path); });
}

quint64 AppContext::loadHosts()
{
    SettingsService *files = m_engine->settingsFiles();
    return ask([files](quint64 job) { files->loadHosts(job); });
}

quint64 AppContext::saveHosts(const QList<HostConfig> &hosts)
{
    SettingsService *files = m_engine->settingsFiles();
    return ask([files, hosts](quint64 job) { files->saveHosts(job, hosts); });
}

quint64 AppContext::loadLlmConfig()
{
    SettingsService *files = m_engine->settingsFiles();
    return ask([files](quint64 job) { files->loadLlmConfig(job); });
}

quint64 AppContext::saveLlmConfig(const LlmConfig &config)
{
    SettingsService *files = m_engine->settingsFiles();
    return ask([files, config](quint64 job) { files->saveLlmConfig(job, config); });
}

quint64 AppContext::portKernel(const KernelPort::Request &request)
{
    Engine *engine = m_engine;
    return ask([engine, request](quint64 job) { engine->portKernel(job, request); });
}

quint64 AppContext::testHost(const HostConfig &config, const std::shared_ptr<SshPrompter> &prompter)
{
    SettingsService *files = m_engine->settingsFiles();
    return ask([files, config, prompter](quint64 job) { files->testHost(job, config, prompter); });
}

quint64 AppContext::testEndpoint(const Endpoint &endpoint, const RetryPolicy &retry)
{
    SettingsService *files = m_engine->settingsFiles();
    return ask([files, endpoint, retry](quint64 job) { files->testEndpoint(job, endpoint, retry); });
}

quint64 AppContext::keepKey(const Endpoint &endpoint, const QString &key)
{
    SettingsService *files = m_engine->settingsFiles();
    return ask([files, endpoint, key](quint64 job) { files->keepKey(job, endpoint, key); });
}

quint64 AppContext::createTask(const TaskDraft &draft, const QString &referenceFile, const QString &parentDir,
                               const QString &shippedDir, const QString &nearPath)
{
    Engine *engine = m_engine;
    return ask([engine, draft, referenceFile, parentDir, shippedDir, nearPath](quint64 job) {
        engine->createTask(job, draft, referenceFile, parentDir, shippedDir, nearPath);
    });
}

void AppContext::cancelTaskCreation(quint64 job)
{
    Engine *engine = m_engine;
    onEngine([engine, job] { engine->cancelTaskCreation(job); });
}
