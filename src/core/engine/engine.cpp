#include "engine/engine.h"

#include "common/datapaths.h"
#include "common/logcategories.h"
#include "engine/memoryservice.h"
#include "engine/settingsservice.h"
#include "hosts/hostfactory.h"
#include "hosts/hostpool.h"
#include "hosts/hostregistry.h"
#include "hosts/localhost.h"
#include "memory/experiencestore.h"
#include "memory/pairsummary.h"
#include "model/kernelnormalizer.h"
#include "profile/explorerprofileimport.h"
#include "search/beamsearch.h"
#include "search/optimizationrun.h"
#include "store/calibrationquery.h"
#include "store/sessionlock.h"
#include "store/sessionstore.h"

#include <QFile>
#include <QFileInfo>

Engine::Engine(const Settings &settings, QObject *parent)
    : QObject(parent), m_settings(settings),
      m_memoryService(new MemoryService(
          [this](QString &error) { return openMemory(error) ? m_memory.get() : nullptr; }, this)),
      m_settingsFiles(new SettingsService(settings.hostsFile, settings.llmConfig, this))
{
    // What the dock writes, the other views (and the dock's own list) read again.
    connect(m_memoryService, &MemoryService::changed, this, [this](quint64, const QString &error) {
        if (error.isEmpty())
            Q_EMIT memoryChanged();
    });
    connect(m_memoryService, &MemoryService::imported, this,
            [this](quint64, const QString &, const ExperienceStore::ImportResult &result, const QString &) {
                if (result.ok && result.added > 0)
                    Q_EMIT memoryChanged();
            });
}

Engine::~Engine()
{
    shutdown();
}

bool Engine::openWorkspace(QString &error)
{
    if (m_store && m_store->database().isOpen())
        return true;
    m_store = std::make_unique<SessionStore>(m_settings.workspaceDb.isEmpty() ? SessionStore::defaultPath()
                                                                              : m_settings.workspaceDb);
    if (!m_store->open()) {
        error = QStringLiteral("cannot open the workspace database: %1").arg(m_store->lastError());
        m_store.reset();
        return false;
    }
    return true;
}

bool Engine::openMemory(QString &error)
{
    if (m_memory)
        return true;
    m_memory = std::make_unique<ExperienceStore>(m_settings.memoryDb.isEmpty() ? ExperienceStore::defaultPath()
                                                                               : m_settings.memoryDb);
    if (!m_memory->open()) {
        error = QStringLiteral("cannot open the optimization memory: %1").arg(m_memory->lastError());
        m_memory.reset();
        return false;
    }
    return true;
}

HostPool *Engine::poolFor(const QString &name, HostConfig &config, QString &error)
{
    if (HostPool *pool = m_pools.value(name)) {
        config = m_hostConfigs.value(name);
        return pool;
    }
    // Read the registry now, not at start: the user may have added the host a minute ago.
    HostRegistry registry(m_settings.hostsFile.isEmpty() ? HostRegistry::defaultPath()
                                                         : m_settings.hostsFile);
    if (!registry.load(error))
        return nullptr;
    if (!registry.find(name, config)) {
        error = QStringLiteral("no host named '%1'; add it in Tools > Hosts").arg(name);
        return nullptr;
    }
    if (config.kind == HostConfig::Kind::Local)
        config.slotCount = m_settings.localSlots;
    Host *host = HostFactory::create(config, m_settings.prompter);
    if (!host) {
        error = QStringLiteral("host '%1' has a kind this build cannot reach").arg(name);
        return nullptr;
    }
    auto *pool = new HostPool(this);
    pool->addHost(host);
    connect(pool, &HostPool::hostStateChanged, this,
            [this](Host *h, Host::State state, const QString &detail) {
                Q_EMIT hostStateChanged(h->name(), state, detail);
            });
    connect(pool, &HostPool::evaluationFinished, this, [this, pool](quint64 poolJob, const Evaluation &e) {
        const auto it = m_benchmarks.find(poolJob);
        if (it == m_benchmarks.end() || it->second != pool)
            return; // a search's evaluation
        const quint64 job = it->first;
        m_benchmarks.erase(it);
        Q_EMIT benchmarkFinished(job, e);
    });
    pool->start();
    m_pools.insert(name, pool);
    m_hostConfigs.insert(name, config);
    Q_EMIT hostStateChanged(name, host->state(), host->stateDetail());
    return pool;
}

void Engine::benchmark(quint64 job, const EvalRequest &givenRequest, const QString &host)
{
    QString error;
    HostConfig config;
    HostPool *pool = poolFor(host.isEmpty() ? QStringLiteral("local") : host, config, error);
    if (!pool) {
        Q_EMIT benchmarkFinished(job, Evaluation::failure({}, EvalStatus::InfraError, error));
        return;
    }
    EvalRequest request = givenRequest;
    if (request.backend.isEmpty())
        request.backend = config.backend;
    if (request.target.isEmpty())
        request.target = config.target;
    m_benchmarks.insert(pool->submit(request), {job, pool});
}

bool Engine::isSearching() const
{
    return m_run && m_run->isRunning();
}

void Engine::launch(const std::function<int(OptimizationRun &)> &begin, bool useMemory, const QString &host)
{
    if (isSearching()) {
        Q_EMIT searchFailed(QStringLiteral("a search is already running in this window; stop it first"));
        return;
    }
    QString error;
    if (!openWorkspace(error)) {
        Q_EMIT searchFailed(error);
        return;
    }
    if (useMemory && !openMemory(error)) {
        Q_EMIT searchFailed(error + QStringLiteral(" (start without the memory to go on without it)"));
        return;
    }
    OptimizationRun::Options options;
    options.host = host;
    options.useMemory = useMemory;
    options.llmConfig = m_settings.llmConfig;
    options.prompter = m_settings.prompter;
    // The old run goes only now: its signals are all delivered, and its search may still be referenced by
    // queued work of its own, which the deleteLater below lets finish.
    if (m_run)
        m_run.release()->deleteLater();
    m_run = std::make_unique<OptimizationRun>(options);
    OptimizationRun *run = m_run.get();
    run->setWorkspace(m_store.get());
    run->setMemory(useMemory ? m_memory.get() : nullptr);
    run->setPoolProvider(
        [this](const QString &name, HostConfig &config, QString &e) { return poolFor(name, config, e); });
    connect(run, &OptimizationRun::event, this, &Engine::searchEvent);
    connect(run, &OptimizationRun::notice, this, &Engine::notice);
    connect(run, &OptimizationRun::started, this, &Engine::searchStarted);
    connect(run, &OptimizationRun::failed, this, &Engine::searchFailed);
    connect(run, &OptimizationRun::finished, this, [this, run](StopReason reason) {
        Q_EMIT searchFinished(run->sessionId(), reason,
                              run->search() ? run->search()->lastError() : QString());
    });
    const auto outcome = OptimizationRun::Begin(begin(*run));
    if (outcome == OptimizationRun::Begin::Failed || outcome == OptimizationRun::Begin::NothingToDo)
        Q_EMIT searchFailed(run->error());
}

void Engine::startSearch(const SearchTask &task, const SearchConfig &config, const QString &host,
                         bool useMemory)
{
    launch([task, config](OptimizationRun &run) { return int(run.start(task, config)); }, useMemory, host);
}

void Engine::resumeSearch(const QString &sessionId, const std::optional<SearchConfig> &config, bool useMemory)
{
    launch([sessionId, config](OptimizationRun &run) { return int(run.resume(sessionId, config)); },
           useMemory, {});
}

void Engine::stopSearch()
{
    if (m_run)
        m_run->stop();
}

void Engine::listSessions(quint64 job)
{
    QString error;
    if (!openWorkspace(error)) {
        Q_EMIT sessionsListed(job, {}, error);
        return;
    }
    QList<SessionSummary> sessions = m_store->sessionSummaries();
    for (SessionSummary &s : sessions)
        if (s.session.status == SessionRecord::Status::Running)
            s.live = SessionLock::isHeld(m_store->path(), s.session.id);
    Q_EMIT sessionsListed(job, sessions, {});
}

void Engine::loadSession(quint64 job, const QString &sessionId)
{
    QString error;
    if (!openWorkspace(error)) {
        Q_EMIT sessionLoaded(job, {}, error);
        return;
    }
    const std::optional<SessionSnapshot> snapshot = SessionSnapshot::load(*m_store, sessionId, error);
    Q_EMIT sessionLoaded(job, snapshot.value_or(SessionSnapshot{}), snapshot ? QString() : error);
}

void Engine::loadCalibration(quint64 job, const QString &host)
{
    QString error;
    if (!openWorkspace(error)) {
        Q_EMIT calibrationLoaded(job, {}, error);
        return;
    }
    CalibrationQuery query(m_store->database());
    const QList<CalibrationRun> runs = query.runs();
    Q_EMIT calibrationLoaded(job, Calibration::fromRuns(runs, host), query.lastError());
}

void Engine::importProfile(quint64 job, const QString &candidateId, const QStringList &files)
{
    QString error;
    if (!openWorkspace(error)) {
        Q_EMIT profileImported(job, {}, error);
        return;
    }
    const ExplorerProfileImport::Outcome o = ExplorerProfileImport::attach(*m_store, candidateId, -1, files);
    Q_EMIT profileImported(job, o.evaluation, o.ok ? QString() : o.error);
}

void Engine::deleteSession(quint64 job, const QString &sessionId)
{
    QString error;
    if (!openWorkspace(error)) {
        Q_EMIT sessionDeleted(job, sessionId, error);
        return;
    }
    if ((m_run && m_run->sessionId() == sessionId && m_run->isRunning()) ||
        SessionLock::isHeld(m_store->path(), sessionId)) {
        Q_EMIT sessionDeleted(
            job, sessionId,
            QStringLiteral("session %1 is running; stop it before deleting it").arg(sessionId.left(8)));
        return;
    }
    // Taking the lock keeps a `accelopt resume` from starting on it while it goes.
    SessionLock lock(m_store->path(), sessionId);
    if (!lock.tryLock(error) || !m_store->deleteSession(sessionId)) {
        Q_EMIT sessionDeleted(job, sessionId, error.isEmpty() ? m_store->lastError() : error);
        return;
    }
    lock.unlock();
    QFile::remove(SessionLock::path(m_store->path(), sessionId));
    Q_EMIT sessionDeleted(job, sessionId, {});
}

void Engine::exportSession(quint64 job, const SessionExport::Request &request)
{
    QString error;
    if (!openWorkspace(error)) {
        SessionExport::Result failed;
        failed.error = error;
        Q_EMIT exported(job, failed);
        return;
    }
    Q_EMIT exported(job, SessionExport::run(*m_store, request));
}

void Engine::findLesson(quint64 job, const QString &leftText, const QString &rightText)
{
    QString error;
    if (!openMemory(error)) {
        Q_EMIT lessonFound(job, std::nullopt, error);
        return;
    }
    const std::optional<ExperienceRecord> found =
        m_memory->forPair(KernelNormalizer::hash(leftText), KernelNormalizer::hash(rightText));
    Q_EMIT lessonFound(job, found, found ? QString() : m_memory->lastError());
}

void Engine::summarizePair(quint64 job, const ComparePair &pair)
{
    auto *summary = new PairSummary(m_settings.llmConfig, this);
    connect(summary, &PairSummary::finished, this,
            [this, job, summary](const std::optional<ExperienceRecord> &record, const QString &error) {
                summary->deleteLater();
                Q_EMIT pairSummarized(job, record, error);
            });
    QString error;
    if (!summary->start(pair, error)) {
        summary->deleteLater();
        Q_EMIT pairSummarized(job, std::nullopt, error);
    }
}

void Engine::storeLesson(quint64 job, const ExperienceRecord &givenRecord)
{
    ExperienceRecord record = givenRecord;
    QString error;
    if (!openMemory(error)) {
        Q_EMIT lessonStored(job, record, error);
        return;
    }
    if (m_memory->contains(record)) {
        Q_EMIT lessonStored(job, record, QStringLiteral("the memory already has this lesson"));
        return;
    }
    const bool ok = m_memory->add(record);
    Q_EMIT lessonStored(job, record, ok ? QString() : m_memory->lastError());
}

void Engine::loadExperiencePair(quint64 job, const ExperienceRecord &record)
{
    ComparePair pair;
    pair.task = record.task;
    pair.target = record.target;
    QString error; // without the workspace, the snippets are what there is to compare
    const bool workspace = openWorkspace(error);
    const auto side = [&](const QString &candidateId, const QString &snippet, const QString &role,
                          ComparePair::Side &out) {
        if (workspace && !candidateId.isEmpty()) {
            if (const std::optional<Candidate> c = m_store->candidate(candidateId)) {
                out.name = QStringLiteral("%1 %2 (iteration %3)").arg(role, c->id.left(8)).arg(c->iteration);
                out.text = c->source;
                out.candidateId = c->id;
                out.sessionId = c->sessionId;
                out.evaluation = m_store->evaluation(c->id);
                return;
            }
        }
        out.name = QStringLiteral("%1 (the lesson's snippet)").arg(role);
        out.text = snippet;
    };
    const Experience &e = record.experience;
    // The memory's slow kernel is the "before" of a speedup and the "after" of a slowdown.
    side(record.slowCandidateId, e.isNegative() ? e.snippetAfter : e.snippetBefore, QStringLiteral("slow"), pair.left);
    side(record.fastCandidateId, e.isNegative() ? e.snippetBefore : e.snippetAfter, QStringLiteral("fast"), pair.right);
    if (!pair.left.sessionId.isEmpty())
        if (const std::optional<SessionRecord> s = m_store->session(pair.left.sessionId))
            pair.taskRef = s->task;
    Q_EMIT experiencePairLoaded(job, pair);
}

void Engine::listHosts(quint64 job)
{
    HostRegistry registry(m_settings.hostsFile.isEmpty() ? HostRegistry::defaultPath()
                                                         : m_settings.hostsFile);
    QString error;
    const bool ok = registry.load(error);
    Q_EMIT hostsListed(job, ok ? registry.hosts() : QList<HostConfig>{HostRegistry::builtinLocal()}, error);
}

void Engine::portKernel(quint64 job, const KernelPort::Request &givenRequest)
{
    if (m_port) {
        KernelPort::Result busy;
        busy.error = QStringLiteral("a port is already being made; wait for it to finish");
        Q_EMIT kernelPorted(job, busy);
        return;
    }
    KernelPort::Request request = givenRequest;
    if (request.llmConfig.isEmpty())
        request.llmConfig = m_settings.llmConfig; // the window's llm.json, not the default beside it
    m_portHost = std::make_unique<LocalHost>(HostRegistry::builtinLocal(), DataPaths::nkibenchDir());
    m_port = std::make_unique<KernelPort>(m_portHost.get());
    connect(m_port.get(), &KernelPort::progress, this,
            [this, job](const QString &message) { Q_EMIT portProgress(job, message); });
    connect(m_port.get(), &KernelPort::finished, this, [this, job](const KernelPort::Result &result) {
        Q_EMIT kernelPorted(job, result);
        // Not from inside the job's own signal.
        QMetaObject::invokeMethod(
            this,
            [this] {
                m_port.reset();
                m_portHost.reset();
            },
            Qt::QueuedConnection);
    });
    m_port->start(request);
}

void Engine::createTask(quint64 job, const TaskDraft &givenDraft, const QString &referenceFile,
                        const QString &parentDir, const QString &shippedDir, const QString &nearPath)
{
    cancelTaskCreation(m_creationJob);
    TaskDraft draft = givenDraft;
    TaskCreation::Result refused;
    if (!referenceFile.isEmpty()) {
        QFile file(referenceFile);
        if (!file.open(QIODevice::ReadOnly)) {
            refused.error =
                QStringLiteral("cannot read the reference %1: %2; choose another file or write the "
                               "reference in the wizard")
                    .arg(referenceFile, file.errorString());
            Q_EMIT taskCreationFinished(job, refused);
            return;
        }
        draft.referenceSource = QString::fromUtf8(file.readAll());
    }
    if (!draft.validate(refused.error)) {
        Q_EMIT taskCreationFinished(job, refused);
        return;
    }
    if (!m_taskHost)
        m_taskHost = std::make_unique<LocalHost>(HostRegistry::builtinLocal(), DataPaths::nkibenchDir());
    m_creation = std::make_unique<TaskCreation>(m_taskHost.get());
    m_creationJob = job;
    connect(m_creation.get(), &TaskCreation::progress, this,
            [this, job](const QString &message) { Q_EMIT taskProgress(job, message); });
    connect(m_creation.get(), &TaskCreation::finished, this, [this, job](const TaskCreation::Result &result) {
        // Not from inside the creation's own signal.
        m_creation.release()->deleteLater();
        m_creationJob = 0;
        Q_EMIT taskCreationFinished(job, result);
    });
    qCInfo(lcSearch).noquote() << "creating task" << draft.name << "in" << parentDir;
    m_creation->start(draft, parentDir, shippedDir, nearPath);
}

void Engine::cancelTaskCreation(quint64 job)
{
    if (job == 0 || job != m_creationJob)
        return;
    m_creation.reset(); // its draft folder goes with it
    m_creationJob = 0;
}

void Engine::shutdown()
{
    m_creation.reset();
    m_taskHost.reset();
    m_port.reset();
    m_portHost.reset();
    if (m_run && m_run->isRunning())
        m_run->stop();
    m_run.reset();
    for (HostPool *pool : std::as_const(m_pools))
        pool->stop();
    qDeleteAll(m_pools);
    m_pools.clear();
    m_benchmarks.clear();
}
