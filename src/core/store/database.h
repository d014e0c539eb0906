#pragma once

#include "store/databaseschema.h"

#include <QSqlDatabase>
#include <QString>

#include <functional>

// One SQLite file opened through Qt SQL, checked, configured and migrated (docs/architecture.md, "Stores and
// files").
//
// open() never writes to a file it does not recognise: a file that is not SQLite, is damaged, belongs to
// another application or to a newer AccelOpt, or that holds objects AccelOpt did not create
// (SchemaInventory), is refused with a message saying so, and its bytes stay as they were. Opening is
// serialized across processes (DatabaseSetupLock); files are created 0600 and tightened to it (PrivateFiles).
// A recognised file gets WAL journaling (readers never block the writer, a crash loses at most the open
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

    // Why the file cannot be written ("the file is not writable", "its folder ... is not writable"); empty
    // when it can. A read-only file is opened read-only, as immutable, and never migrated.
    QString readOnlyReason() const { return m_readOnly; }
    // A store's error, restated when it is SQLite's "attempt to write a readonly database" on a read-only
    // file: which file, why, what to do.
    QString explain(const QString &error) const;
    // Whether the file (and its write-ahead log) this connection writes to is still the one at path(): a file
    // removed or replaced while open takes every later write with it, silently, as SQLite writes on into the
    // unlinked file. False with what happened in `why`.
    bool stillInPlace(QString &why) const;

    static constexpr int busyTimeoutMs = 5000;
    // How long open() waits for another process to finish opening a database in the same folder.
    static constexpr int setupWaitMs = 60000;

private:
    bool inspectExisting(QString &error);
    bool configure(QString &error);
    bool migrate(QString &error);
    bool foreignKeysIntact(QString &error);
    bool ownObjectsOnly(const QSqlDatabase &db, int version, QString &error) const;
    static QString unwritableReason(const QString &path);
    static QString immutableUri(const QString &path);
    static QByteArray fileId(const QString &path);
    QString refusal(const QString &problem) const;

    DatabaseSchema m_schema;
    QString m_connectionName;
    QString m_path;
    QSqlDatabase m_db;
    int m_version = 0;
    int m_depth = 0;
    QString m_readOnly; // why the file cannot be written; empty when it can
    QString m_openKey; // counted among the process's open files under this key
    QByteArray m_fileId; // device and inode of the file and of its -wal when opened; see stillInPlace()
    QByteArray m_walId;
};
