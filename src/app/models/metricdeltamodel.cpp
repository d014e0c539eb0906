#include "metricdeltamodel.h"

#include "theme.h"

#include <QColor>

MetricDeltaModel::MetricDeltaModel(QObject *parent) : QAbstractTableModel(parent) {}

void MetricDeltaModel::setDeltas(const QList<MetricDelta> &deltas)
{
    beginResetModel();
    m_deltas = deltas;
    endResetModel();
}

void MetricDeltaModel::setHeaders(const QString &left, const QString &right)
{
    m_left = left;
    m_right = right;
    Q_EMIT headerDataChanged(Qt::Horizontal, LeftColumn, RatioColumn);
}

int MetricDeltaModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_deltas.size());
}

int MetricDeltaModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MetricDeltaModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_deltas.size())
        return {};
    const MetricDelta &d = m_deltas.at(index.row());
    const MetricDelta::Verdict verdict = d.verdict();
    const bool text = !d.leftText.isEmpty() || !d.rightText.isEmpty();
    if (role == VerdictRole)
        return int(verdict);
    if (role == Qt::TextAlignmentRole)
        return index.column() == MetricColumn || index.column() == VerdictColumn ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                              : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == MetricColumn)
        return d.key;
    if (role == Qt::ForegroundRole && (index.column() == RatioColumn || index.column() == VerdictColumn)) {
        const bool dark = Theme::current() == Theme::Kind::Dark;
        switch (verdict) {
        case MetricDelta::Verdict::Better:
            return dark ? QColor(0x6f, 0xd3, 0x86) : QColor(0x1b, 0x7a, 0x35);
        case MetricDelta::Verdict::Worse:
            return dark ? QColor(0xf2, 0x7d, 0x7d) : QColor(0xb3, 0x26, 0x1e);
        case MetricDelta::Verdict::Same:
        case MetricDelta::Verdict::Unknown:
            return QColor(0x8a, 0x8a, 0x8a);
        case MetricDelta::Verdict::Changed:
            break;
        }
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case MetricColumn:
        return d.label;
    case LeftColumn:
        return text ? d.leftText : MetricDeltas::format(d, d.left);
    case RightColumn:
        return text ? d.rightText : MetricDeltas::format(d, d.right);
    case RatioColumn:
        if (const std::optional<double> r = d.ratio())
            return QStringLiteral("%1×").arg(*r, 0, 'f', *r >= 100 ? 0 : 3);
        return QStringLiteral("–");
    case VerdictColumn:
        return MetricDelta::verdictName(verdict);
    default:
        return {};
    }
}

QVariant MetricDeltaModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case MetricColumn:
        return tr("Metric");
    case LeftColumn:
        return m_left;
    case RightColumn:
        return m_right;
    case RatioColumn:
        return tr("Right / left");
    case VerdictColumn:
        return tr("Right is");
    default:
        return {};
    }
}
