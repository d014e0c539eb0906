#pragma once

#include "advice/finding.h"

#include <QList>
#include <QString>

struct Evaluation;
class ProfileValues;
class RuleSet;
struct Rule;

// Runs the recommendation rules over one evaluation's profile, as Neuron Explorer's summary recommendations
// and Nsight Compute's rules do: pure functions, no I/O. Warnings come before info, each in file order.
class Advisor
{
public:
    static QList<Finding> evaluate(const RuleSet &rules, const Evaluation &evaluation);
    static QList<Finding> evaluate(const QList<Rule> &rules, const ProfileValues &values);
    // Short plain text, one line per finding, for a prompt or a log.
    static QString format(const QList<Finding> &findings);
    // What the planner's {{findings}} shows for this evaluation, including why there are none.
    static QString forPrompt(const RuleSet &rules, const Evaluation &evaluation);
};
