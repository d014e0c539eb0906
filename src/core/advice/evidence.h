#pragma once

#include <QString>

#include <optional>

// One comparison that held when a rule fired, with its numbers and their rendering, so a view can say
// "fired because dma_transfer_average_bytes = 2 KiB < 32 KiB" and still sort or plot by the raw values.
struct Evidence
{
    QString subject;                 // a value's name, "a / b" for a ratio, or "bound"
    std::optional<double> value;     // empty for the roofline bound, which is a word
    QString op;                      // "<", "<=", ">", ">=", "=="; empty for the bound
    std::optional<double> threshold; // empty for the bound
    QString valueText;               // "2 KiB", "8x", "matmul"
    QString thresholdText;           // "32 KiB", "3x", "compute"

    QString text() const
    {
        if (op.isEmpty())
            return thresholdText == valueText || thresholdText.isEmpty()
                       ? QStringLiteral("%1 = %2").arg(subject, valueText)
                       : QStringLiteral("%1 = %2 (%3)").arg(subject, valueText, thresholdText);
        return QStringLiteral("%1 = %2 %3 %4").arg(subject, valueText, op, thresholdText);
    }
};
