#pragma once

#include <QJsonObject>
#include <QString>

#include <optional>

class SessionStore;

// Where one run of a study stands, read from its session in the workspace: the best kernel's % of peak and
// speedup over the baseline, and what it cost: money (only when every call had a price), tokens,
// evaluations (fresh ones; a twin's reused measurement costs nothing) and device time (the evaluations'
// wall time on the host).
struct RunMeasure
{
    std::optional<double> bestPercentOfPeak;
    std::optional<double> speedup;
    std::optional<double> costUsd; // empty: some call had no price, so the money spent is unknown
    qint64 tokens = 0;
    int calls = 0;
    int callsWithoutCost = 0;
    int evaluations = 0;
    double deviceSeconds = 0;

    static RunMeasure of(SessionStore &store, const QString &sessionId);
    QJsonObject toJson() const;
    static RunMeasure fromJson(const QJsonObject &o);
    bool operator==(const RunMeasure &) const = default;
};
