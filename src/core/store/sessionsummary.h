#pragma once

#include "store/sessionrecord.h"

#include <optional>

// One line of a list of sessions (the workbench's Sessions dock, `accelopt sessions list`): the session and
// what it achieved so far, read in one query.
struct SessionSummary
{
    SessionRecord session;
    int iterations = 0;     // T of its settings
    int iterationsDone = 0; // whose beam was selected: what the Search dock counts too, not the one running
    int candidates = 0;
    std::optional<double> baselineLatencyMs; // when the baseline ran correctly
    std::optional<double> bestLatencyMs;     // of the fastest correct kernel
    std::optional<double> bestPercentOfPeak;
    double costUsd = 0;  // of the calls with a price
    int calls = 0;       // model calls booked
    int unpricedCalls = 0; // of those, calls of unknown cost (no price, no usage): never counted as $0
    bool live = false; // a process holds its lock: running now (set by the caller, see SessionLock)

    std::optional<double> speedup() const
    {
        if (baselineLatencyMs && bestLatencyMs && *bestLatencyMs > 0)
            return *baselineLatencyMs / *bestLatencyMs;
        return std::nullopt;
    }
};
