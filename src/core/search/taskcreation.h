#pragma once

#include "model/taskdraft.h"
#include "search/taskcheck.h"

#include <QObject>

#include <memory>

class Host;

// Makes a task folder from a draft: refuses a name some visible task already has, writes the draft into a hidden
// folder, runs the task check on the host, and only when it passes stores the counted roofline in task.json and
// renames the folder to <parentDir>/<name>. A failed check removes the draft: nothing is created.
class TaskCreation : public QObject
{
    Q_OBJECT
public:
    struct Result
    {
        bool ok = false;
        QString folder; // the new task folder, when ok
        QString error;
        TaskCheck::Result check;
    };

    TaskCreation(Host *host, QObject *parent = nullptr);
    ~TaskCreation() override;

    // shippedDir and nearPath: where to look for tasks of the same name (TaskLocations::search).
    void start(const TaskDraft &draft, const QString &parentDir, const QString &shippedDir,
               const QString &nearPath);

Q_SIGNALS:
    void progress(const QString &message);
    void finished(const TaskCreation::Result &result);

private:
    void done(const Result &result);

    struct Parts;
    std::unique_ptr<Parts> m_parts;
};
