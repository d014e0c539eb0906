#include "model/calibration.h"

#include <QHash>
#include <QJsonArray>

#include <algorithm>
#include <cmath>

std::optional<double> CalibrationGroup::rankingMargin() const
{
    if (kernels < 2 || minRatio <= 0)
        return std::nullopt;
    return maxRatio / minRatio - 1.0;
}

double Calibration::median(QList<double> values)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    const qsizetype n = values.size();
    return n % 2 ? values.at(n / 2) : (values.at(n / 2 - 1) + values.at(n / 2)) / 2.0;
}

Calibration Calibration::fromRuns(const QList<CalibrationRun> &runs, const QString &host)
{
    struct Sides
    {
        CalibrationPair pair;
        QList<double> predicted, measured;
        QStringList hosts, sdks;
    };
    QHash<QString, Sides> byKernel; // source hash + target
    QStringList order;
    for (const CalibrationRun &r : runs) {
        if (r.sourceHash.isEmpty() || !(r.latencyMs > 0) || !std::isfinite(r.latencyMs))
            continue;
        if (r.onHardware && !host.isEmpty() && r.host != host)
            continue;
        const QString key = r.sourceHash + u'\n' + r.target;
        if (!byKernel.contains(key))
            order.append(key);
        Sides &s = byKernel[key];
        s.pair.sourceHash = r.sourceHash;
        s.pair.target = r.target;
        if (s.pair.task.isEmpty())
            s.pair.task = r.task;
        if (r.onHardware) {
            s.measured.append(r.latencyMs);
            if (!s.hosts.contains(r.host))
                s.hosts.append(r.host);
            if (!s.sdks.contains(r.sdk))
                s.sdks.append(r.sdk);
        } else {
            s.predicted.append(r.latencyMs);
            if (s.pair.kernelClass.isEmpty())
                s.pair.kernelClass = r.kernelClass;
        }
    }
    Calibration c;
    for (const QString &key : std::as_const(order)) {
        Sides &s = byKernel[key];
        if (s.predicted.isEmpty() || s.measured.isEmpty())
            continue;
        s.pair.predictedMs = median(s.predicted);
        s.pair.measuredMs = median(s.measured);
        s.pair.predictedRuns = int(s.predicted.size());
        s.pair.measuredRuns = int(s.measured.size());
        s.pair.host = s.hosts.join(QStringLiteral(", "));
        s.pair.sdk = s.sdks.join(QStringLiteral(", "));
        if (s.pair.kernelClass.isEmpty())
            s.pair.kernelClass = QStringLiteral("unknown");
        c.m_pairs.append(s.pair);
    }
    QStringList groupOrder;
    QHash<QString, QList<const CalibrationPair *>> byGroup;
    for (const CalibrationPair &p : std::as_const(c.m_pairs)) {
        const QString key = p.kernelClass + u'\n' + p.target;
        if (!byGroup.contains(key))
            groupOrder.append(key);
        byGroup[key].append(&p);
    }
    std::sort(groupOrder.begin(), groupOrder.end());
    for (const QString &key : std::as_const(groupOrder)) {
        const QList<const CalibrationPair *> &members = byGroup.value(key);
        CalibrationGroup g;
        g.kernelClass = members.first()->kernelClass;
        g.target = members.first()->target;
        g.kernels = int(members.size());
        QList<double> errors;
        g.minRatio = g.maxRatio = members.first()->ratio();
        for (const CalibrationPair *p : members) {
            errors.append(std::abs(p->error()));
            g.minRatio = std::min(g.minRatio, p->ratio());
            g.maxRatio = std::max(g.maxRatio, p->ratio());
        }
        g.medianAbsError = median(errors);
        g.worstAbsError = *std::max_element(errors.cbegin(), errors.cend());
        c.m_groups.append(g);
    }
    return c;
}

std::optional<CalibrationGroup> Calibration::group(const QString &kernelClass, const QString &target) const
{
    for (const CalibrationGroup &g : m_groups)
        if (g.kernelClass == kernelClass && g.target == target)
            return g;
    return std::nullopt;
}

double Calibration::margin(const QString &kernelClass, const QString &target) const
{
    const std::optional<CalibrationGroup> g =
        group(kernelClass.isEmpty() ? QStringLiteral("unknown") : kernelClass, target);
    if (!g || g->kernels < 2 || g->minRatio <= 0)
        return defaultMargin;
    double highest = g->maxRatio;
    for (const CalibrationGroup &other : m_groups)
        if (other.target == target)
            highest = std::max(highest, other.maxRatio);
    return highest / g->minRatio - 1.0;
}

QJsonObject Calibration::toJson() const
{
    QJsonArray pairs;
    for (const CalibrationPair &p : m_pairs)
        pairs.append(QJsonObject{{QStringLiteral("source_hash"), p.sourceHash},
                                 {QStringLiteral("task"), p.task},
                                 {QStringLiteral("target"), p.target},
                                 {QStringLiteral("kernel_class"), p.kernelClass},
                                 {QStringLiteral("host"), p.host},
                                 {QStringLiteral("sdk"), p.sdk},
                                 {QStringLiteral("predicted_ms"), p.predictedMs},
                                 {QStringLiteral("measured_ms"), p.measuredMs},
                                 {QStringLiteral("predicted_runs"), p.predictedRuns},
                                 {QStringLiteral("measured_runs"), p.measuredRuns},
                                 {QStringLiteral("error"), p.error()},
                                 {QStringLiteral("ratio"), p.ratio()}});
    QJsonArray groups;
    for (const CalibrationGroup &g : m_groups) {
        const std::optional<double> m = g.rankingMargin();
        groups.append(QJsonObject{{QStringLiteral("kernel_class"), g.kernelClass},
                                  {QStringLiteral("target"), g.target},
                                  {QStringLiteral("kernels"), g.kernels},
                                  {QStringLiteral("median_abs_error"), g.medianAbsError},
                                  {QStringLiteral("worst_abs_error"), g.worstAbsError},
                                  {QStringLiteral("min_ratio"), g.minRatio},
                                  {QStringLiteral("max_ratio"), g.maxRatio},
                                  {QStringLiteral("ranking_margin"), m ? QJsonValue(*m) : QJsonValue()}});
    }
    return QJsonObject{{QStringLiteral("pairs"), pairs},
                       {QStringLiteral("groups"), groups},
                       {QStringLiteral("default_margin"), defaultMargin}};
}
