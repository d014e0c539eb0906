#pragma once

#include "command.h"

// accelopt optimize --task NAME|DIR [...]: one optimization session on a host, progress on stdout.
class OptimizeCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("optimize"); }
    QString summary() const override
    {
        return QStringLiteral(
            "Optimize a task's kernel with the beam search; prints progress and the session id.");
    }
    int run(const QStringList &arguments) override;
};
