#pragma once

#include "agents/kernelextractor.h"
#include "llm/chatmessage.h"
#include "model/nkigeneration.h"
#include "model/plan.h"

#include <optional>

class PromptLibrary;

// The executor: turns one plan into one complete kernel, returned as a fenced python block defining `kernel`.
class Executor
{
public:
    struct Input
    {
        QString reference;
        QString kernel;
        Plan plan;
        std::optional<NkiGeneration::Kind> writes; // unset: the input kernel's own (a port writes current)
    };

    static ChatMessages messages(const PromptLibrary &prompts, const Input &input);
    static ParseResult<KernelProposal> parse(const QString &reply) { return KernelExtractor::extract(reply); }
};
