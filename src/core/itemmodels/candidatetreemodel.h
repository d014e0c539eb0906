#pragma once

#include "itemmodels/candidatetext.h"

#include <QAbstractItemModel>

class SearchState;

// The session's lineage: the baseline at the root, each kernel under the kernel it was derived from, a
// fixer's repair under the broken kernel it repaired.
class CandidateTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    explicit CandidateTreeModel(SearchState *state, QObject *parent = nullptr);

    static QList<CandidateText::Column> columns();

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QModelIndex indexOf(const QString &candidateId, int column = 0) const;

private:
    void rebuild();
    void add(int stateRow);
    QModelIndex indexOfStateRow(int stateRow, int column = 0) const;
    const QList<int> &childrenOf(int stateRow) const; // -1: the roots

    SearchState *m_state;
    QList<int> m_roots;           // state rows without a known parent (the baseline)
    QList<QList<int>> m_children; // per state row
    QList<int> m_parent;          // per state row: the parent's state row, or -1
    QList<int> m_position;        // per state row: its row under its parent
};
