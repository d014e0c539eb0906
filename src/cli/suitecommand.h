#pragma once

#include "command.h"

// accelopt suite: every task's baseline (or a dataset's kernels) on a host, one line per task.
class SuiteCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("suite"); }
    QString summary() const override
    {
        return QStringLiteral("Evaluate the baseline of every task (or --tasks a,b).");
    }
    int run(const QStringList &arguments) override;
};
