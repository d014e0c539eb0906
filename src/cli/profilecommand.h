#pragma once

#include "command.h"

// accelopt profile import: attach a device profile exported from Neuron Explorer's UI (Instruction.csv,
// DmaPacketAggregated.csv) to a candidate's hardware evaluation (issue 34).
class ProfileCommand : public Command
{
public:
    QString name() const override { return QStringLiteral("profile"); }
    QString summary() const override
    {
        return QStringLiteral("Import a Neuron Explorer CSV export as a hardware evaluation's profile.");
    }
    int run(const QStringList &arguments) override;
};
