#include "store/database.h"

#include "common/logcategories.h"
#include "common/regularfile.h"
#include "store/databasefilecheck.h"
#include "store/statement.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QMutex>
#include <QSqlError>
#include <QSqlQuery>

#include <atomic>

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
    if (info.exists() && !openFiles().contains(path)) { // open here already: it is healthy, and see OpenFiles
        QString problem;
        if (!DatabaseFileCheck::looksHealthy(path, problem)) {
            error = refusal(problem);
            return false;
        }
        if (info.size() > 0 && !inspectExisting(error))
            return false;
    } else if (!QDir().mkpath(info.absolutePath())) {
        error = QStringLiteral("cannot create the folder %1 for the %2 database")
                    .arg(QDir::toNativeSeparators(info.absolutePath()), m_schema.kind);
        return false;
    }

    m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connectionName);
    m_db.setDatabaseName(path);
    m_db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(busyTimeoutMs));
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
    qCInfo(lcStore) << "opened" << m_schema.kind << "database" << path << "schema version" << m_version;
    return true;
}

// Reads the file through a separate read-only connection: SQLite opened read-only neither writes a journal
// nor changes the file, so a file we end up refusing is left exactly as it was.
bool Database::inspectExisting(QString &error)
{
    const QString checkName = m_connectionName + QStringLiteral(".check");
    // A read-only connection to a WAL-mode file creates the -wal and -shm side files and, being read-only,
    // cannot remove them again; we remove the ones we created (the WAL then empty) so a refused file leaves
    // no litter.
    const QString walPath = m_path + QStringLiteral("-wal");
    const QString shmPath = m_path + QStringLiteral("-shm");
    const bool hadWal = QFileInfo::exists(walPath);
    const bool hadShm = QFileInfo::exists(shmPath);
    bool ok = false;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), checkName);
        db.setDatabaseName(m_path);
        db.setConnectOptions(
            QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=%1").arg(busyTimeoutMs));
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
                ok = true;
            }
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(checkName);
    if (!hadWal && QFileInfo(walPath).exists() && QFileInfo(walPath).size() == 0) {
        QFile::remove(walPath);
        if (!hadShm)
            QFile::remove(shmPath);
    }
    return ok;
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
    if (!q.exec(QStringLiteral("PRAGMA journal_mode = WAL")) || !q.next()) {
        error = QStringLiteral("cannot switch %1 to WAL mode: %2").arg(m_path, q.lastError().text());
        return false;
    }
    if (q.value(0).toString().compare(QStringLiteral("wal"), Qt::CaseInsensitive) != 0)
        qCWarning(lcStore) << m_path << "stays in journal mode" << q.value(0).toString()
                           << "(WAL needs a local file system); it still works, with more lock waits";
    if (!q.exec(QStringLiteral("PRAGMA user_version")) || !q.next()) {
        error = QStringLiteral("cannot read the schema version of %1: %2").arg(m_path, q.lastError().text());
        return false;
    }
    m_version = q.value(0).toInt();
    return true;
}

bool Database::migrate(QString &error)
{
    for (const MigrationStep &step : m_schema.steps) {
        if (step.version <= m_version)
            continue;
        const bool first = m_version == 0;
        // Foreign keys can only be switched outside a transaction.
        if (step.rebuildsTables && !execute(QStringLiteral("PRAGMA foreign_keys = OFF"), error))
            return false;
        const bool ok = transact(
            [&](QString &stepError) {
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
