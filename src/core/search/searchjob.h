#pragma once

#include "model/plan.h"
#include "search/inflight.h"

#include <QString>

// One evaluation a search waits for: a candidate measured by the host pool, taken over from a twin or
// replayed from the store. TwinRegistry holds the jobs of twins waiting for a measurement in flight.
struct SearchJob
{
    QString candidateId;
    QString beamParentId;
    Plan plan;
    bool check = false;     // the cascade's numeric check of a candidate that was only timed
    bool remeasure = false; // the best kernel's run on fresh seeds and the small size (Remeasurement)
    InFlight::Key work = 0; // the step's outstanding work this job is part of (none for a re-measurement)
    bool confirm = false;   // the two-stage evaluation's device run of a kernel nkisim timed (Confirmation)
};
