#include "itemmodels/sessionlistmodel.h"

#include "itemmodels/costtext.h"
#include "itemmodels/modelroles.h"
#include "search/stoprules.h"

#include <QHash>
#include <QLocale>

SessionListModel::SessionListModel(QObject *parent) : QAbstractTableModel(parent) {}

QString SessionListModel::statusText(const SessionSummary &s)
{
    switch (s.session.status) {
    case SessionRecord::Status::Running:
        return s.live ? QStringLiteral("running") : QStringLiteral("interrupted");
    case SessionRecord::Status::Stopped:
        return QStringLiteral("stopped");
    case SessionRecord::Status::Finished:
    case SessionRecord::Status::Failed:
    case SessionRecord::Status::Crashed:
        break;
    }
    const QString state = SessionRecord::statusName(s.session.status);
    const std::optional<StopReason> reason = StopRules::fromName(s.session.stopReason);
    if (!reason || *reason == StopReason::None || *reason == StopReason::Failed)
        return state;
    return state + QStringLiteral(": ") + StopRules::describe(*reason);
}

void SessionListModel::setSessions(const QList<SessionSummary> &sessions)
{
    // Remove the rows that went away (from the bottom, so indexes stay valid), then update or insert in the
    // new order. The list is newest first and sessions only come and go, so this is a merge, not a shuffle.
    QHash<QString, int> wanted;
    for (int i = 0; i < sessions.size(); ++i)
        wanted.insert(sessions.at(i).session.id, i);
    for (int i = int(m_sessions.size()) - 1; i >= 0; --i)
        if (!wanted.contains(m_sessions.at(i).session.id)) {
            beginRemoveRows({}, i, i);
            m_sessions.removeAt(i);
            endRemoveRows();
        }
    for (int i = 0; i < sessions.size(); ++i) {
        const SessionSummary &s = sessions.at(i);
        if (i < m_sessions.size() && m_sessions.at(i).session.id == s.session.id) {
            m_sessions[i] = s;
            Q_EMIT dataChanged(index(i, 0), index(i, ColumnCount - 1));
            continue;
        }
        int found = -1;
        for (int j = i + 1; j < m_sessions.size(); ++j)
            if (m_sessions.at(j).session.id == s.session.id)
                found = j;
        if (found >= 0) {
            beginMoveRows({}, found, found, {}, i);
            m_sessions.move(found, i);
            endMoveRows();
            m_sessions[i] = s;
            Q_EMIT dataChanged(index(i, 0), index(i, ColumnCount - 1));
        } else {
            beginInsertRows({}, i, i);
            m_sessions.insert(i, s);
            endInsertRows();
        }
    }
}

const SessionSummary *SessionListModel::session(const QString &sessionId) const
{
    for (const SessionSummary &s : m_sessions)
        if (s.session.id == sessionId)
            return &s;
    return nullptr;
}

QModelIndex SessionListModel::indexOf(const QString &sessionId, int column) const
{
    for (int i = 0; i < m_sessions.size(); ++i)
        if (m_sessions.at(i).session.id == sessionId)
            return index(i, column);
    return {};
}

int SessionListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_sessions.size());
}

int SessionListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SessionListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SessionSummary &s = m_sessions.at(index.row());
    switch (role) {
    case ModelRoles::SessionId:
        return s.session.id;
    case ModelRoles::Live:
        return s.live;
    case Qt::ToolTipRole:
        return QStringLiteral("%1\n%2 on %3 (%4), host %5\n%6")
            .arg(s.session.id, s.session.taskName, s.session.target, s.session.backend, s.session.host,
                 statusText(s));
    case Qt::TextAlignmentRole:
        if (index.column() == Best || index.column() == Speedup || index.column() == Cost ||
            index.column() == Iterations)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case ModelRoles::SortValue:
        switch (index.column()) {
        case Started:
            return s.session.created;
        case Best:
            return s.bestLatencyMs.value_or(1e300);
        case Speedup:
            return s.speedup().value_or(-1.0);
        case Cost: // unknown sorts above every known amount: it may be any of them
            return s.calls > 0 && s.unpricedCalls >= s.calls ? 1e300 : s.costUsd;
        default:
            break;
        }
        [[fallthrough]];
    case Qt::DisplayRole:
        switch (index.column()) {
        case Task:
            return s.session.taskName;
        case Started:
            return QLocale().toString(s.session.created.toLocalTime(), QLocale::ShortFormat);
        case Status:
            return statusText(s);
        case Iterations: // finished ones, as the Search dock counts them: not the one under way
            return QStringLiteral("%1/%2").arg(s.iterationsDone).arg(s.iterations);
        case Best:
            return s.bestLatencyMs ? QStringLiteral("%1 ms").arg(*s.bestLatencyMs, 0, 'g', 4) : QString();
        case Speedup:
            return s.speedup() ? QStringLiteral("%1×").arg(*s.speedup(), 0, 'f', 2) : QString();
        case Cost:
            return CostText::money(s.costUsd, s.calls, s.unpricedCalls, 2);
        case Where:
            return QStringLiteral("%1 · %2").arg(s.session.host, s.session.target);
        case Id:
            return s.session.id.left(8);
        default:
            return {};
        }
    default:
        return {};
    }
}

QVariant SessionListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == Iterations)
        return QStringLiteral("Iterations finished, of those planned: the one under way counts once it ends, "
                              "as in the Search dock");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *const names[] = {"Task",    "Started", "Status",        "Iter.",  "Best",
                                        "Speedup", "Cost",    "Host · target", "Session"};
    return section >= 0 && section < ColumnCount ? QString::fromUtf8(names[section]) : QVariant();
}
