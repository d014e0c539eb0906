#include "search/resumepoint.h"

#include "store/sessionstore.h"

std::optional<ResumePoint> ResumePoint::load(SessionStore &store, const QString &sessionId, QString &error)
{
    const std::optional<SessionRecord> session = store.session(sessionId);
    if (!session) {
        error = QStringLiteral("no session %1 in %2").arg(sessionId, store.path());
        return std::nullopt;
    }
    ResumePoint p;
    p.sessionId = sessionId;
    QString configError;
    const std::optional<SearchConfig> config = SearchConfig::fromJson(session->config, &configError);
    if (!config) {
        error = QStringLiteral("session %1 has unreadable search settings: %2").arg(sessionId, configError);
        return std::nullopt;
    }
    p.config = *config;

    const QString baselineId = SessionStore::baselineCandidateId(sessionId);
    for (const Candidate &c : store.candidates(sessionId)) {
        p.candidates.insert(c.id, c);
        if (const auto e = store.evaluation(c.id))
            p.evaluations.insert(c.id, *e);
    }
    if (!p.candidates.contains(baselineId)) {
        error =
            QStringLiteral("session %1 has no starting kernel in %2; it cannot be resumed, start a new one")
                .arg(sessionId, store.path());
        return std::nullopt;
    }
    p.task.name = session->taskName;
    p.task.ref = session->task;
    p.task.target = session->target;
    p.task.backend = session->backend;
    p.task.host = session->host;
    p.task.kernel = p.candidates.value(baselineId).source;
    p.task.size = session->run.value(QStringLiteral("size")).toString(p.task.size);
    p.task.evalTimeoutSeconds =
        session->run.value(QStringLiteral("eval_timeout_s")).toDouble(p.task.evalTimeoutSeconds);
    p.task.reference = session->run.value(QStringLiteral("reference")).toString();

    const SessionStatistics::CostTotals totals = store.statistics().costTotals(sessionId);
    p.costUsd = totals.costUsd;
    p.tokens = totals.promptTokens + totals.completionTokens;

    if (!store.isStepCompleted(sessionId, 0, ResumeStep::Baseline))
        return p; // iteration 0: evaluate the baseline first

    auto beamAfter = [&](int iteration, QList<ScoredKernel> &beam) {
        beam.clear();
        for (const QString &id : store.beam(sessionId, iteration)) {
            if (!p.candidates.contains(id) || !p.evaluations.contains(id)) {
                error =
                    QStringLiteral("session %1: the beam after iteration %2 names kernel %3, which has no "
                                   "evaluation in %4; the database is inconsistent")
                        .arg(sessionId)
                        .arg(iteration)
                        .arg(id, store.path());
                return false;
            }
            const Candidate &c = p.candidates[id];
            beam << ScoredKernel{id, c.parentId, c.sourceHash, p.evaluations[id]};
        }
        if (beam.isEmpty()) {
            error = QStringLiteral("session %1: no beam was kept after iteration %2 in %3")
                        .arg(sessionId)
                        .arg(iteration)
                        .arg(store.path());
            return false;
        }
        return true;
    };
    // The first iteration whose last step did not finish is the one to rerun.
    p.iteration = 1;
    while (store.isStepCompleted(sessionId, p.iteration, ResumeStep::Summarize))
        ++p.iteration;
    QList<ScoredKernel> previous;
    for (int i = 0; i < p.iteration; ++i) {
        if (!beamAfter(i, p.beam))
            return std::nullopt;
        if (i > 0) {
            const bool improved = Selection::isFaster(p.beam.first().evaluation, previous.first().evaluation,
                                                      p.config.noiseFloor);
            p.iterationsWithoutImprovement = improved ? 0 : p.iterationsWithoutImprovement + 1;
        }
        previous = p.beam;
    }
    return p;
}
