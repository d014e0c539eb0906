#include "search/remeasurement.h"

#include "common/logcategories.h"
#include "memory/experiencestore.h"
#include "search/searchseed.h"
#include "search/selection.h"

QString Remeasurement::sourceKey(const Candidate &candidate)
{
    return candidate.sourceHash.isEmpty() ? candidate.id : candidate.sourceHash;
}

EvalRequest Remeasurement::request(EvalRequest request, int sessionSeed, const QString &sourceHash)
{
    // The small parameter set is the second one; a session that ran on it gets fresh seeds only.
    request.size = QStringLiteral("small");
    for (int i = 0; i < seeds; ++i)
        request.seeds << int(SearchSeed::from(
            {QString::number(sessionSeed), QStringLiteral("remeasure"), sourceHash, QString::number(i)}));
    return request;
}

void Remeasurement::clear()
{
    m_done.clear();
    m_demoted.clear();
    m_endReason = StopReason::None;
    m_requests.clear();
}

void Remeasurement::restore(const QHash<QString, Evaluation> &remeasured,
                            const QHash<QString, Candidate> &candidates)
{
    for (auto it = remeasured.cbegin(); it != remeasured.cend(); ++it) {
        m_done.insert(it.key());
        if (Selection::failsRemeasure(it.value()))
            m_demoted.insert(sourceKey(candidates.value(it.key())));
    }
}

void Remeasurement::started(quint64 job, const EvalRequest &request, StopReason endReason)
{
    m_endReason = endReason;
    m_requests.insert(job, request);
}

bool Remeasurement::landed(const Candidate &candidate, const Evaluation &evaluation)
{
    m_done.insert(candidate.id);
    if (!Selection::failsRemeasure(evaluation))
        return false;
    m_demoted.insert(sourceKey(candidate));
    return true;
}

void Remeasurement::withdrawLessons(ExperienceStore &memory, const QString &sessionId,
                                    const QString &taskName, const Candidate &demoted,
                                    const QHash<QString, Candidate> &candidates,
                                    const QHash<QString, Evaluation> &evaluations, double noiseFloor) const
{
    const QString key = sourceKey(demoted);
    const auto isDemotedHash = [&key](const QString &hash) { return !hash.isEmpty() && hash == key; };
    for (const ExperienceRecord &r : memory.list(taskName)) {
        if (r.sessionId != sessionId || (!isDemotedHash(r.slowHash) && !isDemotedHash(r.fastHash)))
            continue;
        if (memory.remove(r.id))
            qCInfo(lcSearch).noquote() << "session" << sessionId << "withdraws the lesson" << r.id
                                       << r.experience.title.simplified() << "of a demoted kernel";
        else
            qCWarning(lcSearch).noquote() << "could not withdraw a lesson:" << memory.lastError();
    }
    QSet<QString> plans;
    for (const Candidate &c : candidates)
        if (sourceKey(c) == key && !c.planId.isEmpty())
            plans.insert(c.planId);
    for (const QString &planId : std::as_const(plans)) {
        bool faster = false;
        for (const Candidate &c : candidates)
            faster = faster || (c.planId == planId && !isDemoted(c) && evaluations.contains(c.id) &&
                                Selection::isFaster(evaluations.value(c.id), evaluations.value(c.parentId),
                                                    noiseFloor));
        if (!memory.recordOutcome(planId, faster))
            qCWarning(lcSearch).noquote() << "could not decide a plan's outcome again:" << memory.lastError();
    }
}
