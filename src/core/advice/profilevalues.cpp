#include "advice/profilevalues.h"

#include "model/evaluation.h"

#include <QList>

#include <algorithm>
#include <cmath>

namespace {
struct Derived
{
    QString name;
    ValueUnit::Kind unit;
    QString meaning;
};

const QList<Derived> &derivedTable()
{
    static const QList<Derived> list{
        {QStringLiteral("percent_of_peak"), ValueUnit::Percent,
         QStringLiteral("the roofline peak's time as a percentage 0-100 of the measured latency")},
        {QStringLiteral("latency_ms"), ValueUnit::Milliseconds, QStringLiteral("mean latency of one run")},
        {QStringLiteral("hbm_bytes"), ValueUnit::Bytes, QStringLiteral("hbm_read_bytes + hbm_write_bytes")},
        {QStringLiteral("spill_bytes"), ValueUnit::Bytes,
         QStringLiteral("spill_save_bytes + spill_reload_bytes")},
        {QStringLiteral("spill_share_of_sbuf_traffic"), ValueUnit::Fraction,
         QStringLiteral("spill_bytes / (sbuf_read_bytes + sbuf_write_bytes)")},
        {QStringLiteral("matmul_flops"), ValueUnit::Flop,
         QStringLiteral("hardware_flops - transpose_flops: the tensor engine's useful work")},
        {QStringLiteral("busiest_engine_active"), ValueUnit::Fraction,
         QStringLiteral("the largest active-time fraction of the tensor, vector, scalar and GpSimd engines")},
        {QStringLiteral("vector_average_instruction_ns"), ValueUnit::Nanoseconds,
         QStringLiteral("vector_engine_active_time / vector_engine_instruction_count")},
        {QStringLiteral("scalar_average_instruction_ns"), ValueUnit::Nanoseconds,
         QStringLiteral("scalar_engine_active_time / scalar_engine_instruction_count")},
    };
    return list;
}

std::optional<double> sum(std::optional<double> a, std::optional<double> b)
{
    if (!a && !b)
        return std::nullopt;
    return a.value_or(0) + b.value_or(0);
}

std::optional<double> quotient(std::optional<double> a, std::optional<double> b)
{
    if (!a || !b || *b <= 0)
        return std::nullopt;
    return *a / *b;
}
} // namespace

ProfileValues::ProfileValues(const Evaluation &evaluation)
    : m_metrics(evaluation.metrics), m_bound(evaluation.bound), m_percentOfPeak(evaluation.percentOfPeak),
      m_latencyMs(evaluation.latencyMeanMs)
{
}

bool ProfileValues::isEmpty() const
{
    return m_metrics.isEmpty() && !m_percentOfPeak && m_bound.isEmpty();
}

std::optional<double> ProfileValues::value(const QString &name) const
{
    return isDerived(name) ? derived(name) : metric(name);
}

std::optional<double> ProfileValues::metric(const QString &name) const
{
    const QJsonValue v = m_metrics.value(name);
    if (!v.isDouble() || !std::isfinite(v.toDouble()))
        return std::nullopt;
    return v.toDouble();
}

std::optional<double> ProfileValues::derived(const QString &name) const
{
    auto m = [this](const QString &metricName) { return metric(metricName); };
    auto engine = [](const char *engineName, const char *suffix) {
        return QString::fromLatin1(engineName) + QString::fromLatin1(suffix);
    };
    if (name == QStringLiteral("percent_of_peak"))
        return m_percentOfPeak;
    if (name == QStringLiteral("latency_ms"))
        return m_latencyMs && *m_latencyMs > 0 ? m_latencyMs : std::nullopt;
    if (name == QStringLiteral("hbm_bytes"))
        return sum(m(QStringLiteral("hbm_read_bytes")), m(QStringLiteral("hbm_write_bytes")));
    if (name == QStringLiteral("spill_bytes"))
        return sum(m(QStringLiteral("spill_save_bytes")), m(QStringLiteral("spill_reload_bytes")));
    if (name == QStringLiteral("spill_share_of_sbuf_traffic"))
        return quotient(derived(QStringLiteral("spill_bytes")),
                        sum(m(QStringLiteral("sbuf_read_bytes")), m(QStringLiteral("sbuf_write_bytes"))));
    if (name == QStringLiteral("matmul_flops")) {
        const auto all = m(QStringLiteral("hardware_flops"));
        if (!all)
            return std::nullopt;
        return *all - m(QStringLiteral("transpose_flops")).value_or(0);
    }
    if (name == QStringLiteral("busiest_engine_active")) {
        std::optional<double> best;
        for (const char *e : {"tensor", "vector", "scalar", "gpsimd"})
            if (const auto v = m(engine(e, "_engine_active_time_percent")))
                best = std::max(best.value_or(*v), *v);
        return best;
    }
    for (const char *e : {"vector", "scalar"})
        if (name == engine(e, "_average_instruction_ns")) {
            const auto perInstruction =
                quotient(m(engine(e, "_engine_active_time")), m(engine(e, "_engine_instruction_count")));
            if (!perInstruction)
                return std::nullopt;
            return *perInstruction * 1e9;
        }
    return std::nullopt;
}

QStringList ProfileValues::derivedNames()
{
    QStringList out;
    for (const Derived &d : derivedTable())
        out << d.name;
    return out;
}

bool ProfileValues::isDerived(const QString &name)
{
    return derivedUnit(name).has_value();
}

std::optional<ValueUnit::Kind> ProfileValues::derivedUnit(const QString &name)
{
    for (const Derived &d : derivedTable())
        if (d.name == name)
            return d.unit;
    return std::nullopt;
}

QString ProfileValues::describeDerived(const QString &name)
{
    for (const Derived &d : derivedTable())
        if (d.name == name)
            return d.meaning;
    return {};
}
