#pragma once

#include "command.h"
#include "memory/experiencerecord.h"

#include <QJsonObject>
#include <QList>

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

    // The experiences of the memory at `path`: those matching `words` (full text), or all of them (of `task`,
    // when given) without words; at most `limit` (0: no limit). A memory that does not exist is empty and is
    // not created. False with `error` when it cannot be read.
    static bool find(const QString &path, const QString &words, const QString &task, int limit,
                     QList<ExperienceRecord> &records, QString &error);
    // One experience as `memory list/search/show --json` print it: with its id and usage evidence.
    static QJsonObject recordJson(const ExperienceRecord &record);

private:
    int list(const QString &sub, const QStringList &arguments);
    int show(const QStringList &arguments);
    int change(const QString &sub, const QStringList &arguments);
    int exportTo(const QStringList &arguments);
    int importFrom(const QStringList &arguments);
};
