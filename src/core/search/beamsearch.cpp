#include "search/beamsearch.h"

#include "advice/advisor.h"
#include "advice/ruleset.h"
#include "agents/executor.h"
#include "agents/fixer.h"
#include "agents/planner.h"
#include "agents/summarizer.h"
#include "common/logcategories.h"
#include "hosts/hostpool.h"
#include "llm/agentclients.h"
#include "llm/chatclient.h"
#include "memory/experiencestore.h"
#include "model/kernelnormalizer.h"
#include "search/fixchain.h"
#include "search/resumepoint.h"
#include "store/sessionstore.h"

#include "search/cascade.h"
#include "search/confirmation.h"
#include "store/calibrationquery.h"
#include "search/searchseed.h"

#include <QRandomGenerator>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace {

// Failures the fixer can act on: the kernel text is wrong. Timeouts, crashes and infrastructure errors are
// not the kernel's text to fix.
bool fixable(const Evaluation &e)
{
    return EvalStatuses::isKernelFault(e.status) || (e.ok() && e.correct == false);
}

std::optional<double> positive(const std::optional<double> &v)
{
    return v && *v > 0 ? v : std::nullopt;
}

} // namespace

BeamSearch::BeamSearch(HostPool *pool, SessionStore *store, const PromptLibrary *prompts, QObject *parent)
    : QObject(parent), m_pool(pool), m_store(store), m_prompts(prompts), m_inFlight([this] { stepDone(); })
{
    connect(m_pool, &HostPool::evaluationFinished, this, &BeamSearch::onEvaluationFinished);
}

BeamSearch::~BeamSearch()
{
    if (m_state != State::Idle && m_state != State::Finished)
        finish(StopReason::Stopped);
}

void BeamSearch::setClient(ChatClient *client)
{
    for (AgentRole role : AgentRoles::all())
        setClient(role, client);
}

void BeamSearch::setClient(AgentRole role, ChatClient *client)
{
    connectClient(client);
    m_clients.insert(role, client);
}

void BeamSearch::setClients(AgentClients *clients)
{
    m_agentClients = clients;
    if (clients)
        for (ChatClient *client : clients->clients())
            connectClient(client);
}

void BeamSearch::setConfirmPool(HostPool *pool, const QString &backend)
{
    if (m_confirmPool)
        disconnect(m_confirmPool, nullptr, this, nullptr);
    m_confirmPool = pool;
    m_confirmBackend = backend;
    if (pool) // its own job ids: the two pools count independently
        connect(pool, &HostPool::evaluationFinished, this, &BeamSearch::onConfirmFinished);
}

void BeamSearch::connectClient(ChatClient *client)
{
    if (!client || m_connected.contains(client))
        return;
    m_connected << client;
    // ChatClient finishes through the event loop, never inside send(), so every call is in m_calls by now.
    connect(client, &ChatClient::finished, this, [this, client](quint64 id, const ChatReply &reply) {
        const std::optional<Call> call = m_calls.take(client, id);
        if (!call)
            return; // not ours, or given up on
        BusyClock::Scope busy(m_busy);
        onChatFinished(*call, reply);
    });
}

ChatClient *BeamSearch::clientFor(AgentRole role, const QString &key) const
{
    if (m_agentClients)
        return m_agentClients->pick(role, key);
    return m_clients.value(role, nullptr);
}

QStringList BeamSearch::beam() const
{
    QStringList ids;
    for (const ScoredKernel &k : m_beam)
        ids << k.candidateId;
    return ids;
}

std::optional<Evaluation> BeamSearch::bestEvaluation() const
{
    if (m_bestId.isEmpty())
        return std::nullopt;
    return m_evaluations.value(m_bestId);
}

template<typename T> void BeamSearch::tell(T &&data)
{
    const qint64 now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count();
    Q_EMIT event(
        SearchEvent{m_sessionId, m_clock.elapsed() / 1000.0, SearchEventData(std::forward<T>(data)), now});
}

void BeamSearch::offerBest(const QString &candidateId, const Evaluation &evaluation)
{
    if (!Selection::isUsable(evaluation) || m_remeasure.isDemoted(m_candidates.value(candidateId)))
        return;
    if (confirming() && !evaluation.onHardware())
        return; // simulated only: never the reported best of a session that confirms on hardware
    const auto key = [this](const QString &id) {
        return Selection::BestKey{Selection::latency(m_evaluations.value(id)),
                                  m_candidates.value(id).iteration, id};
    };
    if (m_bestId.isEmpty() || Selection::isBetterBest(key(candidateId), key(m_bestId)))
        m_bestId = candidateId;
}

SearchEvents::Totals BeamSearch::totals() const
{
    SearchEvents::Totals t;
    t.iterations = m_config.iterations;
    t.bestCandidateId = m_bestId;
    t.best = bestEvaluation();
    if (const auto baseline = m_evaluations.constFind(m_baselineId);
        baseline != m_evaluations.cend() && Selection::isUsable(*baseline))
        t.baselineLatencyMs = baseline->latencyMeanMs;
    if (t.best && t.baselineLatencyMs)
        t.speedup = *t.baselineLatencyMs / Selection::latency(*t.best);
    t.candidates = int(m_candidates.size());
    for (const Evaluation &e : m_evaluations) {
        t.usable += Selection::isUsable(e) ? 1 : 0;
        t.reused += e.reusedFrom.isEmpty() ? 0 : 1;
    }
    if (confirming()) {
        t.confirmOn = m_config.confirmOn;
        for (auto it = m_evaluations.cbegin(); it != m_evaluations.cend(); ++it)
            (it->onHardware() ? t.deviceEvaluations : t.simulatedOnly) += 1;
    }
    t.costUsd = m_spend.costUsd();
    t.tokens = m_spend.tokens();
    t.costUsdByRole = m_spend.costByRole();
    return t;
}

bool BeamSearch::storeOk(bool ok, const QString &what)
{
    if (!ok) {
        m_error = QStringLiteral("the session store refused %1: %2").arg(what, m_store->lastError());
        qCWarning(lcSearch).noquote() << m_error;
    }
    return ok;
}

bool BeamSearch::begin(const Task &task, const SearchConfig &config)
{
    if (m_state != State::Idle && m_state != State::Finished) {
        m_error = QStringLiteral("a search is already running");
        return false;
    }
    if (const QStringList problems = config.problems(); !problems.isEmpty()) {
        m_error = QStringLiteral("invalid search settings: ") + problems.join(QStringLiteral("; "));
        return false;
    }
    for (AgentRole role : AgentRoles::all())
        if (!clientFor(role, QStringLiteral("check"))) {
            m_error = QStringLiteral("no model is assigned to the %1 role").arg(AgentRoles::name(role));
            return false;
        }
    if (task.kernel.trimmed().isEmpty()) {
        m_error = QStringLiteral("the task has no starting kernel");
        return false;
    }
    if (!config.confirmOn.isEmpty() && !m_confirmPool) {
        m_error = QStringLiteral("the search confirms on host '%1', but no pool for it was given")
                      .arg(config.confirmOn);
        return false;
    }
    ++m_generation;
    m_task = task;
    m_config = config;
    m_candidates.clear();
    m_evaluations.clear();
    m_beam.clear();
    m_children.clear();
    m_best = {};
    m_bestId.clear();
    m_inFlight.clear();
    m_calls.clear();
    m_twins.clear();
    m_remeasure.clear();
    m_spend.clear();
    m_busy.reset();
    m_jobs.clear();
    m_planOf.clear();
    m_pairs.clear();
    m_confirmJobs.clear();
    m_simulated.clear();
    m_calibration = {};
    if (!config.confirmOn.isEmpty()) {
        // The margins from every kernel measured on both nkisim and this host so far (any session); without
        // any, Calibration::defaultMargin.
        CalibrationQuery query(m_store->database());
        m_calibration = Calibration::fromRuns(query.runs(), config.confirmOn);
    }
    m_iteration = 0;
    m_withoutImprovement = 0;
    m_stopReason = StopReason::None;
    m_error.clear();
    m_clock.start();
    return true;
}

bool BeamSearch::start(const Task &task, const SearchConfig &config)
{
    BusyClock::Scope busy(m_busy);
    if (!begin(task, config))
        return false;
    if (m_config.seed == 0)
        m_config.seed = int(QRandomGenerator::global()->bounded(1, std::numeric_limits<int>::max()));
    SessionRecord session;
    session.taskName = task.name;
    session.task = task.ref;
    session.target = task.target;
    session.backend = task.backend;
    session.host = task.host;
    session.config = m_config.toJson();
    session.run = task.runJson();
    if (!storeOk(m_store->createSession(session), QStringLiteral("the new session")))
        return false;
    m_sessionId = session.id;
    m_store->setActiveSession(m_sessionId);
    tell(SearchEvents::SessionStarted{false, 0, m_task, m_config});

    Candidate baseline;
    baseline.id = SessionStore::baselineCandidateId(m_sessionId);
    baseline.sessionId = m_sessionId;
    baseline.origin = Candidate::Origin::Baseline;
    baseline.source = task.kernel;
    if (!storeOk(m_store->addCandidate(baseline), QStringLiteral("the baseline")))
        return false;
    m_baselineId = baseline.id;
    m_candidates.insert(baseline.id, baseline);
    tell(SearchEvents::CandidateCreated{baseline});
    m_state = State::Baseline;
    qCInfo(lcSearch).noquote() << "session" << m_sessionId << "task" << task.name
                               << "evaluating the baseline";
    submitCandidate(baseline, QString(), Plan{});
    prepareMemory();
    return true;
}

void BeamSearch::prepareMemory()
{
    // While the host measures the baseline: the planner's retrievals then find the kernel's word counts read.
    if (m_memory && m_config.expN > 0)
        m_memory->prepareRetrieval(m_task.kernel);
}

bool BeamSearch::resume(const QString &sessionId, const std::optional<SearchConfig> &config)
{
    BusyClock::Scope busy(m_busy);
    QString error;
    std::optional<ResumePoint> point = ResumePoint::load(*m_store, sessionId, error);
    if (!point) {
        m_error = error;
        return false;
    }
    if (config && point->iteration > 0 && config->confirmOn.isEmpty() != point->config.confirmOn.isEmpty()) {
        // Its beam and best were measured one way (on nkisim, or on the device): the other way would rank
        // nkisim's numbers against a device's.
        m_error = QStringLiteral("session %1 %2 on hardware; a resume cannot turn that %3 (start a new session)")
                      .arg(sessionId.left(8),
                           point->config.confirmOn.isEmpty() ? QStringLiteral("did not confirm")
                                                             : QStringLiteral("confirms"),
                           point->config.confirmOn.isEmpty() ? QStringLiteral("on") : QStringLiteral("off"));
        return false;
    }
    if (config &&
        !storeOk(m_store->setConfig(sessionId, config->toJson()), QStringLiteral("the new settings")))
        return false;
    if (!begin(point->task, config.value_or(point->config)))
        return false;
    m_sessionId = sessionId;
    m_store->setActiveSession(m_sessionId);
    if (!storeOk(m_store->setStatus(m_sessionId, SessionRecord::Status::Running),
                 QStringLiteral("the status")))
        return false;
    m_candidates = point->candidates;
    m_evaluations = point->evaluations;
    m_simulated = m_store->runs(m_sessionId, SessionStore::simulatedRun); // nkisim's, of confirmed kernels
    m_spend.restore(point->costUsd, point->tokens, m_store->statistics().costTotals(m_sessionId).costByRole);
    m_baselineId = SessionStore::baselineCandidateId(m_sessionId);
    m_remeasure.restore(m_store->remeasurements(m_sessionId), m_candidates);
    // Twins and the best are known from what was measured before: only iterations before the resumed one
    // count, since the resumed iteration replays its own evaluations in order.
    for (auto it = m_evaluations.cbegin(); it != m_evaluations.cend(); ++it) {
        const Candidate c = m_candidates.value(it.key());
        if (c.iteration >= point->iteration && c.origin != Candidate::Origin::Baseline)
            continue;
        offerBest(it.key(), it.value());
        m_twins.noteMeasured(c.sourceHash, it.key(), it.value(), true);
    }
    qCInfo(lcSearch).noquote() << "session" << m_sessionId << "resumes at iteration" << point->iteration;
    tell(SearchEvents::SessionStarted{true, point->iteration, m_task, m_config});
    prepareMemory();
    if (point->iteration == 0) {
        m_state = State::Baseline;
        submitCandidate(m_candidates.value(m_baselineId), QString(), Plan{});
        return true;
    }
    m_beam = point->beam;
    m_best = m_beam.first();
    // New settings (more iterations for a finished session) start a new run: patience counts from here, so
    // the user's patience is kept rather than switched off to stop the resumed run from ending at once.
    m_withoutImprovement = config ? 0 : point->iterationsWithoutImprovement;
    m_iteration = point->iteration;
    // Through the event loop, as a fresh start would, so the caller can connect before anything happens.
    m_state = State::Generating;
    later([this] { startIteration(); });
    return true;
}

void BeamSearch::later(const std::function<void()> &work)
{
    // Work queued for a run that has ended since (stop, a new start) must not touch the next one.
    QTimer::singleShot(0, this, [this, generation = m_generation, work] {
        if (generation != m_generation || m_state == State::Finished)
            return;
        BusyClock::Scope busy(m_busy);
        work();
    });
}

void BeamSearch::stop()
{
    if (m_state == State::Idle || m_state == State::Finished)
        return;
    finish(StopReason::Stopped);
}

void BeamSearch::send(Call call, const ChatMessages &messages, const QString &tag)
{
    call.work = m_inFlight.open();
    call.number = m_calls.nextNumber();
    const auto recorded = m_store->recordedCall(m_sessionId, AgentRoles::name(call.role), tag);
    tell(SearchEvents::LlmCallStarted{call.number, call.role, m_iteration, tag, recorded.has_value()});
    if (recorded) {
        call.replayed = true;
        later([this, call, reply = CallBook::replyOf(*recorded)] { onChatFinished(call, reply); });
        return;
    }
    // The ensemble's draw is keyed on the call's seed (its place in the search by content, and the session's
    // seed), not on the tag's ids, which differ per session: two repeats of a study arm with the same seed, or
    // a killed session's rerun of an iteration, pick the same models.
    const qint64 seed = seedOf(call);
    ChatClient *client = clientFor(call.role, QString::number(seed));
    ChatRequest request;
    request.messages = messages;
    request.role = call.role;
    request.tag = tag;
    request.seed = seed;
    m_calls.add(client, client->send(request), call);
}

qint64 BeamSearch::seedOf(const Call &call) const
{
    // The call's place in the search by content, not by ids (which differ per session): the N plans and K
    // samples of one prompt draw differently, and a session rerun with the same seed draws the same.
    const QString kernel = call.role == AgentRole::Fixer ? call.brokenCandidateId : call.beamParentId;
    const QString pair = call.pairIndex >= 0 && call.pairIndex < m_pairs.size()
                             ? m_pairs.at(call.pairIndex).after.sourceHash
                             : QString();
    return SearchSeed::from({QString::number(m_config.seed), AgentRoles::name(call.role),
                             QString::number(m_iteration), m_candidates.value(kernel).sourceHash, pair,
                             QString::number(call.planIndex), QString::number(call.sampleIndex),
                             QString::number(call.fixRound)});
}

void BeamSearch::submitCandidate(const Candidate &candidate, const QString &beamParentId, const Plan &plan,
                                 bool check)
{
    m_planOf.insert(candidate.id, plan);
    dispatch(Job{candidate.id, beamParentId, plan, check, false, m_inFlight.open()});
}

void BeamSearch::dispatch(const Job &job)
{
    const Candidate candidate = m_candidates.value(job.candidateId);
    const auto stored = m_store->evaluation(candidate.id);
    if (stored &&
        (!job.check || !Selection::isUnchecked(*stored))) { // a resumed session: what already landed
        m_twins.noteMeasured(candidate.sourceHash, candidate.id, *stored, false);
        later([this, job, evaluation = *stored] { onEvaluation(job, evaluation, false); });
        return;
    }
    if (!job.check) {
        const TwinRegistry::Claimed twin = m_twins.claim(job, candidate.sourceHash, m_evaluations);
        if (twin.claim == TwinRegistry::Claim::Wait)
            return; // settled when the twin's result lands
        if (twin.claim == TwinRegistry::Claim::Reuse) {
            reuse(job, m_evaluations.value(twin.standIn), twin.standIn);
            return;
        }
    }
    tell(SearchEvents::EvaluationStarted{candidate.id, candidate.iteration});
    EvalRequest request = requestFor(candidate);
    // The cascade: a new kernel is first only timed; startChecks() has the ones that could matter checked.
    request.timingOnly = !m_config.checkAll && !job.check && candidate.origin != Candidate::Origin::Baseline;
    m_jobs.insert(m_pool->submit(request), job);
}

void BeamSearch::reuse(const Job &job, const Evaluation &measured, const QString &measuredId)
{
    Evaluation reused = measured;
    reused.id = job.candidateId;
    reused.reusedFrom = measuredId;
    later([this, job, reused] { onEvaluation(job, reused, true); });
}

void BeamSearch::onEvaluationFinished(quint64 jobId, const Evaluation &evaluation)
{
    BusyClock::Scope busy(m_busy);
    if (const auto job = finishedJob(m_jobs, jobId, evaluation))
        onEvaluation(*job, evaluation, true);
}

std::optional<BeamSearch::Job> BeamSearch::finishedJob(QHash<quint64, Job> &jobs, quint64 jobId,
                                                       const Evaluation &evaluation)
{
    const auto it = jobs.find(jobId);
    if (it == jobs.end())
        return std::nullopt; // another user of the pool, or a job given up on
    const Job job = it.value();
    jobs.erase(it);
    if (job.remeasure) {
        const auto request = m_remeasure.take(jobId);
        if (m_state == State::Remeasuring)
            onRemeasured(job.candidateId, request, evaluation);
        return std::nullopt;
    }
    return job;
}

void BeamSearch::onEvaluation(const Job &job, const Evaluation &evaluation, bool fresh)
{
    if (job.remeasure)
        return; // onEvaluationFinished hands it to onRemeasured
    // This job's work is done when the handler is: what it starts (a fixer call) is out by then.
    InFlight::Token done = m_inFlight.redeem(job.work);
    if (m_state == State::Finished || m_state == State::Idle)
        return;
    if (fresh)
        storeOk(job.check ? m_store->replaceEvaluation(job.candidateId, evaluation)
                          : m_store->addEvaluation(job.candidateId, evaluation),
                QStringLiteral("an evaluation"));
    m_evaluations.insert(job.candidateId, evaluation);
    const Candidate candidate = m_candidates.value(job.candidateId);
    offerBest(candidate.id, evaluation);
    tell(SearchEvents::EvaluationFinished{candidate.id, candidate.iteration, evaluation, !fresh});
    if (evaluation.reusedFrom.isEmpty()) {
        // The twins that waited for this measurement; after a host failure the first of them is measured
        // itself and the rest wait for it.
        const bool hostFailed = evaluation.status == EvalStatus::InfraError;
        for (const Job &twin : m_twins.settle(candidate.sourceHash, candidate.id, evaluation))
            if (hostFailed)
                dispatch(twin);
            else
                reuse(twin, evaluation, candidate.id);
    }

    if (candidate.origin == Candidate::Origin::Baseline) {
        done.release();
        // The speedups compare like with like: a session that confirms on hardware measures its baseline
        // there too (a resumed one may have done so already).
        if (confirming() && Selection::isUsable(evaluation) && !evaluation.onHardware())
            confirm(candidate.id, QString());
        else
            onBaseline(evaluation);
        return;
    }
    Cascade::keep(m_children, job, candidate, evaluation);
    if (job.check && evaluation.reusedFrom.isEmpty())
        settleCheckedTwins(candidate, evaluation);
    // The fixer repairs what nkisim found wrong; a device's verdict replayed on a resume is not sent to it.
    const bool toFix = fixable(evaluation) && !(confirming() && evaluation.onHardware());
    const auto repeat = toFix && candidate.fixRound < m_config.fixRounds
                            ? FixChain::repeatOf(candidate, evaluation, m_candidates)
                            : std::nullopt;
    if (repeat) {
        const QString why = FixChain::reason(candidate, *repeat, evaluation);
        qCInfo(lcSearch).noquote() << why;
        tell(SearchEvents::FixChainStopped{candidate.id, candidate.iteration, candidate.fixRound,
                                           repeat->candidateId, repeat->ownChain, why});
    } else if (toFix && candidate.fixRound < m_config.fixRounds && !checkBudgets()) {
        Call call;
        call.role = AgentRole::Fixer;
        call.beamParentId = job.beamParentId;
        call.planIndex = candidate.planIndex;
        call.sampleIndex = candidate.sampleIndex;
        call.fixRound = candidate.fixRound + 1;
        call.planId = candidate.planId;
        call.plan = job.plan;
        call.brokenCandidateId = candidate.id;
        Fixer::Input input;
        input.reference = m_task.reference;
        input.kernel = candidate.source;
        input.plan = job.plan;
        input.failure.status = evaluation.statusName();
        input.failure.message = evaluation.error;
        input.failure.l2RelErr = evaluation.l2RelErr;
        input.failure.maxAbsErr = evaluation.maxAbsErr;
        send(call, Fixer::messages(*m_prompts, input), candidate.id);
    }
}

void BeamSearch::settleCheckedTwins(const Candidate &checked, const Evaluation &evaluation)
{
    for (const ScoredKernel &k : Cascade::uncheckedTwins(m_children, checked))
        reuse(Job{k.candidateId, k.parentId, m_planOf.value(k.candidateId), true, false, m_inFlight.open()},
              evaluation, checked.id);
}

bool BeamSearch::startChecks()
{
    if (m_config.checkAll)
        return false;
    const Cascade::Inputs inputs{&m_config, m_memory != nullptr, m_shownPlans, &m_candidates};
    QList<ScoredKernel> simulated;
    if (confirming()) // after device runs landed: nkisim's numbers, the confirmed kernels counted as checked
        simulated = simulatedView(m_children);
    const QList<ScoredKernel> checks = confirming()
                                           ? Cascade::toCheck(simulatedView(m_beam), simulated, inputs)
                                           : Cascade::toCheck(m_beam, m_children, inputs);
    if (checks.isEmpty())
        return false;
    const InFlight::Token hold = m_inFlight.hold(); // the step goes on only once every check is out
    for (const ScoredKernel &k : checks)
        submitCandidate(m_candidates.value(k.candidateId), k.parentId, m_planOf.value(k.candidateId), true);
    return true;
}

QList<ScoredKernel> BeamSearch::simulatedView(const QList<ScoredKernel> &kernels) const
{
    // Kernels as nkisim timed them: a confirmed kernel's nkisim run is kept apart (a twin's is its
    // stand-in's), with the device's verdict on its numerics (it was checked there). The cascade's and the
    // confirmation's rules compare nkisim with nkisim, never with a device number.
    QList<ScoredKernel> out;
    for (ScoredKernel k : kernels) {
        if (k.evaluation.onHardware()) {
            const auto own = m_simulated.constFind(k.candidateId);
            const auto twin = m_simulated.constFind(k.evaluation.reusedFrom);
            if (own == m_simulated.cend() && twin == m_simulated.cend())
                continue; // measured on the device only (a session from before the two stages)
            const std::optional<bool> verdict = k.evaluation.correct;
            k.evaluation = own != m_simulated.cend() ? *own : *twin;
            k.evaluation.correct = verdict;
        }
        out << k;
    }
    return out;
}

bool BeamSearch::startConfirmations()
{
    if (!confirming())
        return false;
    QSet<QString> confirmed;
    for (const ScoredKernel &k : std::as_const(m_children))
        if (k.evaluation.onHardware())
            confirmed.insert(k.candidateId);
    const QStringList ids = Confirmation::toConfirm(
        simulatedView(m_beam), simulatedView(m_children), confirmed,
        Cascade::scope(m_config, m_memory != nullptr), [this](const ScoredKernel &k) {
            return m_calibration.margin(k.evaluation.bound, m_task.target);
        });
    // One device run per normalized source: its result is handed to the twins when it lands.
    const QList<ScoredKernel> runs = Selection::onePerSource(m_children, ids);
    if (runs.isEmpty())
        return false;
    const InFlight::Token hold = m_inFlight.hold(); // the step goes on only once every device run is out
    for (const ScoredKernel &k : std::as_const(runs))
        confirm(k.candidateId, k.parentId);
    return true;
}

void BeamSearch::confirm(const QString &candidateId, const QString &beamParentId)
{
    const Candidate candidate = m_candidates.value(candidateId);
    const Job job{candidateId, beamParentId, m_planOf.value(candidateId), true, false, m_inFlight.open(), true};
    tell(SearchEvents::EvaluationStarted{candidate.id, candidate.iteration});
    m_confirmJobs.insert(m_confirmPool->submit(deviceRequestFor(candidate)), job);
}

void BeamSearch::onConfirmFinished(quint64 jobId, const Evaluation &evaluation)
{
    BusyClock::Scope busy(m_busy);
    if (const auto job = finishedJob(m_confirmJobs, jobId, evaluation))
        onConfirmed(*job, evaluation);
}

void BeamSearch::onConfirmed(const Job &job, const Evaluation &device)
{
    InFlight::Token done = m_inFlight.redeem(job.work);
    if (m_state == State::Finished || m_state == State::Idle)
        return;
    const Candidate candidate = m_candidates.value(job.candidateId);
    const Evaluation simulated = m_evaluations.value(candidate.id);
    const bool baseline = candidate.origin == Candidate::Origin::Baseline;
    if (device.status == EvalStatus::InfraError) {
        // The host failed, not the kernel: nkisim's evaluation stands and the kernel stays simulated only
        // (the baseline cannot: without a device number there is nothing to compare with).
        qCWarning(lcSearch).noquote() << "the confirm host could not measure" << candidate.id << ":"
                                      << device.error;
        m_children.removeIf([&](const ScoredKernel &k) { return k.candidateId == candidate.id; });
        if (baseline) {
            done.release();
            onBaseline(device);
        }
        return;
    }
    // Every kernel of this source in the iteration takes the device's number: the one measured and its twins.
    QList<ScoredKernel> measured{ScoredKernel{candidate.id, job.beamParentId, candidate.sourceHash, simulated}};
    if (!candidate.sourceHash.isEmpty())
        for (const ScoredKernel &k : std::as_const(m_children))
            if (k.candidateId != candidate.id && k.sourceHash == candidate.sourceHash &&
                !k.evaluation.onHardware())
                measured << k;
    for (const ScoredKernel &k : std::as_const(measured)) {
        Evaluation onDevice = device;
        onDevice.id = k.candidateId;
        if (k.candidateId != candidate.id)
            onDevice.reusedFrom = candidate.id;
        const Evaluation nkisim = m_evaluations.value(k.candidateId);
        storeOk(m_store->transaction([&] {
            return m_store->replaceEvaluation(k.candidateId, nkisim, SessionStore::simulatedRun) &&
                   m_store->replaceEvaluation(k.candidateId, onDevice);
        }),
                QStringLiteral("a device evaluation"));
        noteConfirmed(k.candidateId, nkisim, onDevice);
        const Candidate c = m_candidates.value(k.candidateId);
        offerBest(c.id, onDevice);
        tell(SearchEvents::EvaluationFinished{c.id, c.iteration, onDevice, false});
        if (baseline)
            continue;
        m_children.removeIf([&](const ScoredKernel &child) { return child.candidateId == c.id; });
        // A kernel the device found wrong leaves the iteration's children, as a failed check does.
        if (Selection::isUsable(onDevice))
            m_children << ScoredKernel{c.id, k.parentId, c.sourceHash, onDevice};
    }
    if (baseline) {
        done.release();
        onBaseline(m_evaluations.value(candidate.id));
    }
}

void BeamSearch::noteConfirmed(const QString &candidateId, const Evaluation &simulated, const Evaluation &device)
{
    m_simulated.insert(candidateId, simulated);
    m_evaluations.insert(candidateId, device);
}

void BeamSearch::onBaseline(const Evaluation &evaluation)
{
    tell(SearchEvents::BaselineEvaluated{m_baselineId, evaluation});
    if (!Selection::isUsable(evaluation)) {
        m_error =
            QStringLiteral("the starting kernel is not usable (%1): %2")
                .arg(evaluation.statusName(),
                     evaluation.error.isEmpty() ? QStringLiteral("incorrect result") : evaluation.error);
        finish(StopReason::Failed);
        return;
    }
    const Candidate &baseline = m_candidates[m_baselineId];
    m_beam = {ScoredKernel{m_baselineId, QString(), baseline.sourceHash, evaluation}};
    m_best = m_beam.first();
    storeOk(m_store->transaction([&] {
        return m_store->setBeam(m_sessionId, 0, {m_baselineId}) &&
               m_store->markStepCompleted(m_sessionId, 0, ResumeStep::Baseline);
    }),
            QStringLiteral("the baseline beam"));
    tell(SearchEvents::BeamSelected{0, beam(), false});
    m_iteration = 1;
    startIteration();
}

void BeamSearch::startIteration()
{
    SearchProgress p = m_spend.progress(m_clock.elapsed() / 1000.0);
    p.iterationsDone = m_iteration - 1;
    if (const std::optional<Evaluation> best = bestEvaluation())
        p.bestPercentOfPeak = positive(best->percentOfPeak);
    p.iterationsWithoutImprovement = m_withoutImprovement;
    if (const StopReason reason = StopRules::check(m_config, p); reason != StopReason::None) {
        if (!remeasureBest(reason))
            finish(reason);
        return;
    }
    m_state = State::Generating;
    m_children.clear();
    m_spend.startStep();
    qCInfo(lcSearch).noquote() << "iteration" << m_iteration << "beam" << beam().join(QStringLiteral(", "));
    // Hold the end-of-step check until every first call is out, so a call that fails at once cannot end the
    // step before its siblings are sent.
    const InFlight::Token hold = m_inFlight.hold();
    for (const ScoredKernel &parent : std::as_const(m_beam))
        for (int i = 0; i < m_config.plansPerKernel; ++i)
            askPlanner(parent.candidateId, i);
}

void BeamSearch::askPlanner(const QString &beamKernelId, int planIndex)
{
    const Candidate &kernel = m_candidates[beamKernelId];
    const Evaluation &evaluation = m_evaluations[beamKernelId];
    Planner::Input input;
    input.reference = m_task.reference;
    input.kernel = kernel.source;
    input.latencyMs = positive(evaluation.latencyMeanMs);
    input.metrics = evaluation.metrics;
    input.findings = Advisor::forPrompt(RuleSet::shipped(), evaluation);
    input.provenance = evaluation.provenanceText();
    Call call;
    call.role = AgentRole::Planner;
    call.beamParentId = beamKernelId;
    call.planIndex = planIndex;
    call.planId = SessionStore::planId(m_sessionId, m_iteration, beamKernelId, planIndex);
    if (m_memory && m_config.expN > 0) {
        const QList<ExperienceRecord> records =
            m_memory->retrieve(m_task.name, m_task.target, kernel.source, m_config.expN);
        QList<qint64> shown;
        for (const ExperienceRecord &r : records) {
            input.experiences << r.experience;
            shown << r.id;
        }
        // Usage evidence for the memory browser; a failure to record it must not stop the search.
        if (!m_memory->recordRetrieval(m_sessionId, m_iteration, call.planId, shown))
            qCWarning(lcSearch).noquote()
                << "could not record which experiences the planner saw:" << m_memory->lastError();
        else if (!shown.isEmpty())
            m_shownPlans.insert(call.planId);
    }
    send(call, Planner::messages(*m_prompts, input), call.planId);
}

void BeamSearch::onChatFinished(const Call &call, const ChatReply &reply)
{
    // The call's work is done when the handler is: what it starts (executor calls, an evaluation) is out by
    // then.
    const InFlight::Token done = m_inFlight.redeem(call.work);
    m_spend.book(call.role, reply); // a reply that came in after a stop was paid for all the same
    if (m_state == State::Finished || m_state == State::Idle)
        return;
    SearchEvents::LlmCallFinished told;
    told.call = call.number;
    told.role = call.role;
    told.iteration = m_iteration;
    told.ok = reply.ok();
    told.error = reply.errorText;
    if (reply.usage) {
        told.promptTokens = reply.usage->inputTokens;
        told.completionTokens = reply.usage->outputTokens;
    }
    told.costUsd = reply.costUsd;
    told.model = reply.model;
    told.replayed = call.replayed;
    tell(std::move(told));
    if (m_state == State::Generating)
        m_spend.countCall(reply);
    if (!reply.ok() && call.role == AgentRole::Planner)
        m_shownPlans.remove(
            call.planId); // the model failed, not the experiences: the outcome stays undecided
    if (!reply.ok())
        qCWarning(lcSearch).noquote() << AgentRoles::name(call.role) << "call failed:" << reply.errorText;
    else if (call.role == AgentRole::Planner)
        onPlan(call, reply);
    else if (call.role == AgentRole::Summarizer)
        onSummary(call, reply);
    else
        onKernel(call, reply);
}

void BeamSearch::onPlan(const Call &call, const ChatReply &reply)
{
    const ParseResult<Plan> parsed = Planner::parse(reply.content);
    if (!parsed.ok()) {
        qCWarning(lcSearch).noquote() << "unusable plan:" << parsed.error().message;
        return;
    }
    PlanRecord record;
    record.id = call.planId;
    record.sessionId = m_sessionId;
    record.iteration = m_iteration;
    record.parentCandidateId = call.beamParentId;
    record.planIndex = call.planIndex;
    record.plan = parsed.value();
    if (!storeOk(m_store->addPlan(record), QStringLiteral("a plan")))
        return;
    tell(SearchEvents::PlanCreated{m_iteration, record.id, record.parentCandidateId, record.planIndex,
                                   record.plan});
    if (checkBudgets())
        return;
    Executor::Input input;
    input.reference = m_task.reference;
    input.kernel = m_candidates[call.beamParentId].source;
    input.plan = record.plan;
    for (int k = 0; k < m_config.samplesPerPlan; ++k) {
        Call next = call;
        next.role = AgentRole::Executor;
        next.sampleIndex = k;
        next.plan = record.plan;
        send(next, Executor::messages(*m_prompts, input),
             SessionStore::candidateId(m_sessionId, m_iteration, call.beamParentId, call.planIndex, k, 0));
    }
}

void BeamSearch::onKernel(const Call &call, const ChatReply &reply)
{
    const auto parsed =
        call.role == AgentRole::Fixer ? Fixer::parse(reply.content) : Executor::parse(reply.content);
    if (!parsed.ok()) {
        qCWarning(lcSearch).noquote()
            << AgentRoles::name(call.role) << "reply has no kernel:" << parsed.error().message;
        return;
    }
    Candidate c;
    c.sessionId = m_sessionId;
    c.iteration = m_iteration;
    c.id = SessionStore::candidateId(m_sessionId, m_iteration, call.beamParentId, call.planIndex,
                                     call.sampleIndex, call.fixRound);
    c.parentId = call.role == AgentRole::Fixer ? call.brokenCandidateId : call.beamParentId;
    c.planId = call.planId;
    c.planIndex = call.planIndex;
    c.sampleIndex = call.sampleIndex;
    c.fixRound = call.fixRound;
    c.origin = call.role == AgentRole::Fixer ? Candidate::Origin::Fixer : Candidate::Origin::Executor;
    c.source = parsed.value().source;
    c.sourceHash = KernelNormalizer::hash(c.source);
    if (!storeOk(m_store->addCandidate(c), QStringLiteral("a candidate")))
        return;
    m_candidates.insert(c.id, c);
    tell(SearchEvents::CandidateCreated{c});
    submitCandidate(c, call.beamParentId, call.plan);
}

void BeamSearch::stepDone()
{
    if (m_state == State::Finished)
        return;
    if (m_state == State::Generating && m_spend.everyCallFailed()) {
        // Nothing can come of another iteration: every model call was refused or failed (a wrong key, an
        // unreachable server, a model that does not exist).
        m_error =
            QStringLiteral("every model call of iteration %1 failed (%2 call%3); the first error: %4")
                .arg(m_iteration)
                .arg(m_spend.callsFailed())
                .arg(m_spend.callsFailed() == 1 ? QString() : QStringLiteral("s"), m_spend.firstCallError());
        finish(StopReason::ModelsFailed);
    } else if (m_state == State::Generating && !startChecks() && !startConfirmations())
        selectAndSummarize();
    else if (m_state == State::Summarizing)
        finishIteration();
}

void BeamSearch::selectAndSummarize()
{
    const ScoredKernel previousBest = m_best;
    const QList<ScoredKernel> parents = m_beam;
    // Replies and evaluations land in any order; ranking ties must not depend on it, or a resumed run could
    // keep a different twin than the uninterrupted one would have.
    std::sort(m_children.begin(), m_children.end(),
              [](const ScoredKernel &a, const ScoredKernel &b) { return a.candidateId < b.candidateId; });
    // Two-stage: the beam, the experiences and the plans' hits use device numbers only, among the kernels
    // measured there; the rest stay simulated only.
    if (confirming())
        m_children.removeIf([](const ScoredKernel &k) { return !k.evaluation.onHardware(); });
    m_beam = Selection::nextBeam(parents, m_children, m_config.beamWidth, m_config.noiseFloor);
    if (m_beam.isEmpty())
        m_beam = parents; // cannot happen with usable parents; kept as a guard
    m_best = m_beam.first();
    const bool improved =
        Selection::isFaster(m_best.evaluation, previousBest.evaluation, m_config.noiseFloor);
    m_withoutImprovement = improved ? 0 : m_withoutImprovement + 1;
    storeOk(m_store->transaction([&] {
        return m_store->setBeam(m_sessionId, m_iteration, beam()) &&
               m_store->markStepCompleted(m_sessionId, m_iteration, ResumeStep::Select);
    }),
            QStringLiteral("the beam"));
    qCInfo(lcSearch).noquote() << "iteration" << m_iteration << "children" << m_children.size() << "best"
                               << Selection::latency(m_best.evaluation) << "ms"
                               << (improved ? "(improved)" : "");
    tell(SearchEvents::BeamSelected{m_iteration, beam(), improved});

    recordOutcomes();
    m_state = State::Summarizing;
    m_pairs = m_memory ? Selection::experiencePairs(parents, m_children, m_config.gainThreshold,
                                                    m_config.lossThreshold, m_config.topK)
                       : QList<ExperiencePair>{};
    const InFlight::Token hold = m_inFlight.hold(); // the iteration ends once every summary is out and back
    for (int i = 0; i < m_pairs.size() && !checkBudgets(); ++i) {
        const ExperiencePair &pair = m_pairs.at(i);
        Summarizer::Input input;
        input.beforeKernel = m_candidates[pair.before.candidateId].source;
        input.afterKernel = m_candidates[pair.after.candidateId].source;
        input.speedup = pair.speedup;
        input.beforeLatencyMs = positive(pair.before.evaluation.latencyMeanMs);
        input.beforeMetrics = pair.before.evaluation.metrics;
        input.afterLatencyMs = positive(pair.after.evaluation.latencyMeanMs);
        input.afterMetrics = pair.after.evaluation.metrics;
        Call call;
        call.role = AgentRole::Summarizer;
        call.beamParentId = pair.before.candidateId;
        call.pairIndex = i;
        send(call, Summarizer::messages(*m_prompts, input), pair.after.candidateId);
    }
}

void BeamSearch::recordOutcomes()
{
    // A plan that saw experiences counts as a hit when one of its kernels (any sample, any fix round) is
    // faster than the beam kernel it started from, by the same noise floor the beam uses. A plan whose
    // kernels all failed is a miss; so is an unusable plan. A planner call that failed stays undecided.
    if (!m_memory)
        return;
    QSet<QString> faster;
    for (const ScoredKernel &child : std::as_const(m_children))
        if (Selection::isFaster(child.evaluation, m_evaluations.value(child.parentId), m_config.noiseFloor))
            faster.insert(m_candidates.value(child.candidateId).planId);
    for (const QString &planId : std::as_const(m_shownPlans))
        if (!m_memory->recordOutcome(planId, faster.contains(planId)))
            qCWarning(lcSearch).noquote() << "could not record a plan's outcome:" << m_memory->lastError();
    m_shownPlans.clear();
}

void BeamSearch::onSummary(const Call &call, const ChatReply &reply)
{
    if (!m_memory || call.pairIndex < 0 || call.pairIndex >= m_pairs.size())
        return;
    const ExperiencePair &pair = m_pairs.at(call.pairIndex);
    if (m_remeasure.isDemoted(m_candidates.value(pair.before.candidateId)) ||
        m_remeasure.isDemoted(m_candidates.value(pair.after.candidateId)))
        return; // a kernel that failed its re-measurement makes no lesson
    const ParseResult<Experience> parsed = Summarizer::parse(reply.content, pair.speedup);
    if (!parsed.ok()) {
        qCWarning(lcSearch).noquote() << "unusable summary:" << parsed.error().message;
        return;
    }
    ExperienceRecord record;
    record.task = m_task.name;
    record.target = m_task.target;
    record.experience = parsed.value();
    record.sessionId = m_sessionId;
    // slow = the slower kernel of the two, whichever way the change went
    const bool negative = pair.isNegative();
    const ScoredKernel &slow = negative ? pair.after : pair.before;
    const ScoredKernel &fast = negative ? pair.before : pair.after;
    record.slowCandidateId = slow.candidateId;
    record.fastCandidateId = fast.candidateId;
    record.slowHash = slow.sourceHash;
    record.fastHash = fast.sourceHash;
    record.measuredOn = fast.evaluation.provenanceText();
    if (m_memory->contains(record))
        return; // a resumed step summarizing again, or a lesson the memory already has
    if (!m_memory->add(record)) {
        qCWarning(lcSearch).noquote() << "the memory refused an experience:" << m_memory->lastError();
        return;
    }
    tell(SearchEvents::ExperienceStored{m_iteration, record.experience.title, record.slowCandidateId,
                                        record.fastCandidateId, pair.speedup});
}

void BeamSearch::finishIteration()
{
    storeOk(m_store->markStepCompleted(m_sessionId, m_iteration, ResumeStep::Summarize),
            QStringLiteral("the end of an iteration"));
    SearchEvents::IterationFinished done{m_iteration, 0, 0, totals()};
    for (const Candidate &c : std::as_const(m_candidates))
        if (c.iteration == m_iteration) {
            ++done.candidates;
            done.usable += Selection::isUsable(m_evaluations.value(c.id)) ? 1 : 0;
            done.unchecked += Selection::isUnchecked(m_evaluations.value(c.id)) ? 1 : 0;
        }
    tell(std::move(done));
    ++m_iteration;
    startIteration();
}

bool BeamSearch::checkBudgets()
{
    if (m_state == State::Finished)
        return true;
    const StopReason reason = StopRules::checkBudgets(m_config, m_spend.progress(m_clock.elapsed() / 1000.0));
    if (reason == StopReason::None)
        return false;
    // Let what is in flight land; start nothing new. The step ends when the last reply arrives.
    if (m_stopReason == StopReason::None) {
        m_stopReason = reason;
        qCInfo(lcSearch).noquote() << "budget reached:" << StopRules::describe(reason);
    }
    return true;
}

bool BeamSearch::remeasureBest(StopReason reason)
{
    // A stopped or failed search reports its best as it stands (a Stop must stop now); an ended one
    // re-measures it first. The baseline is the user's own kernel.
    if (reason == StopReason::Stopped || StopRules::isFailure(reason))
        return false;
    if (m_bestId.isEmpty() || m_bestId == m_baselineId || m_remeasure.isDone(m_bestId))
        return false;
    m_state = State::Remeasuring;
    const Candidate candidate = m_candidates.value(m_bestId);
    // The best kernel's number is the device's when the search confirms on hardware: it is re-measured there.
    const EvalRequest request = Remeasurement::request(
        confirming() ? deviceRequestFor(candidate) : requestFor(candidate), m_config.seed, candidate.sourceHash);
    qCInfo(lcSearch).noquote() << "session" << m_sessionId << "re-measures its best kernel" << m_bestId
                               << "at size" << request.size;
    const Job remeasure{candidate.id, QString(), Plan{}, false, true};
    quint64 job = 0;
    if (confirming())
        m_confirmJobs.insert(job = m_confirmPool->submit(request), remeasure);
    else
        m_jobs.insert(job = m_pool->submit(request), remeasure);
    m_remeasure.started(job, request, reason);
    return true;
}

EvalRequest BeamSearch::requestFor(const Candidate &candidate) const
{
    EvalRequest request;
    request.task = m_task.ref;
    request.kernelSource = candidate.source;
    request.kernelName = candidate.id;
    request.backend = m_task.backend;
    request.target = m_task.target;
    request.size = m_task.size;
    request.timeoutSeconds = m_task.evalTimeoutSeconds;
    return request;
}

EvalRequest BeamSearch::deviceRequestFor(const Candidate &candidate) const
{
    EvalRequest request = requestFor(candidate);
    request.backend = m_confirmBackend;
    request.timingOnly = false; // the device's run checks the numerics as well
    return request;
}

void BeamSearch::onRemeasured(const QString &candidateId, const EvalRequest &request,
                              const Evaluation &evaluation)
{
    storeOk(m_store->replaceEvaluation(candidateId, evaluation, SessionStore::remeasureRun),
            QStringLiteral("a re-measurement"));
    const Candidate candidate = m_candidates.value(candidateId);
    const bool demoted = m_remeasure.landed(candidate, evaluation);
    if (demoted) {
        qCWarning(lcSearch).noquote()
            << "session" << m_sessionId << "demotes" << candidateId
            << "which failed its re-measurement:" << evaluation.statusName() << evaluation.error;
        if (m_memory)
            m_remeasure.withdrawLessons(*m_memory, m_sessionId, m_task.name, candidate, m_candidates,
                                        m_evaluations, m_config.noiseFloor);
        chooseBest();
    }
    tell(SearchEvents::BestRemeasured{candidateId, request.size, request.seeds, evaluation, demoted});
    if (!remeasureBest(m_remeasure.endReason()))
        finish(m_remeasure.endReason());
}

void BeamSearch::chooseBest()
{
    m_bestId.clear();
    for (auto it = m_evaluations.cbegin(); it != m_evaluations.cend(); ++it)
        offerBest(it.key(), it.value());
}

void BeamSearch::finish(StopReason reason)
{
    if (m_state == State::Finished)
        return;
    if (m_stopReason != StopReason::None && reason != StopReason::Stopped && reason != StopReason::Failed)
        reason = m_stopReason; // a budget hit earlier decided it
    m_state = State::Finished;
    m_stopReason = reason;
    // Forget everything in flight before cancelling, so the cancellations' own signals are dropped.
    const auto calls = m_calls.takeAll();
    const auto jobs = m_jobs.keys();
    m_jobs.clear();
    const auto deviceJobs = m_confirmJobs.keys();
    m_confirmJobs.clear();
    m_remeasure.dropRequests();
    m_inFlight.clear();
    ++m_generation;
    // Newest first: a client's queued calls are its newest, and cancelling them before the running ones keeps
    // a freed slot from starting a queued call only to abort it.
    for (auto key = calls.crbegin(); key != calls.crend(); ++key)
        key->first->cancel(key->second);
    for (quint64 job : jobs)
        m_pool->cancel(job);
    for (quint64 job : deviceJobs)
        m_confirmPool->cancel(job);
    // A run whose writes went into a file no longer at the workspace's path must not end as if its session
    // were kept (two runs once both said "export with" for a session only one of them had stored).
    QString lost;
    const bool stored = m_store->database().stillInPlace(lost);
    if (!stored) {
        reason = m_stopReason = StopReason::Failed;
        m_error = QStringLiteral("session %1 was not kept: %2").arg(m_sessionId.left(8), lost);
        qCWarning(lcSearch).noquote() << m_error;
    }
    const SessionRecord::Status status = reason == StopReason::Stopped  ? SessionRecord::Status::Stopped
                                         : StopRules::isFailure(reason) ? SessionRecord::Status::Failed
                                                                        : SessionRecord::Status::Finished;
    storeOk(m_store->setStatus(m_sessionId, status, StopRules::name(reason)),
            QStringLiteral("the session status"));
    qCInfo(lcSearch).noquote() << "session" << m_sessionId << "finished:" << StopRules::describe(reason);
    SearchEvents::Stopped stopped;
    stopped.reason = reason;
    stopped.error = m_error;
    stopped.iterationsDone = qMax(0, m_iteration - 1);
    stopped.totals = totals();
    // Cost and tokens as booked in the store: every run of the session, replies that came in after a stop
    // included.
    const SessionStatistics::CostTotals booked = m_store->statistics().costTotals(m_sessionId);
    stopped.totals.costUsd = booked.costUsd;
    stopped.totals.tokens = booked.promptTokens + booked.completionTokens;
    stopped.totals.costUsdByRole = booked.costByRole;
    stopped.llmCalls = booked.calls;
    stopped.callsWithoutCost = booked.callsWithoutCost;
    stopped.orchestrationSeconds = orchestrationSeconds();
    stopped.stored = stored;
    tell(std::move(stopped));
    Q_EMIT finished(reason);
}
