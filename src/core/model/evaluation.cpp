#include "model/evaluation.h"

namespace {
double number(const QJsonObject &o, const char *key, double fallback = -1)
{
    const QJsonValue v = o.value(QLatin1String(key));
    return v.isDouble() ? v.toDouble() : fallback;
}

QJsonValue orNull(double value)
{
    return value < 0 ? QJsonValue(QJsonValue::Null) : QJsonValue(value);
}
} // namespace

Evaluation Evaluation::fromJson(const QJsonObject &o)
{
    Evaluation e;
    e.raw = o;
    e.id = o.value(QStringLiteral("id")).toString();
    e.status = o.value(QStringLiteral("status")).toString();
    if (e.status.isEmpty()) {
        e.status = QStringLiteral("infra_error");
        e.error = QStringLiteral("the runner's result has no status");
    } else {
        e.error = o.value(QStringLiteral("error")).toString();
    }
    const QJsonValue correct = o.value(QStringLiteral("correct"));
    e.correctKnown = correct.isBool();
    e.correct = correct.toBool();
    e.l2RelErr = number(o, "l2_rel_err");
    e.maxAbsErr = number(o, "max_abs_err");
    const QJsonObject latency = o.value(QStringLiteral("latency_ms")).toObject();
    e.latencyMeanMs = number(latency, "mean");
    e.latencyMinMs = number(latency, "min");
    e.latencyMaxMs = number(latency, "max");
    e.latencyP50Ms = number(latency, "p50");
    e.relSpread = number(o, "rel_spread");
    const QJsonObject roofline = o.value(QStringLiteral("roofline")).toObject();
    e.peakMs = number(roofline, "peak_ms");
    e.percentOfPeak = number(roofline, "percent_of_peak");
    e.bound = roofline.value(QStringLiteral("bound")).toString();
    e.metrics = o.value(QStringLiteral("metrics")).toObject();
    e.wallSeconds = number(o, "wall_s");
    return e;
}

Evaluation Evaluation::failure(const QString &id, const QString &status, const QString &error)
{
    Evaluation e;
    e.id = id;
    e.status = status;
    e.error = error;
    return e;
}

QJsonObject Evaluation::summaryJson(const QString &task) const
{
    QJsonObject summary{
        {QStringLiteral("task"), task},
        {QStringLiteral("status"), status},
        {QStringLiteral("error"), error.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(error)},
        {QStringLiteral("correct"), correctKnown ? QJsonValue(correct) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("l2_rel_err"), orNull(l2RelErr)},
        {QStringLiteral("latency_ms"), orNull(latencyMeanMs)},
        {QStringLiteral("percent_of_peak"), orNull(percentOfPeak)},
        {QStringLiteral("peak_ms"), orNull(peakMs)},
        {QStringLiteral("bound"), bound.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(bound)},
        {QStringLiteral("rel_spread"), orNull(relSpread)},
        {QStringLiteral("wall_s"), orNull(wallSeconds)},
        {QStringLiteral("host"), host},
        {QStringLiteral("metrics"), metrics}};
    // Where a slow eval's time and memory went, and what a timing-only eval ran on, as the runner said it;
    // absent from older runners.
    for (const char *key : {"phase_s", "peak_rss_mb", "timing_inputs"}) {
        const QJsonValue v = raw.value(QLatin1String(key));
        if (!v.isUndefined())
            summary.insert(QLatin1String(key), v);
    }
    return summary;
}
