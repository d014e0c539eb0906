#pragma once

#include "command.h"

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
};
