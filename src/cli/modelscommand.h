#pragma once

#include "command.h"

struct Endpoint;
struct LlmConfig;

// `accelopt models list|presets|test`: the LLM endpoints, role assignments and prices the workbench's Models
// dialog edits (the same llm.json), and a real round trip to an endpoint to prove it answers.
class ModelsCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("models"); }
    QString summary() const override
    {
        return QStringLiteral("List the LLM endpoints and roles; test an endpoint.");
    }
    int run(const QStringList &arguments) override;

private:
    int list(const QStringList &arguments);
    int presets(const QStringList &arguments);
    int test(const QStringList &arguments);
    static int testOne(const Endpoint &endpoint, const LlmConfig &config, int attempts);
};
