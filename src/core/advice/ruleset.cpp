#include "advice/ruleset.h"

#include "common/datapaths.h"
#include "common/logcategories.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>

namespace {
const QStringList ruleFields{QStringLiteral("id"),   QStringLiteral("title"), QStringLiteral("severity"),
                             QStringLiteral("when"), QStringLiteral("cites"), QStringLiteral("advice"),
                             QStringLiteral("why")};

// Line and column of a byte offset, since QJsonParseError only gives the offset.
QString position(const QByteArray &text, int offset)
{
    const QByteArray before = text.left(offset);
    const int line = int(before.count('\n')) + 1;
    const int column = int(offset - before.lastIndexOf('\n'));
    return QStringLiteral("line %1, column %2").arg(line).arg(column);
}

QString nonEmptyString(const QJsonObject &o, const QString &field, QString *error)
{
    const QJsonValue v = o.value(field);
    if (!v.isString() || v.toString().trimmed().isEmpty()) {
        *error = QStringLiteral("%1: must be a non-empty string").arg(field);
        return {};
    }
    return v.toString();
}
} // namespace

bool RuleSet::load(const QString &path)
{
    m_rules.clear();
    m_errors.clear();
    m_source = path;
    m_loaded = false;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        m_errors << QStringLiteral("%1: cannot read (%2)").arg(path, file.errorString());
        return false;
    }
    if (file.size() > 1024 * 1024) {
        m_errors << QStringLiteral("%1: larger than 1 MB; not a rules file").arg(path);
        return false;
    }
    return parse(file.readAll(), path);
}

bool RuleSet::parse(const QByteArray &json, const QString &source)
{
    m_rules.clear();
    m_errors.clear();
    m_source = source;
    m_loaded = false;
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        m_errors << QStringLiteral("%1: not valid JSON at %2: %3")
                        .arg(source, position(json, parseError.offset), parseError.errorString());
        return false;
    }
    if (!doc.isObject()) {
        m_errors << QStringLiteral("%1: expected an object {\"version\": %2, \"rules\": [...]}")
                        .arg(source)
                        .arg(version);
        return false;
    }
    const QJsonObject root = doc.object();
    for (auto it = root.begin(); it != root.end(); ++it)
        if (it.key() != QStringLiteral("version") && it.key() != QStringLiteral("rules") &&
            it.key() != QStringLiteral("comment"))
            m_errors << QStringLiteral("%1: unexpected top-level field '%2' (the file has version, comment "
                                       "and rules)")
                            .arg(source, it.key());
    const QJsonValue v = root.value(QStringLiteral("version"));
    if (!v.isDouble())
        m_errors << QStringLiteral("%1: missing field 'version' (this workbench reads version %2)")
                        .arg(source)
                        .arg(version);
    else if (v.toInt() != version)
        m_errors << QStringLiteral("%1: version %2, but this workbench reads version %3")
                        .arg(source)
                        .arg(v.toDouble())
                        .arg(version);
    const QJsonValue rules = root.value(QStringLiteral("rules"));
    if (!rules.isArray()) {
        m_errors << QStringLiteral("%1: missing field 'rules' (a list of rules)").arg(source);
        return false;
    }
    const QJsonArray list = rules.toArray();
    QSet<QString> ids;
    for (qsizetype i = 0; i < list.size(); ++i) {
        auto rule = parseRule(list.at(i), int(i) + 1);
        if (!rule)
            continue;
        if (ids.contains(rule->id)) {
            m_errors << QStringLiteral("%1: rule '%2' (#%3): id: another rule already has this id")
                            .arg(source, rule->id)
                            .arg(i + 1);
            continue;
        }
        ids.insert(rule->id);
        m_rules << *rule;
    }
    if (!m_errors.isEmpty()) {
        m_rules.clear();
        return false;
    }
    m_loaded = true;
    return true;
}

std::optional<Rule> RuleSet::parseRule(const QJsonValue &json, int index)
{
    const QJsonObject o = json.toObject();
    const QString idText = o.value(QStringLiteral("id")).toString();
    const QString who = idText.isEmpty() ? QStringLiteral("rule #%1").arg(index)
                                         : QStringLiteral("rule '%1' (#%2)").arg(idText).arg(index);
    auto fail = [&](const QString &message) {
        m_errors << QStringLiteral("%1: %2: %3").arg(m_source, who, message);
        return std::nullopt;
    };
    if (!json.isObject())
        return fail(QStringLiteral("a rule is a JSON object"));
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!ruleFields.contains(it.key()))
            return fail(QStringLiteral("unexpected field '%1' (a rule has %2)")
                            .arg(it.key(), ruleFields.join(QStringLiteral(", "))));
    for (const QString &field : ruleFields)
        if (!o.contains(field))
            return fail(QStringLiteral("missing field '%1'").arg(field));

    Rule rule;
    QString error;
    static const QRegularExpression idPattern(QStringLiteral("^[a-z0-9][a-z0-9-]*$"));
    rule.id = nonEmptyString(o, QStringLiteral("id"), &error);
    if (!error.isEmpty())
        return fail(error);
    if (!idPattern.match(rule.id).hasMatch())
        return fail(QStringLiteral("id: use lower-case letters, digits and '-', like dma-small-transfers"));
    rule.title = nonEmptyString(o, QStringLiteral("title"), &error);
    rule.why = nonEmptyString(o, QStringLiteral("why"), &error);
    if (!error.isEmpty())
        return fail(error);
    const QJsonValue severity = o.value(QStringLiteral("severity"));
    const auto known = Severities::fromName(severity.toString());
    if (!severity.isString() || !known)
        return fail(QStringLiteral("severity: must be \"info\" or \"warning\", not %1")
                        .arg(severity.isString() ? u'"' + severity.toString() + u'"'
                                                 : QStringLiteral("a non-string")));
    rule.severity = *known;

    auto when = RuleCondition::parse(o.value(QStringLiteral("when")), QStringLiteral("when"), &error);
    if (!when)
        return fail(error);
    rule.when = std::move(*when);

    const QJsonValue cites = o.value(QStringLiteral("cites"));
    if (!cites.isArray() || cites.toArray().isEmpty())
        return fail(QStringLiteral("cites: must be a non-empty list of value names"));
    for (const QJsonValue &c : cites.toArray()) {
        if (!c.isString() || !RuleCondition::isValueName(c.toString()))
            return fail(
                QStringLiteral("cites: every entry must name a metric or derived value in snake_case"));
        rule.cites << c.toString();
    }

    if (!o.value(QStringLiteral("advice")).isString())
        return fail(QStringLiteral("advice: must be a string (the advice text, with {value} fields)"));
    auto advice = AdviceTemplate::parse(o.value(QStringLiteral("advice")).toString(), &error);
    if (!advice)
        return fail(QStringLiteral("advice: ") + error);
    // A name the rule neither tests nor cites is most likely a typo, which would print "(not reported)".
    const QStringList testedOrCited = rule.when.valueNames() + rule.cites;
    for (const QString &name : advice->valueNames())
        if (!testedOrCited.contains(name))
            return fail(
                QStringLiteral("advice: {%1} is neither cited nor tested by the rule; add it to cites")
                    .arg(name));
    if (advice->text().trimmed().isEmpty())
        return fail(QStringLiteral("advice: must not be empty"));
    rule.advice = *advice;
    return rule;
}

const RuleSet &RuleSet::shipped()
{
    static const RuleSet rules = [] {
        RuleSet set;
        if (!set.load(DataPaths::recommendationsFile()))
            qCWarning(lcCore).noquote() << "recommendation rules unavailable, agents see no findings:"
                                        << set.errors().join(QStringLiteral("; "));
        return set;
    }();
    return rules;
}
