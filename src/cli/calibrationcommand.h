#pragma once

#include "command.h"

// accelopt calibration: nkisim's predictions against a device's measurements for every kernel the workspace
// holds both of, per kernel and per kernel class and target (issue 34).
class CalibrationCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("calibration"); }
    QString summary() const override
    {
        return QStringLiteral("Show how far nkisim's latencies are from the hardware's, per kind of kernel.");
    }
    int run(const QStringList &arguments) override;
};
