#pragma once

#include <QSortFilterProxyModel>

// Shows the log records at or above a level, optionally of one category only.
class LogFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    void setMinimumSeverity(int severity);
    void setCategory(const QString &category); // empty: every category

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    int m_minimumSeverity = 0;
    QString m_category;
};
