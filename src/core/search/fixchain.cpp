#include "search/fixchain.h"

#include <QSet>

std::optional<FixChain::Repeat> FixChain::repeatOf(const Candidate &candidate, const Evaluation &evaluation,
                                                   const QHash<QString, Candidate> &candidates)
{
    if (candidate.origin != Candidate::Origin::Fixer)
        return std::nullopt; // an executor's kernel gets its first fix whatever it looks like
    if (!candidate.sourceHash.isEmpty()) {
        // Up the chain: the kernels the fixer was shown, back to the executor's. `seen` guards against a
        // parent link that loops, which only damaged data could make.
        QSet<QString> seen{candidate.id};
        for (auto it = candidates.constFind(candidate.parentId);
             it != candidates.cend() && !seen.contains(it->id); it = candidates.constFind(it->parentId)) {
            seen.insert(it->id);
            if (it->sourceHash == candidate.sourceHash)
                return Repeat{it->id, true};
            if (it->origin != Candidate::Origin::Fixer)
                break;
        }
    }
    // The same source was measured elsewhere in the session and failed the same way: its own chain, if it
    // has one, is the place to fix it.
    if (!evaluation.reusedFrom.isEmpty())
        return Repeat{evaluation.reusedFrom, false};
    return std::nullopt;
}

QString FixChain::reason(const Candidate &candidate, const Repeat &repeat, const Evaluation &evaluation)
{
    return QStringLiteral(
               "the fix chain of %1 stops at round %2: the fixer returned the same kernel (normalized) "
               "as %3, %4, which already failed (%5); asking again would show it the same kernel and "
               "the same error")
        .arg(candidate.id)
        .arg(candidate.fixRound)
        .arg(repeat.candidateId,
             repeat.ownChain ? QStringLiteral("an earlier kernel of this chain")
                             : QStringLiteral("a kernel already measured in this session"),
             evaluation.ok() && evaluation.correct == false ? QStringLiteral("incorrect")
                                                            : evaluation.statusName());
}
