#include "candidatefilter.h"

#include "itemmodels/modelroles.h"
#include "model/evalstatus.h"

CandidateFilter::CandidateFilter(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(ModelRoles::SortValue);
    setDynamicSortFilter(true);
}

void CandidateFilter::setShow(Show show)
{
    m_show = show;
    invalidateRowsFilter();
}

void CandidateFilter::setText(const QString &text)
{
    m_text = text.trimmed();
    invalidateRowsFilter();
}

bool CandidateFilter::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex first = sourceModel()->index(sourceRow, 0, sourceParent);
    switch (m_show) {
    case Show::All:
        break;
    case Show::Correct:
        if (first.data(ModelRoles::Status).toInt() != int(EvalStatus::Ok) ||
            first.data(ModelRoles::Failed).toBool())
            return false;
        break;
    case Show::Failed:
        if (!first.data(ModelRoles::Failed).toBool())
            return false;
        break;
    case Show::InBeam:
        if (!first.data(ModelRoles::InBeam).toBool())
            return false;
        break;
    }
    if (m_text.isEmpty())
        return true;
    for (int c = 0; c < sourceModel()->columnCount(sourceParent); ++c)
        if (sourceModel()
                ->index(sourceRow, c, sourceParent)
                .data()
                .toString()
                .contains(m_text, Qt::CaseInsensitive))
            return true;
    return first.data(ModelRoles::CandidateId).toString().startsWith(m_text, Qt::CaseInsensitive);
}
