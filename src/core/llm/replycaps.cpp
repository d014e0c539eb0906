#include "llm/replycaps.h"

#include <algorithm>

qsizetype ReplyCaps::contentChars(AgentRole role)
{
    switch (role) {
    case AgentRole::Executor:
    case AgentRole::Fixer:
        return 256 * 1024;
    case AgentRole::Planner:
    case AgentRole::Summarizer:
        break;
    }
    return 64 * 1024;
}

bool ReplyCaps::cut(QString &text, qsizetype cap, qsizetype originalChars, const QString &what)
{
    originalChars = std::max(originalChars, text.size());
    if (originalChars <= cap)
        return false;
    qsizetype kept = std::min(cap, text.size());
    if (kept > 0 && text.at(kept - 1).isHighSurrogate())
        --kept;
    text.truncate(kept);
    text += note(kept, cap, originalChars, what);
    return true;
}

QString ReplyCaps::note(qsizetype kept, qsizetype cap, qsizetype originalChars, const QString &what)
{
    return QStringLiteral(
               "\n\n[AccelOpt cut this %1 here: it had %2 characters, over the cap of %3 for a %1; "
               "the first %4 are kept]\n")
        .arg(what)
        .arg(originalChars)
        .arg(cap)
        .arg(kept);
}
