#include "memory/retrievalcandidates.h"

#include "memory/memoryschema.h"
#include "store/statement.h"

#include <QHash>
#include <QSet>
#include <QStringList>

namespace {
const QString bm25 = MemorySchema::bm25();

bool textMatches(const QSqlDatabase &db, const QString &task, const QString &target, const QString &match,
                 int limit, QSet<qint64> &ids, QHash<qint64, double> &scores, QString &error)
{
    Statement q(db,
                QStringLiteral(
                    "SELECT id, score FROM (SELECT e.id AS id, m.score AS score, e.pinned AS pinned, "
                    "row_number() OVER (PARTITION BY e.task = :task, e.kind ORDER BY m.score, "
                    "(:target <> '' AND e.target = :target) DESC, max(e.speedup, 1.0 / e.speedup) DESC, "
                    "e.updated_at DESC, e.id) AS position FROM (SELECT rowid AS id, %1 AS score FROM "
                    "experiences_fts WHERE experiences_fts MATCH :match ORDER BY rowid DESC LIMIT :scored) m "
                    "JOIN experiences e INDEXED BY experiences_for_ranking ON e.id = m.id) "
                    "WHERE position <= :limit OR pinned <> 0")
                    .arg(bm25));
    q.bind(QStringLiteral(":task"), task)
        .bind(QStringLiteral(":target"), target)
        .bind(QStringLiteral(":match"), match)
        .bind(QStringLiteral(":limit"), limit)
        .bind(QStringLiteral(":scored"), RetrievalCandidates::scoredMatches);
    if (!q.exec()) {
        error = q.error();
        return false;
    }
    while (q.next()) {
        const qint64 id = q.value(0).toLongLong();
        ids.insert(id);
        scores.insert(id, q.value(1).toDouble());
    }
    return true;
}

bool strongest(const QSqlDatabase &db, const QString &task, int limit, QSet<qint64> &ids, QString &error)
{
    // The targets present, each by one index probe (a loose scan), instead of a scan of the table.
    Statement targets(db, QStringLiteral("WITH RECURSIVE t(x) AS (SELECT min(target) FROM experiences UNION ALL "
                                         "SELECT (SELECT min(target) FROM experiences WHERE target > x) FROM t "
                                         "WHERE x IS NOT NULL) SELECT x FROM t WHERE x IS NOT NULL"));
    if (!targets.exec()) {
        error = targets.error();
        return false;
    }
    QStringList present;
    while (targets.next())
        present.append(targets.value(0).toString());
    const QString order =
        QStringLiteral(" AND target = :target AND kind = :kind ORDER BY max(speedup, 1.0 / speedup) DESC, "
                       "updated_at DESC LIMIT :limit");
    Statement inTask(db, QStringLiteral("SELECT id FROM experiences WHERE task = :task") + order);
    Statement elsewhere(db, QStringLiteral("SELECT id FROM experiences WHERE task <> :task") + order);
    for (Statement *q : {&inTask, &elsewhere})
        for (const QString &target : std::as_const(present))
            for (const char *kind : {"positive", "negative"}) {
                q->bind(QStringLiteral(":task"), task)
                    .bind(QStringLiteral(":target"), target)
                    .bind(QStringLiteral(":kind"), QString::fromLatin1(kind))
                    .bind(QStringLiteral(":limit"), limit);
                if (!q->exec()) {
                    error = q->error();
                    return false;
                }
                while (q->next())
                    ids.insert(q->value(0).toLongLong());
            }
    return true;
}
} // namespace

bool RetrievalCandidates::read(const QSqlDatabase &db, const QString &task, const QString &target,
                               const QString &match, int limit, QList<RetrievalPolicy::Entry> &entries,
                               QString &error)
{
    entries.clear();
    if (limit <= 0)
        return true;
    QSet<qint64> ids;
    QHash<qint64, double> scores;
    if (!match.isEmpty() && !textMatches(db, task, target, match, limit, ids, scores, error))
        return false;
    if (!strongest(db, task, limit, ids, error))
        return false;
    Statement pinned(db, QStringLiteral("SELECT id FROM experiences WHERE pinned <> 0"));
    if (!pinned.exec()) {
        error = pinned.error();
        return false;
    }
    while (pinned.next())
        ids.insert(pinned.value(0).toLongLong());
    if (ids.isEmpty())
        return true;

    QStringList idList;
    for (qint64 id : std::as_const(ids))
        idList.append(QString::number(id));
    Statement q(db, QStringLiteral("SELECT id, task, pinned, target, speedup, updated_at FROM experiences "
                                   "WHERE id IN (%1)")
                        .arg(idList.join(u',')));
    if (!q.exec()) {
        error = q.error();
        return false;
    }
    while (q.next()) {
        RetrievalPolicy::Entry e;
        e.id = q.value(0).toLongLong();
        e.sameTask = q.value(1).toString() == task;
        e.pinned = q.value(2).toBool();
        e.textMatch = scores.contains(e.id);
        e.bm25 = scores.value(e.id);
        e.sameTarget = !target.isEmpty() && q.value(3).toString() == target;
        e.speedup = q.value(4).toDouble();
        e.negative = e.speedup < 1.0; // Experience::isNegative
        e.updated = QDateTime::fromString(q.value(5).toString(), Qt::ISODateWithMs);
        entries.append(e);
    }
    return true;
}
