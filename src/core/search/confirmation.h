#pragma once

#include "search/selection.h"

#include <QSet>
#include <QStringList>

#include <functional>

// The two-stage evaluation's rule (issue 34), pure like the cascade's (Selection::toCheck): every candidate
// is first timed on nkisim; only those that could change the outcome go to the hardware host. Given the
// iteration's kernels with their nkisim evaluations, which children still need a device measurement:
// - in or near the beam: a child whose nkisim latency is within its kind's margin of nkisim's beam
//   (latency <= cutoff * (1 + margin), the cutoff being the slowest kernel of Selection::nextBeam on nkisim's
//   numbers). With a margin that covers how much nkisim's error varies between kernels (Calibration::margin),
//   every kernel the device would put in its beam, and so the best, is confirmed;
// - those that would make an experience (Selection::experiencePairs, with the gain and loss thresholds
//   widened by the largest margin).
// The search then selects the beam, the experiences and the best among confirmed kernels only, by their
// device measurements; the rest stay "simulated only". The set depends on nkisim's numbers alone, so one
// question per iteration is enough.
namespace Confirmation {

// The margin of a kernel's kind (Calibration::margin of its nkisim run's bound and the target).
using Margin = std::function<double(const ScoredKernel &)>;

// Sorted ids of the children (not in `confirmed`) to measure on the hardware host. `parents` and `children`
// carry nkisim evaluations. The scope is the cascade's (its beam width, noise floor and experience
// thresholds; hitPlans and planOf are not used: a plan's hit is decided on the kernels that were confirmed).
QStringList toConfirm(const QList<ScoredKernel> &parents, const QList<ScoredKernel> &children,
                      const QSet<QString> &confirmed, const Selection::CascadeScope &scope,
                      const Margin &margin);

} // namespace Confirmation
