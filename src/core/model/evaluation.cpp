#include "model/evaluation.h"

#include <QJsonArray>

#include <cmath>

namespace {
std::optional<double> number(const QJsonObject &o, QLatin1StringView key)
{
    const QJsonValue v = o.value(key);
    if (!v.isDouble() || !std::isfinite(v.toDouble()))
        return std::nullopt;
    return v.toDouble();
}
} // namespace

QJsonValue Evaluation::json(const std::optional<double> &value)
{
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

QJsonValue Evaluation::json(const std::optional<bool> &value)
{
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

std::optional<double> Evaluation::metric(QLatin1StringView name) const
{
    return number(metrics, name);
}

Evaluation::EngineActivity Evaluation::engineActivity() const
{
    auto active = [this](const char *engine) {
        return metric(QLatin1StringView(QByteArray(engine) + "_active_time_percent"));
    };
    return {active("tensor_engine"), active("vector_engine"), active("scalar_engine"),
            active("gpsimd_engine"), active("dma")};
}

Evaluation::MemoryTraffic Evaluation::memoryTraffic() const
{
    auto bytes = [this](const char *name) { return metric(QLatin1StringView(name)); };
    return {bytes("hbm_read_bytes"),   bytes("hbm_write_bytes"), bytes("sbuf_read_bytes"),
            bytes("sbuf_write_bytes"), bytes("psum_read_bytes"), bytes("psum_write_bytes")};
}

Evaluation Evaluation::fromJson(const QJsonObject &o)
{
    Evaluation e;
    e.raw = o;
    e.id = o.value(QStringLiteral("id")).toString();
    const QString status = o.value(QStringLiteral("status")).toString();
    const std::optional<EvalStatus> known = EvalStatuses::fromName(status);
    if (status.isEmpty()) {
        e.status = EvalStatus::InfraError;
        e.error = QStringLiteral("the runner's result has no status");
    } else if (!known) {
        e.status = EvalStatus::InfraError;
        e.error = QStringLiteral("the runner reported an unknown status '%1' (is it newer than this "
                                 "workbench?)")
                      .arg(status.left(40));
    } else {
        e.status = *known;
        e.error = o.value(QStringLiteral("error")).toString();
    }
    const QJsonValue correct = o.value(QStringLiteral("correct"));
    if (correct.isBool())
        e.correct = correct.toBool();
    e.l2RelErr = number(o, QLatin1StringView("l2_rel_err"));
    e.maxAbsErr = number(o, QLatin1StringView("max_abs_err"));
    const QJsonObject latency = o.value(QStringLiteral("latency_ms")).toObject();
    e.latencyMeanMs = number(latency, QLatin1StringView("mean"));
    e.latencyMinMs = number(latency, QLatin1StringView("min"));
    e.latencyMaxMs = number(latency, QLatin1StringView("max"));
    e.latencyP50Ms = number(latency, QLatin1StringView("p50"));
    e.relSpread = number(o, QLatin1StringView("rel_spread"));
    const QJsonObject roofline = o.value(QStringLiteral("roofline")).toObject();
    e.peakMs = number(roofline, QLatin1StringView("peak_ms"));
    e.percentOfPeak = number(roofline, QLatin1StringView("percent_of_peak"));
    e.bound = roofline.value(QStringLiteral("bound")).toString();
    for (const QJsonValue &w : o.value(QStringLiteral("warnings")).toArray())
        if (w.isString() && !w.toString().isEmpty())
            e.warnings.append(w.toString().left(2000));
    e.metrics = o.value(QStringLiteral("metrics")).toObject();
    e.backend = o.value(QStringLiteral("backend")).toString().left(40);
    e.sdk = o.value(QStringLiteral("sdk")).toString().left(200);
    e.wallSeconds = number(o, QLatin1StringView("wall_s"));
    e.profile = profileFrom(e.raw);
    // Physics, whoever sent the result (an old runner, a host of someone else's): nothing runs above the
    // hardware's peak, so such a result is a forged or broken measurement, never a win.
    if (e.status == EvalStatus::Ok && e.percentOfPeak && *e.percentOfPeak > 100.0) {
        e.status = EvalStatus::Rejected;
        e.error = QStringLiteral("impossible: %1 % of peak (%2 ms against a peak time of %3 ms); no kernel "
                                 "exceeds 100 % of peak, so this measurement is forged or broken")
                      .arg(*e.percentOfPeak, 0, 'g', 4)
                      .arg(e.latencyMeanMs.value_or(0.0), 0, 'g', 4)
                      .arg(e.peakMs.value_or(0.0), 0, 'g', 4);
    }
    return e;
}

EvalProfilePtr Evaluation::profileFrom(QJsonObject &raw)
{
    QString error;
    std::optional<EvalProfile> parsed = EvalProfile::fromJson(raw.value(QStringLiteral("profile")), &error);
    if (!error.isEmpty())
        raw.insert(QStringLiteral("profile_error"), error);
    // The timeline lives on in the parsed profile only: raw is what the workspace stores, and a timeline of
    // 100,000 events does not belong in every stored row.
    QJsonObject stored = raw.value(QStringLiteral("profile")).toObject();
    if (stored.contains(QStringLiteral("timeline"))) {
        stored.remove(QStringLiteral("timeline"));
        raw.insert(QStringLiteral("profile"), stored);
    }
    return parsed ? std::make_shared<const EvalProfile>(std::move(*parsed)) : nullptr;
}

Evaluation Evaluation::failure(const QString &id, EvalStatus status, const QString &error)
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
        {QStringLiteral("status"), statusName()},
        {QStringLiteral("error"), error.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(error)},
        {QStringLiteral("correct"), json(correct)},
        {QStringLiteral("l2_rel_err"), json(l2RelErr)},
        {QStringLiteral("latency_ms"), json(latencyMeanMs)},
        {QStringLiteral("percent_of_peak"), json(percentOfPeak)},
        {QStringLiteral("peak_ms"), json(peakMs)},
        {QStringLiteral("bound"), bound.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(bound)},
        {QStringLiteral("rel_spread"), json(relSpread)},
        {QStringLiteral("wall_s"), json(wallSeconds)},
        {QStringLiteral("host"), host},
        {QStringLiteral("backend"), backend},
        {QStringLiteral("sdk"), sdk},
        {QStringLiteral("provenance"), provenance()},
        {QStringLiteral("metrics"), metrics},
        {QStringLiteral("warnings"), QJsonArray::fromStringList(warnings)}};
    // Where a slow eval's time and memory went, and what a timing-only eval ran on, as the runner said it;
    // absent from older runners.
    if (profile && !profile->lineCosts.isEmpty())
        summary.insert(QStringLiteral("line_costs"), profile->lineCostsJson());
    if (profile && profile->explanation)
        summary.insert(QStringLiteral("explain"),
                       raw.value(QStringLiteral("profile")).toObject().value(QStringLiteral("explain")));
    // What the kernel (and the task's reference) printed: a user debugging a kernel needs it in --json too.
    for (const char *key : {"phase_s", "peak_rss_mb", "timing_inputs", "output"}) {
        const QJsonValue v = raw.value(QLatin1String(key));
        if (!v.isUndefined())
            summary.insert(QLatin1String(key), v);
    }
    return summary;
}

double Evaluation::rooflineFigure(const char *key) const
{
    return raw.value(QStringLiteral("roofline")).toObject().value(QLatin1StringView(key)).toDouble(0.0);
}

QString Evaluation::provenance() const
{
    if (backend.isEmpty())
        return {};
    return onHardware() ? QStringLiteral("hardware") : QStringLiteral("nkisim");
}

QString Evaluation::provenanceText() const
{
    const QString what = provenance().isEmpty() ? QStringLiteral("unknown backend") : provenance();
    const QString tool = onHardware() && !sdk.isEmpty() ? QStringLiteral(" (%1)").arg(sdk) : QString();
    const QString where = hostName().isEmpty() ? QString() : QStringLiteral(" on %1").arg(hostName());
    return what + tool + where;
}
