#pragma once

#include <QJsonObject>
#include <QString>

#include <optional>

// The texts a search starts from: the task's numpy reference (what the agents read) and its starting kernel,
// found from the same task reference the runner gets (EvalRequest::task): {"name"} in the shipped tasks
// folder, {"dir"} a task folder, or {"dataset", "name"} a dataset in the original NKIBench layout, where the
// files are found by name (reference/<name>_*.py, kernels/<name>_*_0.py) as the runner's fallback does.
struct TaskSources
{
    QString name;
    QString reference;
    QString kernel;
    QString referencePath;
    QString kernelPath;

    // A task folder's reference file: task.json's "reference" (a file name in the folder), else reference.py.
    static QString referenceFile(const QString &folder);

    // nullopt with `error` saying which file is missing or unreadable and what to pass instead.
    static std::optional<TaskSources> load(const QJsonObject &ref, const QString &tasksDir, QString &error);
};
