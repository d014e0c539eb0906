#pragma once

#include "model/candidate.h"
#include "model/evaluation.h"
#include "search/searchconfig.h"
#include "search/searchjob.h"
#include "search/selection.h"

#include <QHash>
#include <QList>
#include <QSet>

// The cascade (SearchConfig::checkAll false): a new kernel is first only timed, and its numerics are checked
// only if, were it correct, it would enter the beam, make an experience or decide a plan's hit
// (Selection::toCheck). These are the search's side of it, pure: which children to check now, how a result
// changes the iteration's children, and which twins a check stands for. BeamSearch submits the checks.
class Cascade
{
public:
    struct Inputs
    {
        const SearchConfig *config = nullptr;
        bool experiences = false; // the search has a memory
        QSet<QString> shownPlans; // plans that were shown experiences (their hits are decided)
        const QHash<QString, Candidate> *candidates = nullptr;
    };

    // The selection's side of the settings, which the cascade's and the confirmation's (Confirmation) rules
    // both take: beam width, noise floor, and the experience thresholds when the search has a memory.
    static Selection::CascadeScope scope(const SearchConfig &config, bool experiences);
    // The children to check now, one per normalized source (a check's result is handed on to its twins by
    // uncheckedTwins()), in id order; `children` is sorted by id first, so ties never depend on the order in
    // which results landed.
    static QList<ScoredKernel> toCheck(const QList<ScoredKernel> &beam, QList<ScoredKernel> &children,
                                       const Inputs &inputs);
    // A result joins the iteration's children: a check's result replaces the timing-only child it checked (or
    // drops it when it failed, or came back without a verdict: kept unchecked, it would be named again and
    // again).
    static void keep(QList<ScoredKernel> &children, const SearchJob &job, const Candidate &candidate,
                     const Evaluation &evaluation);
    // The still unchecked children that share a checked kernel's source: they took over its timing-only
    // measurement, and the check stands for them as well.
    static QList<ScoredKernel> uncheckedTwins(const QList<ScoredKernel> &children, const Candidate &checked);
};
