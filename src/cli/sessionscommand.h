#pragma once

#include "command.h"

// accelopt sessions list|show: the optimization runs kept in the workspace database.
class SessionsCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("sessions"); }
    QString summary() const override
    {
        return QStringLiteral("List optimization sessions and show their progress and cost.");
    }
    int run(const QStringList &arguments) override;

private:
    int list(const QStringList &arguments);
    int show(const QStringList &arguments);
};
