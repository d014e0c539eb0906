#include "agents/fixer.h"

#include "agents/promptlibrary.h"

QString Fixer::formatFailure(const Failure &f)
{
    QStringList lines;
    lines << QStringLiteral("status: %1").arg(f.status.isEmpty() ? QStringLiteral("failed") : f.status);
    if (!f.message.trimmed().isEmpty())
        lines << QStringLiteral("message:\n%1").arg(f.message.trimmed().left(8000));
    if (f.l2RelErr)
        lines << QStringLiteral("relative L2 error of the output: %1").arg(*f.l2RelErr, 0, 'g', 4);
    if (f.maxAbsErr)
        lines << QStringLiteral("largest absolute element error: %1").arg(*f.maxAbsErr, 0, 'g', 4);
    if (f.tolerance)
        lines << QStringLiteral("allowed relative L2 error: %1").arg(*f.tolerance, 0, 'g', 4);
    return lines.join(u'\n');
}

ChatMessages Fixer::messages(const PromptLibrary &prompts, const Input &input)
{
    return prompts.render(AgentRole::Fixer, {{QStringLiteral("reference"), input.reference.trimmed()},
                                             {QStringLiteral("kernel"), input.kernel.trimmed()},
                                             {QStringLiteral("plan"), input.plan.text.trimmed()},
                                             {QStringLiteral("error"), formatFailure(input.failure)},
                                             {QStringLiteral("api_notes"),
                                              prompts.apiNotes(NkiGeneration::of(input.kernel), AgentRole::Fixer)}});
}
