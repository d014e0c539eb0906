#pragma once

#include "agents/parseresult.h"
#include "llm/chatmessage.h"
#include "model/experience.h"

#include <QJsonObject>

#include <optional>

class PromptLibrary;

// The summarizer: given a before -> after pair, the measured speedup and both profiles, writes the lesson for
// the memory. Works for both directions: a slowdown (speedup < 1) becomes a negative experience, described as
// the change it was, with the warning that it hurt.
class Summarizer
{
public:
    struct Input
    {
        QString beforeKernel;
        QString afterKernel;
        double speedup = 1.0; // before latency / after latency, as measured
        std::optional<double> beforeLatencyMs;
        QJsonObject beforeMetrics;
        std::optional<double> afterLatencyMs;
        QJsonObject afterMetrics;
    };

    static ChatMessages messages(const PromptLibrary &prompts, const Input &input);
    // The experience carries `speedup` from the input: the measurement, not the model's opinion.
    static ParseResult<Experience> parse(const QString &reply, double speedup);
};
