#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QStringList>

#include <initializer_list>
#include <utility>

// The part of JSON Schema the MCP tools declare their inputs and outputs with, and the check of a value
// against it: type (a name or a list of names), properties, required, additionalProperties: false, enum,
// minimum, maximum, minLength, items and minItems. Builders keep the tool tables short.
class McpSchema
{
public:
    // Every way `value` breaks `schema`, each naming where ("arguments.size: ..."); empty when it conforms.
    static QStringList problems(const QJsonObject &schema, const QJsonValue &value,
                                const QString &where = QStringLiteral("arguments"));

    static QJsonObject object(std::initializer_list<std::pair<const char *, QJsonObject>> properties,
                              const QStringList &required = {}, bool closed = true);
    static QJsonObject string(const QString &description);
    static QJsonObject oneOf(const QString &description, const QStringList &values);
    static QJsonObject integer(const QString &description, qint64 minimum, qint64 maximum);
    static QJsonObject number(const QString &description, double minimum);
    static QJsonObject boolean(const QString &description);
    static QJsonObject array(const QJsonObject &items, const QString &description = {});
    // The same schema, also allowing null: what an output field the runner may not report has.
    static QJsonObject nullable(QJsonObject schema);
    static QJsonObject anyObject(const QString &description = {});
    static QJsonObject withDescription(QJsonObject schema, const QString &description);
};
