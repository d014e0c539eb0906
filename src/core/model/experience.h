#pragma once

#include <QString>

// One lesson of the optimization memory: a before -> after change and what it taught (docs/architecture.md,
// "One optimization", step 6). speedup = before latency / after latency as measured, so a negative experience
// (the change slowed the kernel down) has speedup < 1 and is kept that way, not flipped.
struct Experience
{
    QString title;
    QString lesson;
    QString snippetBefore;
    QString snippetAfter;
    double speedup = 1.0;

    bool isNegative() const { return speedup < 1.0; }
};
