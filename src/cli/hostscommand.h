#pragma once

#include "command.h"

// accelopt hosts add|list|check|remove: the hosts evaluations can run on.
class HostsCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("hosts"); }
    QString summary() const override
    {
        return QStringLiteral("Add, list, check and remove hosts (local, SSH).");
    }
    int run(const QStringList &arguments) override;

private:
    int list(const QStringList &arguments);
    int add(const QStringList &arguments);
    int remove(const QStringList &arguments);
    int check(const QStringList &arguments);
};
