#pragma once

#include <QString>

// The user's data (every prompt, kernel and model reply in the stores, the hosts they reach) is for them
// alone: files 0600, folders 0700. New ones are created with those modes from the start, so no umask ever
// lets another local user see them, not even for a moment; an existing one with group or other bits is
// tightened when it is opened, with a note in the log (accelopt.core) saying what changed.
class PrivateFiles
{
public:
    // Creates `path` and its missing parents, each 0700. Existing folders are left as they are: a parent
    // such as ~/.local/share or /tmp is not ours to close.
    static bool makeFolder(const QString &path, QString &error);
    // Creates an empty file 0600 unless it exists (SQLite takes an empty file as a new database and gives
    // its -wal and -shm the database's own mode).
    static bool createFile(const QString &path, QString &error);
    // Drops the group and other bits of an existing file or folder; returns what it did ("tightened PATH
    // from 0644 to 0600"), empty when there was nothing to do or it could not (logged at info level).
    static QString tighten(const QString &path);
    // Tightens and logs, for the callers that only need it done.
    static void tightenAndLog(const QString &path);
    // The data folder of the program's own (DataPaths::userDataFile): the only existing folder tightened,
    // as it holds nothing but AccelOpt's files.
    static bool isOwnDataFolder(const QString &folder);
};
