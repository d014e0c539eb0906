#pragma once

#include "advice/advicetemplate.h"
#include "advice/rulecondition.h"
#include "advice/severity.h"

#include <QString>
#include <QStringList>

// One recommendation rule from rules/recommendations.json, validated (RuleSet).
struct Rule
{
    QString id;
    QString title;
    Severity severity = Severity::Info;
    RuleCondition when;
    QStringList cites; // the values a view shows beside the advice
    AdviceTemplate advice;
    QString why; // the published fact the thresholds rest on (reference/nki-facts.md)
};
