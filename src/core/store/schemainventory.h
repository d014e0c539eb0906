#pragma once

#include "store/databaseschema.h"

#include <QSqlDatabase>
#include <QStringList>

// What a database file holds beyond what AccelOpt itself put there. A trigger, view, table or index the
// program did not create runs inside every write the program makes (a planted `AFTER INSERT ON candidates
// ... DELETE FROM sessions` deleted a user's sessions during a normal run), so such a file is refused.
//
// "Ours" is worked out, not listed by hand: the schema's migration steps up to the file's version are run in
// an in-memory database and whatever that creates is ours, FTS5's shadow tables included. SQLite's own
// objects (sqlite_sequence, sqlite_stat*, automatic indexes) are not counted.
class SchemaInventory
{
public:
    // The objects of `file` (at schema version `version`) that the schema does not create, described for a
    // message ("trigger 'x' on table candidates"); empty when there are none. False with `error` when the
    // file or the reference cannot be read.
    static bool foreignObjects(const QSqlDatabase &file, const DatabaseSchema &schema, int version,
                               QStringList &foreign, QString &error);
};
