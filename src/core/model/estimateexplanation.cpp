#include "estimateexplanation.h"

#include "evalprofile.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>

#include <algorithm>
#include <cmath>

namespace {

bool fail(QString *error, const QString &why)
{
    if (error)
        *error = QStringLiteral("profile.explain: ") + why;
    return false;
}

bool finiteNonNegative(double v)
{
    return std::isfinite(v) && v >= 0;
}

} // namespace

QString EstimateExplanation::engineLabel(const QString &engine)
{
    const int e = EvalProfile::Timeline::engineOfUnit(engine);
    return e >= 0 ? EvalProfile::engineLabel(e) : engine;
}

QString EstimateExplanation::duration(double ns)
{
    if (ns >= 1e6)
        return QString::number(ns / 1e6, 'f', 3) + QStringLiteral(" ms");
    if (ns >= 1e3)
        return QString::number(ns / 1e3, 'f', 1) + QStringLiteral(" µs");
    return QString::number(ns, 'f', 0) + QStringLiteral(" ns");
}

std::optional<EstimateExplanation> EstimateExplanation::fromJson(const QJsonValue &value, QString *error)
{
    if (error)
        error->clear();
    if (!value.isObject())
        return std::nullopt;
    const QJsonObject o = value.toObject();
    EstimateExplanation x;
    x.latencyNs = o.value(QStringLiteral("latency_ns")).toDouble(-1);
    x.target = o.value(QStringLiteral("target")).toString();
    x.bound = o.value(QStringLiteral("bound")).toString();
    if (!finiteNonNegative(x.latencyNs)) {
        fail(error, QStringLiteral("latency_ns is missing or negative"));
        return std::nullopt;
    }
    const QJsonObject engines = o.value(QStringLiteral("engines")).toObject();
    for (auto it = engines.begin(); it != engines.end(); ++it) {
        const QJsonObject e = it.value().toObject();
        EngineLoad load{it.key(), e.value(QStringLiteral("busy_ns")).toDouble(-1),
                        e.value(QStringLiteral("stall_ns")).toDouble(-1),
                        e.value(QStringLiteral("share")).toDouble(-1),
                        qint64(e.value(QStringLiteral("instructions")).toDouble(-1))};
        if (!finiteNonNegative(load.busyNs) || !finiteNonNegative(load.stallNs) ||
            !finiteNonNegative(load.share) || load.instructions < 0) {
            fail(error, QStringLiteral("engine %1 has a missing or negative figure").arg(it.key()));
            return std::nullopt;
        }
        x.engines.append(load);
    }
    std::sort(x.engines.begin(), x.engines.end(),
              [](const EngineLoad &a, const EngineLoad &b) { return a.share > b.share; });
    for (const QJsonValue &v : o.value(QStringLiteral("effects")).toArray()) {
        const QJsonObject e = v.toObject();
        Effect effect{e.value(QStringLiteral("effect")).toString(),
                      e.value(QStringLiteral("engine")).toString(),
                      e.value(QStringLiteral("ns")).toDouble(-1),
                      e.value(QStringLiteral("share")).toDouble(-1),
                      qint64(e.value(QStringLiteral("instructions")).toDouble(-1)),
                      e.value(QStringLiteral("what")).toString()};
        if (effect.effect.isEmpty() || effect.engine.isEmpty() || !finiteNonNegative(effect.ns) ||
            !finiteNonNegative(effect.share) || effect.instructions < 0) {
            fail(error, QStringLiteral("an effect is incomplete or negative"));
            return std::nullopt;
        }
        x.effects.append(effect);
    }
    std::stable_sort(x.effects.begin(), x.effects.end(), [](const Effect &a, const Effect &b) {
        return a.isSubset() != b.isSubset() ? b.isSubset() : a.share > b.share;
    });
    return x;
}

QString EstimateExplanation::effectLabel(const QString &effect)
{
    static const QList<std::pair<QString, QString>> labels{
        {QStringLiteral("fixed_overhead"), QStringLiteral("per-instruction fixed cost")},
        {QStringLiteral("fp32_passes"), QStringLiteral("fp32 matmul passes")},
        {QStringLiteral("strided_access"), QStringLiteral("strided access (half bandwidth)")},
        {QStringLiteral("throughput"), QStringLiteral("data-proportional compute")},
        {QStringLiteral("dependency_stall"), QStringLiteral("stall on a dependency")},
        {QStringLiteral("port_sharing_stall"), QStringLiteral("stall on a shared SBUF/PSUM port")},
        {QStringLiteral("dma_fixed_latency"), QStringLiteral("DMA fixed latency")},
        {QStringLiteral("dma_small_rows"), QStringLiteral("DMA rows under descriptor size")},
        {QStringLiteral("dma_transfer"), QStringLiteral("DMA transfer")},
        {QStringLiteral("psum_operand"), QStringLiteral("PSUM operand (subset)")}};
    for (const auto &[key, label] : labels)
        if (key == effect)
            return label;
    return effect;
}

QString EstimateExplanation::text(int maxEffects) const
{
    QString out;
    QTextStream s(&out);
    s << "Why nkisim estimates " << duration(latencyNs)
      << (target.isEmpty() ? QString() : QStringLiteral(" on ") + target) << ": bound by "
      << engineLabel(bound) << "\n";
    for (const EngineLoad &e : engines) {
        s << QStringLiteral("  %1 busy %2 of the run (%3, %4 instructions)")
                 .arg(engineLabel(e.engine), -7)
                 .arg(QString::number(e.share * 100, 'f', 1) + QLatin1Char('%'), 6)
                 .arg(duration(e.busyNs))
                 .arg(e.instructions);
        if (e.engine == QStringLiteral("dma"))
            s << ", summed over the queues";
        else if (e.stallNs > 0)
            s << ", idle " << duration(e.stallNs) << " between instructions";
        s << "\n";
    }
    s << "Modelled effects, largest share of the run first:\n";
    int shown = 0;
    for (const Effect &e : effects) {
        if (shown++ == maxEffects)
            break;
        s << QStringLiteral("  %1 %2 %3 %4 in %5 instructions\n")
                 .arg(QString::number(e.share * 100, 'f', 1) + QLatin1Char('%'), 6)
                 .arg(engineLabel(e.engine), -7)
                 .arg(effectLabel(e.effect), -31)
                 .arg(duration(e.ns), 10)
                 .arg(e.instructions);
    }
    if (effects.size() > maxEffects)
        s << "  (" << effects.size() - maxEffects << " smaller effects left out)\n";
    return out;
}
