#pragma once

#include "model/evaluation.h"

#include <QJsonArray>
#include <QList>
#include <QString>

#include <optional>

// The measured differences between two evaluations of a kernel pair, as Compare shows them above the diff
// and `accelopt compare` prints them: latency, % of peak, bound, active time per engine, bytes per memory, DMA
// count and size, instructions per engine; each with its ratio (right / left) and whether the right kernel
// is better, worse or the same by that measure.
struct MetricDelta
{
    enum class Better
    {
        Lower,
        Higher,
        Neither // a share of time: more is not better or worse by itself
    };
    enum class Verdict
    {
        Better,
        Worse,
        Same,
        Changed, // differs by a measure that is neither better nor worse (a share of time, the bound)
        Unknown  // a side has no value
    };
    QString key;   // the runner's name ("latency_ms", "hbm_read_bytes", ...)
    QString label; // for people
    QString unit;  // "ms", "%", "B", "" (a count)
    std::optional<double> left;
    std::optional<double> right;
    QString leftText; // for a value that is text (the bound)
    QString rightText;
    Better better = Better::Lower;

    std::optional<double> ratio() const; // right / left, when both are known and left is not 0
    Verdict verdict() const;             // within 0.5 % is the same
    static QString verdictName(Verdict v);
};

namespace MetricDeltas {
QList<MetricDelta> compute(const Evaluation &left, const Evaluation &right);
QJsonArray toJson(const QList<MetricDelta> &deltas);
// "1.23 ms", "42.0 %", "4.19 MB", "1 024"
QString format(const MetricDelta &delta, const std::optional<double> &value);
} // namespace MetricDeltas
