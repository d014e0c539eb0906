#pragma once

#include "command.h"

// accelopt study: several search configurations (arms) on the same tasks under the same budget, run
// interleaved as ordinary sessions, then compared (StudyRunner, StudyResult in src/core/study).
class StudyCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("study"); }
    QString summary() const override
    {
        return QStringLiteral("Compare search configurations and models on the same tasks and budget.");
    }
    int run(const QStringList &arguments) override;
};
