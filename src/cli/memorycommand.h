#pragma once

#include "command.h"

class ExperienceStore;

// accelopt memory list|search|show|pin|unpin|delete|export|import: the optimization memory, headless (the CLI
// twin of the Memory browser).
class MemoryCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("memory"); }
    QString summary() const override
    {
        return QStringLiteral("List, search, curate, export and import the optimization memory.");
    }
    int run(const QStringList &arguments) override;

private:
    int list(const QString &sub, const QStringList &arguments);
    int show(const QStringList &arguments);
    int change(const QString &sub, const QStringList &arguments);
    int exportTo(const QStringList &arguments);
    int importFrom(const QStringList &arguments);
};
