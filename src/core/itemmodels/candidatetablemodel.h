#pragma once

#include "itemmodels/candidatetext.h"

#include <QAbstractTableModel>

class SearchState;

// Every candidate of the session as one flat, sortable table (through a proxy), in the order they were made.
class CandidateTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    explicit CandidateTableModel(SearchState *state, QObject *parent = nullptr);

    static QList<CandidateText::Column> columns();

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QModelIndex indexOf(const QString &candidateId, int column = 0) const;

private:
    SearchState *m_state;
    int m_rows = 0; // what the views were told, so a row added during a reset is not told twice
};
