#pragma once

#include "advice/valueunit.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

struct Evaluation;

// The numbers rules are written against: the runner's metrics under their neuron-profile names, plus a few
// values computed here from them (derived values, listed by derivedNames()), because a threshold often only
// means something relative to another metric (spill traffic against all SBUF traffic) or to the evaluation
// itself (percent_of_peak). A value the runner did not report is empty, never zero, so a rule about a metric
// a backend does not measure stays silent.
class ProfileValues
{
public:
    explicit ProfileValues(const Evaluation &evaluation);

    std::optional<double> value(const QString &name) const;
    // The roofline's limit as the runner names it: "matmul", "vector" or "memory"; empty when unknown.
    QString bound() const { return m_bound; }
    bool isEmpty() const;

    static QStringList derivedNames();
    static bool isDerived(const QString &name);
    static std::optional<ValueUnit::Kind> derivedUnit(const QString &name);
    // What a derived value means, for the rules file's readers and error messages.
    static QString describeDerived(const QString &name);

private:
    std::optional<double> metric(const QString &name) const;
    std::optional<double> derived(const QString &name) const;

    QJsonObject m_metrics;
    QString m_bound;
    std::optional<double> m_percentOfPeak;
    std::optional<double> m_latencyMs;
};
