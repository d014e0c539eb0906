#pragma once

#include "model/evaluation.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

// A kernel as selection sees it: its candidate id, the beam kernel it was derived from (for a fixer's output,
// the beam parent of the candidate it repaired, not the broken candidate), its normalized source hash and its
// evaluation.
struct ScoredKernel
{
    QString candidateId;
    QString parentId; // empty for beam kernels that are not compared with a parent (the baseline)
    QString sourceHash;
    Evaluation evaluation;
};

// A measured before -> after change worth a lesson. speedup = before latency / after latency: above the gain
// threshold a positive experience, below the loss threshold a negative one, kept as measured (not flipped).
struct ExperiencePair
{
    ScoredKernel before; // the beam parent
    ScoredKernel after;  // its child
    double speedup = 1.0;
    bool isNegative() const { return speedup < 1.0; }
};

// The selection rules of the loop (docs/architecture.md, "One optimization", steps 3 and 6) as pure
// functions. Unlike the original AccelOpt scripts (reference/accelopt-method.md §1.3, pitfall 2), selection
// is elitist: a parent stays in the beam unless enough children are faster than it, so the best kernel never
// gets worse from one iteration to the next.
namespace Selection {

// Status ok, known correct and a positive mean latency: a kernel that may enter the beam.
bool isUsable(const Evaluation &evaluation);
// Status ok and a positive mean latency, but its correctness not checked: the cascade only timed it.
bool isUnchecked(const Evaluation &evaluation);
// A best kernel's re-measurement (fresh seeds, the small size) that demotes it: the run says something about
// the kernel (not a host failure) and it was not correct. SessionStore's best-kernel queries apply the same
// rule.
bool failsRemeasure(const Evaluation &remeasured);
// The mean latency a usable kernel ranks by; infinity when unknown.
double latency(const Evaluation &evaluation);

// The one rule for "the best kernel" of a session, which the search, the session store, the CLI, the export
// and the window all apply: the lowest mean latency among usable kernels; on a tie the one found in the
// earlier iteration, then the smaller candidate id (ids are derived from the search's structure, so a resumed
// session picks the same twin as an uninterrupted one).
struct BestKey
{
    double latencyMs = 0;
    int iteration = 0;
    QString candidateId;
};
bool isBetterBest(const BestKey &a, const BestKey &b);

// The relative noise of comparing two measurements: the larger of their spreads, and at least `floor`
// (a missing spread counts as the floor).
double relativeNoise(const Evaluation &a, const Evaluation &b, double floor = 0.01);

// True when `child` is faster than `parent` beyond the noise:
// child latency * (1 + relativeNoise) < parent latency. Both must be usable.
bool isFaster(const Evaluation &child, const Evaluation &parent, double floor = 0.01);

// The next beam: the `width` fastest distinct (by source hash) usable kernels among parents and children,
// fastest first. When two kernels share a hash the parent (or the first seen) is kept. A child that is faster
// than its own parent only within the noise ranks right behind that parent, so measurement noise never
// replaces a parent by an equivalent child.
QList<ScoredKernel> nextBeam(const QList<ScoredKernel> &parents, const QList<ScoredKernel> &children,
                             int width, double noiseFloor = 0.01);

// Parent -> child pairs for the memory: usable pairs with a different source whose speedup is >= gain
// (positive) or <= loss (negative), one per distinct (parent, child source), the `topK` with the largest
// |log speedup| first.
QList<ExperiencePair> experiencePairs(const QList<ScoredKernel> &parents, const QList<ScoredKernel> &children,
                                      double gain, double loss, int topK);

// What the search's cascade (SearchConfig::checkAll false) still has to check once an iteration's candidates
// are timed: the unchecked children that, were they correct, would enter the next beam (nextBeam), make one
// of the iteration's experiences (experiencePairs, when `experiences`), or be the fastest kernel faster than
// its parent of a plan in `hitPlans` that has no checked one faster (that kernel decides the plan's hit for
// the memory's hit rates). Checking them and asking again until nothing is left gives the beam and the
// experiences that checking every candidate gives. `children` in the order the selection takes them; sorted
// ids out.
struct CascadeScope
{
    int width = 1;
    double noiseFloor = 0.01;
    bool experiences = false;
    double gain = 1.04;
    double loss = 1.0 / 1.15;
    int topK = 0;
    QSet<QString> hitPlans;
    QHash<QString, QString> planOf; // candidate id -> its plan's id
};
QStringList toCheck(const QList<ScoredKernel> &parents, const QList<ScoredKernel> &children,
                    const CascadeScope &scope);

// The children named by ids, in their order, one per normalized source (sourceHash; a kernel without one is its
// own): a twin's result is handed over when its source's run lands, so only one of them is run.
QList<ScoredKernel> onePerSource(const QList<ScoredKernel> &children, const QStringList &ids);

} // namespace Selection
