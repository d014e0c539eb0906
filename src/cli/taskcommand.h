#pragma once

#include "command.h"

// accelopt task new|check: a task from the user's own kernel and reference (the CLI twin of the New Task
// wizard), and the check every task must pass before a search starts from it.
class TaskCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("task"); }
    QString summary() const override
    {
        return QStringLiteral("Make a task from your own kernel and reference (new), or check one (check).");
    }
    int run(const QStringList &arguments) override;

private:
    int create(const QStringList &arguments);
    int check(const QStringList &arguments);
};
