#include "model/evalrequest.h"

#include <QJsonArray>

#include <cmath>

QJsonObject EvalRequest::toJson(const QString &id) const
{
    QJsonObject o{{QStringLiteral("op"), QStringLiteral("eval")},
                  {QStringLiteral("id"), id},
                  {QStringLiteral("task"), task},
                  {QStringLiteral("kernel"), kernelSource},
                  {QStringLiteral("backend"), backend},
                  {QStringLiteral("target"), target},
                  {QStringLiteral("size"), size},
                  {QStringLiteral("timeout_s"), timeoutSeconds},
                  {QStringLiteral("timing_only"), timingOnly}};
    if (!seeds.isEmpty()) {
        QJsonArray array;
        for (int seed : seeds)
            array.append(seed);
        o.insert(QStringLiteral("seeds"), array);
    }
    if (relTol > 0)
        o.insert(QStringLiteral("rel_tol"), relTol);
    if (warmup >= 0)
        o.insert(QStringLiteral("warmup"), warmup);
    if (iters >= 0)
        o.insert(QStringLiteral("iters"), iters);
    if (timelineCap > 0)
        o.insert(QStringLiteral("timeline_cap"), timelineCap);
    return o;
}

double EvalRequest::defaultTimeoutSeconds() const
{
    if (timingOnly || size != QStringLiteral("full"))
        return 600.0;
    const qsizetype n = seeds.isEmpty() ? 3 : seeds.size();
    return 300.0 + 600.0 * double(n);
}

bool EvalRequest::parseTimeout(const QString &text, const QString &option, double &seconds, QString &error)
{
    bool ok = false;
    const double value = text.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(value) || value < minTimeoutSeconds || value > maxTimeoutSeconds) {
        error = QStringLiteral("%1 must be a number of seconds from %2 to %3 (7 days), not '%4'")
                    .arg(option)
                    .arg(minTimeoutSeconds)
                    .arg(maxTimeoutSeconds, 0, 'f', 0)
                    .arg(text);
        return false;
    }
    seconds = value;
    return true;
}
