#include "itemmodels/candidatetreemodel.h"

#include "itemmodels/searchstate.h"

CandidateTreeModel::CandidateTreeModel(SearchState *state, QObject *parent)
    : QAbstractItemModel(parent), m_state(state)
{
    rebuild();
    connect(state, &SearchState::reset, this, [this] {
        beginResetModel();
        rebuild();
        endResetModel();
    });
    connect(state, &SearchState::rowAdded, this, [this](int row) {
        if (row < m_parent.size())
            return; // already known from a rebuild
        add(row);
    });
    connect(state, &SearchState::rowChanged, this, [this](int row) {
        if (row < m_parent.size())
            Q_EMIT dataChanged(indexOfStateRow(row, 0), indexOfStateRow(row, columnCount() - 1));
    });
    connect(state, &SearchState::rankingChanged, this, [this] {
        for (int row = 0; row < m_parent.size(); ++row) // speedups and the best marker, row by row
            Q_EMIT dataChanged(indexOfStateRow(row, 0), indexOfStateRow(row, columnCount() - 1));
    });
}

QList<CandidateText::Column> CandidateTreeModel::columns()
{
    using C = CandidateText::Column;
    return {C::Kernel, C::Status, C::Latency, C::Speedup, C::PercentOfPeak};
}

void CandidateTreeModel::rebuild()
{
    m_roots.clear();
    m_children.clear();
    m_parent.clear();
    m_position.clear();
    for (int i = 0; i < m_state->rowCount(); ++i) {
        const int parentRow = m_state->rowOf(m_state->row(i).candidate.parentId);
        QList<int> &siblings = parentRow >= 0 && parentRow < i ? m_children[parentRow] : m_roots;
        m_parent.append(parentRow >= 0 && parentRow < i ? parentRow : -1);
        m_position.append(int(siblings.size()));
        siblings.append(i);
        m_children.append(QList<int>());
    }
}

void CandidateTreeModel::add(int stateRow)
{
    // Rows arrive in order (a parent is always made before its children).
    while (m_parent.size() < stateRow) {
        add(int(m_parent.size()));
    }
    int parentRow = m_state->rowOf(m_state->row(stateRow).candidate.parentId);
    if (parentRow >= stateRow)
        parentRow = -1;
    const QList<int> &siblings = parentRow >= 0 ? m_children.at(parentRow) : m_roots;
    const int position = int(siblings.size());
    beginInsertRows(parentRow >= 0 ? indexOfStateRow(parentRow) : QModelIndex(), position, position);
    m_parent.append(parentRow);
    m_position.append(position);
    m_children.append(QList<int>());
    (parentRow >= 0 ? m_children[parentRow] : m_roots).append(stateRow);
    endInsertRows();
}

const QList<int> &CandidateTreeModel::childrenOf(int stateRow) const
{
    return stateRow < 0 ? m_roots : m_children.at(stateRow);
}

QModelIndex CandidateTreeModel::indexOfStateRow(int stateRow, int column) const
{
    if (stateRow < 0 || stateRow >= m_position.size())
        return {};
    return createIndex(m_position.at(stateRow), column, quintptr(stateRow));
}

QModelIndex CandidateTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (column < 0 || column >= columnCount() || row < 0)
        return {};
    const QList<int> &rows = childrenOf(parent.isValid() ? int(parent.internalId()) : -1);
    if (row >= rows.size())
        return {};
    return createIndex(row, column, quintptr(rows.at(row)));
}

QModelIndex CandidateTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const int stateRow = int(child.internalId());
    return indexOfStateRow(m_parent.value(stateRow, -1));
}

int CandidateTreeModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return int(childrenOf(parent.isValid() ? int(parent.internalId()) : -1).size());
}

int CandidateTreeModel::columnCount(const QModelIndex &) const
{
    return int(columns().size());
}

QVariant CandidateTreeModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const int stateRow = int(index.internalId());
    if (stateRow >= m_state->rowCount())
        return {};
    return CandidateText::role(*m_state, m_state->row(stateRow), columns().at(index.column()), role);
}

QVariant CandidateTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return {};
    return CandidateText::header(columns().at(section));
}

QModelIndex CandidateTreeModel::indexOf(const QString &candidateId, int column) const
{
    return indexOfStateRow(m_state->rowOf(candidateId), column);
}
