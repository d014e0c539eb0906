#pragma once

#include <QJsonValue>
#include <QList>
#include <QString>

#include <optional>

// Why nkisim's model thinks a kernel takes as long as it does: the modelled effects behind the estimate, each
// as time on an engine and as a share of the run (the runner's profile.explain, nkisim/perf/explain.py).
// Shown by `accelopt bench --explain` and the Profile dock.
class EstimateExplanation
{
public:
    struct Effect
    {
        QString effect; // "fixed_overhead", "fp32_passes", "throughput", "dependency_stall", "dma_...",
                        // "psum_operand"
        QString engine; // "tensor", "vector", "scalar", "gpsimd", "dma"
        double ns = 0;
        double share = 0; // of the run (DMA: of the run times the DMA queues)
        qint64 instructions = 0;
        QString what; // the runner's one-line description
        bool isSubset() const
        {
            return effect == QStringLiteral("psum_operand");
        } // counted in the others too
    };
    struct EngineLoad
    {
        QString engine;
        double busyNs = 0;
        double stallNs = 0;
        double share = 0; // busy time over the run (DMA: per queue)
        qint64 instructions = 0;
    };

    double latencyNs = 0;
    QString target;
    QString bound;             // the busiest engine
    QList<EngineLoad> engines; // busiest first
    QList<Effect> effects;     // largest share first, the PSUM subset last

    // nullopt without an error for a missing object; nullopt with the reason for a malformed one.
    static std::optional<EstimateExplanation> fromJson(const QJsonValue &value, QString *error = nullptr);
    // The plain-text report `accelopt bench --explain` prints: the bound, each engine's load, then the
    // effects.
    QString text(int maxEffects = 8) const;
    // "per-instruction fixed cost" for "fixed_overhead": a short name for people.
    static QString effectLabel(const QString &effect);
    static QString duration(double ns);                // "9.622 ms", "682.8 µs", "25 ns"
    static QString engineLabel(const QString &engine); // "Tensor" for "tensor"
};
