#pragma once

#include "store/databaseschema.h"

#include <QSqlDatabase>
#include <QString>

#include <functional>

// One SQLite file opened through Qt SQL, checked, configured and migrated (DESIGN.md §8).
//
// open() never writes to a file it does not recognise: a file that is not SQLite, is damaged, belongs to
// another application or to a newer AccelOpt is refused with a message saying so, and its bytes stay as they
// were. A recognised file gets WAL journaling (readers never block the writer, a crash loses at most the open
// transaction), foreign keys and a busy timeout (another process, e.g. the CLI, may be writing).
//
// A Qt SQL connection belongs to the thread that opened it: use one Database per thread. Each instance gets
// its own connection name, so two stores on the same file never share (and close) each other's connection.
class Database
{
public:
    explicit Database(DatabaseSchema schema);
    ~Database();
    Database(const Database &) = delete;
    Database &operator=(const Database &) = delete;

    bool open(const QString &path, QString &error);
    void close();
    bool isOpen() const { return m_db.isOpen(); }
    QString path() const { return m_path; }
    const DatabaseSchema &schema() const { return m_schema; }
    QSqlDatabase connection() const { return m_db; }
    int schemaVersion() const { return m_version; }

    // Runs `work` in a transaction: BEGIN IMMEDIATE at the outermost level (take the write lock up front, so
    // two writers wait on the busy timeout instead of failing on a lock upgrade), a SAVEPOINT when nested.
    // Commits when `work` returns true, rolls everything back when it returns false, so a batch is all or
    // nothing.
    bool transact(const std::function<bool(QString &error)> &work, QString &error);
    bool inTransaction() const { return m_depth > 0; }

    // A single statement without parameters (PRAGMAs, DDL).
    bool execute(const QString &sql, QString &error);

    static constexpr int busyTimeoutMs = 5000;

private:
    bool inspectExisting(QString &error);
    bool configure(QString &error);
    bool migrate(QString &error);
    bool foreignKeysIntact(QString &error);
    QString refusal(const QString &problem) const;

    DatabaseSchema m_schema;
    QString m_connectionName;
    QString m_path;
    QSqlDatabase m_db;
    int m_version = 0;
    int m_depth = 0;
    QString m_openKey; // counted among the process's open files under this key
};
