#pragma once

#include <QAbstractTableModel>

class SearchState;

// One row per iteration of the session (0 is the baseline): candidates, correct and failed ones, the
// iteration's fastest kernel, and whether its selection improved the beam's leader.
class IterationModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Iteration,
        Candidates,
        Correct,
        Failed,
        BestLatency,
        Improved,
        ColumnCount
    };

    explicit IterationModel(SearchState *state, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void refresh();

    SearchState *m_state;
    struct Row
    {
        int candidates = 0, usable = 0, failed = 0;
        QString best;
        bool improved = false;
    };
    QList<Row> m_rows;
};
