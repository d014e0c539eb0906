#pragma once

#include "llm/agentrole.h"
#include "model/plan.h"
#include "search/inflight.h"

#include <QString>

// One model call of a search: what it was asked for, so its reply can be put in place (CallBook keeps the
// calls out; BeamSearch reads their replies).
struct AgentCall
{
    quint64 number = 0;     // LlmCallStarted/Finished's call
    InFlight::Key work = 0; // the step's outstanding work this call is part of
    bool replayed = false;  // answered from the session's record
    AgentRole role = AgentRole::Planner;
    QString beamParentId; // the beam kernel this work descends from
    int planIndex = -1;
    int sampleIndex = -1;
    int fixRound = 0;
    QString planId;
    Plan plan;
    QString brokenCandidateId; // fixer: the candidate it repairs
    int pairIndex = -1;        // summarizer: which of the iteration's experience pairs
};
