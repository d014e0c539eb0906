#pragma once

#include "diff/metricdeltas.h"

#include <QAbstractTableModel>

// The Compare view's table of measured differences: one row per metric, the two kernels' values, their ratio
// and a verdict coloured better (green) or worse (red); a metric that is neither (a share of time, the bound)
// is shown as changed, without colour. Empty while either kernel is unmeasured.
class MetricDeltaModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        MetricColumn,
        LeftColumn,
        RightColumn,
        RatioColumn,
        VerdictColumn,
        ColumnCount
    };
    static constexpr int VerdictRole = Qt::UserRole + 1; // MetricDelta::Verdict as int

    explicit MetricDeltaModel(QObject *parent = nullptr);

    void setDeltas(const QList<MetricDelta> &deltas);
    const QList<MetricDelta> &deltas() const { return m_deltas; }
    void setHeaders(const QString &left, const QString &right);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<MetricDelta> m_deltas;
    QString m_left = QStringLiteral("A");
    QString m_right = QStringLiteral("B");
};
