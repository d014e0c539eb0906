#pragma once

#include "model/plan.h"

// A plan as the workspace keeps it: which parent kernel it was made for, in which iteration, and which of the
// N planner calls produced it (planIndex), which together determine its id (SessionStore::planId).
struct PlanRecord
{
    QString id;
    QString sessionId;
    int iteration = 0;
    QString parentCandidateId;
    int planIndex = 0;
    Plan plan;
};
