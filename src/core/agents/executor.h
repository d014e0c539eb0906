#pragma once

#include "agents/kernelextractor.h"
#include "llm/chatmessage.h"
#include "model/plan.h"

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
    };

    static ChatMessages messages(const PromptLibrary &prompts, const Input &input);
    static ParseResult<KernelProposal> parse(const QString &reply) { return KernelExtractor::extract(reply); }
};
