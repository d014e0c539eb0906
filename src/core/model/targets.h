#pragma once

#include <QStringList>

// The Trainium generations a kernel can be evaluated for: nkisim models each (perf/constants.py) and the
// runner's roofline knows its peaks; trn3 is NeuronCore-v4.
class Targets
{
public:
    static const QStringList &all();
    static bool isKnown(const QString &target) { return all().contains(target); }
    // "trn1, trn2 or trn3", for messages.
    static QString listed();
};
