#include "advice/valueunit.h"

#include "advice/profilevalues.h"

#include <QList>
#include <QPair>

#include <cmath>

namespace {
const QList<QPair<QString, ValueUnit::Kind>> &table()
{
    static const QList<QPair<QString, ValueUnit::Kind>> list{
        {QStringLiteral("number"), ValueUnit::Number},
        {QStringLiteral("bytes"), ValueUnit::Bytes},
        {QStringLiteral("fraction"), ValueUnit::Fraction},
        {QStringLiteral("percent"), ValueUnit::Percent},
        {QStringLiteral("count"), ValueUnit::Count},
        {QStringLiteral("flop"), ValueUnit::Flop},
        {QStringLiteral("flop_per_byte"), ValueUnit::FlopPerByte},
        {QStringLiteral("ratio"), ValueUnit::Ratio},
        {QStringLiteral("seconds"), ValueUnit::Seconds},
        {QStringLiteral("ms"), ValueUnit::Milliseconds},
        {QStringLiteral("ns"), ValueUnit::Nanoseconds},
    };
    return list;
}

// Three significant digits without exponents for the magnitudes profiles have: 2.5, 12.3, 4096, 0.0156.
QString compact(double v)
{
    const double a = std::abs(v);
    if (a >= 100)
        return QString::number(std::llround(v));
    return QString::number(v, 'g', 3);
}

QString scaled(double v, double base, const QStringList &prefixes, const QString &suffix)
{
    int i = 0;
    while (i + 1 < prefixes.size() && std::abs(v) >= base) {
        v /= base;
        ++i;
    }
    return compact(v) + prefixes.at(i) + suffix;
}
} // namespace

std::optional<ValueUnit::Kind> ValueUnit::fromName(const QString &name)
{
    for (const auto &[n, kind] : table())
        if (n == name)
            return kind;
    return std::nullopt;
}

QStringList ValueUnit::names()
{
    QStringList out;
    for (const auto &entry : table())
        out << entry.first;
    return out;
}

ValueUnit::Kind ValueUnit::forValue(const QString &valueName)
{
    if (const auto derived = ProfileValues::derivedUnit(valueName))
        return *derived;
    if (valueName == QStringLiteral("mm_arithmetic_intensity") ||
        valueName == QStringLiteral("peak_flops_bandwidth_ratio"))
        return FlopPerByte;
    static const QList<QPair<QString, Kind>> suffixes{
        {QStringLiteral("_bytes"), Bytes},    {QStringLiteral("_percent"), Fraction},
        {QStringLiteral("_count"), Count},    {QStringLiteral("_flops"), Flop},
        {QStringLiteral("_time"), Seconds},   {QStringLiteral("_ms"), Milliseconds},
        {QStringLiteral("_ns"), Nanoseconds}, {QStringLiteral("_cycles"), Count},
    };
    for (const auto &[suffix, kind] : suffixes)
        if (valueName.endsWith(suffix))
            return kind;
    return Number;
}

QString ValueUnit::format(double value, Kind kind)
{
    if (std::isnan(value))
        return QStringLiteral("?");
    if (std::isinf(value))
        return value > 0 ? QStringLiteral("∞") : QStringLiteral("-∞");
    switch (kind) {
    case Number:
        return compact(value);
    case Bytes:
        if (std::abs(value) < 1024)
            return QString::number(std::llround(value)) + QStringLiteral(" B");
        return scaled(
            value / 1024, 1024,
            {QStringLiteral(" Ki"), QStringLiteral(" Mi"), QStringLiteral(" Gi"), QStringLiteral(" Ti")},
            QStringLiteral("B"));
    case Fraction:
        return compact(value * 100) + u'%';
    case Percent:
        return compact(value) + u'%';
    case Count:
        return QString::number(std::llround(value));
    case Flop:
        return scaled(value, 1000,
                      {QStringLiteral(" "), QStringLiteral(" k"), QStringLiteral(" M"), QStringLiteral(" G"),
                       QStringLiteral(" T"), QStringLiteral(" P")},
                      QStringLiteral("FLOP"));
    case FlopPerByte:
        return compact(value) + QStringLiteral(" FLOP/B");
    case Ratio:
        return compact(value) + u'x';
    case Seconds: {
        const double a = std::abs(value);
        if (a >= 1 || a == 0)
            return compact(value) + QStringLiteral(" s");
        if (a >= 1e-3)
            return compact(value * 1e3) + QStringLiteral(" ms");
        if (a >= 1e-6)
            return compact(value * 1e6) + QStringLiteral(" µs");
        return compact(value * 1e9) + QStringLiteral(" ns");
    }
    case Milliseconds:
        return compact(value) + QStringLiteral(" ms");
    case Nanoseconds:
        return compact(value) + QStringLiteral(" ns");
    }
    return compact(value);
}
