#include "studyrunner.h"

#include "common/datapaths.h"
#include "common/logcategories.h"
#include "common/privatefiles.h"
#include "llm/llmconfig.h"
#include "memory/experiencestore.h"
#include "model/tasksources.h"
#include "search/optimizationrun.h"
#include "search/searchtask.h"
#include "store/sessionstore.h"

#include <QDateTime>
#include <QTimer>
#include <QUuid>

namespace {

QString llmFile(const StudyState &s, const QString &dir, const QString &arm)
{
    return s.folder(dir) + QStringLiteral("/llm-") + arm + QStringLiteral(".json");
}

} // namespace

StudyRunner::StudyRunner(SessionStore *store, const QString &studiesDir, const Options &options,
                         QObject *parent)
    : QObject(parent), m_store(store), m_dir(studiesDir), m_options(options)
{
}

StudyRunner::~StudyRunner() = default;

bool StudyRunner::start(const StudyState &state)
{
    m_state = state;
    if (m_state.id.isEmpty())
        m_state.id = QUuid::createUuid().toString(QUuid::WithoutBraces).left(8);
    m_state.created = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
    m_state.round = 1;
    m_state.finished = false;
    m_state.planRuns();
    if (const QStringList p = m_state.problems(); !p.isEmpty()) {
        m_error = p.join(QStringLiteral("; "));
        return false;
    }
    for (const QString &task : m_state.tasks) {
        QString why;
        if (!TaskSources::load({{QStringLiteral("name"), task}}, DataPaths::tasksDir(), why)) {
            m_error = QStringLiteral("task '%1': %2").arg(task, why);
            return false;
        }
    }
    if (!prepareArms() || !save())
        return false;
    QTimer::singleShot(0, this, &StudyRunner::nextTurn);
    return true;
}

bool StudyRunner::resume(const QString &idPrefix)
{
    QString why;
    const std::optional<StudyState> state = StudyState::load(m_dir, idPrefix, &why);
    if (!state) {
        m_error = why;
        return false;
    }
    m_state = *state;
    if (m_state.finished) {
        m_error = QStringLiteral("study %1 has already finished; its result is shown with 'accelopt study "
                                 "--show %1'")
                      .arg(m_state.id);
        return false;
    }
    if (!prepareArms())
        return false;
    QTimer::singleShot(0, this, &StudyRunner::nextTurn);
    return true;
}

// Each arm's llm.json is the base settings with the arm's models in the roster, written again on a resume
// so a key source or endpoint URL fixed since then is taken up; the roster itself is the arm's, kept in the
// study's file.
bool StudyRunner::prepareArms()
{
    const QString path = m_options.llmConfig.isEmpty() ? LlmConfig::defaultPath() : m_options.llmConfig;
    QString why;
    const std::optional<LlmConfig> base = LlmConfig::load(path, &why);
    if (!base) {
        m_error = why;
        return false;
    }
    for (const ArmSpec &arm : m_state.arms) {
        const std::optional<LlmConfig> config = arm.llmConfig(*base, &why);
        if (!config) {
            m_error = why;
            return false;
        }
        // Said before the study exists, not at its first turn: a money budget with an unpriced model would
        // never stop that arm, and arms compared on money must all have a price.
        if (m_state.budget.kind == StudyBudget::Kind::Usd) {
            QStringList unpriced;
            for (AgentRole role : AgentRoles::all())
                for (const ModelRoster::Member &m : config->roster.members(role)) {
                    const Endpoint *e = config->endpoint(m.endpoint);
                    const QString model = m.model.isEmpty() && e ? e->model : m.model;
                    if (!config->prices.price(model) && !unpriced.contains(model))
                        unpriced << model;
                }
            if (!unpriced.isEmpty()) {
                m_error =
                    QStringLiteral("arm %1 cannot keep a money budget: %2 %3 no price in the LLM settings; "
                                   "set one (accelopt models price) or use --budget-tokens or "
                                   "--budget-evals")
                        .arg(arm.name, unpriced.join(QStringLiteral(", ")),
                             unpriced.size() == 1 ? QStringLiteral("has") : QStringLiteral("have"));
                return false;
            }
        }
        if (!PrivateFiles::makeFolder(m_state.folder(m_dir), why) ||
            !config->save(llmFile(m_state, m_dir, arm.name), &why)) {
            m_error = why;
            return false;
        }
    }
    return true;
}

void StudyRunner::stop()
{
    m_stopping = true;
    if (m_run && m_run->isRunning())
        m_run->stop();
}

void StudyRunner::nextTurn()
{
    if (m_stopping)
        return finish(false,
                      QStringLiteral("stopped; resume with 'accelopt study --resume %1'").arg(m_state.id));
    for (;;) {
        for (int i = 0; i < m_state.runs.size(); ++i) {
            const StudyState::Run &run = m_state.runs.at(i);
            const bool hadTurn = !run.checkpoints.isEmpty() && run.checkpoints.last().round >= m_state.round;
            if (!run.done && !hadTurn)
                return runTurn(i);
        }
        if (m_state.round >= m_state.budget.slices)
            break;
        ++m_state.round;
        if (!save())
            return finish(false, m_error);
    }
    m_state.finished = true;
    if (!save())
        return finish(false, m_error);
    finish(true);
}

void StudyRunner::runTurn(int index)
{
    m_turn = index;
    m_cut = false;
    StudyState::Run &run = m_state.runs[index];
    const ArmSpec &arm = *m_state.arm(run.arm);
    QString why;
    const std::optional<TaskSources> sources =
        TaskSources::load({{QStringLiteral("name"), run.task}}, DataPaths::tasksDir(), why);
    if (!sources)
        return finish(false, QStringLiteral("task '%1': %2").arg(run.task, why));
    SearchTask task;
    task.name = sources->name;
    task.ref = {{QStringLiteral("name"), run.task}};
    task.reference = sources->reference;
    task.kernel = sources->kernel;
    task.size = m_state.size;
    if (!m_state.backend.isEmpty())
        task.backend = m_state.backend;
    if (!m_state.target.isEmpty())
        task.target = m_state.target;

    SearchConfig config = arm.config();
    config.seed = m_state.seed + run.repeat;
    const double limit = m_state.budget.limitAt(m_state.round);
    m_evalLimit = 0;
    switch (m_state.budget.kind) {
    case StudyBudget::Kind::Usd:
        config.budgetUsd = limit;
        break;
    case StudyBudget::Kind::Tokens:
        config.budgetTokens = qint64(limit);
        break;
    case StudyBudget::Kind::Evaluations:
        m_evalLimit = limit;
        break;
    }

    OptimizationRun::Options o;
    o.host = m_state.host;
    o.jobs = m_state.jobs;
    o.useMemory = arm.memory;
    o.llmConfig = llmFile(m_state, m_dir, arm.name);
    o.prompter = m_options.prompter;
    m_run = std::make_unique<OptimizationRun>(o);
    m_run->setWorkspace(m_store);
    m_memory.reset();
    if (arm.memory) {
        m_memory = std::make_unique<ExperienceStore>(
            m_state.folder(m_dir) +
            QStringLiteral("/memory-%1-r%2.sqlite").arg(arm.name).arg(run.repeat + 1));
        if (!m_memory->open())
            return finish(false, QStringLiteral("arm %1's memory: %2").arg(arm.name, m_memory->lastError()));
        m_run->setMemory(m_memory.get());
    }
    connect(m_run.get(), &OptimizationRun::started, this, [this, index](const QString &sessionId) {
        if (m_state.runs[index].sessionId.isEmpty()) {
            m_state.runs[index].sessionId = sessionId;
            save();
        }
        recount(index);
    });
    connect(m_run.get(), &OptimizationRun::event, this, [this, index](const SearchEvent &e) {
        if (e.as<SearchEvents::EvaluationFinished>() || e.as<SearchEvents::BaselineEvaluated>())
            recount(index);
    });
    connect(m_run.get(), &OptimizationRun::notice, this, &StudyRunner::notice);
    connect(m_run.get(), &OptimizationRun::failed, this, [this, index](const QString &error) {
        QTimer::singleShot(0, this, [this, index, error] {
            finish(false, QStringLiteral("%1 on %2 (repeat %3): %4")
                              .arg(m_state.runs[index].arm, m_state.runs[index].task)
                              .arg(m_state.runs[index].repeat + 1)
                              .arg(error));
        });
    });
    connect(m_run.get(), &OptimizationRun::finished, this, [this, index](StopReason reason) {
        // Queued: the run that emits this is deleted when the turn ends.
        QTimer::singleShot(0, this, [this, index, reason] { endTurn(index, reason); });
    });
    qCInfo(lcSearch).noquote() << "study" << m_state.id << "round" << m_state.round << "turn of" << run.arm
                               << run.task << "repeat" << run.repeat + 1 << "limit" << limit;
    Q_EMIT turnStarted(index, m_state.round);
    const OptimizationRun::Begin begin =
        run.sessionId.isEmpty() ? m_run->start(task, config) : m_run->resume(run.sessionId, config);
    if (begin == OptimizationRun::Begin::Failed)
        return finish(false, QStringLiteral("%1 on %2: %3").arg(run.arm, run.task, m_run->error()));
    if (begin == OptimizationRun::Begin::NothingToDo) // already past this round's limit: nothing to spend
        QTimer::singleShot(0, this, [this, index] { endTurn(index, StopReason::None); });
}

// Counted in the store, not from events: a resumed session replays what it already had, and the baseline,
// the re-measurement and reused twins must be counted the same way as the result counts them.
void StudyRunner::recount(int index)
{
    if (m_evalLimit <= 0 || m_cut || !m_run || !m_run->isRunning())
        return;
    const QString session = m_state.runs[index].sessionId;
    if (session.isEmpty())
        return;
    if (RunMeasure::of(*m_store, session).evaluations >= m_evalLimit) {
        m_cut = true;
        m_run->stop();
    }
}

void StudyRunner::endTurn(int index, StopReason reason)
{
    StudyState::Run &run = m_state.runs[index];
    m_run.reset();
    m_memory.reset();
    m_turn = -1;
    if (reason == StopReason::Stopped && !m_cut) // the user's stop: this turn is run again on a resume
        return finish(false,
                      QStringLiteral("stopped; resume with 'accelopt study --resume %1'").arg(m_state.id));
    const bool atLimit = m_cut || reason == StopReason::MoneyBudget || reason == StopReason::TokenBudget ||
                         reason == StopReason::None;
    run.done = !atLimit;
    run.stopReason = reason == StopReason::None ? run.stopReason : StopRules::name(reason);
    if (!run.sessionId.isEmpty())
        run.checkpoints << StudyState::Checkpoint{m_state.round, RunMeasure::of(*m_store, run.sessionId)};
    else
        run.done = true;
    if (!save())
        return finish(false, m_error);
    Q_EMIT turnFinished(index, m_state.round);
    QTimer::singleShot(0, this, &StudyRunner::nextTurn);
}

bool StudyRunner::save()
{
    QString why;
    if (m_state.save(m_dir, &why))
        return true;
    m_error = why;
    return false;
}

void StudyRunner::finish(bool completed, const QString &error)
{
    if (!error.isEmpty())
        m_error = error;
    if (m_run) {
        // A failure while a turn still runs (its store write failed): stop it, and finish once it has.
        m_run->disconnect(this);
        m_run->stop();
        m_run.release()->deleteLater();
    }
    Q_EMIT finished(completed);
}
