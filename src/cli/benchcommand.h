#pragma once

#include "command.h"

// accelopt bench KERNEL.py --task NAME|DIR: one kernel, one task, on a host.
class BenchCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("bench"); }
    QString summary() const override
    {
        return QStringLiteral("Evaluate one kernel on a task: correctness, latency, % of peak.");
    }
    int run(const QStringList &arguments) override;
};
