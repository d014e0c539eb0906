#include "search/confirmation.h"

#include <algorithm>

namespace Confirmation {

QStringList toConfirm(const QList<ScoredKernel> &parents, const QList<ScoredKernel> &children,
                      const QSet<QString> &confirmed, const Selection::CascadeScope &scope,
                      const Margin &margin)
{
    const auto marginOf = [&](const ScoredKernel &k) { return margin ? std::max(0.0, margin(k)) : 0.0; };
    // The unchecked (cascade) children count as correct, as the cascade assumes before checking.
    QList<ScoredKernel> assumed = children;
    for (ScoredKernel &k : assumed)
        if (Selection::isUnchecked(k.evaluation))
            k.evaluation.correct = true;
    QSet<QString> open;
    double widest = 0;
    for (const ScoredKernel &k : std::as_const(assumed))
        if (!confirmed.contains(k.candidateId) && Selection::isUsable(k.evaluation)) {
            open.insert(k.candidateId);
            widest = std::max(widest, marginOf(k));
        }
    // nkisim's beam; its slowest member is the cutoff. A kernel the device puts in its beam is beaten there
    // by fewer than `width` others, so it is faster than at least one of nkisim's beam kernels x on the
    // device: nkisim(k) * ratio(k) <= nkisim(x) * ratio(x), so nkisim(k) <= cutoff * (1 + margin(k)) when the
    // margin covers the ratios' spread (Calibration::margin).
    const QList<ScoredKernel> beam = Selection::nextBeam(parents, assumed, scope.width, scope.noiseFloor);
    const bool full = beam.size() >= scope.width;
    double cutoff = 0;
    for (const ScoredKernel &k : beam)
        cutoff = std::max(cutoff, Selection::latency(k.evaluation));
    QSet<QString> out;
    for (const ScoredKernel &k : std::as_const(assumed))
        if (open.contains(k.candidateId) &&
            (!full || Selection::latency(k.evaluation) <= cutoff * (1.0 + marginOf(k))))
            out.insert(k.candidateId);
    if (scope.experiences)
        for (const ExperiencePair &pair : Selection::experiencePairs(
                 parents, assumed, scope.gain / (1.0 + widest), scope.loss * (1.0 + widest), scope.topK))
            if (open.contains(pair.after.candidateId))
                out.insert(pair.after.candidateId);
    QStringList ids(out.cbegin(), out.cend());
    ids.sort();
    return ids;
}

} // namespace Confirmation
