#pragma once

#include <QString>

// A kernel produced in a session (docs/architecture.md, "One optimization"): where it came from (parent,
// plan, origin) and its source. Ids are deterministic (SessionStore::candidateId), so a resumed session that
// produces the same candidate again finds the row already there instead of adding a second one.
struct Candidate
{
    enum class Origin
    {
        Baseline,
        Executor,
        Fixer
    };

    QString id;
    QString sessionId;
    int iteration = 0;
    QString parentId;     // the kernel this one was derived from; empty for the baseline. For a fixer
                          // candidate it is the broken candidate that was repaired.
    QString planId;       // empty for the baseline
    int planIndex = -1;   // which of the N plans for the parent
    int sampleIndex = -1; // which of the K executor samples for the plan
    int fixRound = 0;     // 0 for executor output, 1..F for the fixer's rounds
    Origin origin = Origin::Executor;
    QString source;
    QString sourceHash; // KernelNormalizer::hash(source): what "distinct kernels" means in selection

    static QString originName(Origin origin)
    {
        switch (origin) {
        case Origin::Baseline:
            return QStringLiteral("baseline");
        case Origin::Fixer:
            return QStringLiteral("fixer");
        case Origin::Executor:
            break;
        }
        return QStringLiteral("executor");
    }
    static bool originFromName(const QString &name, Origin &origin)
    {
        for (Origin o : {Origin::Baseline, Origin::Executor, Origin::Fixer})
            if (originName(o) == name) {
                origin = o;
                return true;
            }
        return false;
    }
};
