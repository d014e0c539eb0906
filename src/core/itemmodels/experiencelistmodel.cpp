#include "itemmodels/experiencelistmodel.h"

#include "itemmodels/modelroles.h"
#include "memory/experiencerecord.h"

#include <QLocale>

namespace {
QString hitRateOrDash(int decided, int faster)
{
    const QString text = ExperienceRecord::hitRateText(decided, faster);
    return text.isEmpty() ? QStringLiteral("–") : text;
}
} // namespace

ExperienceListModel::ExperienceListModel(Requester requester, QObject *parent)
    : QAbstractTableModel(parent), m_requester(std::move(requester))
{
}

ExperienceListModel::~ExperienceListModel() = default;

void ExperienceListModel::setFilter(const MemoryFilter &filter, qint64 keepId)
{
    m_filter = filter;
    ask(keepId);
}

void ExperienceListModel::refresh(qint64 keepId)
{
    ask(keepId);
}

ExperienceSort ExperienceListModel::sortKey() const
{
    using Key = ExperienceSort::Key;
    ExperienceSort s;
    s.descending = m_sortOrder == Qt::DescendingOrder;
    switch (m_sortColumn) {
    case Pinned:
        s.key = Key::Pinned;
        break;
    case Title:
        s.key = Key::Title;
        break;
    case Task:
        s.key = Key::Task;
        break;
    case Target:
        s.key = Key::Target;
        break;
    case Speedup:
        s.key = Key::Speedup;
        break;
    case Shown:
        s.key = Key::Shown;
        break;
    case HitRate:
        s.key = Key::HitRate;
        break;
    case Updated:
        s.key = Key::Updated;
        break;
    default:
        s = ExperienceSort{};
        break;
    }
    return s;
}

void ExperienceListModel::ask(qint64 keepId)
{
    ExperiencePageRequest request;
    request.filter = m_filter;
    request.sort = sortKey();
    request.offset = 0;
    request.limit = pageSize;
    request.focusId = keepId;
    m_listKeep = keepId;
    m_listJob = m_requester(request); // answers to every older request are stale from here on
}

void ExperienceListModel::pageArrived(quint64 job, const ExperiencePage &page, const QString &error)
{
    if (job != 0 && job == m_listJob) {
        m_listJob = 0;
        if (!error.isEmpty()) {
            m_error = error;
            Q_EMIT listed(false, m_listKeep, -1);
            return;
        }
        beginResetModel();
        m_error.clear();
        m_pages.clear();
        m_pageJobs.clear();
        m_asked.clear();
        m_count = page.total;
        m_storeTotal = page.storeTotal;
        m_relevanceSkipped = page.relevanceSkipped;
        // The engine aligns a page on pageSize (the one holding the kept row); anything else is read again.
        if (page.offset % pageSize == 0 && !page.rows.isEmpty())
            m_pages.insert(page.offset / pageSize, page.rows);
        endResetModel();
        Q_EMIT listed(true, m_listKeep, page.focusRow);
        return;
    }
    const auto it = m_pageJobs.find(job);
    if (it == m_pageJobs.end())
        return; // a page of a list replaced since
    const int index = it.value();
    m_pageJobs.erase(it);
    m_asked.remove(index);
    if (!error.isEmpty()) {
        m_error = error; // its rows stay empty; the next read asks again
        return;
    }
    if (page.total != m_count) {
        Q_EMIT stale();
        return;
    }
    m_pages.insert(index, page.rows);
    const int first = index * pageSize;
    const int last = std::min(m_count, first + pageSize) - 1;
    if (last >= first)
        Q_EMIT dataChanged(this->index(first, 0), this->index(last, ColumnCount - 1));
}

const ExperienceRow *ExperienceListModel::row(int r) const
{
    if (r < 0 || r >= m_count)
        return nullptr;
    const int page = r / pageSize;
    const auto it = m_pages.constFind(page);
    if (it == m_pages.constEnd()) {
        if (!m_asked.contains(page)) {
            m_asked.insert(page);
            ExperiencePageRequest request;
            request.filter = m_filter;
            request.sort = sortKey();
            request.offset = page * pageSize;
            request.limit = pageSize;
            m_pageJobs.insert(m_requester(request), page);
        }
        return nullptr;
    }
    const int offset = r % pageSize;
    return offset < it->size() ? &it->at(offset) : nullptr; // a row deleted since the query reads as empty
}

qint64 ExperienceListModel::idAt(int r) const
{
    const ExperienceRow *x = row(r);
    return x ? x->id : 0;
}

int ExperienceListModel::rowOf(qint64 id) const
{
    for (auto it = m_pages.constBegin(); it != m_pages.constEnd(); ++it)
        for (int i = 0; i < it->size(); ++i)
            if (it->at(i).id == id)
                return it.key() * pageSize + i;
    return -1;
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
    const ExperienceRow *x = row(index.row());
    if (!x)
        return {};
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Pinned:
            return x->pinned ? QStringLiteral("★") : QString();
        case Title:
            return x->title;
        case Task:
            return x->task;
        case Target:
            return x->target;
        case Speedup:
            return QStringLiteral("%1×").arg(x->speedup, 0, 'f', 2);
        case Shown:
            return x->shown;
        case HitRate:
            return hitRateOrDash(x->decided, x->faster);
        case Updated:
            return QLocale::system().toString(x->updated.toLocalTime(), QLocale::ShortFormat);
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == HitRate)
        return x->decided > 0
                   ? tr("%1 of the %2 plans that saw this experience led to a faster kernel; shown "
                        "to %3 plans in all")
                         .arg(x->faster)
                         .arg(x->decided)
                         .arg(x->shown)
                   : tr("No plan that saw this experience has been measured yet");
    if (role == Qt::ToolTipRole && index.column() == Title)
        return x->title;
    if (role == Qt::TextAlignmentRole &&
        (index.column() == Speedup || index.column() == Shown || index.column() == HitRate))
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
    case Pinned:
        return QStringLiteral("★");
    case Title:
        return tr("Title");
    case Task:
        return tr("Task");
    case Target:
        return tr("Target");
    case Speedup:
        return tr("Speedup");
    case Shown:
        return tr("Shown");
    case HitRate:
        return tr("Hit rate");
    case Updated:
        return tr("Updated");
    default:
        return {};
    }
}

void ExperienceListModel::sort(int column, Qt::SortOrder order)
{
    if (column == m_sortColumn && order == m_sortOrder)
        return;
    m_sortColumn = column;
    m_sortOrder = order;
    ask(0);
}
