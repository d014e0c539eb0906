#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

// The tasks found under a tasks folder (nkibench/tasks by default): one sub-folder per task, holding
// task.json, reference.py and baseline.py (the classic NKI API), and baseline_current.py (the current `nki`
// API) where it has one. A folder with a broken task.json is still listed, with the
// problem in `problem`, so the user sees why it cannot be used instead of it silently vanishing.
class TaskCatalog
{
public:
    struct Entry
    {
        QString name;        // task.json "name", else the folder name
        QString folder;      // absolute path of the task folder
        QString kernelPath;  // baseline.py, the kernel a task opens with; empty if missing
        QString currentKernelPath; // baseline_current.py; empty if the task has none
        QString description; // task.json "description", may be empty
        QString problem;     // empty when the task looks usable
        QString origin;      // "project", "user" or "shipped" (TaskLocations)
        QString originDir;   // the folder of task folders it was found in

        // As in an eval request: {"name"} for a shipped task, {"dir"} for the others.
        QJsonObject ref() const;
    };

    static QList<Entry> scan(const QString &tasksDir, const QString &origin = QStringLiteral("shipped"));
    // Every task the program can see from a file at nearPath (empty: none of a project), nearest place first
    // (TaskLocations::search): a project's, the user's, then the shipped ones.
    static QList<Entry> scanAll(const QString &shippedDir, const QString &nearPath);
    // A task folder's name for people: task.json "name", else the folder's name (as Entry::name).
    static QString nameOf(const QString &folder);
    // The first task named `name` in scanAll's order.
    static std::optional<Entry> find(const QString &name, const QString &shippedDir, const QString &nearPath);
};
