#pragma once

#include "advice/evidence.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

class ProfileValues;

// When a rule fires, as data:
//   {"all": [c, ...]}, {"any": [c, ...]}                     every / at least one of the conditions
//   {"metric": "name", "op": "<", "value": 65536}             a value against a threshold
//   {"ratio": ["a", "b"], "op": ">", "value": 3}              a / b against a threshold
//   {"bound": "compute"}                                      the roofline's limit: compute (matmul or
//                                                             vector), memory, matmul or vector
// "metric" names a runner metric or a derived value (ProfileValues). Ops: <, <=, >, >=, ==. A comparison with
// a value the profile lacks is false, so a rule never fires on what was not measured.
class RuleCondition
{
public:
    // An empty "all", which holds; parse() never produces one.
    RuleCondition() = default;

    // `path` names the place in the file for errors ("when", "when.all[1]").
    static std::optional<RuleCondition> parse(const QJsonValue &json, const QString &path, QString *error);

    // Whether the profile meets the condition; the comparisons that made it so are appended to `evidence`.
    bool holds(const ProfileValues &values, QList<Evidence> *evidence) const;
    // Every value name the condition reads.
    QStringList valueNames() const;

    static QStringList opNames();
    static QStringList boundNames();
    static bool isValueName(const QString &name);

private:
    enum class Kind
    {
        All,
        Any,
        Metric,
        Ratio,
        Bound,
    };

    bool compare(double value) const;
    static bool parseComparison(const QJsonObject &o, const QString &path, RuleCondition &c, QString *error);

    Kind m_kind = Kind::All;
    std::vector<RuleCondition> m_children;
    QString m_name;        // Metric: the value; Ratio: the numerator; Bound: the wanted bound
    QString m_denominator; // Ratio
    QString m_op;
    double m_threshold = 0;
};
