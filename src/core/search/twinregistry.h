#pragma once

#include "model/evaluation.h"
#include "search/searchjob.h"

#include <QHash>
#include <QList>
#include <QString>

// Twins and reuse: within a session (which fixes the task, size, backend and target) the same normalized
// source measures the same, so one candidate's measurement stands for every kernel with its source. The
// registry knows which candidate stands for each source and holds the jobs of twins waiting for a measurement
// still in flight; the search hands the measurement on when it lands.
class TwinRegistry
{
public:
    enum class Claim
    {
        Measure, // nobody stands for this source yet (now the claimant does), or the claimant itself does
        Reuse,   // standIn's evaluation is known: take it over
        Wait,    // standIn is still being measured: the job waits here until settle()
    };
    struct Claimed
    {
        Claim claim = Claim::Measure;
        QString standIn;
    };

    // A fresh candidate about to be measured: `measured` holds the session's evaluations so far.
    Claimed claim(const SearchJob &job, const QString &sourceHash,
                  const QHash<QString, Evaluation> &measured);
    // What was measured before (a resumed session): the evaluation stands for its source when it was the
    // kernel's own and said something about it. `replace` lets a later one win (the order of a resume's
    // history); otherwise the first stays.
    void noteMeasured(const QString &sourceHash, const QString &candidateId, const Evaluation &evaluation,
                      bool replace);
    // A measurement landed: the jobs of the twins waiting for it, when it is the one standing for its source.
    // A host failure (InfraError) says nothing about the kernel: the source has no stand-in anymore, and the
    // caller measures the first waiting twin itself (the rest then wait for it).
    QList<SearchJob> settle(const QString &sourceHash, const QString &candidateId,
                            const Evaluation &evaluation);
    bool standsFor(const QString &sourceHash, const QString &candidateId) const;
    void clear();

private:
    QHash<QString, QString> m_standIn;          // normalized source -> the candidate measured for it
    QHash<QString, QList<SearchJob>> m_waiting; // normalized source -> twins waiting for its measurement
};
