#pragma once

#include <QJsonObject>
#include <QString>

#include <optional>

// Which task a kernel file belongs to, so Optimize can fill in the task itself: the baseline (or any file)
// of a task folder, a kernel exported by AccelOpt (its provenance header names the task), or a kernel of a
// dataset in the original NKIBench layout (kernels/<task>_*.py next to reference/<task>_*.py).
class TaskDetector
{
public:
    struct Found
    {
        QJsonObject ref; // EvalRequest::task: {"name"}, {"dir"} or {"dataset", "name"}
        QString name;
        QString how; // for people: "the baseline of task silu", ...
    };

    static std::optional<Found> detect(const QString &filePath, const QString &source,
                                       const QString &tasksDir);
};
