#include "search/cascade.h"

#include <algorithm>

Selection::CascadeScope Cascade::scope(const SearchConfig &config, bool experiences)
{
    Selection::CascadeScope scope;
    scope.width = config.beamWidth;
    scope.noiseFloor = config.noiseFloor;
    scope.experiences = experiences;
    scope.gain = config.gainThreshold;
    scope.loss = config.lossThreshold;
    scope.topK = config.topK;
    return scope;
}

QList<ScoredKernel> Cascade::toCheck(const QList<ScoredKernel> &beam, QList<ScoredKernel> &children,
                                     const Inputs &inputs)
{
    std::sort(children.begin(), children.end(),
              [](const ScoredKernel &a, const ScoredKernel &b) { return a.candidateId < b.candidateId; });
    Selection::CascadeScope scope = Cascade::scope(*inputs.config, inputs.experiences);
    if (inputs.experiences)
        scope.hitPlans = inputs.shownPlans;
    for (const ScoredKernel &k : std::as_const(children))
        scope.planOf.insert(k.candidateId, inputs.candidates->value(k.candidateId).planId);
    return Selection::onePerSource(children, Selection::toCheck(beam, children, scope));
}

void Cascade::keep(QList<ScoredKernel> &children, const SearchJob &job, const Candidate &candidate,
                   const Evaluation &evaluation)
{
    if (job.check)
        children.removeIf([&](const ScoredKernel &k) { return k.candidateId == candidate.id; });
    if (Selection::isUsable(evaluation) || (Selection::isUnchecked(evaluation) && !job.check))
        children << ScoredKernel{candidate.id, job.beamParentId, candidate.sourceHash, evaluation};
}

QList<ScoredKernel> Cascade::uncheckedTwins(const QList<ScoredKernel> &children, const Candidate &checked)
{
    QList<ScoredKernel> twins;
    if (checked.sourceHash.isEmpty())
        return twins;
    for (const ScoredKernel &k : children)
        if (k.candidateId != checked.id && k.sourceHash == checked.sourceHash &&
            Selection::isUnchecked(k.evaluation))
            twins << k;
    return twins;
}
