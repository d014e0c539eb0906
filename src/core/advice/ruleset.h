#pragma once

#include "advice/rule.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

// The recommendation rules, loaded from a JSON file and checked whole: a file with any error yields no rules
// and errors that name the rule and the field, so a half-edited file never gives half the advice silently.
//   {"version": 1, "comment": "...", "rules": [{"id", "title", "severity", "when", "cites", "advice",
//   "why"}]}
// See RuleCondition for "when" and AdviceTemplate for "advice".
class RuleSet
{
public:
    static constexpr int version = 1;

    bool load(const QString &path);
    // `source` names the text in errors (a path, or a test's label).
    bool parse(const QByteArray &json, const QString &source);

    bool ok() const { return m_loaded && m_errors.isEmpty(); }
    const QList<Rule> &rules() const { return m_rules; }
    const QStringList &errors() const { return m_errors; }
    QString source() const { return m_source; }

    // The shipped file (DataPaths::recommendationsFile()), read once per process; a failure is logged once.
    static const RuleSet &shipped();

private:
    std::optional<Rule> parseRule(const QJsonValue &json, int index);

    QList<Rule> m_rules;
    QStringList m_errors;
    QString m_source;
    bool m_loaded = false;
};
