#pragma once

#include <QString>
#include <QStringList>

// A planner's proposal for one optimization step. `text` is the planner's whole reply, which is what the
// executor is shown; title and steps are what the UI lists and the store indexes.
struct Plan
{
    QString title;
    QStringList steps;
    QString text;
};
