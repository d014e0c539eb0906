#include "itemmodels/candidatetablemodel.h"

#include "itemmodels/modelroles.h"
#include "itemmodels/searchstate.h"

CandidateTableModel::CandidateTableModel(SearchState *state, QObject *parent)
    : QAbstractTableModel(parent), m_state(state)
{
    m_rows = state->rowCount();
    connect(state, &SearchState::reset, this, [this] {
        beginResetModel();
        m_rows = m_state->rowCount();
        endResetModel();
    });
    connect(state, &SearchState::rowAdded, this, [this](int row) {
        if (row < m_rows)
            return;
        beginInsertRows({}, m_rows, row);
        m_rows = row + 1;
        endInsertRows();
    });
    connect(state, &SearchState::rowChanged, this, [this](int row) {
        if (row < m_rows)
            Q_EMIT dataChanged(index(row, 0), index(row, columnCount() - 1));
    });
    // The speedup column depends on the baseline, and the best marker on the session's best.
    connect(state, &SearchState::rankingChanged, this, [this] {
        if (m_rows > 0)
            Q_EMIT dataChanged(index(0, 0), index(m_rows - 1, columnCount() - 1));
    });
}

QList<CandidateText::Column> CandidateTableModel::columns()
{
    using C = CandidateText::Column;
    return {C::Iteration, C::Kind,          C::Kernel, C::Status, C::Latency,
            C::Speedup,   C::PercentOfPeak, C::Bound,  C::Id};
}

int CandidateTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_rows;
}

int CandidateTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(columns().size());
}

QVariant CandidateTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        index.row() >= m_state->rowCount())
        return {};
    return CandidateText::role(*m_state, m_state->row(index.row()), columns().at(index.column()), role);
}

QVariant CandidateTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return {};
    return CandidateText::header(columns().at(section));
}

QModelIndex CandidateTableModel::indexOf(const QString &candidateId, int column) const
{
    const int row = m_state->rowOf(candidateId);
    return row < 0 || row >= m_rows ? QModelIndex() : index(row, column);
}
