#include "model/evalrequest.h"

#include <QJsonArray>

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
