#pragma once

#include "model/evaluation.h"

#include <QAbstractTableModel>
#include <QDateTime>

#include <optional>

// The Results dock's list of benchmark runs, newest first: which kernel, task and target, and the outcome
// (status, correctness, latency mean/p50/min/max, % of peak, bound) once the host answered.
class BenchmarkListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Kernel,
        Task,
        Target,
        Status,
        Correct,
        Mean,
        P50,
        Min,
        Max,
        PercentOfPeak,
        Bound,
        ColumnCount
    };
    struct Run
    {
        quint64 job = 0;
        QString kernel; // what the user calls it: the tab's name
        QString task;
        QString host;
        QString target;
        QString size;
        QDateTime submitted;
        std::optional<Evaluation> evaluation;
    };

    explicit BenchmarkListModel(QObject *parent = nullptr);

    void add(const Run &run);                               // on top
    bool finish(quint64 job, const Evaluation &evaluation); // false: no such run (dropped or cleared)
    const Run *run(quint64 job) const;
    const Run &at(int row) const { return m_runs.at(row); }
    QModelIndex indexOf(quint64 job, int column = 0) const;
    void clear();

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<Run> m_runs;
};
