#include "store/schemainventory.h"

#include <QHash>
#include <QMutex>
#include <QSet>
#include <QSqlError>
#include <QSqlQuery>

#include <atomic>

namespace {
QString key(const QString &type, const QString &name)
{
    return type + QLatin1Char(' ') + name.toLower(); // SQLite's names are case-insensitive
}

bool listObjects(const QSqlDatabase &db, QSet<QString> &names, QList<QStringList> *rows, QString &error)
{
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("SELECT type, name, tbl_name FROM sqlite_master ORDER BY rowid"))) {
        error = q.lastError().text();
        return false;
    }
    while (q.next()) {
        const QString type = q.value(0).toString();
        const QString name = q.value(1).toString();
        if (name.startsWith(QStringLiteral("sqlite_"), Qt::CaseInsensitive))
            continue;
        names.insert(key(type, name));
        if (rows)
            rows->append({type, name, q.value(2).toString()});
    }
    return true;
}

// The objects the steps up to `version` create, built once per schema and version.
bool reference(const DatabaseSchema &schema, int version, QSet<QString> &names, QString &error)
{
    static QMutex mutex;
    static QHash<QString, QSet<QString>> cache;
    const QString cacheKey = schema.kind + QLatin1Char('/') + QString::number(version);
    QMutexLocker lock(&mutex);
    if (const auto it = cache.constFind(cacheKey); it != cache.constEnd()) {
        names = *it;
        return true;
    }
    static std::atomic<int> counter{0};
    const QString connection = QStringLiteral("accelopt.inventory.%1").arg(counter.fetch_add(1));
    bool ok = true;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
        db.setDatabaseName(QStringLiteral(":memory:"));
        if (!db.open()) {
            error = db.lastError().text();
            ok = false;
        }
        QSqlQuery q(db);
        for (const MigrationStep &step : schema.steps) {
            if (!ok || step.version > version)
                break;
            for (const QString &sql : step.statements) {
                if (!q.exec(sql)) {
                    error = QStringLiteral("%1 (in: %2)").arg(q.lastError().text(), sql.simplified());
                    ok = false;
                    break;
                }
            }
        }
        q.finish();
        if (ok)
            ok = listObjects(db, names, nullptr, error);
        db.close();
    }
    QSqlDatabase::removeDatabase(connection);
    if (ok)
        cache.insert(cacheKey, names);
    return ok;
}
} // namespace

bool SchemaInventory::foreignObjects(const QSqlDatabase &file, const DatabaseSchema &schema, int version,
                                     QStringList &foreign, QString &error)
{
    foreign.clear();
    QSet<QString> ours;
    if (!reference(schema, version, ours, error)) {
        error = QStringLiteral("cannot work out the objects of %1 schema version %2: %3")
                    .arg(schema.kind)
                    .arg(version)
                    .arg(error);
        return false;
    }
    QSet<QString> present;
    QList<QStringList> rows;
    if (!listObjects(file, present, &rows, error))
        return false;
    for (const QStringList &row : std::as_const(rows)) {
        const QString &type = row.at(0);
        const QString &name = row.at(1);
        if (ours.contains(key(type, name)))
            continue;
        if ((type == QStringLiteral("trigger") || type == QStringLiteral("index")) && row.at(2) != name)
            foreign << QStringLiteral("%1 '%2' on table %3").arg(type, name, row.at(2));
        else
            foreign << QStringLiteral("%1 '%2'").arg(type, name);
    }
    return true;
}
