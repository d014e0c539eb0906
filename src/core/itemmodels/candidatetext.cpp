#include "itemmodels/candidatetext.h"

#include "itemmodels/modelroles.h"
#include "search/selection.h"

namespace CandidateText {

QString header(Column column)
{
    switch (column) {
    case Column::Kernel:
        return QStringLiteral("Kernel");
    case Column::Iteration:
        return QStringLiteral("It.");
    case Column::Kind:
        return QStringLiteral("Kind");
    case Column::Status:
        return QStringLiteral("Status");
    case Column::Latency:
        return QStringLiteral("Latency (ms)");
    case Column::Speedup:
        return QStringLiteral("Speedup");
    case Column::PercentOfPeak:
        return QStringLiteral("% of peak");
    case Column::Bound:
        return QStringLiteral("Bound");
    case Column::Id:
        break;
    }
    return QStringLiteral("Candidate");
}

QString milliseconds(const std::optional<double> &ms)
{
    return ms ? QString::number(*ms, 'g', 4) : QString();
}

QString kind(const Candidate &c)
{
    if (c.origin == Candidate::Origin::Baseline)
        return QStringLiteral("baseline");
    if (c.origin == Candidate::Origin::Fixer)
        return QStringLiteral("fix %1").arg(c.fixRound);
    return QStringLiteral("plan %1.%2").arg(c.planIndex + 1).arg(c.sampleIndex + 1);
}

QString statusText(const SearchState::Row &row)
{
    if (row.evaluating)
        return QStringLiteral("running");
    if (!row.evaluation)
        return QStringLiteral("pending");
    const Evaluation &e = *row.evaluation;
    if (row.demoted)
        return QStringLiteral("demoted");
    if (e.ok() && e.correct == false)
        return QStringLiteral("incorrect");
    QString text = row.simulatedOnly && e.ok() ? QStringLiteral("simulated only")
                   : e.ok() && !e.correct      ? QStringLiteral("not checked")
                                               : e.statusName();
    if (!e.reusedFrom.isEmpty())
        text += QStringLiteral(" (reused)");
    return text;
}

QString toolTip(const SearchState::Row &row)
{
    QString tip = QStringLiteral("%1 · iteration %2 · %3")
                      .arg(row.candidate.id.left(8))
                      .arg(row.candidate.iteration)
                      .arg(kind(row.candidate));
    if (!row.planTitle.isEmpty())
        tip += QStringLiteral("\nPlan: ") + row.planTitle;
    if (row.evaluation) {
        const Evaluation &e = *row.evaluation;
        if (!e.error.isEmpty())
            tip += QStringLiteral("\n") + e.statusName() + QStringLiteral(": ") + e.error.left(600);
        if (!e.reusedFrom.isEmpty())
            tip += QStringLiteral("\nThe same kernel as %1: its measurement is reused")
                       .arg(e.reusedFrom.left(8));
        if (row.simulatedOnly && e.ok())
            tip += QStringLiteral("\nSimulated only: nkisim timed it and placed it too far from the beam to "
                                  "change the outcome, so it was not measured on the hardware host; it is "
                                  "never in the beam, an experience or the best");
        else if (e.onHardware() && !e.sdk.isEmpty())
            tip += QStringLiteral("\nMeasured on the hardware host (%1)").arg(e.sdk);
        if (row.demoted && !row.remeasured)
            tip += QStringLiteral("\nDemoted: a kernel with the same source failed its re-measurement");
        if (row.remeasured) {
            const Evaluation &r = *row.remeasured;
            tip +=
                Selection::failsRemeasure(r)
                    ? QStringLiteral("\nDemoted: re-measured on fresh seeds at the small size, it was %1%2")
                          .arg(r.ok() ? QStringLiteral("incorrect") : r.statusName(),
                               r.error.isEmpty() ? QString() : QStringLiteral(": ") + r.error.left(300))
                : r.ok()
                    ? QStringLiteral("\nRe-measured on fresh seeds at the small size: correct")
                    : QStringLiteral("\nCould not be re-measured (%1): kept as measured").arg(r.statusName());
        }
        if (e.ok() && !e.correct)
            tip += QStringLiteral("\nOnly timed: its numerics are checked only if it is fast enough to enter "
                                  "the beam or make an experience (the search's cascade)");
        if (e.l2RelErr)
            tip += QStringLiteral("\nL2 relative error %1").arg(*e.l2RelErr, 0, 'g', 3);
    }
    if (row.beamRank >= 0)
        tip += QStringLiteral("\nIn the beam (rank %1)").arg(row.beamRank + 1);
    return tip;
}

QVariant display(const SearchState &state, const SearchState::Row &row, Column column)
{
    const std::optional<Evaluation> &e = row.evaluation;
    switch (column) {
    case Column::Kernel:
        if (row.candidate.origin == Candidate::Origin::Baseline)
            return QStringLiteral("baseline");
        if (row.planTitle.isEmpty())
            return kind(row.candidate);
        return row.candidate.origin == Candidate::Origin::Fixer
                   ? QStringLiteral("%1 (fix %2)").arg(row.planTitle).arg(row.candidate.fixRound)
                   : row.planTitle;
    case Column::Iteration:
        return row.candidate.iteration;
    case Column::Kind:
        return kind(row.candidate);
    case Column::Status:
        return statusText(row);
    case Column::Latency:
        return e ? milliseconds(e->latencyMeanMs) : QString();
    case Column::Speedup:
        if (const auto x = state.speedupOf(row))
            return QStringLiteral("%1×").arg(*x, 0, 'f', 2);
        return QString();
    case Column::PercentOfPeak:
        return e && e->percentOfPeak ? QString::number(*e->percentOfPeak, 'f', 1) : QString();
    case Column::Bound:
        return e ? e->bound : QString();
    case Column::Id:
        return row.candidate.id.left(8);
    }
    return {};
}

QVariant sortValue(const SearchState &state, const SearchState::Row &row, Column column)
{
    const std::optional<Evaluation> &e = row.evaluation;
    // Unknown numbers sort after every known one in ascending order.
    constexpr double unknown = 1e300;
    switch (column) {
    case Column::Latency:
        return e && e->latencyMeanMs ? *e->latencyMeanMs : unknown;
    case Column::Speedup:
        return state.speedupOf(row).value_or(-1.0);
    case Column::PercentOfPeak:
        return e && e->percentOfPeak ? *e->percentOfPeak : -1.0;
    case Column::Iteration:
        return row.candidate.iteration;
    default:
        return display(state, row, column);
    }
}

QVariant role(const SearchState &state, const SearchState::Row &row, Column column, int role)
{
    switch (role) {
    case Qt::DisplayRole:
        return display(state, row, column);
    case Qt::ToolTipRole:
        return toolTip(row);
    case Qt::TextAlignmentRole:
        if (column == Column::Latency || column == Column::Speedup || column == Column::PercentOfPeak ||
            column == Column::Iteration)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case ModelRoles::CandidateId:
        return row.candidate.id;
    case ModelRoles::Status:
        return row.evaluating   ? ModelRoles::Evaluating
               : row.evaluation ? int(row.evaluation->status)
                                : ModelRoles::Pending;
    case ModelRoles::InBeam:
        return row.beamRank >= 0;
    case ModelRoles::IsBest:
        return row.candidate.id == state.summary().bestCandidateId;
    case ModelRoles::Failed:
        return row.evaluation && !Selection::isUsable(*row.evaluation) &&
               !Selection::isUnchecked(*row.evaluation);
    case ModelRoles::SortValue:
        return sortValue(state, row, column);
    case ModelRoles::SessionId:
        return row.candidate.sessionId;
    default:
        return {};
    }
}

} // namespace CandidateText
