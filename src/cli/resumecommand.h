#pragma once

#include "command.h"

// accelopt resume SESSION [...]: continues a stopped or crashed session where it stopped.
class ResumeCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("resume"); }
    QString summary() const override
    {
        return QStringLiteral("Continue a stopped or crashed optimization session where it stopped.");
    }
    int run(const QStringList &arguments) override;
};
