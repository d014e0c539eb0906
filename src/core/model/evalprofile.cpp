#include "model/evalprofile.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace {
const std::array<QLatin1StringView, EvalProfile::EngineCount> names{
    QLatin1StringView("tensor"), QLatin1StringView("vector"), QLatin1StringView("scalar"),
    QLatin1StringView("gpsimd"), QLatin1StringView("dma")};

bool fail(QString *error, const QString &why)
{
    if (error)
        *error = QStringLiteral("the profile is malformed: ") + why;
    return false;
}

// A column of the timeline: `count` numbers, each finite and, where it must be, within [0, limit).
template<typename T>
bool column(const QJsonObject &o, const char *key, int count, QList<T> &out, QString *error, double limit = -1)
{
    const QJsonArray a = o.value(QLatin1StringView(key)).toArray();
    if (a.size() != count)
        return fail(error, QStringLiteral("timeline.%1 has %2 entries for %3 events").arg(QLatin1StringView(key)).arg(a.size()).arg(count));
    out.reserve(count);
    for (const QJsonValue &v : a) {
        const double d = v.toDouble(std::nan(""));
        if (!std::isfinite(d) || d < 0 || (limit >= 0 && d >= limit))
            return fail(error, QStringLiteral("timeline.%1 holds %2").arg(QLatin1StringView(key), v.toVariant().toString()));
        out.append(static_cast<T>(d));
    }
    return true;
}

bool engineTimes(const QJsonObject &o, EvalProfile::EngineTimes &out)
{
    for (int e = 0; e < EvalProfile::EngineCount; ++e) {
        const double d = o.value(names[e]).toDouble(0.0);
        if (!std::isfinite(d) || d < 0)
            return false;
        out[e] = d;
    }
    return true;
}
} // namespace

QString EvalProfile::engineName(int engine)
{
    return engine >= 0 && engine < EngineCount ? QString(names[engine]) : QString();
}

QString EvalProfile::engineLabel(int engine)
{
    static const QStringList labels{QStringLiteral("Tensor"), QStringLiteral("Vector"), QStringLiteral("Scalar"),
                                    QStringLiteral("GpSimd"), QStringLiteral("DMA")};
    return labels.value(engine);
}

double EvalProfile::LineCost::totalNs() const
{
    double t = 0;
    for (double v : ns)
        t += v;
    return t;
}

double EvalProfile::Timeline::endNs() const
{
    double end = 0;
    for (int i = 0; i < count(); ++i)
        end = std::max(end, startNs.at(i) + durNs.at(i));
    return end;
}

int EvalProfile::Timeline::engineOfUnit(const QString &unit)
{
    if (unit.startsWith(QLatin1StringView("dma")))
        return Dma;
    for (int e = 0; e < Dma; ++e)
        if (unit == names[e])
            return e;
    return -1;
}

std::optional<EvalProfile> EvalProfile::fromJson(const QJsonValue &value, QString *error)
{
    if (error)
        error->clear();
    if (!value.isObject())
        return std::nullopt;
    const QJsonObject o = value.toObject();
    EvalProfile p;
    p.source = o.value(QStringLiteral("source")).toString();
    p.available = o.value(QStringLiteral("available")).toBool();
    const QJsonObject missing = o.value(QStringLiteral("missing")).toObject();
    for (auto it = missing.begin(); it != missing.end(); ++it)
        p.missing.insert(it.key(), it.value().toString());
    p.instructionCount = qint64(o.value(QStringLiteral("instruction_count")).toDouble());
    if (!engineTimes(o.value(QStringLiteral("engine_busy_ns")).toObject(), p.engineBusyNs)) {
        fail(error, QStringLiteral("engine_busy_ns holds a negative or non-numeric time"));
        return std::nullopt;
    }
    for (const QJsonValue &v : o.value(QStringLiteral("line_costs")).toArray()) {
        const QJsonObject c = v.toObject();
        LineCost cost;
        cost.line = c.value(QStringLiteral("line")).toInt(-1);
        cost.instructions = qint64(c.value(QStringLiteral("instructions")).toDouble(-1));
        cost.bytes = qint64(c.value(QStringLiteral("bytes")).toDouble(-1));
        if (cost.line < 0 || cost.instructions < 0 || cost.bytes < 0 ||
            !engineTimes(c.value(QStringLiteral("ns")).toObject(), cost.ns)) {
            fail(error, QStringLiteral("a line cost is incomplete or negative"));
            return std::nullopt;
        }
        p.lineCosts.append(cost);
    }
    std::sort(p.lineCosts.begin(), p.lineCosts.end(), [](const LineCost &a, const LineCost &b) { return a.line < b.line; });

    const QJsonValue tv = o.value(QStringLiteral("timeline"));
    if (tv.isObject()) {
        const QJsonObject t = tv.toObject();
        Timeline tl;
        for (const QJsonValue &u : t.value(QStringLiteral("units")).toArray())
            tl.units << u.toString();
        for (const QJsonValue &u : t.value(QStringLiteral("ops")).toArray())
            tl.ops << u.toString();
        tl.truncated = t.value(QStringLiteral("truncated")).toBool();
        const int count = int(t.value(QStringLiteral("start_ns")).toArray().size());
        if (!column(t, "unit", count, tl.unit, error, double(tl.units.size())) ||
            !column(t, "op", count, tl.op, error, double(tl.ops.size())) ||
            !column(t, "line", count, tl.line, error) || !column(t, "start_ns", count, tl.startNs, error) ||
            !column(t, "dur_ns", count, tl.durNs, error) ||
            !column(t, "partitions", count, tl.partitions, error) ||
            !column(t, "free", count, tl.freeElems, error) || !column(t, "bytes", count, tl.bytes, error))
            return std::nullopt;
        p.timeline = std::move(tl);
    }
    QString why;
    p.explanation = EstimateExplanation::fromJson(o.value(QStringLiteral("explain")), &why);
    if (!why.isEmpty()) {
        fail(error, why);
        return std::nullopt;
    }
    return p;
}

QJsonArray EvalProfile::lineCostsJson() const
{
    QJsonArray out;
    for (const LineCost &c : lineCosts) {
        QJsonObject ns;
        for (int e = 0; e < EngineCount; ++e)
            ns.insert(names[e], c.ns[e]);
        out.append(QJsonObject{{QStringLiteral("line"), c.line},
                               {QStringLiteral("ns"), ns},
                               {QStringLiteral("instructions"), c.instructions},
                               {QStringLiteral("bytes"), c.bytes}});
    }
    return out;
}

double EvalProfile::totalLineNs() const
{
    double t = 0;
    for (const LineCost &c : lineCosts)
        t += c.totalNs();
    return t;
}

QList<EvalProfile::LineCost> EvalProfile::hottest(int count) const
{
    QList<LineCost> lines;
    for (const LineCost &c : lineCosts)
        if (c.line > 0 && c.totalNs() > 0)
            lines << c;
    std::stable_sort(lines.begin(), lines.end(),
                     [](const LineCost &a, const LineCost &b) { return a.totalNs() > b.totalNs(); });
    return lines.mid(0, count);
}

const EvalProfile::LineCost *EvalProfile::costOfLine(int line) const
{
    const auto it = std::lower_bound(lineCosts.cbegin(), lineCosts.cend(), line,
                                     [](const LineCost &c, int l) { return c.line < l; });
    return it != lineCosts.cend() && it->line == line ? &*it : nullptr;
}
