#pragma once

#include <QString>
#include <QStringList>

// One step of a database's schema history. Database runs the steps above the file's user_version in order,
// each in its own transaction together with the user_version bump, so a failed step leaves the file at the
// previous version and nothing half-migrated. Steps are never edited once released: a change is a new step.
struct MigrationStep
{
    int version = 0;        // the schema version after this step; the first step is 1
    QString description;    // for the log
    QStringList statements; // one SQL statement each (Qt SQL runs one statement per exec)
    // A step that rebuilds a table other tables refer to (SQLite cannot change a CHECK constraint in place)
    // runs with foreign keys off, so dropping the old table cascades to nothing, and commits only when
    // PRAGMA foreign_key_check finds every reference intact (SQLite's documented table-rebuild procedure).
    bool rebuildsTables = false;
};
