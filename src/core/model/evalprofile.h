#pragma once

#include "estimateexplanation.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <array>
#include <memory>
#include <optional>

// What an evaluation says about where the kernel's time went, beyond the summary metrics: the busy time per
// engine, the cost of each kernel line (time per engine, instructions, bytes), and, when asked for, the
// instruction timeline (one event per instruction: unit, op, line, start, duration, shape, bytes). The runner
// sends it as `profile` (nkibench/runner/README.md); the timeline comes columnar, and stays so here, because
// a view draws 100,000 events from it.
class EvalProfile
{
public:
    enum Engine
    {
        Tensor,
        Vector,
        Scalar,
        GpSimd,
        Dma,
        EngineCount
    };
    static QString engineName(int engine);  // "tensor", ..., "dma": the runner's names
    static QString engineLabel(int engine); // "Tensor", ..., "DMA": for people
    using EngineTimes = std::array<double, EngineCount>;

    struct LineCost
    {
        int line = 0; // 1-based line of the kernel; 0: not attributable to a line
        EngineTimes ns{};
        qint64 instructions = 0;
        qint64 bytes = 0;
        double totalNs() const;
    };

    struct Timeline
    {
        QStringList units; // "tensor", "vector", "scalar", "gpsimd", "dma0", "dma1", ...
        QStringList ops;
        QList<int> unit; // index into units, per event
        QList<int> op;   // index into ops
        QList<int> line;
        QList<double> startNs;
        QList<double> durNs;
        QList<int> partitions;
        QList<qint64> freeElems;
        QList<qint64> bytes;
        bool truncated = false;

        int count() const { return int(startNs.size()); }
        double endNs() const; // the last event's end
        // The engine a unit belongs to ("dma3" is Dma); -1 when unknown.
        static int engineOfUnit(const QString &unit);
    };

    QString source; // "nkisim", "neuron-profile"
    bool available = false;
    QMap<QString, QString> missing; // field -> why the backend could not fill it
    qint64 instructionCount = 0;
    EngineTimes engineBusyNs{};
    QList<LineCost> lineCosts; // sorted by line
    std::optional<Timeline> timeline;
    std::optional<EstimateExplanation> explanation; // nkisim only: the effects behind the estimate

    // From the result's `profile` object; nullopt with the reason in `error` when it is malformed (a missing
    // object is not an error: the caller gets nullopt and an empty error).
    static std::optional<EvalProfile> fromJson(const QJsonValue &value, QString *error = nullptr);
    // The line costs and totals (not the timeline): what `accelopt bench --json` prints as line_costs.
    QJsonArray lineCostsJson() const;
    double totalLineNs() const; // all engines, all lines
    // The lines with the largest share of time, largest first (line 0 left out).
    QList<LineCost> hottest(int count) const;
    const LineCost *costOfLine(int line) const;
};

using EvalProfilePtr = std::shared_ptr<const EvalProfile>;
