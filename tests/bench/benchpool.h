#pragma once

#include "hosts/hostpool.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QTimer>

#include <algorithm>

// What the host benchmarks share: the trivial evaluation they time, a pool started with every slot greeted,
// and the wall time of one evaluation on it. Header-only, like tests/common/loopbackhost.h.
namespace BenchPool {

// silu's baseline at the small size, timing only: tens of ms, so the host's own overhead shows.
inline EvalRequest trivialEval()
{
    EvalRequest r;
    r.task = {{QStringLiteral("name"), QStringLiteral("silu")}};
    QFile f(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py"));
    f.open(QIODevice::ReadOnly);
    r.kernelSource = QString::fromUtf8(f.readAll());
    r.size = QStringLiteral("small");
    r.timingOnly = true;
    r.timeoutSeconds = 60;
    return r;
}

inline void startAndWarm(HostPool &pool, int slotCount)
{
    pool.start();
    QEventLoop loop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (pool.liveSlotCount() == slotCount)
            loop.quit();
    });
    poll.start(20);
    loop.exec();
}

inline double median(QList<double> v)
{
    std::sort(v.begin(), v.end());
    return v.isEmpty() ? 0 : v.at(v.size() / 2);
}

// Wall time (ms) of one evaluation on a started pool whose slot is already warm.
inline double timedEval(HostPool &pool)
{
    QEventLoop loop;
    QElapsedTimer clock;
    Evaluation result;
    auto c = QObject::connect(&pool, &HostPool::evaluationFinished, &loop, [&](quint64, const Evaluation &e) {
        result = e;
        loop.quit();
    });
    clock.start();
    pool.submit(trivialEval());
    loop.exec();
    QObject::disconnect(c);
    if (!result.ok())
        qFatal("evaluation failed: %s", qPrintable(result.error));
    return clock.nsecsElapsed() / 1e6;
}

} // namespace BenchPool
