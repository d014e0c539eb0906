#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

// One evaluation job as the runner protocol's "eval" op carries it (nkibench/runner/README.md, "Protocol").
// The task is a reference the host resolves: {"name": "silu"} (the host's own nkibench/tasks), {"dir":
// "/abs/task/folder"}, or {"dataset": "/abs/nkibench-layout", "name": "silu"} for a dataset in the original
// NKIBench layout.
struct EvalRequest
{
    QJsonObject task;
    QString kernelSource;
    QString kernelName; // for messages: the file the kernel came from
    QString backend = QStringLiteral("sim");
    QString target = QStringLiteral("trn1");
    QString size = QStringLiteral("full"); // "full" or "small" parameter set
    QList<int> seeds;                      // empty: the runner's default
    double relTol = 0.0;                   // 0: the task's own tolerance
    int warmup = -1;                       // <0: runner default
    int iters = -1;
    double timeoutSeconds = 600.0;
    bool timingOnly = false;
    int timelineCap = 0; // instructions of the timeline to send back; 0: none (the line costs always come)

    QJsonObject toJson(const QString &id) const;
    // The wall-clock limit when the user sets none: 600 s, or for a full-size numeric run 300 s + 600 s per
    // correctness seed (each seed runs the float64 reference and the kernel at full size; the runner's own
    // default follows the same rule and draws 3 seeds when none are given).
    double defaultTimeoutSeconds() const;

    // The range the runner accepts for timeout_s (nkibench/runner: 0.5 s to 7 days). A value outside it, or
    // NaN or infinity, is refused here: the pool's watchdog is derived from it and cannot wait forever.
    static constexpr double minTimeoutSeconds = 0.5;
    static constexpr double maxTimeoutSeconds = 7 * 86400.0;
    // Parses a --timeout style value; false with `error` naming `option` and the accepted range.
    static bool parseTimeout(const QString &text, const QString &option, double &seconds, QString &error);
};
