#pragma once

#include <QString>

// Serializes the opening of databases across processes: the check of an existing file, the switch to WAL and
// the migrations. Without it two `accelopt optimize` started together on a fresh workspace both see schema
// version 0 and both create the tables (the second fails: "table sessions already exists", "duplicate column
// name", "cannot switch to WAL mode: database is locked": SQLite's busy handler is not called for the WAL
// switch), and on an existing one a check could remove the write-ahead log another run had just begun to
// write, so that run's session was lost.
//
// The lock is flock(2) on the database's folder: it needs no file of its own (nothing to leave behind, works
// in a read-only folder), and it is independent of the POSIX record locks SQLite holds on the database, which
// closing any other descriptor of the database file would drop. Held only while open() runs.
class DatabaseSetupLock
{
public:
    DatabaseSetupLock() = default;
    ~DatabaseSetupLock();
    DatabaseSetupLock(const DatabaseSetupLock &) = delete;
    DatabaseSetupLock &operator=(const DatabaseSetupLock &) = delete;

    // Waits up to `waitMs` for another process to finish setting up a database in `folder`.
    bool lock(const QString &folder, int waitMs, QString &error);
    void unlock();

private:
    int m_fd = -1;
};
