#pragma once

#include <QDateTime>
#include <QMetaType>
#include <QString>

// One line of the memory browser: what its columns show, without the lesson and snippets (the detail pane
// loads those for the one selected experience). A value, so the engine thread can hand rows to the window.
struct ExperienceRow
{
    qint64 id = 0;
    bool pinned = false;
    QString title;
    QString task;
    QString target;
    double speedup = 1;
    int shown = 0;   // plans shown this experience
    int decided = 0; // of those, plans whose outcome is known
    int faster = 0;  // of those, plans that led to a faster kernel
    QDateTime updated;

    bool operator==(const ExperienceRow &) const = default;
};
