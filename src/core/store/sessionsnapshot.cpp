#include "store/sessionsnapshot.h"

std::optional<SessionSnapshot> SessionSnapshot::load(SessionStore &store, const QString &sessionId,
                                                     QString &error)
{
    const std::optional<SessionRecord> session = store.findSession(sessionId);
    if (!session) {
        error = store.lastError();
        return std::nullopt;
    }
    SessionSnapshot s;
    s.session = *session;
    s.candidates = store.candidates(session->id);
    int lastIteration = 0;
    for (const Candidate &c : std::as_const(s.candidates)) {
        if (const std::optional<Evaluation> e = store.evaluation(c.id))
            s.evaluations.insert(c.id, *e);
        lastIteration = qMax(lastIteration, c.iteration);
    }
    s.remeasurements = store.remeasurements(session->id);
    for (const PlanRecord &p : store.plans(session->id))
        s.plans.insert(p.id, p);
    for (int i = 0; i <= lastIteration; ++i)
        if (const QStringList beam = store.beam(session->id, i); !beam.isEmpty())
            s.beams.insert(i, beam);
    s.cost = store.statistics().costTotals(session->id);
    s.costByIteration = store.statistics().costByIteration(session->id);
    if (const std::optional<Candidate> best = store.bestCandidate(session->id))
        s.bestCandidateId = best->id;
    return s;
}
