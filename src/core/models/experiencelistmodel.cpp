#include "models/experiencelistmodel.h"

#include "memory/experiencestore.h"
#include "memory/ftsquery.h"
#include "memory/memoryschema.h"
#include "models/modelroles.h"
#include "store/statement.h"

#include <QAtomicInt>
#include <QLocale>
#include <QStringList>

namespace {
QAtomicInt nextTable;

QString hitRateOrDash(int decided, int faster)
{
    const QString text = ExperienceRecord::hitRateText(decided, faster);
    return text.isEmpty() ? QStringLiteral("–") : text;
}

const QString hitRateSql =
    QStringLiteral("(CASE WHEN e.decided > 0 THEN 1.0 * e.faster / e.decided ELSE -1 END)");
} // namespace

ExperienceListModel::ExperienceListModel(ExperienceStore *store, QObject *parent)
    : QAbstractTableModel(parent), m_store(store),
      m_table(QStringLiteral("memory_browse_%1").arg(nextTable.fetchAndAddRelaxed(1)))
{
    QString error;
    if (!m_store->database().execute(QStringLiteral("CREATE TEMP TABLE IF NOT EXISTS %1 (pos INTEGER PRIMARY "
                                                    "KEY, id INTEGER NOT NULL)")
                                         .arg(m_table),
                                     error) ||
        !m_store->database().execute(
            QStringLiteral("CREATE TEMP TABLE IF NOT EXISTS %1_match (id INTEGER PRIMARY KEY)").arg(m_table), error))
        m_error = error;
}

ExperienceListModel::~ExperienceListModel()
{
    QString ignored; // the connection may be closing with its temporary tables already gone
    if (m_store->database().isOpen())
        for (const QString &table : {m_table, m_table + QStringLiteral("_match")})
            m_store->database().execute(QStringLiteral("DROP TABLE IF EXISTS temp.%1").arg(table), ignored);
}

bool ExperienceListModel::setFilter(const MemoryFilter &filter)
{
    m_filter = filter;
    return run();
}

bool ExperienceListModel::refresh()
{
    return run();
}

QString ExperienceListModel::orderBy() const
{
    const QString dir = m_sortOrder == Qt::AscendingOrder ? QStringLiteral(" ASC") : QStringLiteral(" DESC");
    switch (m_sortColumn) {
    case Pinned: return QStringLiteral("e.pinned") + dir + QStringLiteral(", e.updated_at DESC, e.id DESC");
    case Title: return QStringLiteral("e.title COLLATE NOCASE") + dir + QStringLiteral(", e.id");
    case Task: return QStringLiteral("e.task") + dir + QStringLiteral(", e.updated_at DESC, e.id DESC");
    case Target: return QStringLiteral("e.target") + dir + QStringLiteral(", e.updated_at DESC, e.id DESC");
    case Speedup: return QStringLiteral("e.speedup") + dir + QStringLiteral(", e.id");
    case Shown: return QStringLiteral("e.shown") + dir + QStringLiteral(", e.id");
    case HitRate: return hitRateSql + dir + QStringLiteral(", e.decided") + dir + QStringLiteral(", e.id");
    case Updated: return QStringLiteral("e.updated_at") + dir + QStringLiteral(", e.id") + dir;
    default: break;
    }
    return QString();
}

bool ExperienceListModel::run()
{
    beginResetModel();
    m_pages.clear();
    m_count = 0;
    m_relevanceSkipped = false;
    m_error.clear();
    Database &db = m_store->database();
    QString error;
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
    const bool ok = db.transact(
        [&](QString &e) {
            if (!db.execute(QStringLiteral("DELETE FROM temp.%1").arg(m_table), e))
                return false;
            if (!match.isEmpty()) {
                // The matches first, without ranking: that is cheap at any count, and the count decides how
                // to order them.
                if (!db.execute(QStringLiteral("DELETE FROM temp.%1_match").arg(m_table), e))
                    return false;
                Statement matches(db.connection(), QStringLiteral("INSERT INTO temp.%1_match (id) SELECT rowid "
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
                    const bool most = qint64(found) * 8 > m_store->count();
                    where.append((most ? QStringLiteral("+e.id") : QStringLiteral("e.id")) +
                                 QStringLiteral(" IN temp.%1_match").arg(m_table));
                }
            }
            if (order.isEmpty())
                order = QStringLiteral("e.pinned DESC, e.updated_at DESC, e.id DESC"); // experiences_by_date
            Statement q(db.connection(),
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
    if (!ok) {
        m_count = 0;
        m_error = error;
    }
    endResetModel();
    return ok;
}

const ExperienceListModel::Row *ExperienceListModel::row(int r) const
{
    if (r < 0 || r >= m_count)
        return nullptr;
    const int page = r / pageSize;
    auto it = m_pages.find(page);
    if (it == m_pages.end()) {
        QVector<Row> rows;
        rows.reserve(pageSize);
        Statement q(m_store->database().connection(),
                    QStringLiteral("SELECT e.id, e.pinned, e.title, e.task, e.target, e.speedup, e.shown, "
                                   "e.decided, e.faster, e.updated_at FROM temp.%1 b JOIN experiences e ON "
                                   "e.id = b.id WHERE b.pos BETWEEN :first AND :last ORDER BY b.pos")
                        .arg(m_table));
        // pos counts from 1 in insertion order, which is the query's order.
        q.bind(QStringLiteral(":first"), page * pageSize + 1).bind(QStringLiteral(":last"), (page + 1) * pageSize);
        if (q.exec())
            while (q.next()) {
                Row x;
                x.id = q.value(0).toLongLong();
                x.pinned = q.value(1).toBool();
                x.title = q.value(2).toString();
                x.task = q.value(3).toString();
                x.target = q.value(4).toString();
                x.speedup = q.value(5).toDouble();
                x.shown = q.value(6).toInt();
                x.decided = q.value(7).toInt();
                x.faster = q.value(8).toInt();
                x.updated = QDateTime::fromString(q.value(9).toString(), Qt::ISODateWithMs);
                rows.append(x);
            }
        it = m_pages.insert(page, rows);
    }
    const int offset = r % pageSize;
    return offset < it->size() ? &it->at(offset) : nullptr; // a row deleted since the query reads as empty
}

qint64 ExperienceListModel::idAt(int r) const
{
    const Row *x = row(r);
    return x ? x->id : 0;
}

int ExperienceListModel::rowOf(qint64 id) const
{
    Statement q(m_store->database().connection(),
                QStringLiteral("SELECT pos FROM temp.%1 WHERE id = :id").arg(m_table));
    q.bind(QStringLiteral(":id"), id);
    if (!q.exec() || !q.next())
        return -1;
    return q.value(0).toInt() - 1;
}

int ExperienceListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_count;
}

int ExperienceListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ExperienceListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Row *x = row(index.row());
    if (!x)
        return {};
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Pinned: return x->pinned ? QStringLiteral("★") : QString();
        case Title: return x->title;
        case Task: return x->task;
        case Target: return x->target;
        case Speedup: return QStringLiteral("%1×").arg(x->speedup, 0, 'f', 2);
        case Shown: return x->shown;
        case HitRate: return hitRateOrDash(x->decided, x->faster);
        case Updated: return QLocale::system().toString(x->updated.toLocalTime(), QLocale::ShortFormat);
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == HitRate)
        return x->decided > 0 ? tr("%1 of the %2 plans that saw this experience led to a faster kernel; shown "
                                   "to %3 plans in all")
                                    .arg(x->faster)
                                    .arg(x->decided)
                                    .arg(x->shown)
                              : tr("No plan that saw this experience has been measured yet");
    if (role == Qt::ToolTipRole && index.column() == Title)
        return x->title;
    if (role == Qt::TextAlignmentRole && (index.column() == Speedup || index.column() == Shown ||
                                          index.column() == HitRate))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::TextAlignmentRole && index.column() == Pinned)
        return int(Qt::AlignCenter);
    if (role == ModelRoles::Failed)
        return x->speedup < 1.0; // a negative experience: the views dim it as a warning
    if (role == Qt::UserRole)
        return x->id;
    return {};
}

QVariant ExperienceListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole && section == Pinned)
        return tr("Pinned: always shown to the planner");
    if (role == Qt::ToolTipRole && section == Shown)
        return tr("How many plans were shown this experience");
    if (role == Qt::ToolTipRole && section == HitRate)
        return tr("Of the measured plans that saw it, the share that led to a faster kernel");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Pinned: return QStringLiteral("★");
    case Title: return tr("Title");
    case Task: return tr("Task");
    case Target: return tr("Target");
    case Speedup: return tr("Speedup");
    case Shown: return tr("Shown");
    case HitRate: return tr("Hit rate");
    case Updated: return tr("Updated");
    default: return {};
    }
}

void ExperienceListModel::sort(int column, Qt::SortOrder order)
{
    if (column == m_sortColumn && order == m_sortOrder)
        return;
    m_sortColumn = column;
    m_sortOrder = order;
    run();
}
