#pragma once

#include "model/evaluation.h"

#include <QList>
#include <QPointF>
#include <QString>

#include <optional>

class QChart;

// The Profile dock's charts, built from evaluations (Qt Charts): engine utilization and memory traffic as bars
// (a second set for the pinned baseline), the log-log roofline with the task's roofs and ridge, and the
// search's best % of peak against iteration and against cost. Each returns a new chart the caller owns.
class ProfileCharts
{
public:
    static QChart *engines(const Evaluation &current, const std::optional<Evaluation> &baseline);
    static QChart *memory(const Evaluation &current, const std::optional<Evaluation> &baseline);

    // A kernel on the roofline: arithmetic intensity (the task's FLOPs per byte of HBM it moved) and the
    // FLOP rate it reached (the task's FLOPs over its latency).
    struct RooflinePoint
    {
        QString candidateId; // empty for an editor's kernel
        double intensity = 0;
        double flopsPerSecond = 0;
        enum class Kind
        {
            Candidate,
            Baseline,
            Best,
            Current
        } kind = Kind::Candidate;
    };
    struct Roof
    {
        double peakFlopsPerSecond = 0;
        double bytesPerSecond = 0;
        double ridge() const { return bytesPerSecond > 0 ? peakFlopsPerSecond / bytesPerSecond : 0; }
    };
    // The roof of an evaluation's task on its target, and its point; nullopt when the runner sent no roofline
    // figures, or the task does no arithmetic (a log-log chart has no place for zero).
    static std::optional<Roof> roofOf(const Evaluation &e);
    static std::optional<RooflinePoint> pointOf(const Evaluation &e);
    static QChart *roofline(const Roof &roof, const QList<RooflinePoint> &points);

    // Best % of peak after each iteration, and the same against the cost spent by then.
    static QChart *progress(const QList<QPointF> &byIteration, const QList<QPointF> &byCost);
};
