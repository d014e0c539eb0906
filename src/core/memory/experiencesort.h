#pragma once

// The order of the memory browser's list. Default: the best text match first when there is search text (up to
// ExperienceBrowser::relevanceLimit matches), else pinned then newest. The other keys are the list's columns;
// each breaks ties on a stable key so a page boundary never moves between two reads.
struct ExperienceSort
{
    enum class Key { Default, Pinned, Title, Task, Target, Speedup, Shown, HitRate, Updated };

    Key key = Key::Default;
    bool descending = false;

    bool operator==(const ExperienceSort &) const = default;
};
