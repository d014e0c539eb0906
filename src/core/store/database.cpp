#include "store/database.h"

#include "common/logcategories.h"
#include "common/privatefiles.h"
#include "common/regularfile.h"
#include "store/databasefilecheck.h"
#include "store/databasesetuplock.h"
#include "store/schemainventory.h"
#include "store/statement.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QMutex>
#include <QSqlError>
#include <QSqlQuery>
#include <QUrl>

#include <atomic>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace {
QString uniqueConnectionName(const QString &kind)
{
    static std::atomic<int> counter{0};
    return QStringLiteral("accelopt.%1.%2").arg(kind).arg(counter.fetch_add(1));
}

// The database files this process has open. Opening and closing a file by any other means than SQLite's own
// drops every POSIX lock the process holds on it (that is how fcntl locks work), so a second Database on a
// file this process already has open must not read its header through QFile: the first connection would lose
// its locks, another process could then checkpoint and delete the write-ahead log under it, and the file
// would be damaged (seen when the workbench's engine had the workspace open and `accelopt resume` wrote to
// it).
class OpenFiles
{
public:
    bool contains(const QString &path)
    {
        QMutexLocker lock(&m_mutex);
        return m_count.value(key(path)) > 0;
    }
    // The key to remove() with later: worked out now, while the file exists under this name.
    QString add(const QString &path)
    {
        QMutexLocker lock(&m_mutex);
        const QString k = key(path);
        ++m_count[k];
        return k;
    }
    void remove(const QString &k)
    {
        QMutexLocker lock(&m_mutex);
        if (--m_count[k] <= 0)
            m_count.remove(k);
    }

private:
    static QString key(const QString &path)
    {
        const QString canonical = QFileInfo(path).canonicalFilePath();
        return canonical.isEmpty() ? QFileInfo(path).absoluteFilePath() : canonical;
    }
    QMutex m_mutex;
    QHash<QString, int> m_count;
};

OpenFiles &openFiles()
{
    static OpenFiles files;
    return files;
}

QString kindOfApplicationId(qint32 id)
{
    if (id == DatabaseSchema::workspaceApplicationId)
        return QStringLiteral("an AccelOpt workspace database");
    if (id == DatabaseSchema::memoryApplicationId)
        return QStringLiteral("an AccelOpt memory database");
    return QStringLiteral("the database of another application (application id 0x%1)")
        .arg(id, 8, 16, QLatin1Char('0'));
}
} // namespace

Database::Database(DatabaseSchema schema)
    : m_schema(std::move(schema)), m_connectionName(uniqueConnectionName(m_schema.kind))
{
}

Database::~Database()
{
    close();
}

void Database::close()
{
    if (!m_db.isValid())
        return;
    m_db.close();
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(m_connectionName);
    if (!m_openKey.isEmpty())
        openFiles().remove(m_openKey);
    m_openKey.clear();
    m_fileId.clear();
    m_walId.clear();
}

QString Database::refusal(const QString &problem) const
{
    return QStringLiteral("%1 is not an AccelOpt %2 database or is damaged: %3; it was left untouched")
        .arg(QDir::toNativeSeparators(m_path), m_schema.kind, problem);
}

bool Database::open(const QString &path, QString &error)
{
    close();
    m_path = path;
    m_version = 0;
    m_depth = 0;
    m_readOnly.clear();
    const QFileInfo info(path);
    if (info.isDir()) {
        error = QStringLiteral("%1 is a folder, not a database file").arg(QDir::toNativeSeparators(path));
        return false;
    }
    // Reading the header of a FIFO blocks until a writer comes; SQLite would try to write into a device.
    if (RegularFile::isSpecial(path)) {
        error = QStringLiteral("%1; it is no database file and was left untouched")
                    .arg(RegularFile::refusal(path));
        return false;
    }
    const QString folder = info.absolutePath();
    const bool exists = info.exists();
    if (!exists && !PrivateFiles::makeFolder(folder, error)) {
        error = QStringLiteral("%1, for the %2 database").arg(error, m_schema.kind);
        return false;
    }
    DatabaseSetupLock setup; // until the file is checked, in WAL mode and at the latest version
    if (!setup.lock(folder, setupWaitMs, error))
        return false;
    if (exists) {
        m_readOnly = unwritableReason(path);
        if (!openFiles().contains(path)) { // open here already: it is healthy, and see OpenFiles
            QString problem;
            if (!DatabaseFileCheck::looksHealthy(path, problem)) {
                error = refusal(problem);
                return false;
            }
            if (info.size() > 0 && !inspectExisting(error))
                return false;
        }
        if (m_readOnly.isEmpty()) {
            for (const QString &file : {path, path + QStringLiteral("-wal"), path + QStringLiteral("-shm")})
                PrivateFiles::tightenAndLog(file);
            if (PrivateFiles::isOwnDataFolder(folder))
                PrivateFiles::tightenAndLog(folder);
        }
    } else if (!PrivateFiles::createFile(path, error)) {
        return false;
    }

    m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connectionName);
    QString options = QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(busyTimeoutMs);
    if (!m_readOnly.isEmpty()) {
        options += QStringLiteral(";QSQLITE_OPEN_READONLY");
        // A read-only WAL database would still get -wal and -shm files, which SQLite cannot remove again
        // (or, in a read-only folder, cannot create, and the open fails). Nobody can write the file, so it
        // is read as immutable: no locks, no side files. A WAL with pages not yet in the file needs them.
        if (QFileInfo(path + QStringLiteral("-wal")).size() == 0) {
            options += QStringLiteral(";QSQLITE_OPEN_URI");
            m_db.setDatabaseName(immutableUri(path));
        }
    }
    if (m_db.databaseName().isEmpty())
        m_db.setDatabaseName(path);
    m_db.setConnectOptions(options);
    if (!m_db.open()) {
        error = QStringLiteral("cannot open the %1 database %2: %3")
                    .arg(m_schema.kind, QDir::toNativeSeparators(path), m_db.lastError().text());
        close();
        return false;
    }
    m_openKey = openFiles().add(path);
    if (!configure(error) || !migrate(error)) {
        close();
        return false;
    }
    qCInfo(lcStore) << "opened" << m_schema.kind << "database" << path << "schema version" << m_version
                    << (m_readOnly.isEmpty() ? "" : "read-only");
    m_fileId = fileId(path);
    m_walId = fileId(path + QStringLiteral("-wal")); // there from the first read in WAL mode till the close
    return true;
}

QByteArray Database::fileId(const QString &path)
{
#ifdef Q_OS_UNIX
    // stat(2), not open(): opening and closing the database file would drop this process's SQLite locks.
    struct stat st;
    if (::stat(QFile::encodeName(path).constData(), &st) == 0)
        return QByteArray::number(quint64(st.st_dev)) + ':' + QByteArray::number(quint64(st.st_ino));
#else
    Q_UNUSED(path);
#endif
    return {};
}

bool Database::stillInPlace(QString &why) const
{
    if (!isOpen() || m_fileId.isEmpty())
        return true;
    if (fileId(m_path) != m_fileId) {
        why =
            QStringLiteral("%1 was removed or replaced while it was open, so what was written to it since is "
                           "lost")
                .arg(QDir::toNativeSeparators(m_path));
        return false;
    }
    if (!m_walId.isEmpty() && fileId(m_path + QStringLiteral("-wal")) != m_walId) {
        why = QStringLiteral("the write-ahead log %1-wal was removed or replaced while the database was open "
                             "(by another program), so what was written to it is lost")
                  .arg(QDir::toNativeSeparators(m_path));
        return false;
    }
    return true;
}

QString Database::unwritableReason(const QString &path)
{
#ifdef Q_OS_UNIX
    // access(2), not the mode bits: root ignores modes but not the immutable attribute, and it asks the file
    // system, so a read-only mount counts too.
    if (::access(QFile::encodeName(path).constData(), W_OK) != 0)
        return QStringLiteral("the file is not writable");
    const QString folder = QFileInfo(path).absolutePath();
    if (::access(QFile::encodeName(folder).constData(), W_OK) != 0)
        return QStringLiteral("its folder %1 is not writable").arg(QDir::toNativeSeparators(folder));
#else
    Q_UNUSED(path);
#endif
    return {};
}

QString Database::immutableUri(const QString &path)
{
    return QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath()).toString(QUrl::FullyEncoded) +
           QStringLiteral("?immutable=1");
}

QString Database::explain(const QString &error) const
{
    if (m_readOnly.isEmpty() || !error.contains(QStringLiteral("readonly"), Qt::CaseInsensitive))
        return error;
    return QStringLiteral("%1 is read-only (%2), so it cannot be changed; it was left untouched. Make it "
                          "writable to change it")
        .arg(QDir::toNativeSeparators(m_path), m_readOnly);
}

// Reads the file through a separate read-only connection: SQLite opened read-only neither writes a journal
// nor changes the file, so a file we end up refusing is left exactly as it was.
bool Database::inspectExisting(QString &error)
{
    const QString checkName = m_connectionName + QStringLiteral(".check");
    const QString walPath = m_path + QStringLiteral("-wal");
    const QString shmPath = m_path + QStringLiteral("-shm");
    const bool hadWal = QFileInfo::exists(walPath);
    const bool hadShm = QFileInfo::exists(shmPath);
    // A read-only connection to a WAL-mode file creates the -wal and -shm side files and cannot remove them
    // again. Removing them afterwards lost a session: another run had opened the database in between and
    // was writing to the WAL we unlinked. So a WAL file without a -wal is read as immutable, which creates
    // nothing: under the setup lock no AccelOpt process has it open (an open WAL database has its -wal).
    const bool immutable = !hadWal && DatabaseFileCheck::isWalFile(m_path);
    bool ok = false;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), checkName);
        db.setDatabaseName(immutable ? immutableUri(m_path) : m_path);
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=%1%2")
                                 .arg(busyTimeoutMs)
                                 .arg(immutable ? QStringLiteral(";QSQLITE_OPEN_URI") : QString()));
        if (!db.open()) {
            error = refusal(db.lastError().text());
        } else {
            QSqlQuery q(db);
            const auto scalar = [&q](const QString &sql, QVariant &value) {
                if (!q.exec(sql) || !q.next())
                    return false;
                value = q.value(0);
                return true;
            };
            // The first of the schema's core tables this file lacks; empty when it has them all.
            const auto missingTable = [&q, this](int version) -> QString {
                for (const QString &table : m_schema.coreTables) {
                    if (version < 1)
                        break;
                    q.prepare(QStringLiteral(
                        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"));
                    q.addBindValue(table);
                    if (!q.exec() || !q.next() || q.value(0).toInt() == 0)
                        return table;
                }
                return {};
            };
            QVariant check, appId, version, objects;
            if (!scalar(QStringLiteral("PRAGMA quick_check(1)"), check)) {
                error = refusal(q.lastError().databaseText().isEmpty() ? q.lastError().text()
                                                                       : q.lastError().databaseText());
            } else if (check.toString() != QStringLiteral("ok")) {
                error = refusal(QStringLiteral("SQLite's integrity check failed (%1)").arg(check.toString()));
            } else if (!scalar(QStringLiteral("PRAGMA application_id"), appId) ||
                       !scalar(QStringLiteral("PRAGMA user_version"), version) ||
                       !scalar(QStringLiteral("SELECT count(*) FROM sqlite_master"), objects)) {
                error = refusal(q.lastError().text());
            } else if (appId.toInt() != m_schema.applicationId &&
                       !(appId.toInt() == 0 && objects.toInt() == 0)) {
                error = refusal(QStringLiteral("it is %1").arg(kindOfApplicationId(appId.toInt())));
            } else if (version.toInt() > m_schema.latestVersion()) {
                error = QStringLiteral(
                            "%1 was written by a newer AccelOpt (%2 schema version %3; this build knows up "
                            "to %4); it was left untouched. Update AccelOpt or choose another file.")
                            .arg(QDir::toNativeSeparators(m_path), m_schema.kind)
                            .arg(version.toInt())
                            .arg(m_schema.latestVersion());
            } else if (const QString missing = missingTable(version.toInt()); !missing.isEmpty()) {
                error =
                    refusal(QStringLiteral("it is damaged (schema version %1, but its table '%2' is missing)")
                                .arg(version.toInt())
                                .arg(missing));
            } else {
                q.finish();
                ok = ownObjectsOnly(db, version.toInt(), error);
            }
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(checkName);
    // A refused file nobody of ours can have open: the side files this check made are litter.
    if (!ok && !hadWal && QFileInfo(walPath).exists() && QFileInfo(walPath).size() == 0) {
        QFile::remove(walPath);
        if (!hadShm)
            QFile::remove(shmPath);
    }
    return ok;
}

bool Database::ownObjectsOnly(const QSqlDatabase &db, int version, QString &error) const
{
    QStringList foreign;
    QString problem;
    if (!SchemaInventory::foreignObjects(db, m_schema, version, foreign, problem)) {
        error = refusal(problem);
        return false;
    }
    if (foreign.isEmpty())
        return true;
    error = QStringLiteral("%1 holds what AccelOpt did not put there: %2. Such objects run inside AccelOpt's "
                           "own writes (a trigger can delete what it stores), so the file is refused; it was "
                           "left untouched. Remove them (sqlite3 %1 'DROP ...') or choose another file")
                .arg(QDir::toNativeSeparators(m_path), foreign.join(QStringLiteral(", ")));
    return false;
}

bool Database::configure(QString &error)
{
    // FTS5 is probed in the temp schema, which lives outside the file, so the probe writes nothing to it.
    QString probeError;
    if (!execute(QStringLiteral("CREATE VIRTUAL TABLE temp.accelopt_fts5_probe USING fts5(x)"), probeError)) {
        error = QStringLiteral(
                    "the SQLite library Qt uses has no FTS5 full-text search, which AccelOpt needs for "
                    "its memory (%1); install a SQLite built with FTS5, e.g. Debian's libsqlite3-0")
                    .arg(probeError);
        return false;
    }
    if (!execute(QStringLiteral("DROP TABLE temp.accelopt_fts5_probe"), error) ||
        !execute(QStringLiteral("PRAGMA foreign_keys = ON"), error))
        return false;
    QSqlQuery q(m_db);
    if (!m_readOnly.isEmpty()) {
        // Nothing is written to a file that cannot be written: no journal mode, no migration.
    } else if (!q.exec(QStringLiteral("PRAGMA journal_mode = WAL")) || !q.next()) {
        error = QStringLiteral("cannot switch %1 to WAL mode: %2").arg(m_path, q.lastError().text());
        return false;
    } else if (q.value(0).toString().compare(QStringLiteral("wal"), Qt::CaseInsensitive) != 0) {
        qCWarning(lcStore) << m_path << "stays in journal mode" << q.value(0).toString()
                           << "(WAL needs a local file system); it still works, with more lock waits";
    }
    if (!q.exec(QStringLiteral("PRAGMA user_version")) || !q.next()) {
        error = QStringLiteral("cannot read the schema version of %1: %2").arg(m_path, q.lastError().text());
        return false;
    }
    m_version = q.value(0).toInt();
    return true;
}

bool Database::migrate(QString &error)
{
    if (!m_readOnly.isEmpty() && m_version < m_schema.latestVersion()) {
        error = QStringLiteral("%1 is at %2 schema version %3 and needs upgrading to %4, but it is read-only "
                               "(%5); it was left untouched. Make it writable and try again")
                    .arg(QDir::toNativeSeparators(m_path), m_schema.kind)
                    .arg(m_version)
                    .arg(m_schema.latestVersion())
                    .arg(m_readOnly);
        return false;
    }
    for (const MigrationStep &step : m_schema.steps) {
        if (step.version <= m_version)
            continue;
        const bool first = m_version == 0;
        // Foreign keys can only be switched outside a transaction.
        if (step.rebuildsTables && !execute(QStringLiteral("PRAGMA foreign_keys = OFF"), error))
            return false;
        const bool ok = transact(
            [&](QString &stepError) {
                // Under the write lock: a process that does not take the setup lock (an older AccelOpt) may
                // have run this step since the version was read.
                QSqlQuery current(m_db);
                if (!current.exec(QStringLiteral("PRAGMA user_version")) || !current.next()) {
                    stepError = current.lastError().text();
                    return false;
                }
                const int version = current.value(0).toInt();
                current.finish(); // an open statement would keep the tables the step changes locked
                if (version >= step.version)
                    return true;
                if (first &&
                    !execute(QStringLiteral("PRAGMA application_id = %1").arg(m_schema.applicationId),
                             stepError))
                    return false;
                for (const QString &sql : step.statements)
                    if (!execute(sql, stepError))
                        return false;
                if (step.rebuildsTables && !foreignKeysIntact(stepError))
                    return false;
                return execute(QStringLiteral("PRAGMA user_version = %1").arg(step.version), stepError);
            },
            error);
        QString restoreError;
        if (step.rebuildsTables && !execute(QStringLiteral("PRAGMA foreign_keys = ON"), restoreError)) {
            error = restoreError;
            return false;
        }
        if (!ok) {
            error =
                QStringLiteral("cannot upgrade the %1 database %2 to schema version %3 (%4): %5; it stays at "
                               "version %6")
                    .arg(m_schema.kind, m_path)
                    .arg(step.version)
                    .arg(step.description, error)
                    .arg(m_version);
            return false;
        }
        qCInfo(lcStore) << "migrated" << m_path << "to schema version" << step.version << "-"
                        << step.description;
        m_version = step.version;
    }
    return true;
}

bool Database::foreignKeysIntact(QString &error)
{
    QSqlQuery q(m_db);
    if (!q.exec(QStringLiteral("PRAGMA foreign_key_check"))) {
        error = q.lastError().text();
        return false;
    }
    if (q.next()) {
        error = QStringLiteral("a row of table %1 refers to a missing row of %2")
                    .arg(q.value(0).toString(), q.value(2).toString());
        return false;
    }
    return true;
}

bool Database::execute(const QString &sql, QString &error)
{
    QSqlQuery q(m_db);
    if (q.exec(sql))
        return true;
    error = QStringLiteral("%1 (in: %2)").arg(q.lastError().text(), sql.simplified());
    return false;
}

bool Database::transact(const std::function<bool(QString &error)> &work, QString &error)
{
    const bool outermost = m_depth == 0;
    const QString savepoint = QStringLiteral("accelopt_sp%1").arg(m_depth);
    if (!execute(outermost ? QStringLiteral("BEGIN IMMEDIATE") : QStringLiteral("SAVEPOINT ") + savepoint,
                 error))
        return false;
    ++m_depth;
    bool ok = work(error);
    --m_depth;
    if (ok)
        ok = execute(outermost ? QStringLiteral("COMMIT") : QStringLiteral("RELEASE ") + savepoint, error);
    if (!ok) {
        QString ignored; // the first error is the one worth reporting
        if (outermost) {
            execute(QStringLiteral("ROLLBACK"), ignored);
        } else {
            execute(QStringLiteral("ROLLBACK TO ") + savepoint, ignored);
            execute(QStringLiteral("RELEASE ") + savepoint, ignored);
        }
        qCWarning(lcStore) << "rolled back a transaction on" << m_path << ":" << error;
    }
    return ok;
}
