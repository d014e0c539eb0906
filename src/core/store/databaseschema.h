#pragma once

#include "store/migrationstep.h"

#include <QList>
#include <QStringList>

// What one kind of AccelOpt database looks like: its name for messages, the SQLite application_id that marks
// a file as ours (so a workspace file is never mistaken for a memory file, or a stranger's database for
// either) and its migration history.
struct DatabaseSchema
{
    // "AOWS" and "AOME" in ASCII: recognisable in a hex dump of the header.
    static constexpr qint32 workspaceApplicationId = 0x414F5753;
    static constexpr qint32 memoryApplicationId = 0x414F4D45;

    QString kind; // "workspace" or "memory"
    qint32 applicationId = 0;
    QList<MigrationStep> steps;
    // Tables every version from 1 on has: a file of a known version without one is damaged, and would fail
    // later with a bare "no such table" (or, worse, read as empty).
    QStringList coreTables;

    int latestVersion() const { return steps.isEmpty() ? 0 : steps.constLast().version; }
};
