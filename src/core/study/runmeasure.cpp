#include "runmeasure.h"

#include "store/sessionstore.h"

#include <QJsonValue>

RunMeasure RunMeasure::of(SessionStore &store, const QString &sessionId)
{
    RunMeasure m;
    std::optional<double> baselineMs;
    for (const Candidate &c : store.candidates(sessionId)) {
        for (int run : {0, SessionStore::remeasureRun}) {
            const std::optional<Evaluation> e = store.evaluation(c.id, run);
            if (!e || !e->reusedFrom.isEmpty())
                continue;
            ++m.evaluations;
            m.deviceSeconds += e->wallSeconds.value_or(0);
        }
        if (c.parentId.isEmpty() && c.iteration == 0)
            if (const std::optional<Evaluation> e = store.evaluation(c.id))
                baselineMs = e->latencyMeanMs;
    }
    if (const std::optional<Candidate> best = store.bestCandidate(sessionId))
        if (const std::optional<Evaluation> e = store.evaluation(best->id)) {
            m.bestPercentOfPeak = e->percentOfPeak;
            if (baselineMs && e->latencyMeanMs && *e->latencyMeanMs > 0)
                m.speedup = *baselineMs / *e->latencyMeanMs;
        }
    const SessionStatistics::CostTotals totals = store.statistics().costTotals(sessionId);
    m.tokens = totals.promptTokens + totals.completionTokens;
    m.calls = totals.calls;
    m.callsWithoutCost = totals.callsWithoutCost;
    if (totals.callsWithoutCost == 0)
        m.costUsd = totals.costUsd;
    return m;
}

QJsonObject RunMeasure::toJson() const
{
    const auto opt = [](const std::optional<double> &v) { return v ? QJsonValue(*v) : QJsonValue(); };
    return {{QStringLiteral("best_percent_of_peak"), opt(bestPercentOfPeak)},
            {QStringLiteral("speedup"), opt(speedup)},
            {QStringLiteral("cost_usd"), opt(costUsd)},
            {QStringLiteral("tokens"), tokens},
            {QStringLiteral("calls"), calls},
            {QStringLiteral("calls_without_cost"), callsWithoutCost},
            {QStringLiteral("evaluations"), evaluations},
            {QStringLiteral("device_seconds"), deviceSeconds}};
}

RunMeasure RunMeasure::fromJson(const QJsonObject &o)
{
    const auto opt = [&o](const char *key) {
        const QJsonValue v = o.value(QLatin1String(key));
        return v.isDouble() ? std::optional<double>(v.toDouble()) : std::nullopt;
    };
    RunMeasure m;
    m.bestPercentOfPeak = opt("best_percent_of_peak");
    m.speedup = opt("speedup");
    m.costUsd = opt("cost_usd");
    m.tokens = o.value(QStringLiteral("tokens")).toInteger();
    m.calls = o.value(QStringLiteral("calls")).toInt();
    m.callsWithoutCost = o.value(QStringLiteral("calls_without_cost")).toInt();
    m.evaluations = o.value(QStringLiteral("evaluations")).toInt();
    m.deviceSeconds = o.value(QStringLiteral("device_seconds")).toDouble();
    return m;
}
