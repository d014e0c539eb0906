#include "search/optimizationrun.h"

#include "agents/promptlibrary.h"
#include "common/datapaths.h"
#include "common/logcategories.h"
#include "hosts/hostfactory.h"
#include "hosts/hostpool.h"
#include "hosts/hostregistry.h"
#include "llm/agentclients.h"
#include "llm/apikeystore.h"
#include "llm/llmconfig.h"
#include "memory/experiencestore.h"
#include "model/taskcheckstamp.h"
#include "search/beamsearch.h"
#include "search/taskcheck.h"
#include "store/sessionlock.h"
#include "store/sessionstore.h"

#include <QFileInfo>
#include <QPointer>

struct OptimizationRun::Parts
{
    std::unique_ptr<AgentClients> clients;
    PromptLibrary prompts;
    ApiKeyStore keys;
    // The task check of a user task that changed since it last passed, on this machine (where its files are).
    std::unique_ptr<Host> checkHost;
    std::unique_ptr<TaskCheck> check;
    LlmConfig llm; // as loaded by prepare(): the prices a money budget needs
};

OptimizationRun::OptimizationRun(const Options &options, QObject *parent)
    : QObject(parent), m_options(options), m_parts(std::make_unique<Parts>())
{
}

OptimizationRun::~OptimizationRun()
{
    // The search cancels what is in flight through the pool, so it goes first.
    if (m_search && m_search->state() != BeamSearch::State::Finished &&
        m_search->state() != BeamSearch::State::Idle)
        m_search->stop();
    m_search.reset();
    for (const std::unique_ptr<HostPool> &pool : m_ownPools)
        pool->stop();
}

void OptimizationRun::setWorkspace(SessionStore *store)
{
    m_store = store;
}

void OptimizationRun::setMemory(ExperienceStore *memory)
{
    m_memory = memory;
}

void OptimizationRun::setPoolProvider(PoolProvider provider)
{
    m_poolProvider = std::move(provider);
}

QString OptimizationRun::sessionId() const
{
    return m_search ? m_search->sessionId() : QString();
}

bool OptimizationRun::isRunning() const
{
    return m_search && m_search->state() != BeamSearch::State::Idle &&
           m_search->state() != BeamSearch::State::Finished;
}

bool OptimizationRun::prepare(const QString &hostName, const QString &confirmOn)
{
    if (!m_store) {
        m_ownStore = std::make_unique<SessionStore>();
        m_store = m_ownStore.get();
    }
    const auto openStore = [this] {
        if (m_store->database().isOpen() || m_store->open())
            return true;
        m_error = QStringLiteral("cannot open the workspace database: %1").arg(m_store->lastError());
        return false;
    };
    if (!m_options.useMemory)
        m_memory = nullptr;
    else if (!m_memory)
        m_ownMemory = std::make_unique<ExperienceStore>();
    const bool ownMemory = m_options.useMemory && !m_memory;
    const auto openMemory = [this, ownMemory] {
        if (!ownMemory || m_memory)
            return true;
        if (!m_ownMemory->open()) {
            // Only accelopt gets here (the engine gives its own memory), so name its option.
            m_error = QStringLiteral("cannot open the optimization memory: %1 (run with --no-memory to go on "
                                     "without it)")
                          .arg(m_ownMemory->lastError());
            return false;
        }
        m_memory = m_ownMemory.get();
        return true;
    };
    // Opening a database that is not there creates it: those wait until the LLM settings have passed, so a
    // run refused for its settings leaves nothing behind. A database that exists is opened (or refused)
    // first, as before.
    if (QFileInfo::exists(m_store->path()) && !openStore())
        return false;
    if (ownMemory && QFileInfo::exists(m_ownMemory->path()) && !openMemory())
        return false;
    const QString llmPath = m_options.llmConfig.isEmpty() ? LlmConfig::defaultPath() : m_options.llmConfig;
    const std::optional<LlmConfig> config = LlmConfig::load(llmPath, &m_error);
    if (!config)
        return false;
    m_parts->clients = std::make_unique<AgentClients>(*config);
    m_parts->llm = *config;
    if (const QStringList problems = m_parts->clients->problems(); !problems.isEmpty()) {
        m_error = QStringLiteral("the LLM settings in %1 cannot drive a search: %2")
                      .arg(llmPath, problems.join(QStringLiteral("; ")));
        return false;
    }
    if (!openStore() || !openMemory())
        return false;
    m_parts->clients->setRecorder(m_store);
    if (!m_parts->prompts.load(DataPaths::promptsDir())) {
        m_error =
            QStringLiteral("the agents' prompts are broken: %1").arg(m_parts->prompts.errors().join(u'\n'));
        return false;
    }
    if (!m_poolProvider) {
        m_poolProvider = [this](const QString &name, HostConfig &hostConfig, QString &error) -> HostPool * {
            HostRegistry registry;
            if (!registry.load(error))
                return nullptr;
            if (!registry.find(name, hostConfig)) {
                error = QStringLiteral("no host named '%1'; see 'accelopt hosts list'").arg(name);
                return nullptr;
            }
            if (hostConfig.kind == HostConfig::Kind::Local)
                hostConfig.slotCount = m_options.jobs;
            Host *host = HostFactory::create(hostConfig, m_options.prompter);
            if (!host) {
                error = QStringLiteral("host '%1' has a kind this build cannot reach").arg(name);
                return nullptr;
            }
            m_ownPools.push_back(std::make_unique<HostPool>());
            HostPool *pool = m_ownPools.back().get();
            pool->addHost(host);
            connect(
                pool, &HostPool::hostStateChanged, this,
                [this](Host *h, Host::State state, const QString &detail) {
                    if (state == Host::State::Lost || state == Host::State::Failed ||
                        state == Host::State::VersionMismatch)
                        Q_EMIT notice(
                            QStringLiteral("host %1 %2: %3").arg(h->name(), Host::stateName(state), detail));
                });
            pool->start();
            return pool;
        };
    }
    m_pool = m_poolProvider(hostName, m_hostConfig, m_error);
    if (!m_pool || !prepareConfirmHost(confirmOn))
        return false;
    m_search = std::make_unique<BeamSearch>(m_pool, m_store, &m_parts->prompts);
    if (m_confirmPool)
        m_search->setConfirmPool(m_confirmPool, m_confirmConfig.backend);
    m_search->setClients(m_parts->clients.get());
    m_search->setMemory(m_memory);
    connect(m_search.get(), &BeamSearch::event, this, &OptimizationRun::event);
    connect(m_search.get(), &BeamSearch::finished, this, &OptimizationRun::onFinished);
    return true;
}

bool OptimizationRun::prepareConfirmHost(const QString &confirmOn)
{
    m_confirmPool = nullptr;
    if (confirmOn.isEmpty())
        return true;
    // Two stages need two different things to measure with: nkisim on the search's host, a device on the
    // confirm host. Anything else would "confirm" a number with the same model that produced it.
    if (confirmOn == m_hostConfig.name) {
        m_error = QStringLiteral("--confirm-on names the search's own host '%1'; name a Neuron host from "
                                 "'accelopt hosts list' (the search's host measures with nkisim)")
                      .arg(confirmOn);
        return false;
    }
    if (m_hostConfig.backend != QLatin1String("sim")) {
        m_error = QStringLiteral("confirming on hardware needs a search host with the sim backend (nkisim); "
                                 "host '%1' uses '%2'")
                      .arg(m_hostConfig.name, m_hostConfig.backend);
        return false;
    }
    QString error;
    m_confirmPool = m_poolProvider(confirmOn, m_confirmConfig, error);
    if (!m_confirmPool) {
        m_error = QStringLiteral("cannot confirm on host '%1': %2").arg(confirmOn, error);
        return false;
    }
    if (m_confirmConfig.backend != QLatin1String("neuron")) {
        m_error = QStringLiteral("the confirm host '%1' uses the '%2' backend; it must be a Neuron host "
                                 "(backend neuron)")
                      .arg(confirmOn, m_confirmConfig.backend);
        m_confirmPool = nullptr;
        return false;
    }
    return true;
}

void OptimizationRun::lookUpKeys(const std::function<void()> &then)
{
    // One endpoint after the other, each answer on the event loop (the keychain may take seconds): nothing
    // here waits, so a window stays responsive and a CLI can still be interrupted.
    auto endpoints = std::make_shared<QList<Endpoint>>();
    for (const Endpoint &endpoint : m_parts->clients->endpointsInUse())
        if (endpoint.keySource != Endpoint::KeySource::None)
            endpoints->append(endpoint);
    auto next = std::make_shared<std::function<void()>>();
    const quint64 generation = m_generation;
    QPointer<OptimizationRun> self(this);
    *next = [self, endpoints, next, then, generation] {
        if (!self || self->m_generation != generation) {
            *next = nullptr; // given up: break the cycle (nothing of this closure is used after)
            return;
        }
        if (endpoints->isEmpty()) {
            const std::function<void()> done = then; // resetting *next destroys this closure
            *next = nullptr;                         // and breaks the cycle: it holds itself
            done();
            return;
        }
        const Endpoint endpoint = endpoints->takeFirst();
        self->m_parts->keys.lookup(endpoint, [self, endpoint, next,
                                              generation](const ApiKeyStore::Lookup &l) {
            if (!self || self->m_generation != generation) {
                *next = nullptr;
                return;
            }
            if (!l.ok) {
                *next = nullptr; // this lambda is not the one that holds itself: safe to reset
                self->fail(QStringLiteral("no API key for endpoint '%1': %2").arg(endpoint.name, l.message));
                return;
            }
            if (!l.message.isEmpty())
                Q_EMIT self->notice(endpoint.name + QStringLiteral(": ") + l.message);
            self->m_parts->clients->setApiKey(endpoint.name, l.key);
            (*next)();
        });
    };
    (*next)();
}

bool OptimizationRun::lock(const QString &sessionId)
{
    m_lock = std::make_unique<SessionLock>(m_store->path(), sessionId);
    return m_lock->tryLock(m_error);
}

void OptimizationRun::fail(const QString &error)
{
    m_pending = false;
    m_error = error;
    qCWarning(lcSearch).noquote() << error;
    m_lock.reset();
    Q_EMIT failed(error);
}

OptimizationRun::Begin OptimizationRun::start(const SearchTask &givenTask, const SearchConfig &config)
{
    ++m_generation;
    SearchTask task = givenTask;
    task.host = m_options.host.isEmpty() ? QStringLiteral("local") : m_options.host;
    if (const QStringList problems = config.problems(); !problems.isEmpty()) {
        m_error = QStringLiteral("invalid search settings: ") + problems.join(QStringLiteral("; "));
        return Begin::Failed;
    }
    if (!prepare(task.host, config.confirmOn) || !budgetCanBeKept(config))
        return Begin::Failed;
    if (task.backend.isEmpty())
        task.backend = m_hostConfig.backend;
    if (task.target.isEmpty())
        task.target = m_hostConfig.target;
    m_pending = true; // before the lookup, which may finish before it returns
    const auto begin = [this, task, config] { beginSearch(task, config); };
    if (TaskCheckStamp::needsCheck(task.ref, DataPaths::tasksDir())) {
        checkTaskFirst(task.ref.value(QStringLiteral("dir")).toString(), begin);
        return Begin::Pending;
    }
    begin();
    return Begin::Pending;
}

bool OptimizationRun::budgetCanBeKept(const SearchConfig &config)
{
    // A money budget counts only priced calls: with a model that has no price it would never stop the search.
    if (config.budgetUsd <= 0)
        return true;
    QStringList unpriced;
    for (const Endpoint &endpoint : m_parts->clients->endpointsInUse())
        if (!m_parts->llm.prices.price(endpoint.model) && !unpriced.contains(endpoint.model))
            unpriced << endpoint.model;
    if (unpriced.isEmpty())
        return true;
    m_error =
        QStringLiteral("a budget of $%1 cannot be kept: %2 %3 no price in the LLM settings, so %4 calls "
                       "would cost nothing by the books; add the price (Tools > Models > Prices) or use a "
                       "token budget")
            .arg(config.budgetUsd, 0, 'f', 2)
            .arg(unpriced.join(QStringLiteral(", ")),
                 unpriced.size() == 1 ? QStringLiteral("has") : QStringLiteral("have"),
                 unpriced.size() == 1 ? QStringLiteral("its") : QStringLiteral("their"));
    return false;
}

void OptimizationRun::checkTaskFirst(const QString &folder, const std::function<void()> &then)
{
    HostRegistry registry;
    HostConfig local = HostRegistry::builtinLocal();
    QString ignored;
    if (registry.load(ignored))
        registry.find(QStringLiteral("local"), local);
    local.slotCount = 1;
    m_parts->checkHost.reset(HostFactory::create(local));
    m_parts->check = std::make_unique<TaskCheck>(m_parts->checkHost.get());
    Q_EMIT notice(
        QStringLiteral("checking the task %1 first: it changed since it last passed its check").arg(folder));
    const quint64 generation = m_generation;
    connect(
        m_parts->check.get(), &TaskCheck::finished, this,
        [this, folder, then, generation](const TaskCheck::Result &r) {
            if (generation != m_generation)
                return;
            QString error = r.error;
            if (r.ok && TaskCheckStamp::write(folder, error)) {
                then();
                return;
            }
            QStringList failed;
            for (const TaskCheck::Item &item : r.checks)
                if (!item.ok)
                    failed << QStringLiteral("%1: %2").arg(item.check, item.detail);
            fail(QStringLiteral("the task fails its check, so no search starts: %1 (accelopt task check %2 "
                                "shows the same)")
                     .arg(failed.isEmpty() ? error : failed.join(QStringLiteral("; ")), folder));
        });
    m_parts->check->start({{QStringLiteral("dir"), folder}});
}

void OptimizationRun::beginSearch(const SearchTask &task, const SearchConfig &config)
{
    lookUpKeys([this, task, config] {
        if (!m_search->start(task, config)) {
            fail(m_search->lastError());
            return;
        }
        if (!lock(m_search->sessionId())) {
            // Told as failed to start, once: the stop's own finished() is not passed on.
            const QString why = m_error;
            m_quietStop = true;
            m_search->stop();
            m_quietStop = false;
            fail(why);
            return;
        }
        m_pending = false;
        Q_EMIT started(m_search->sessionId());
    });
}

OptimizationRun::Begin OptimizationRun::resume(const QString &sessionPrefix,
                                               const std::optional<SearchConfig> &config)
{
    ++m_generation;
    if (!m_store) {
        m_ownStore = std::make_unique<SessionStore>();
        m_store = m_ownStore.get();
    }
    if (!m_store->database().isOpen() && !m_store->open()) {
        m_error = QStringLiteral("cannot open the workspace database: %1").arg(m_store->lastError());
        return Begin::Failed;
    }
    const std::optional<SessionRecord> session = m_store->findSession(sessionPrefix);
    if (!session) {
        m_error = m_store->lastError();
        return Begin::Failed;
    }
    if (!lock(session->id))
        return Begin::Failed;
    if (session->status == SessionRecord::Status::Finished && !config) {
        m_lock.reset();
        m_error = QStringLiteral("session %1 has finished; give it more room to go on (e.g. more iterations, "
                                 "or a larger budget)")
                      .arg(session->id);
        return Begin::NothingToDo;
    }
    if (config) {
        if (const QStringList problems = config->problems(); !problems.isEmpty()) {
            m_lock.reset();
            m_error = QStringLiteral("invalid search settings: ") + problems.join(QStringLiteral("; "));
            return Begin::Failed;
        }
    }
    const QString host = !m_options.host.isEmpty()  ? m_options.host
                         : !session->host.isEmpty() ? session->host
                                                    : QStringLiteral("local");
    const SearchConfig effective =
        config ? *config : SearchConfig::fromJson(session->config).value_or(SearchConfig{});
    if (!prepare(host, effective.confirmOn) || !budgetCanBeKept(effective)) {
        m_lock.reset();
        return Begin::Failed;
    }
    const QString id = session->id;
    m_pending = true;
    lookUpKeys([this, id, config] {
        if (!m_search->resume(id, config)) {
            fail(m_search->lastError());
            return;
        }
        m_pending = false;
        Q_EMIT started(id);
    });
    return Begin::Pending;
}

void OptimizationRun::stop()
{
    ++m_generation; // a key lookup still under way starts nothing
    if (m_pending)
        fail(QStringLiteral("stopped before the search started"));
    else if (isRunning())
        m_search->stop();
}

void OptimizationRun::onFinished(StopReason reason)
{
    m_lock.reset();
    if (!m_quietStop)
        Q_EMIT finished(reason);
}
