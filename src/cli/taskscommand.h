#pragma once

#include "command.h"
#include "model/taskcatalog.h"

#include <QJsonArray>

// accelopt tasks list: every task the program can see from here, and where it came from.
class TasksCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("tasks"); }
    QString summary() const override
    {
        return QStringLiteral("List every task the program can see (project, user, NKIBench).");
    }
    int run(const QStringList &arguments) override;

    // What `tasks list --json` prints: name, origin, folder, description, problem (empty when usable).
    static QJsonArray entriesJson(const QList<TaskCatalog::Entry> &entries);
};
