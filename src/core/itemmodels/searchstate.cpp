#include "itemmodels/searchstate.h"

#include "search/selection.h"

#include <algorithm>

namespace {
// What one row adds to the header's counts.
struct Counts
{
    int usable = 0, failed = 0, unchecked = 0, reused = 0, evaluating = 0;
};
Counts countsOf(const SearchState::Row &row)
{
    Counts c;
    c.evaluating = row.evaluating ? 1 : 0;
    if (row.evaluation) {
        const bool usable = Selection::isUsable(*row.evaluation);
        // only timed by the search's cascade: neither correct nor failed
        const bool unchecked = Selection::isUnchecked(*row.evaluation);
        c.usable = usable ? 1 : 0;
        c.unchecked = unchecked ? 1 : 0;
        c.failed = usable || unchecked ? 0 : 1;
        c.reused = row.evaluation->reusedFrom.isEmpty() ? 0 : 1;
    }
    return c;
}

// What a demotion applies to: the kernel's normalized source, so a twin made later is demoted with it.
QString sourceKey(const Candidate &c)
{
    return c.sourceHash.isEmpty() ? c.id : c.sourceHash;
}
} // namespace

SearchState::SearchState(QObject *parent) : QObject(parent) {}

void SearchState::clear()
{
    m_sessionId.clear();
    m_summary = {};
    m_rows.clear();
    m_index.clear();
    m_plans.clear();
    m_beam.clear();
    m_demotedSources.clear();
    m_improved.clear();
    Q_EMIT reset();
    tellSummary();
}

void SearchState::tellSummary()
{
    Q_EMIT summaryChanged();
    if (m_toldBaseline == m_summary.baselineLatencyMs && m_toldBest == m_summary.bestCandidateId)
        return;
    m_toldBaseline = m_summary.baselineLatencyMs;
    m_toldBest = m_summary.bestCandidateId;
    Q_EMIT rankingChanged();
}

void SearchState::load(const SessionSnapshot &snapshot, bool running)
{
    m_sessionId = snapshot.session.id;
    m_summary = {};
    m_rows.clear();
    m_index.clear();
    m_plans = snapshot.plans;
    m_beam.clear();
    m_demotedSources.clear();
    m_improved.clear();
    Summary &s = m_summary;
    const SessionRecord &session = snapshot.session;
    s.task = session.taskName;
    s.taskRef = session.task;
    s.target = session.target;
    s.backend = session.backend;
    s.host = session.host;
    s.size = session.run.value(QStringLiteral("size")).toString();
    if (const std::optional<SearchConfig> config = SearchConfig::fromJson(session.config))
        s.config = *config;
    s.stopReason = StopRules::fromName(session.stopReason).value_or(StopReason::None);
    for (const Candidate &c : snapshot.candidates) {
        Row row;
        row.candidate = c;
        if (const auto e = snapshot.evaluations.constFind(c.id); e != snapshot.evaluations.cend())
            row.evaluation = *e;
        row.simulatedOnly = isSimulatedOnly(row);
        if (const auto p = m_plans.constFind(c.planId); p != m_plans.cend())
            row.planTitle = p->plan.title;
        m_index.insert(c.id, int(m_rows.size()));
        m_rows.append(row);
        const Counts n = countsOf(row);
        s.usable += n.usable;
        s.failed += n.failed;
        s.unchecked += n.unchecked;
        s.reused += n.reused;
        if (c.origin == Candidate::Origin::Baseline && row.evaluation && Selection::isUsable(*row.evaluation))
            s.baselineLatencyMs = row.evaluation->latencyMeanMs;
    }
    s.bestCandidateId = snapshot.bestCandidateId;
    for (auto it = snapshot.remeasurements.cbegin(); it != snapshot.remeasurements.cend(); ++it)
        setRemeasured(it.key(), it.value());
    if (!snapshot.beams.isEmpty()) {
        const int last = snapshot.beams.lastKey();
        s.iterationsDone = last;
        s.iteration = last;
        setBeam(snapshot.beams.last());
        // Improvement per iteration as the search judges it: the beam's new leader faster than the old one
        // beyond the measurement's noise.
        QString previous;
        for (auto it = snapshot.beams.cbegin(); it != snapshot.beams.cend(); ++it) {
            const QString leader = it->value(0);
            const auto now = snapshot.evaluations.constFind(leader);
            const auto before = snapshot.evaluations.constFind(previous);
            m_improved.insert(it.key(), it.key() > 0 && now != snapshot.evaluations.cend() &&
                                            before != snapshot.evaluations.cend() &&
                                            Selection::isFaster(*now, *before, s.config.noiseFloor));
            previous = leader;
        }
    }
    s.costUsd = snapshot.cost.costUsd;
    double spent = 0;
    for (auto it = snapshot.costByIteration.cbegin(); it != snapshot.costByIteration.cend(); ++it)
        s.costAtIteration.insert(it.key(), spent += it.value());
    s.tokens = snapshot.cost.promptTokens + snapshot.cost.completionTokens;
    s.costUsdByRole = snapshot.cost.costByRole;
    s.callsByRole = snapshot.cost.callsByRole;
    s.unpricedCallsByRole = snapshot.cost.callsWithoutCostByRole;
    // A session this window is running goes on live from here; its pace (the time left) is known again after
    // the next iteration.
    s.running = running;
    if (running) {
        s.iteration = s.iterationsDone + 1;
        s.iterationsDoneAtStart = s.iterationsDone;
    }
    Q_EMIT reset();
    tellSummary();
}

const SearchState::Row *SearchState::find(const QString &candidateId) const
{
    const int i = rowOf(candidateId);
    return i < 0 ? nullptr : &m_rows.at(i);
}

std::optional<PlanRecord> SearchState::plan(const QString &planId) const
{
    const auto it = m_plans.constFind(planId);
    return it == m_plans.cend() ? std::nullopt : std::optional<PlanRecord>(*it);
}

std::optional<Evaluation> SearchState::best() const
{
    const Row *row = find(m_summary.bestCandidateId);
    return row ? row->evaluation : std::nullopt;
}

std::optional<double> SearchState::speedupOf(const Row &row) const
{
    if (!row.evaluation || !Selection::isUsable(*row.evaluation) || !m_summary.baselineLatencyMs)
        return std::nullopt;
    return *m_summary.baselineLatencyMs / Selection::latency(*row.evaluation);
}

std::optional<double> SearchState::speedup() const
{
    const Row *row = find(m_summary.bestCandidateId);
    return row ? speedupOf(*row) : std::nullopt;
}

double SearchState::progress() const
{
    const int total = m_summary.config.iterations;
    if (total <= 0)
        return 0;
    if (!m_summary.running && m_summary.stopReason == StopReason::Iterations)
        return 1;
    double done = m_summary.iterationsDone;
    if (m_summary.running && m_summary.iteration > m_summary.iterationsDone) {
        // The running iteration: its kernels evaluated against what its beam will produce (N x K each).
        const int expected = std::max<qsizetype>(1, m_beam.size()) * m_summary.config.plansPerKernel *
                             m_summary.config.samplesPerPlan;
        int evaluated = 0;
        for (const Row &r : m_rows)
            if (r.candidate.iteration == m_summary.iteration && r.evaluation &&
                r.candidate.origin == Candidate::Origin::Executor)
                ++evaluated;
        done += std::min(0.95, double(evaluated) / std::max(1, expected));
    }
    return std::clamp(done / total, 0.0, 1.0);
}

std::optional<double> SearchState::etaSeconds() const
{
    const Summary &s = m_summary;
    const int finishedThisRun = s.iterationsDone - s.iterationsDoneAtStart;
    if (!s.running || finishedThisRun <= 0)
        return std::nullopt;
    const double pace = (s.elapsedSeconds - s.iterationsStartSeconds) / finishedThisRun;
    const int remaining = std::max(0, s.config.iterations - s.iterationsDone);
    return std::max(0.0, pace * remaining -
                             (s.elapsedSeconds - s.iterationsStartSeconds - pace * finishedThisRun));
}

QList<SearchState::IterationRow> SearchState::iterations() const
{
    QList<IterationRow> out;
    auto at = [&out](int iteration) -> IterationRow & {
        while (out.size() <= iteration) {
            IterationRow row;
            row.iteration = int(out.size());
            out.append(row);
        }
        return out[iteration];
    };
    QHash<int, Selection::BestKey> bestKey;
    for (const Row &r : m_rows) {
        IterationRow &it = at(r.candidate.iteration);
        ++it.candidates;
        const Counts n = countsOf(r);
        it.usable += n.usable;
        it.failed += n.failed;
        if (!n.usable || r.demoted || r.simulatedOnly) // never a kernel the search rejected or did not confirm
            continue;
        const Selection::BestKey key{Selection::latency(*r.evaluation), r.candidate.iteration,
                                     r.candidate.id};
        if (!bestKey.contains(r.candidate.iteration) ||
            Selection::isBetterBest(key, bestKey[r.candidate.iteration])) {
            bestKey.insert(r.candidate.iteration, key);
            it.bestCandidateId = r.candidate.id;
        }
    }
    for (auto it = m_improved.cbegin(); it != m_improved.cend(); ++it)
        at(it.key()).improved = it.value();
    return out;
}

int SearchState::upsert(const Candidate &candidate)
{
    if (const int i = rowOf(candidate.id); i >= 0) {
        m_rows[i].candidate = candidate;
        Q_EMIT rowChanged(i);
        return i;
    }
    Row row;
    row.candidate = candidate;
    // A resumed search may make the demoted kernel again (the same reply, a twin): it never becomes the best.
    row.demoted = m_demotedSources.contains(sourceKey(candidate));
    if (const auto p = m_plans.constFind(candidate.planId); p != m_plans.cend())
        row.planTitle = p->plan.title;
    const int i = int(m_rows.size());
    m_index.insert(candidate.id, i);
    m_rows.append(row);
    Q_EMIT rowAdded(i);
    return i;
}

void SearchState::setEvaluation(const QString &candidateId, const Evaluation &evaluation, bool evaluating)
{
    const int i = rowOf(candidateId);
    if (i < 0)
        return;
    Row &row = m_rows[i];
    const Counts before = countsOf(row);
    if (!evaluating)
        row.evaluation = evaluation;
    row.evaluating = evaluating;
    row.simulatedOnly = isSimulatedOnly(row);
    const Counts after = countsOf(row);
    m_summary.usable += after.usable - before.usable;
    m_summary.failed += after.failed - before.failed;
    m_summary.unchecked += after.unchecked - before.unchecked;
    m_summary.reused += after.reused - before.reused;
    m_summary.evaluating += after.evaluating - before.evaluating;
    if (!evaluating)
        offerBest(row);
    Q_EMIT rowChanged(i);
    Q_EMIT iterationChanged(row.candidate.iteration);
}

bool SearchState::isSimulatedOnly(const Row &row) const
{
    return !m_summary.config.confirmOn.isEmpty() && row.evaluation && !row.evaluation->onHardware();
}

void SearchState::offerBest(const Row &row)
{
    if (!row.evaluation || !Selection::isUsable(*row.evaluation) || row.demoted || row.simulatedOnly)
        return;
    const auto key = [](const Row &r) {
        return Selection::BestKey{Selection::latency(*r.evaluation), r.candidate.iteration, r.candidate.id};
    };
    const Row *best = find(m_summary.bestCandidateId);
    if (!best || !best->evaluation || Selection::isBetterBest(key(row), key(*best)))
        m_summary.bestCandidateId = row.candidate.id;
}

void SearchState::setRemeasured(const QString &candidateId, const Evaluation &remeasured)
{
    const int i = rowOf(candidateId);
    if (i < 0)
        return;
    m_rows[i].remeasured = remeasured;
    Q_EMIT rowChanged(i);
    if (!Selection::failsRemeasure(remeasured))
        return;
    const QString demoted = sourceKey(m_rows.at(i).candidate);
    m_demotedSources.insert(demoted);
    for (int r = 0; r < m_rows.size(); ++r)
        if (!m_rows.at(r).demoted && sourceKey(m_rows.at(r).candidate) == demoted) {
            m_rows[r].demoted = true;
            Q_EMIT rowChanged(r);
        }
    if (const Row *best = find(m_summary.bestCandidateId); best && best->demoted) {
        m_summary.bestCandidateId.clear();
        for (const Row &row : std::as_const(m_rows))
            offerBest(row);
    }
}

void SearchState::setBeam(const QStringList &ids)
{
    QList<int> touched;
    for (const QString &id : std::as_const(m_beam))
        if (const int i = rowOf(id); i >= 0) {
            m_rows[i].beamRank = -1;
            touched << i;
        }
    m_beam = ids;
    for (qsizetype rank = 0; rank < ids.size(); ++rank)
        if (const int i = rowOf(ids.at(rank)); i >= 0) {
            m_rows[i].beamRank = int(rank);
            touched << i;
        }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (int i : std::as_const(touched))
        Q_EMIT rowChanged(i);
}

void SearchState::apply(const SearchEvent &event)
{
    using namespace SearchEvents;
    if (const auto *started = event.as<SessionStarted>()) {
        if (!m_sessionId.isEmpty() && m_sessionId != event.sessionId)
            return;
        m_sessionId = event.sessionId;
        Summary &s = m_summary;
        s.task = started->task.name;
        s.taskRef = started->task.ref;
        s.target = started->task.target;
        s.backend = started->task.backend;
        s.host = started->task.host;
        s.size = started->task.size;
        s.config = started->config;
        s.running = true;
        s.resumed = started->resumed;
        s.stopReason = StopReason::None;
        s.error.clear();
        s.iteration = started->iteration;
        s.iterationsDone = std::max(0, started->iteration - 1);
        s.iterationsDoneAtStart = s.iterationsDone;
        s.iterationsStartSeconds = event.elapsedSeconds;
        s.elapsedSeconds = event.elapsedSeconds;
        s.llmCallsInFlight = 0;
        tellSummary();
        return;
    }
    if (event.sessionId != m_sessionId || m_sessionId.isEmpty())
        return;
    Summary &s = m_summary;
    s.elapsedSeconds = event.elapsedSeconds;
    if (const auto *e = event.as<BaselineEvaluated>()) {
        if (Selection::isUsable(e->evaluation))
            s.baselineLatencyMs = e->evaluation.latencyMeanMs;
        setEvaluation(e->candidateId, e->evaluation, false);
    } else if (const auto *plan = event.as<PlanCreated>()) {
        PlanRecord record;
        record.id = plan->planId;
        record.sessionId = m_sessionId;
        record.iteration = plan->iteration;
        record.parentCandidateId = plan->parentCandidateId;
        record.planIndex = plan->planIndex;
        record.plan = plan->plan;
        m_plans.insert(record.id, record);
        for (int i = 0; i < m_rows.size(); ++i)
            if (m_rows.at(i).candidate.planId == record.id && m_rows.at(i).planTitle != plan->plan.title) {
                m_rows[i].planTitle = plan->plan.title;
                Q_EMIT rowChanged(i);
            }
    } else if (const auto *created = event.as<CandidateCreated>()) {
        upsert(created->candidate);
        Q_EMIT iterationChanged(created->candidate.iteration);
    } else if (event.as<LlmCallStarted>()) {
        ++s.llmCallsInFlight;
    } else if (const auto *reply = event.as<LlmCallFinished>()) {
        s.llmCallsInFlight = std::max(0, s.llmCallsInFlight - 1);
        if (!reply->replayed) {
            const QString role = AgentRoles::name(reply->role);
            ++s.callsByRole[role];
            if (reply->costUsd) {
                s.costUsd += *reply->costUsd;
                s.costUsdByRole[role] += *reply->costUsd;
            } else {
                ++s.unpricedCallsByRole[role]; // unknown, not free: shown as such, never as $0
            }
            s.tokens += reply->promptTokens.value_or(0) + reply->completionTokens.value_or(0);
        }
    } else if (const auto *started = event.as<EvaluationStarted>()) {
        setEvaluation(started->candidateId, {}, true);
    } else if (const auto *finished = event.as<EvaluationFinished>()) {
        setEvaluation(finished->candidateId, finished->evaluation, false);
    } else if (const auto *selected = event.as<BeamSelected>()) {
        setBeam(selected->candidateIds);
        m_improved.insert(selected->iteration, selected->improved);
        s.iteration = selected->iteration + 1;
        if (selected->iteration == 0) // the iterations' pace starts after the baseline
            s.iterationsStartSeconds = event.elapsedSeconds;
        Q_EMIT iterationChanged(selected->iteration);
    } else if (const auto *remeasured = event.as<BestRemeasured>()) {
        setRemeasured(remeasured->candidateId, remeasured->evaluation);
    } else if (const auto *done = event.as<IterationFinished>()) {
        s.iterationsDone = done->iteration;
        s.costUsd = done->totals.costUsd;
        s.costAtIteration.insert(done->iteration, done->totals.costUsd);
        s.tokens = done->totals.tokens;
        s.costUsdByRole = done->totals.costUsdByRole;
        if (!done->totals.bestCandidateId.isEmpty())
            s.bestCandidateId = done->totals.bestCandidateId;
    } else if (const auto *stopped = event.as<Stopped>()) {
        s.running = false;
        s.stopReason = stopped->reason;
        s.error = stopped->error;
        s.iterationsDone = stopped->iterationsDone;
        s.costUsd = stopped->totals.costUsd;
        s.tokens = stopped->totals.tokens;
        s.costUsdByRole = stopped->totals.costUsdByRole;
        s.llmCallsInFlight = 0;
        if (!stopped->totals.bestCandidateId.isEmpty())
            s.bestCandidateId = stopped->totals.bestCandidateId;
        for (int i = 0; i < m_rows.size(); ++i)
            if (m_rows.at(i).evaluating) { // cancelled with the search
                m_rows[i].evaluating = false;
                --s.evaluating;
                Q_EMIT rowChanged(i);
            }
    }
    tellSummary();
}
