#include "logmodel.h"

#include <QBrush>
#include <QColor>

LogModel::LogModel(LogHub *hub, QObject *parent) : QAbstractTableModel(parent)
{
    for (const LogRecord &record : hub->records())
        append(record);
    connect(hub, &LogHub::recordAdded, this, &LogModel::append);
}

int LogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_records.size());
}

int LogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

int LogModel::severity(QtMsgType type)
{
    switch (type) {
    case QtDebugMsg:
        return 0;
    case QtInfoMsg:
        return 1;
    case QtWarningMsg:
        return 2;
    case QtCriticalMsg:
        return 3;
    case QtFatalMsg:
        return 4;
    }
    return 0;
}

QVariant LogModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_records.size())
        return {};
    const LogRecord &r = m_records.at(index.row());
    if (role == severityRole)
        return severity(r.type);
    if (role == Qt::ForegroundRole && index.column() == Level) {
        if (r.type == QtWarningMsg)
            return QBrush(QColor(0xc77c02));
        if (r.type == QtCriticalMsg || r.type == QtFatalMsg)
            return QBrush(QColor(0xd32f2f));
        return {};
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case Time:
        return r.time.toString(QStringLiteral("HH:mm:ss.zzz"));
    case Level:
        return LogHub::levelName(r.type);
    case Category:
        return r.category;
    case Message:
        return r.message;
    default:
        return {};
    }
}

QVariant LogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Time:
        return tr("Time");
    case Level:
        return tr("Level");
    case Category:
        return tr("Category");
    case Message:
        return tr("Message");
    default:
        return {};
    }
}

QStringList LogModel::categories() const
{
    return m_categories;
}

void LogModel::append(const LogRecord &record)
{
    // A record can reach us twice: in the hub's backlog at construction and in a signal still queued then.
    if (record.sequence <= m_lastSequence)
        return;
    m_lastSequence = record.sequence;
    if (m_records.size() >= LogHub::capacity) {
        beginRemoveRows({}, 0, 0);
        m_records.removeFirst();
        endRemoveRows();
    }
    const int row = int(m_records.size());
    beginInsertRows({}, row, row);
    m_records.append(record);
    endInsertRows();
    if (!m_categories.contains(record.category)) {
        m_categories.append(record.category);
        Q_EMIT categoryAdded(record.category);
    }
}
