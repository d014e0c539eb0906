#include "agents/profileglossary.h"

#include <QList>
#include <QPair>
#include <QStringList>

namespace {
// Our own short explanations, in the order we show metrics.
const QList<QPair<QString, QString>> &entries()
{
    static const QList<QPair<QString, QString>> list{
        {QStringLiteral("latency_ms"),
         QStringLiteral("mean time of one kernel run on the device, in milliseconds")},
        {QStringLiteral("hbm_read_bytes"),
         QStringLiteral("bytes DMA moved from device memory (HBM) into on-chip memory")},
        {QStringLiteral("hbm_write_bytes"),
         QStringLiteral("bytes DMA moved from on-chip memory back to HBM")},
        {QStringLiteral("sbuf_read_bytes"),
         QStringLiteral("bytes read from the state buffer (SBUF) by DMA and engines")},
        {QStringLiteral("sbuf_write_bytes"), QStringLiteral("bytes written to SBUF by DMA and engines")},
        {QStringLiteral("psum_read_bytes"),
         QStringLiteral("bytes engines read from the matmul accumulation buffer (PSUM)")},
        {QStringLiteral("psum_write_bytes"), QStringLiteral("bytes engines wrote to PSUM")},
        {QStringLiteral("spill_save_bytes"),
         QStringLiteral("intermediate bytes spilled from SBUF to HBM for lack of room")},
        {QStringLiteral("spill_reload_bytes"), QStringLiteral("spilled bytes loaded back into SBUF")},
        {QStringLiteral("hardware_flops"),
         QStringLiteral("floating-point operations the tensor engine executed, transposes "
                        "included; a multiply-add counts as two")},
        {QStringLiteral("transpose_flops"), QStringLiteral("the part of hardware_flops spent on transposes")},
        {QStringLiteral("mm_arithmetic_intensity"),
         QStringLiteral("matmul FLOPs per byte of HBM traffic; low means "
                        "the kernel is bound by memory")},
        {QStringLiteral("hfu_estimated_percent"),
         QStringLiteral("tensor-engine FLOP utilization as a fraction 0-1 of "
                        "its peak over the run")},
        {QStringLiteral("tensor_engine_active_time_percent"),
         QStringLiteral("fraction 0-1 of the run the tensor (matmul) "
                        "engine was busy")},
        {QStringLiteral("vector_engine_active_time_percent"),
         QStringLiteral("fraction 0-1 of the run the vector engine "
                        "was busy")},
        {QStringLiteral("scalar_engine_active_time_percent"),
         QStringLiteral("fraction 0-1 of the run the scalar "
                        "(activation) engine was busy")},
        {QStringLiteral("gpsimd_engine_active_time_percent"),
         QStringLiteral("fraction 0-1 of the run the GpSimd engine "
                        "was busy")},
        {QStringLiteral("dma_active_time_percent"),
         QStringLiteral("fraction 0-1 of the run at least one DMA queue was "
                        "moving data")},
    };
    return list;
}

QString number(const QJsonValue &v)
{
    if (!v.isDouble())
        return v.toVariant().toString();
    const double d = v.toDouble();
    if (d == double(qint64(d)) && std::abs(d) < 1e15)
        return QString::number(qint64(d));
    return QString::number(d, 'g', 6);
}
} // namespace

QString ProfileGlossary::describe(const QString &metric)
{
    for (const auto &[name, text] : entries())
        if (name == metric)
            return text;
    return {};
}

QString ProfileGlossary::glossaryFor(const QJsonObject &metrics)
{
    QStringList lines;
    for (const auto &[name, text] : entries())
        if (name == QStringLiteral("latency_ms") || metrics.contains(name))
            lines << QStringLiteral("- %1: %2").arg(name, text);
    return lines.join(u'\n');
}

QString ProfileGlossary::format(std::optional<double> latencyMs, const QJsonObject &metrics)
{
    QStringList lines;
    if (latencyMs && *latencyMs >= 0)
        lines << QStringLiteral("latency_ms: %1").arg(*latencyMs, 0, 'g', 6);
    QStringList shown;
    for (const auto &[name, text] : entries())
        if (metrics.contains(name)) {
            lines << QStringLiteral("%1: %2").arg(name, number(metrics.value(name)));
            shown << name;
        }
    for (auto it = metrics.begin(); it != metrics.end(); ++it)
        if (!shown.contains(it.key()) && (it.value().isDouble() || it.value().isString()))
            lines << QStringLiteral("%1: %2").arg(it.key(), number(it.value()));
    if (lines.isEmpty())
        return QStringLiteral("(no profile available)");
    return lines.join(u'\n');
}
