#pragma once

#include "advice/evidence.h"
#include "advice/severity.h"

#include <QList>
#include <QString>

#include <optional>

// What one rule says about one profile: the advice with the kernel's numbers filled in, why it fired, and
// the values the rule cites (shown even when they were not part of the condition).
struct Finding
{
    struct Cited
    {
        QString name;
        std::optional<double> value; // empty when the runner did not report it
        QString valueText;           // "4096", "42%", or "not reported"
    };

    QString ruleId;
    QString title;
    Severity severity = Severity::Info;
    QString advice;
    QList<Evidence> evidence;
    QList<Cited> cited;
};
