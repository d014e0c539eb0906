#include "search/twinregistry.h"

TwinRegistry::Claimed TwinRegistry::claim(const SearchJob &job, const QString &sourceHash,
                                          const QHash<QString, Evaluation> &measured)
{
    if (sourceHash.isEmpty())
        return {};
    const QString standIn = m_standIn.value(sourceHash);
    if (standIn.isEmpty()) {
        m_standIn.insert(sourceHash, job.candidateId); // this one will be measured
        return {};
    }
    if (standIn == job.candidateId)
        return {Claim::Measure, standIn};
    if (!measured.contains(standIn)) {
        m_waiting[sourceHash].append(job);
        return {Claim::Wait, standIn};
    }
    return {Claim::Reuse, standIn};
}

void TwinRegistry::noteMeasured(const QString &sourceHash, const QString &candidateId,
                                const Evaluation &evaluation, bool replace)
{
    if (sourceHash.isEmpty() || !evaluation.reusedFrom.isEmpty() ||
        evaluation.status == EvalStatus::InfraError)
        return;
    if (replace || !m_standIn.contains(sourceHash))
        m_standIn.insert(sourceHash, candidateId);
}

QList<SearchJob> TwinRegistry::settle(const QString &sourceHash, const QString &candidateId,
                                      const Evaluation &evaluation)
{
    // Only the measurement that stands for this source settles its twins (a replayed result of another twin
    // does not).
    if (!standsFor(sourceHash, candidateId))
        return {};
    if (evaluation.status == EvalStatus::InfraError)
        m_standIn.remove(sourceHash); // the host failed, not the kernel: a twin is measured itself
    return m_waiting.take(sourceHash);
}

bool TwinRegistry::standsFor(const QString &sourceHash, const QString &candidateId) const
{
    return !sourceHash.isEmpty() && m_standIn.value(sourceHash) == candidateId;
}

void TwinRegistry::clear()
{
    m_standIn.clear();
    m_waiting.clear();
}
