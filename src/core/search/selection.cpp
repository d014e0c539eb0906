#include "search/selection.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <limits>

namespace Selection {

bool isUsable(const Evaluation &evaluation)
{
    return evaluation.ok() && evaluation.isCorrect() && evaluation.latencyMeanMs &&
           *evaluation.latencyMeanMs > 0 && std::isfinite(*evaluation.latencyMeanMs);
}

bool isUnchecked(const Evaluation &evaluation)
{
    return evaluation.ok() && !evaluation.correct.has_value() && evaluation.latencyMeanMs &&
           *evaluation.latencyMeanMs > 0 && std::isfinite(*evaluation.latencyMeanMs);
}

bool failsRemeasure(const Evaluation &remeasured)
{
    return remeasured.status != EvalStatus::InfraError && !(remeasured.ok() && remeasured.isCorrect());
}

double latency(const Evaluation &evaluation)
{
    return evaluation.latencyMeanMs.value_or(std::numeric_limits<double>::infinity());
}

bool isBetterBest(const BestKey &a, const BestKey &b)
{
    if (a.latencyMs != b.latencyMs)
        return a.latencyMs < b.latencyMs;
    if (a.iteration != b.iteration)
        return a.iteration < b.iteration;
    return a.candidateId < b.candidateId;
}

double relativeNoise(const Evaluation &a, const Evaluation &b, double floor)
{
    auto spread = [](const Evaluation &e) { return e.relSpread.value_or(0.0); };
    return std::max({spread(a), spread(b), floor});
}

bool isFaster(const Evaluation &child, const Evaluation &parent, double floor)
{
    if (!isUsable(child) || !isUsable(parent))
        return false;
    return latency(child) * (1.0 + relativeNoise(child, parent, floor)) < latency(parent);
}

QList<ScoredKernel> nextBeam(const QList<ScoredKernel> &parents, const QList<ScoredKernel> &children,
                             int width, double noiseFloor)
{
    struct Entry
    {
        ScoredKernel kernel;
        double key = 0; // the latency it ranks by
        int tier = 0;   // at equal key: parents (0) before children (1)
        int order = 0;  // then in the order given
    };
    QHash<QString, Evaluation> parentEval;
    for (const ScoredKernel &p : parents)
        if (isUsable(p.evaluation))
            parentEval.insert(p.candidateId, p.evaluation);

    QList<Entry> pool;
    QSet<QString> seen;
    int order = 0;
    auto offer = [&](const ScoredKernel &k, int tier) {
        if (!isUsable(k.evaluation))
            return;
        // A kernel without a hash is distinct by its id: never merge unknowns.
        const QString identity =
            k.sourceHash.isEmpty() ? QStringLiteral("id:") + k.candidateId : k.sourceHash;
        if (seen.contains(identity))
            return;
        seen.insert(identity);
        Entry e{k, latency(k.evaluation), tier, order++};
        if (tier == 1) {
            const auto parent = parentEval.constFind(k.parentId);
            if (parent != parentEval.constEnd() && e.key < latency(*parent) &&
                !isFaster(k.evaluation, *parent, noiseFloor))
                e.key = latency(*parent); // within the noise: no better than the parent
        }
        pool << e;
    };
    for (const ScoredKernel &p : parents)
        offer(p, 0);
    for (const ScoredKernel &c : children)
        offer(c, 1);
    std::stable_sort(pool.begin(), pool.end(), [](const Entry &a, const Entry &b) {
        if (a.key != b.key)
            return a.key < b.key;
        if (a.tier != b.tier)
            return a.tier < b.tier;
        return a.order < b.order;
    });
    QList<ScoredKernel> beam;
    for (const Entry &e : pool) {
        if (beam.size() >= width)
            break;
        beam << e.kernel;
    }
    return beam;
}

QList<ExperiencePair> experiencePairs(const QList<ScoredKernel> &parents, const QList<ScoredKernel> &children,
                                      double gain, double loss, int topK)
{
    QHash<QString, ScoredKernel> byId;
    for (const ScoredKernel &p : parents)
        if (isUsable(p.evaluation))
            byId.insert(p.candidateId, p);
    QList<ExperiencePair> pairs;
    QSet<QString> seen;
    for (const ScoredKernel &c : children) {
        const auto parent = byId.constFind(c.parentId);
        if (parent == byId.constEnd() || !isUsable(c.evaluation))
            continue;
        if (!c.sourceHash.isEmpty() && c.sourceHash == parent->sourceHash)
            continue; // the same kernel: nothing to learn
        const double speedup = latency(parent->evaluation) / latency(c.evaluation);
        if (!(speedup >= gain || speedup <= loss))
            continue;
        const QString key =
            c.parentId + QLatin1Char('/') + (c.sourceHash.isEmpty() ? c.candidateId : c.sourceHash);
        if (seen.contains(key))
            continue;
        seen.insert(key);
        pairs << ExperiencePair{*parent, c, speedup};
    }
    std::stable_sort(pairs.begin(), pairs.end(), [](const ExperiencePair &a, const ExperiencePair &b) {
        return std::fabs(std::log(a.speedup)) > std::fabs(std::log(b.speedup));
    });
    if (topK >= 0 && pairs.size() > topK)
        pairs.resize(topK);
    return pairs;
}

QStringList toCheck(const QList<ScoredKernel> &parents, const QList<ScoredKernel> &children,
                    const CascadeScope &scope)
{
    QSet<QString> unchecked;
    QList<ScoredKernel> assumed = children; // every unchecked child taken as correct
    for (ScoredKernel &k : assumed)
        if (isUnchecked(k.evaluation)) {
            unchecked.insert(k.candidateId);
            k.evaluation.correct = true;
        }
    QSet<QString> out;
    for (const ScoredKernel &k : nextBeam(parents, assumed, scope.width, scope.noiseFloor))
        if (unchecked.contains(k.candidateId))
            out.insert(k.candidateId);
    if (scope.experiences)
        for (const ExperiencePair &pair :
             experiencePairs(parents, assumed, scope.gain, scope.loss, scope.topK))
            if (unchecked.contains(pair.after.candidateId))
                out.insert(pair.after.candidateId);
    if (!scope.hitPlans.isEmpty()) {
        QHash<QString, Evaluation> parentEval;
        for (const ScoredKernel &p : parents)
            parentEval.insert(p.candidateId, p.evaluation);
        QHash<QString, const ScoredKernel *> fastest; // per plan: its fastest unchecked child faster than its parent
        QSet<QString> decided;                        // plans with a checked child faster than its parent
        for (const ScoredKernel &k : assumed) {
            const QString plan = scope.planOf.value(k.candidateId);
            const auto parent = parentEval.constFind(k.parentId);
            if (!scope.hitPlans.contains(plan) || parent == parentEval.constEnd() ||
                !isFaster(k.evaluation, *parent, scope.noiseFloor))
                continue;
            if (!unchecked.contains(k.candidateId))
                decided.insert(plan);
            else if (!fastest.contains(plan) || latency(k.evaluation) < latency(fastest.value(plan)->evaluation))
                fastest.insert(plan, &k);
        }
        for (auto it = fastest.cbegin(); it != fastest.cend(); ++it)
            if (!decided.contains(it.key()))
                out.insert(it.value()->candidateId);
    }
    QStringList ids(out.cbegin(), out.cend());
    ids.sort();
    return ids;
}

QList<ScoredKernel> onePerSource(const QList<ScoredKernel> &children, const QStringList &ids)
{
    QHash<QString, ScoredKernel> byId;
    for (const ScoredKernel &k : children)
        byId.insert(k.candidateId, k);
    QList<ScoredKernel> out;
    QSet<QString> sources;
    for (const QString &id : ids) {
        const ScoredKernel k = byId.value(id);
        if (!k.sourceHash.isEmpty() && sources.contains(k.sourceHash))
            continue;
        sources.insert(k.sourceHash);
        out << k;
    }
    return out;
}

} // namespace Selection
