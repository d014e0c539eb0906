#pragma once

#include "model/candidate.h"
#include "model/evaluation.h"

#include <QHash>
#include <QString>

#include <optional>

// When a fix chain has nothing left to try. The fixer, shown a kernel and its error, sometimes returns that
// kernel again (with a comment changed, or not at all); the session measures it as a twin of the first,
// it fails the same way, and the fixer would be asked again, with the same kernel and the same error, up to
// F rounds: money for nothing. A fixer's kernel that repeats, by normalized source (KernelNormalizer), a
// kernel of its own chain, or that took over the failed evaluation of a twin already measured in the session,
// ends its chain.
class FixChain
{
public:
    struct Repeat
    {
        QString candidateId; // the kernel it repeats: an earlier link of its chain, or the twin it reused
        bool ownChain = false;
    };
    // `candidate` has just failed with `evaluation` and would go to the fixer. Empty when it is new.
    static std::optional<Repeat> repeatOf(const Candidate &candidate, const Evaluation &evaluation,
                                          const QHash<QString, Candidate> &candidates);
    // Why the chain stopped, for the log and the search's event.
    static QString reason(const Candidate &candidate, const Repeat &repeat, const Evaluation &evaluation);
};
