#pragma once

#include "model/experience.h"

#include <QDateTime>

// An experience as the memory database keeps it: the lesson plus where it came from and how the user curated
// it. The kind follows from the measured speedup and is stored with it: a negative experience stays negative
// (speedup < 1, slow = the attempted change), unlike the original AccelOpt scripts, which flipped such pairs
// into positive-looking ones (reference/accelopt-method.md, pitfall 4).
struct ExperienceRecord
{
    qint64 id = 0; // local to one memory database; not exported
    QString task;
    QString target;
    Experience experience;
    QString slowCandidateId;
    QString fastCandidateId;
    QString
        slowHash; // KernelNormalizer::hash of the slow and fast kernels, when known: the import's identity
    QString fastHash;
    QString sessionId;
    // Where the faster kernel's latency came from (Evaluation::provenanceText, issue 34): "nkisim on local"
    // or "hardware (Neuron SDK ...) on trn"; empty for an experience older than that or imported without it.
    QString measuredOn;
    bool pinned = false;
    QDateTime created;
    QDateTime updated;
    // Usage evidence (ExperienceStore::recordRetrieval): how many plans were shown this experience, for how
    // many of them the outcome is known, and how many led to a kernel faster than the one they started from.
    int shown = 0;
    int decided = 0;
    int faster = 0;

    // The share of decided plans that led to a faster kernel; negative while no plan is decided.
    double hitRate() const { return decided > 0 ? double(faster) / decided : -1.0; }
    // "67% of 3": the hit rate and how many plans it rests on; empty while no plan is decided.
    static QString hitRateText(int decided, int faster)
    {
        return decided > 0 ? QStringLiteral("%1% of %2").arg(qRound(100.0 * faster / decided)).arg(decided)
                           : QString();
    }
    bool isNegative() const { return experience.isNegative(); }
    QString kindName() const
    {
        return isNegative() ? QStringLiteral("negative") : QStringLiteral("positive");
    }
};
