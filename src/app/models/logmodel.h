#pragma once

#include "common/loghub.h"

#include <QAbstractTableModel>

// The log records as a table (time, level, category, message), fed live from LogHub, bounded like the hub.
class LogModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Time,
        Level,
        Category,
        Message,
        ColumnCount
    };
    static constexpr int severityRole = Qt::UserRole; // 0 debug .. 4 fatal, for filtering

    explicit LogModel(LogHub *hub, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static int severity(QtMsgType type);
    QStringList categories() const;

Q_SIGNALS:
    void categoryAdded(const QString &category);

private:
    void append(const LogRecord &record);

    QList<LogRecord> m_records;
    QStringList m_categories;
    quint64 m_lastSequence = 0;
};
