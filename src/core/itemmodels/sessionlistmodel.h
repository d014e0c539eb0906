#pragma once

#include "store/sessionsummary.h"

#include <QAbstractTableModel>

// The workspace's sessions, newest first, as the Sessions dock lists them. setSessions() merges a fresh list
// by session id, so rows that stay keep their place and a view keeps its selection.
class SessionListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Task,
        Started,
        Status,
        Iterations,
        Best,
        Speedup,
        Cost,
        Where,
        Id,
        ColumnCount
    };

    explicit SessionListModel(QObject *parent = nullptr);

    void setSessions(const QList<SessionSummary> &sessions);
    const SessionSummary *session(const QString &sessionId) const;
    const SessionSummary &at(int row) const { return m_sessions.at(row); }
    QModelIndex indexOf(const QString &sessionId, int column = 0) const;
    // "running", "interrupted" (running, yet no process holds it), "stopped", "finished: ...", "failed: ...".
    static QString statusText(const SessionSummary &session);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<SessionSummary> m_sessions;
};
