#pragma once

#include "agents/parseresult.h"
#include "llm/chatmessage.h"
#include "model/experience.h"
#include "model/plan.h"

#include <QJsonObject>

#include <optional>

class PromptLibrary;

// The planner: sees the task's reference, the kernel, its profile (with a glossary and what the
// recommendation rules found in it) and the experiences retrieved from memory, and proposes one optimization
// step. Pure functions: no I/O, no state.
class Planner
{
public:
    struct Input
    {
        QString reference; // the task's numpy reference source
        QString kernel;    // the kernel to improve
        std::optional<double> latencyMs;
        QJsonObject metrics;           // the runner protocol's names
        QList<Experience> experiences; // positive and negative (speedup < 1)
        // What the recommendation rules say about the profile (Advisor::forPrompt); empty reads as none.
        QString findings;
        // Where the numbers come from (Evaluation::provenanceText): a prediction of nkisim's or a device's
        // measurement; the planner is told which, in one line above the profile.
        QString provenance;
    };

    static ChatMessages messages(const PromptLibrary &prompts, const Input &input);
    static ParseResult<Plan> parse(const QString &reply);
    // The experiences as the prompt shows them: what worked first, then what to avoid.
    static QString formatExperiences(const QList<Experience> &experiences);
};
