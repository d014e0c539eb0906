#pragma once

#include "memory/experiencesort.h"
#include "memory/memoryfilter.h"

// What the memory browser asks the engine for: a filter and an order, a window of rows, and optionally one
// experience to find (the selection to keep): then the window is the page holding it and its row is reported.
struct ExperiencePageRequest
{
    MemoryFilter filter;
    ExperienceSort sort;
    int offset = 0;
    int limit = 128;
    qint64 focusId = 0; // 0: none
};
