#pragma once

#include "command.h"

// accelopt port KERNEL --task T: the classic kernel ported to the current NKI API (rules, else the executor
// model), kept only when nkisim finds it numerically equal to the original.
class PortCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("port"); }
    QString summary() const override
    {
        return QStringLiteral("Port a classic NKI kernel (neuronxcc.nki) to the current API (nki), checked equal "
                              "on nkisim.");
    }
    int run(const QStringList &arguments) override;
};
