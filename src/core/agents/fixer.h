#pragma once

#include "agents/kernelextractor.h"
#include "llm/chatmessage.h"
#include "model/plan.h"

#include <optional>

class PromptLibrary;

// The fixer: gets a kernel that failed (did not compile, crashed, or computed the wrong numbers), the plan it
// was meant to carry out and the error, and returns a corrected complete kernel.
class Fixer
{
public:
    struct Failure
    {
        QString status;  // the runner's status: compile_error, runtime_error, incorrect, rejected, timeout
        QString message; // the runner's error text, with the kernel's line number where known
        std::optional<double> l2RelErr; // for incorrect results
        std::optional<double> maxAbsErr;
        std::optional<double> tolerance; // the relative L2 bound the check used
    };
    struct Input
    {
        QString reference;
        QString kernel; // the failing kernel
        Plan plan;
        Failure failure;
    };

    static ChatMessages messages(const PromptLibrary &prompts, const Input &input);
    static ParseResult<KernelProposal> parse(const QString &reply) { return KernelExtractor::extract(reply); }
    static QString formatFailure(const Failure &failure);
};
