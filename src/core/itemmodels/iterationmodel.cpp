#include "itemmodels/iterationmodel.h"

#include "itemmodels/candidatetext.h"
#include "itemmodels/modelroles.h"
#include "itemmodels/searchstate.h"

IterationModel::IterationModel(SearchState *state, QObject *parent)
    : QAbstractTableModel(parent), m_state(state)
{
    refresh();
    connect(state, &SearchState::reset, this, [this] {
        beginResetModel();
        m_rows.clear();
        endResetModel();
        refresh();
    });
    connect(state, &SearchState::iterationChanged, this, &IterationModel::refresh);
}

void IterationModel::refresh()
{
    const QList<SearchState::IterationRow> now = m_state->iterations();
    if (now.size() > m_rows.size()) {
        beginInsertRows({}, int(m_rows.size()), int(now.size()) - 1);
        m_rows.resize(now.size());
        endInsertRows();
    }
    for (qsizetype i = 0; i < now.size(); ++i) {
        const SearchState::IterationRow &it = now.at(i);
        const SearchState::Row *best = m_state->find(it.bestCandidateId);
        Row row{it.candidates, it.usable, it.failed,
                best && best->evaluation ? CandidateText::milliseconds(best->evaluation->latencyMeanMs)
                                         : QString(),
                it.improved};
        Row &old = m_rows[i];
        if (old.candidates != row.candidates || old.usable != row.usable || old.failed != row.failed ||
            old.best != row.best || old.improved != row.improved) {
            old = row;
            Q_EMIT dataChanged(index(int(i), 0), index(int(i), ColumnCount - 1));
        }
    }
}

int IterationModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int IterationModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant IterationModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = m_rows.at(index.row());
    if (role == Qt::TextAlignmentRole)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != ModelRoles::SortValue)
        return {};
    switch (index.column()) {
    case Iteration:
        return index.row() == 0 && role == Qt::DisplayRole ? QVariant(QStringLiteral("baseline"))
                                                           : index.row();
    case Candidates:
        return r.candidates;
    case Correct:
        return r.usable;
    case Failed:
        return r.failed;
    case BestLatency:
        return r.best;
    case Improved:
        return index.row() == 0 ? QString() : r.improved ? QStringLiteral("yes") : QStringLiteral("no");
    default:
        return {};
    }
}

QVariant IterationModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *const names[] = {"Iteration", "Candidates", "Correct",
                                        "Failed",    "Best (ms)",  "Improved"};
    return section >= 0 && section < ColumnCount ? QString::fromUtf8(names[section]) : QVariant();
}
