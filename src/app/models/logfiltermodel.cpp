#include "logfiltermodel.h"

#include "logmodel.h"

void LogFilterModel::setMinimumSeverity(int severity)
{
    m_minimumSeverity = severity;
    invalidateFilter();
}

void LogFilterModel::setCategory(const QString &category)
{
    m_category = category;
    invalidateFilter();
}

bool LogFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex first = sourceModel()->index(sourceRow, LogModel::Time, sourceParent);
    if (sourceModel()->data(first, LogModel::severityRole).toInt() < m_minimumSeverity)
        return false;
    if (m_category.isEmpty())
        return true;
    return sourceModel()->index(sourceRow, LogModel::Category, sourceParent).data().toString() == m_category;
}
