#pragma once

#include "command.h"

// accelopt mcp: the workbench's tools for agent IDEs, as a Model Context Protocol server on stdio.
class McpCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("mcp"); }
    QString summary() const override
    {
        return QStringLiteral("Serve the tools to agent IDEs: a Model Context Protocol server on stdio.");
    }
    int run(const QStringList &arguments) override;
};
