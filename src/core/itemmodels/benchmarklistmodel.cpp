#include "itemmodels/benchmarklistmodel.h"

#include "itemmodels/candidatetext.h"
#include "itemmodels/modelroles.h"
#include "search/selection.h"

BenchmarkListModel::BenchmarkListModel(QObject *parent) : QAbstractTableModel(parent) {}

void BenchmarkListModel::add(const Run &run)
{
    beginInsertRows({}, 0, 0);
    m_runs.prepend(run);
    endInsertRows();
}

bool BenchmarkListModel::finish(quint64 job, const Evaluation &evaluation)
{
    for (int i = 0; i < m_runs.size(); ++i)
        if (m_runs.at(i).job == job) {
            m_runs[i].evaluation = evaluation;
            Q_EMIT dataChanged(index(i, 0), index(i, ColumnCount - 1));
            return true;
        }
    return false;
}

const BenchmarkListModel::Run *BenchmarkListModel::run(quint64 job) const
{
    for (const Run &r : m_runs)
        if (r.job == job)
            return &r;
    return nullptr;
}

QModelIndex BenchmarkListModel::indexOf(quint64 job, int column) const
{
    for (int i = 0; i < m_runs.size(); ++i)
        if (m_runs.at(i).job == job)
            return index(i, column);
    return {};
}

void BenchmarkListModel::clear()
{
    beginResetModel();
    m_runs.clear();
    endResetModel();
}

int BenchmarkListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_runs.size());
}

int BenchmarkListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BenchmarkListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Run &r = m_runs.at(index.row());
    const std::optional<Evaluation> &e = r.evaluation;
    switch (role) {
    case ModelRoles::Status:
        return e ? int(e->status) : ModelRoles::Evaluating;
    case ModelRoles::Failed:
        return e && !Selection::isUsable(*e) && !(e->ok() && !e->correct); // timing-only runs are fine
    case Qt::ToolTipRole:
        if (e && !e->error.isEmpty())
            return e->error.left(2000);
        return QStringLiteral("%1 on %2 (%3, %4 size), submitted %5")
            .arg(r.kernel, r.host, r.target, r.size, r.submitted.toString(Qt::ISODate));
    case Qt::TextAlignmentRole:
        return index.column() >= Mean && index.column() <= PercentOfPeak
                   ? int(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (index.column()) {
    case Kernel:
        return r.kernel;
    case Task:
        return r.task;
    case Target:
        return QStringLiteral("%1 · %2").arg(r.host, r.target);
    case Status:
        return e ? (e->ok() && e->correct == false ? QStringLiteral("incorrect") : e->statusName())
                 : QStringLiteral("running");
    case Correct:
        return !e || !e->correct ? QString() : *e->correct ? QStringLiteral("yes") : QStringLiteral("no");
    case Mean:
        return e ? CandidateText::milliseconds(e->latencyMeanMs) : QString();
    case P50:
        return e ? CandidateText::milliseconds(e->latencyP50Ms) : QString();
    case Min:
        return e ? CandidateText::milliseconds(e->latencyMinMs) : QString();
    case Max:
        return e ? CandidateText::milliseconds(e->latencyMaxMs) : QString();
    case PercentOfPeak:
        return e && e->percentOfPeak ? QString::number(*e->percentOfPeak, 'f', 1) : QString();
    case Bound:
        return e ? e->bound : QString();
    default:
        return {};
    }
}

QVariant BenchmarkListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *const names[] = {"Kernel",  "Task",      "Host · target", "Status",
                                        "Correct", "Mean (ms)", "p50",           "Min",
                                        "Max",     "% of peak", "Bound"};
    return section >= 0 && section < ColumnCount ? QString::fromUtf8(names[section]) : QVariant();
}
