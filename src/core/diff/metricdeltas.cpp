#include "diff/metricdeltas.h"

#include <QJsonObject>
#include <QLocale>

#include <cmath>

std::optional<double> MetricDelta::ratio() const
{
    if (!left || !right || *left == 0)
        return std::nullopt;
    return *right / *left;
}

MetricDelta::Verdict MetricDelta::verdict() const
{
    if (!left || !right) {
        if (!leftText.isEmpty() && !rightText.isEmpty())
            return leftText == rightText ? Verdict::Same : Verdict::Changed;
        return Verdict::Unknown;
    }
    if (*left == *right)
        return Verdict::Same;
    const std::optional<double> r = ratio();
    if (r && std::fabs(*r - 1.0) < 0.005)
        return Verdict::Same;
    if (better == Better::Neither)
        return Verdict::Changed;
    const bool lower = *right < *left;
    return (better == Better::Lower) == lower ? Verdict::Better : Verdict::Worse;
}

QString MetricDelta::verdictName(Verdict v)
{
    switch (v) {
    case Verdict::Better:
        return QStringLiteral("better");
    case Verdict::Worse:
        return QStringLiteral("worse");
    case Verdict::Same:
        return QStringLiteral("same");
    case Verdict::Changed:
        return QStringLiteral("changed");
    case Verdict::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

namespace MetricDeltas {

QList<MetricDelta> compute(const Evaluation &left, const Evaluation &right)
{
    QList<MetricDelta> out;
    auto add = [&out](const QString &key, const QString &label, const QString &unit, std::optional<double> l,
                      std::optional<double> r, MetricDelta::Better better) {
        MetricDelta d;
        d.key = key;
        d.label = label;
        d.unit = unit;
        d.left = l;
        d.right = r;
        d.better = better;
        out.append(d);
    };
    using B = MetricDelta::Better;
    add(QStringLiteral("latency_ms"), QStringLiteral("Latency (mean)"), QStringLiteral("ms"), left.latencyMeanMs,
        right.latencyMeanMs, B::Lower);
    add(QStringLiteral("latency_p50_ms"), QStringLiteral("Latency (p50)"), QStringLiteral("ms"), left.latencyP50Ms,
        right.latencyP50Ms, B::Lower);
    add(QStringLiteral("percent_of_peak"), QStringLiteral("% of peak"), QStringLiteral("%"), left.percentOfPeak,
        right.percentOfPeak, B::Higher);
    MetricDelta bound;
    bound.key = QStringLiteral("bound");
    bound.label = QStringLiteral("Bound");
    bound.leftText = left.bound;
    bound.rightText = right.bound;
    bound.better = B::Neither;
    out.append(bound);
    const Evaluation::EngineActivity la = left.engineActivity(), ra = right.engineActivity();
    auto pct = [](std::optional<double> fraction) {
        return fraction ? std::optional<double>(*fraction * 100.0) : std::nullopt;
    };
    add(QStringLiteral("tensor_engine_active_time_percent"), QStringLiteral("Tensor engine active"),
        QStringLiteral("%"), pct(la.tensor), pct(ra.tensor), B::Neither);
    add(QStringLiteral("vector_engine_active_time_percent"), QStringLiteral("Vector engine active"),
        QStringLiteral("%"), pct(la.vector), pct(ra.vector), B::Neither);
    add(QStringLiteral("scalar_engine_active_time_percent"), QStringLiteral("Scalar engine active"),
        QStringLiteral("%"), pct(la.scalar), pct(ra.scalar), B::Neither);
    add(QStringLiteral("gpsimd_engine_active_time_percent"), QStringLiteral("GpSimd engine active"),
        QStringLiteral("%"), pct(la.gpsimd), pct(ra.gpsimd), B::Neither);
    add(QStringLiteral("dma_active_time_percent"), QStringLiteral("DMA active"), QStringLiteral("%"), pct(la.dma),
        pct(ra.dma), B::Neither);
    const Evaluation::MemoryTraffic lt = left.memoryTraffic(), rt = right.memoryTraffic();
    add(QStringLiteral("hbm_read_bytes"), QStringLiteral("HBM read"), QStringLiteral("B"), lt.hbmRead, rt.hbmRead, B::Lower);
    add(QStringLiteral("hbm_write_bytes"), QStringLiteral("HBM write"), QStringLiteral("B"), lt.hbmWrite, rt.hbmWrite,
        B::Lower);
    add(QStringLiteral("sbuf_read_bytes"), QStringLiteral("SBUF read"), QStringLiteral("B"), lt.sbufRead, rt.sbufRead,
        B::Lower);
    add(QStringLiteral("sbuf_write_bytes"), QStringLiteral("SBUF write"), QStringLiteral("B"), lt.sbufWrite,
        rt.sbufWrite, B::Lower);
    add(QStringLiteral("psum_read_bytes"), QStringLiteral("PSUM read"), QStringLiteral("B"), lt.psumRead, rt.psumRead,
        B::Lower);
    add(QStringLiteral("psum_write_bytes"), QStringLiteral("PSUM write"), QStringLiteral("B"), lt.psumWrite,
        rt.psumWrite, B::Lower);
    add(QStringLiteral("dma_transfer_count"), QStringLiteral("DMA transfers"), QString(), left.dmaTransferCount(),
        right.dmaTransferCount(), B::Lower);
    add(QStringLiteral("dma_transfer_average_bytes"), QStringLiteral("DMA average size"), QStringLiteral("B"),
        left.dmaAverageBytes(), right.dmaAverageBytes(), B::Higher);
    for (const char *engine : {"tensor", "vector", "scalar", "gpsimd"}) {
        const QString key = QStringLiteral("%1_engine_instruction_count").arg(QLatin1String(engine));
        QString name = QLatin1String(engine);
        name[0] = name[0].toUpper();
        add(key, QStringLiteral("%1 instructions").arg(name == QStringLiteral("Gpsimd") ? QStringLiteral("GpSimd") : name),
            QString(), left.metric(QLatin1StringView(key.toLatin1())), right.metric(QLatin1StringView(key.toLatin1())),
            B::Lower);
    }
    return out;
}

QJsonArray toJson(const QList<MetricDelta> &deltas)
{
    QJsonArray out;
    for (const MetricDelta &d : deltas) {
        QJsonObject o{{QStringLiteral("metric"), d.key},
                      {QStringLiteral("label"), d.label},
                      {QStringLiteral("verdict"), MetricDelta::verdictName(d.verdict())}};
        if (!d.leftText.isEmpty() || !d.rightText.isEmpty()) {
            o.insert(QStringLiteral("left"), d.leftText);
            o.insert(QStringLiteral("right"), d.rightText);
        } else {
            o.insert(QStringLiteral("left"), Evaluation::json(d.left));
            o.insert(QStringLiteral("right"), Evaluation::json(d.right));
            o.insert(QStringLiteral("ratio"), Evaluation::json(d.ratio()));
        }
        out.append(o);
    }
    return out;
}

QString format(const MetricDelta &delta, const std::optional<double> &value)
{
    if (!value)
        return QStringLiteral("—");
    const double v = *value;
    if (delta.unit == QStringLiteral("ms"))
        return QStringLiteral("%1 ms").arg(v, 0, 'g', 4);
    if (delta.unit == QStringLiteral("%"))
        return QStringLiteral("%1 %").arg(v, 0, 'f', 1);
    if (delta.unit == QStringLiteral("B")) {
        static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
        double x = v;
        int u = 0;
        while (std::fabs(x) >= 1024.0 && u < 4) {
            x /= 1024.0;
            ++u;
        }
        return u == 0 ? QStringLiteral("%1 B").arg(qint64(v)) : QStringLiteral("%1 %2").arg(x, 0, 'f', 2).arg(QLatin1String(units[u]));
    }
    return QLocale::c().toString(qint64(std::llround(v)));
}

} // namespace MetricDeltas
