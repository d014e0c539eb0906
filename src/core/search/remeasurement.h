#pragma once

#include "model/candidate.h"
#include "model/evalrequest.h"
#include "model/evaluation.h"
#include "search/stoprules.h"

#include <QHash>
#include <QSet>
#include <QString>

class ExperienceStore;

// The best kernel's re-measurement: when a search ends (not when it is stopped or fails), its best kernel
// runs again on fresh seeds and the small size before it is reported; one that fails is demoted, with every
// kernel of the session sharing its normalized source, and the next best is re-measured. This room keeps
// which kernels were re-measured, which sources are demoted, why the search ended meanwhile and the requests
// out; BeamSearch submits the jobs and picks the next best.
class Remeasurement
{
public:
    static constexpr int seeds = 2;

    // A demoted kernel is known by its normalized source, or by its id when it has none.
    static QString sourceKey(const Candidate &candidate);
    // `request` as the session measures, moved to the small size and to seeds that are fresh (the runner
    // draws random ones for every other evaluation) but the same for the same session seed and kernel, so a
    // resumed session measures what the first run would have.
    static EvalRequest request(EvalRequest request, int sessionSeed, const QString &sourceHash);

    void clear();
    // A resumed session: the re-measurements that landed before (SessionStore::remeasurements).
    void restore(const QHash<QString, Evaluation> &remeasured, const QHash<QString, Candidate> &candidates);

    bool isDone(const QString &candidateId) const { return m_done.contains(candidateId); }
    bool isDemoted(const Candidate &candidate) const { return m_demoted.contains(sourceKey(candidate)); }

    void started(quint64 job, const EvalRequest &request, StopReason endReason);
    StopReason endReason() const { return m_endReason; }
    EvalRequest take(quint64 job) { return m_requests.take(job); }
    void dropRequests() { m_requests.clear(); } // the search ended: their jobs are cancelled
    // A re-measurement landed; true when it demotes the kernel.
    bool landed(const Candidate &candidate, const Evaluation &evaluation);

    // A kernel the search itself rejected taught nothing: the lessons this session drew from it leave the
    // memory, and the plans that counted it as a win are decided again without it.
    void withdrawLessons(ExperienceStore &memory, const QString &sessionId, const QString &taskName,
                         const Candidate &demoted, const QHash<QString, Candidate> &candidates,
                         const QHash<QString, Evaluation> &evaluations, double noiseFloor) const;

private:
    QSet<QString> m_done;    // candidates whose re-measurement landed
    QSet<QString> m_demoted; // source keys of kernels that failed a re-measurement
    StopReason m_endReason = StopReason::None;
    QHash<quint64, EvalRequest> m_requests; // by pool job
};
