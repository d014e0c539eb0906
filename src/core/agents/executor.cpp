#include "agents/executor.h"

#include "agents/promptlibrary.h"

ChatMessages Executor::messages(const PromptLibrary &prompts, const Input &input)
{
    return prompts.render(AgentRole::Executor, {{QStringLiteral("reference"), input.reference.trimmed()},
                                                {QStringLiteral("kernel"), input.kernel.trimmed()},
                                                {QStringLiteral("plan"), input.plan.text.trimmed()},
                                                {QStringLiteral("api_notes"),
                                                 prompts.apiNotes(input.writes.value_or(NkiGeneration::of(input.kernel)),
                                                                  AgentRole::Executor)}});
}
