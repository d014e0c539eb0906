#pragma once

#include "command.h"

// accelopt compare A B: the unified diff of two kernels (files or candidates of the workspace) and, when both
// have evaluations, the metric deltas; the headless twin of the workbench's Compare view.
class CompareCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("compare"); }
    QString summary() const override
    {
        return QStringLiteral("Compare two kernels: the diff, and the metric deltas of their evaluations.");
    }
    int run(const QStringList &arguments) override;
};
