#include "memory/experiencebrowser.h"

#include "memory/ftsquery.h"
#include "memory/memoryschema.h"
#include "store/database.h"
#include "store/statement.h"

#include <QAtomicInt>
#include <QStringList>

#include <iterator>

namespace {
QAtomicInt nextTable;

// The row's columns, named once: the SELECT is built from this list and the reader walks it, so the two cannot
// drift apart.
struct RowColumn
{
    const char *name;
    void (*read)(ExperienceRow &row, const QVariant &value);
};
const RowColumn rowColumns[] = {
    {"id", [](ExperienceRow &r, const QVariant &v) { r.id = v.toLongLong(); }},
    {"pinned", [](ExperienceRow &r, const QVariant &v) { r.pinned = v.toBool(); }},
    {"title", [](ExperienceRow &r, const QVariant &v) { r.title = v.toString(); }},
    {"task", [](ExperienceRow &r, const QVariant &v) { r.task = v.toString(); }},
    {"target", [](ExperienceRow &r, const QVariant &v) { r.target = v.toString(); }},
    {"speedup", [](ExperienceRow &r, const QVariant &v) { r.speedup = v.toDouble(); }},
    {"shown", [](ExperienceRow &r, const QVariant &v) { r.shown = v.toInt(); }},
    {"decided", [](ExperienceRow &r, const QVariant &v) { r.decided = v.toInt(); }},
    {"faster", [](ExperienceRow &r, const QVariant &v) { r.faster = v.toInt(); }},
    {"updated_at",
     [](ExperienceRow &r, const QVariant &v) {
         r.updated = QDateTime::fromString(v.toString(), Qt::ISODateWithMs);
     }},
};

QString rowSelectList()
{
    QStringList columns;
    for (const RowColumn &c : rowColumns)
        columns << QStringLiteral("e.") + QLatin1String(c.name);
    return columns.join(QStringLiteral(", "));
}

const QString hitRateSql =
    QStringLiteral("(CASE WHEN e.decided > 0 THEN 1.0 * e.faster / e.decided ELSE -1 END)");
} // namespace

ExperienceBrowser::ExperienceBrowser(Database &db)
    : m_db(db), m_table(QStringLiteral("memory_browse_%1").arg(nextTable.fetchAndAddRelaxed(1)))
{
}

ExperienceBrowser::~ExperienceBrowser()
{
    QString ignored; // the connection may be closing with its temporary tables already gone
    if (m_tablesMade && m_db.isOpen())
        for (const QString &table : {m_table, m_table + QStringLiteral("_match")})
            m_db.execute(QStringLiteral("DROP TABLE IF EXISTS temp.%1").arg(table), ignored);
}

QString ExperienceBrowser::orderBy() const
{
    using Key = ExperienceSort::Key;
    const QString dir = m_sort.descending ? QStringLiteral(" DESC") : QStringLiteral(" ASC");
    switch (m_sort.key) {
    case Key::Pinned: return QStringLiteral("e.pinned") + dir + QStringLiteral(", e.updated_at DESC, e.id DESC");
    case Key::Title: return QStringLiteral("e.title COLLATE NOCASE") + dir + QStringLiteral(", e.id");
    case Key::Task: return QStringLiteral("e.task") + dir + QStringLiteral(", e.updated_at DESC, e.id DESC");
    case Key::Target: return QStringLiteral("e.target") + dir + QStringLiteral(", e.updated_at DESC, e.id DESC");
    case Key::Speedup: return QStringLiteral("e.speedup") + dir + QStringLiteral(", e.id");
    case Key::Shown: return QStringLiteral("e.shown") + dir + QStringLiteral(", e.id");
    case Key::HitRate: return hitRateSql + dir + QStringLiteral(", e.decided") + dir + QStringLiteral(", e.id");
    case Key::Updated: return QStringLiteral("e.updated_at") + dir + QStringLiteral(", e.id") + dir;
    case Key::Default: break;
    }
    return QString();
}

bool ExperienceBrowser::readChangeMarks(qint64 &dataVersion, qint64 &changes, QString &error) const
{
    // data_version moves when another connection commits; total_changes() counts this connection's own rows.
    Statement version(m_db.connection(), QStringLiteral("PRAGMA data_version"));
    Statement own(m_db.connection(), QStringLiteral("SELECT total_changes()"));
    if (!version.exec() || !version.next()) {
        error = version.error();
        return false;
    }
    if (!own.exec() || !own.next()) {
        error = own.error();
        return false;
    }
    dataVersion = version.value(0).toLongLong();
    changes = own.value(0).toLongLong();
    return true;
}

bool ExperienceBrowser::changedSinceListed(bool &changed, QString &error) const
{
    qint64 dataVersion = 0, changes = 0;
    if (!readChangeMarks(dataVersion, changes, error))
        return false;
    changed = dataVersion != m_dataVersion || changes != m_changes;
    return true;
}

bool ExperienceBrowser::ensureListed(const MemoryFilter &filter, const ExperienceSort &sort, QString &error)
{
    if (m_listed && filter == m_filter && sort == m_sort) {
        bool changed = true;
        if (!changedSinceListed(changed, error))
            return false;
        if (!changed)
            return true; // the ids listed last time are still the list
    }
    m_filter = filter;
    m_sort = sort;
    m_listed = false;
    if (!list(error))
        return false;
    m_listed = true;
    return readChangeMarks(m_dataVersion, m_changes, error); // after the listing's own inserts
}

bool ExperienceBrowser::list(QString &error)
{
    if (!m_tablesMade) {
        if (!m_db.execute(QStringLiteral("CREATE TEMP TABLE IF NOT EXISTS %1 (pos INTEGER PRIMARY KEY, id INTEGER "
                                         "NOT NULL)")
                              .arg(m_table),
                          error) ||
            !m_db.execute(QStringLiteral("CREATE TEMP TABLE IF NOT EXISTS %1_match (id INTEGER PRIMARY KEY)")
                              .arg(m_table),
                          error))
            return false;
        m_tablesMade = true;
    }
    m_count = 0;
    m_storeCount = 0;
    m_relevanceSkipped = false;
    const QString match = FtsQuery::asTyped(m_filter.text);
    QStringList where;
    QList<QPair<QString, QVariant>> binds;
    const auto condition = [&](const QString &sql, const QString &name, const QVariant &value) {
        where.append(sql);
        binds.append({name, value});
    };
    if (!m_filter.task.isEmpty())
        condition(QStringLiteral("e.task = :task"), QStringLiteral(":task"), m_filter.task);
    if (!m_filter.target.isEmpty())
        condition(QStringLiteral("e.target = :target"), QStringLiteral(":target"), m_filter.target);
    if (!m_filter.sessionId.isEmpty())
        condition(QStringLiteral("e.session_id = :session"), QStringLiteral(":session"), m_filter.sessionId);
    if (m_filter.kind != MemoryFilter::Kind::Any)
        condition(QStringLiteral("e.kind = :kind"), QStringLiteral(":kind"),
                  m_filter.kind == MemoryFilter::Kind::Negative ? QStringLiteral("negative")
                                                                : QStringLiteral("positive"));
    if (m_filter.pinnedOnly)
        where.append(QStringLiteral("e.pinned <> 0"));
    if (m_filter.minSpeedup > 0)
        condition(QStringLiteral("e.speedup >= :min"), QStringLiteral(":min"), m_filter.minSpeedup);
    if (m_filter.maxSpeedup > 0)
        condition(QStringLiteral("e.speedup <= :max"), QStringLiteral(":max"), m_filter.maxSpeedup);
    if (m_filter.since.isValid())
        condition(QStringLiteral("e.updated_at >= :since"), QStringLiteral(":since"),
                  m_filter.since.toString(Qt::ISODate));

    QString order = orderBy();
    QString from = QStringLiteral("experiences e");
    return m_db.transact(
        [&](QString &e) {
            if (!m_db.execute(QStringLiteral("DELETE FROM temp.%1").arg(m_table), e))
                return false;
            Statement all(m_db.connection(), QStringLiteral("SELECT count(*) FROM experiences"));
            if (!all.exec() || !all.next()) {
                e = all.error();
                return false;
            }
            m_storeCount = all.value(0).toInt();
            if (!match.isEmpty()) {
                // The matches first, without ranking: that is cheap at any count, and the count decides how to
                // order them.
                if (!m_db.execute(QStringLiteral("DELETE FROM temp.%1_match").arg(m_table), e))
                    return false;
                Statement matches(m_db.connection(), QStringLiteral("INSERT INTO temp.%1_match (id) SELECT rowid "
                                                                    "FROM experiences_fts WHERE experiences_fts "
                                                                    "MATCH :match")
                                                         .arg(m_table));
                matches.bind(QStringLiteral(":match"), match);
                if (!matches.exec()) {
                    e = matches.error();
                    return false;
                }
                const int found = matches.rowsAffected();
                if (order.isEmpty() && found <= relevanceLimit) {
                    from = QStringLiteral("(SELECT rowid AS id, %1 AS score FROM experiences_fts WHERE "
                                          "experiences_fts MATCH :match) m JOIN experiences e ON e.id = m.id")
                               .arg(MemorySchema::bm25());
                    binds.append({QStringLiteral(":match"), match});
                    order = QStringLiteral("m.score, e.id");
                } else {
                    m_relevanceSkipped = order.isEmpty();
                    // Most of the memory matches: walk the order's index and test each row, rather than look
                    // each match up and sort them all (SQLite cannot know the temporary table's size; the unary
                    // + keeps it from choosing the lookups).
                    const bool most = qint64(found) * 8 > m_storeCount;
                    where.append((most ? QStringLiteral("+e.id") : QStringLiteral("e.id")) +
                                 QStringLiteral(" IN temp.%1_match").arg(m_table));
                }
            }
            if (order.isEmpty())
                order = QStringLiteral("e.pinned DESC, e.updated_at DESC, e.id DESC"); // experiences_by_date
            Statement q(m_db.connection(),
                        QStringLiteral("INSERT INTO temp.%1 (id) SELECT e.id FROM %2 %3 ORDER BY %4")
                            .arg(m_table, from,
                                 where.isEmpty() ? QString() : QStringLiteral("WHERE ") + where.join(" AND "),
                                 order));
            for (const auto &[name, value] : std::as_const(binds))
                q.bind(name, value);
            if (!q.exec()) {
                e = q.error();
                return false;
            }
            m_count = q.rowsAffected();
            return true;
        },
        error);
}

bool ExperienceBrowser::page(const MemoryFilter &filter, const ExperienceSort &sort, int offset, int limit,
                             ExperiencePage &out, QString &error)
{
    out = ExperiencePage{};
    if (offset < 0 || limit < 0) {
        error = QStringLiteral("a page needs a non-negative offset and limit (got %1, %2)").arg(offset).arg(limit);
        return false;
    }
    if (!ensureListed(filter, sort, error))
        return false;
    out.offset = offset;
    out.total = m_count;
    out.storeTotal = m_storeCount;
    out.relevanceSkipped = m_relevanceSkipped;
    if (limit == 0 || offset >= m_count)
        return true;
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1 FROM temp.%2 b JOIN experiences e ON e.id = b.id WHERE b.pos BETWEEN "
                               ":first AND :last ORDER BY b.pos")
                    .arg(rowSelectList(), m_table));
    // pos counts from 1 in insertion order, which is the query's order.
    q.bind(QStringLiteral(":first"), qint64(offset) + 1).bind(QStringLiteral(":last"), qint64(offset) + limit);
    if (!q.exec()) {
        error = q.error();
        return false;
    }
    while (q.next()) {
        ExperienceRow row;
        for (int i = 0; i < int(std::size(rowColumns)); ++i)
            rowColumns[i].read(row, q.value(i));
        out.rows.append(row);
    }
    return true;
}

int ExperienceBrowser::rowOf(const MemoryFilter &filter, const ExperienceSort &sort, qint64 id, QString &error)
{
    if (!ensureListed(filter, sort, error))
        return -1;
    Statement q(m_db.connection(), QStringLiteral("SELECT pos FROM temp.%1 WHERE id = :id").arg(m_table));
    q.bind(QStringLiteral(":id"), id);
    if (!q.exec()) {
        error = q.error();
        return -1;
    }
    return q.next() ? q.value(0).toInt() - 1 : -1;
}
