#include "mcpschema.h"

#include <algorithm>
#include <cmath>

namespace {

bool hasType(const QJsonValue &value, const QString &type)
{
    if (type == QStringLiteral("object"))
        return value.isObject();
    if (type == QStringLiteral("array"))
        return value.isArray();
    if (type == QStringLiteral("string"))
        return value.isString();
    if (type == QStringLiteral("boolean"))
        return value.isBool();
    if (type == QStringLiteral("null"))
        return value.isNull();
    if (type == QStringLiteral("number"))
        return value.isDouble();
    if (type == QStringLiteral("integer")) {
        if (!value.isDouble())
            return false;
        const double d = value.toDouble();
        return std::isfinite(d) && std::floor(d) == d;
    }
    return false;
}

QString shown(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::String:
        return QStringLiteral("'%1'").arg(value.toString().left(80));
    case QJsonValue::Double:
        return QString::number(value.toDouble(), 'g', 12);
    case QJsonValue::Bool:
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Array:
        return QStringLiteral("an array");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    default:
        return QStringLiteral("nothing");
    }
}

} // namespace

QStringList McpSchema::problems(const QJsonObject &schema, const QJsonValue &value, const QString &where)
{
    QStringList found;
    const QJsonValue type = schema.value(QStringLiteral("type"));
    QStringList types;
    if (type.isString())
        types << type.toString();
    for (const QJsonValue &t : type.toArray())
        types << t.toString();
    if (!types.isEmpty() &&
        std::none_of(types.cbegin(), types.cend(), [&value](const QString &t) { return hasType(value, t); })) {
        found << QStringLiteral("%1 must be %2, not %3").arg(where, types.join(QStringLiteral(" or ")), shown(value));
        return found;
    }
    if (const QJsonArray allowed = schema.value(QStringLiteral("enum")).toArray();
        !allowed.isEmpty() && !allowed.contains(value)) {
        QStringList names;
        for (const QJsonValue &v : allowed)
            names << shown(v);
        found << QStringLiteral("%1 must be one of %2, not %3").arg(where, names.join(QStringLiteral(", ")), shown(value));
    }
    if (value.isDouble()) {
        const double d = value.toDouble();
        if (schema.contains(QStringLiteral("minimum")) && d < schema.value(QStringLiteral("minimum")).toDouble())
            found << QStringLiteral("%1 must be at least %2, not %3")
                         .arg(where, shown(schema.value(QStringLiteral("minimum"))), shown(value));
        if (schema.contains(QStringLiteral("maximum")) && d > schema.value(QStringLiteral("maximum")).toDouble())
            found << QStringLiteral("%1 must be at most %2, not %3")
                         .arg(where, shown(schema.value(QStringLiteral("maximum"))), shown(value));
    }
    if (value.isString() && schema.contains(QStringLiteral("minLength")) &&
        value.toString().size() < schema.value(QStringLiteral("minLength")).toInteger())
        found << QStringLiteral("%1 must not be empty").arg(where);
    if (value.isArray()) {
        const QJsonArray a = value.toArray();
        if (schema.contains(QStringLiteral("minItems")) && a.size() < schema.value(QStringLiteral("minItems")).toInteger())
            found << QStringLiteral("%1 needs at least %2 item(s)")
                         .arg(where)
                         .arg(schema.value(QStringLiteral("minItems")).toInteger());
        const QJsonObject items = schema.value(QStringLiteral("items")).toObject();
        if (!items.isEmpty())
            for (qsizetype i = 0; i < a.size(); ++i)
                found << problems(items, a.at(i), QStringLiteral("%1[%2]").arg(where).arg(i));
    }
    if (value.isObject()) {
        const QJsonObject o = value.toObject();
        const QJsonObject properties = schema.value(QStringLiteral("properties")).toObject();
        for (const QJsonValue &name : schema.value(QStringLiteral("required")).toArray())
            if (!o.contains(name.toString()))
                found << QStringLiteral("%1.%2 is required").arg(where, name.toString());
        const bool closed = schema.value(QStringLiteral("additionalProperties")) == QJsonValue(false);
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (properties.contains(it.key()))
                found << problems(properties.value(it.key()).toObject(), it.value(),
                                  QStringLiteral("%1.%2").arg(where, it.key()));
            else if (closed)
                found << QStringLiteral("%1.%2 is not a known property (known: %3)")
                             .arg(where, it.key(), properties.keys().join(QStringLiteral(", ")));
        }
    }
    return found;
}

QJsonObject McpSchema::object(std::initializer_list<std::pair<const char *, QJsonObject>> properties,
                              const QStringList &required, bool closed)
{
    QJsonObject p;
    for (const auto &[name, schema] : properties)
        p.insert(QLatin1String(name), schema);
    QJsonObject o{{QStringLiteral("type"), QStringLiteral("object")}, {QStringLiteral("properties"), p}};
    if (!required.isEmpty())
        o.insert(QStringLiteral("required"), QJsonArray::fromStringList(required));
    if (closed)
        o.insert(QStringLiteral("additionalProperties"), false);
    return o;
}

QJsonObject McpSchema::string(const QString &description)
{
    return withDescription({{QStringLiteral("type"), QStringLiteral("string")}}, description);
}

QJsonObject McpSchema::oneOf(const QString &description, const QStringList &values)
{
    return withDescription({{QStringLiteral("type"), QStringLiteral("string")},
                            {QStringLiteral("enum"), QJsonArray::fromStringList(values)}},
                           description);
}

QJsonObject McpSchema::integer(const QString &description, qint64 minimum, qint64 maximum)
{
    return withDescription({{QStringLiteral("type"), QStringLiteral("integer")},
                            {QStringLiteral("minimum"), minimum},
                            {QStringLiteral("maximum"), maximum}},
                           description);
}

QJsonObject McpSchema::number(const QString &description, double minimum)
{
    return withDescription({{QStringLiteral("type"), QStringLiteral("number")}, {QStringLiteral("minimum"), minimum}},
                           description);
}

QJsonObject McpSchema::boolean(const QString &description)
{
    return withDescription({{QStringLiteral("type"), QStringLiteral("boolean")}}, description);
}

QJsonObject McpSchema::array(const QJsonObject &items, const QString &description)
{
    return withDescription({{QStringLiteral("type"), QStringLiteral("array")}, {QStringLiteral("items"), items}},
                           description);
}

QJsonObject McpSchema::nullable(QJsonObject schema)
{
    const QJsonValue type = schema.value(QStringLiteral("type"));
    QJsonArray types = type.isArray() ? type.toArray() : QJsonArray{type};
    if (!types.contains(QStringLiteral("null")))
        types.append(QStringLiteral("null"));
    schema.insert(QStringLiteral("type"), types);
    if (QJsonArray values = schema.value(QStringLiteral("enum")).toArray(); !values.isEmpty()) {
        values.append(QJsonValue::Null);
        schema.insert(QStringLiteral("enum"), values);
    }
    return schema;
}

QJsonObject McpSchema::anyObject(const QString &description)
{
    return withDescription({{QStringLiteral("type"), QStringLiteral("object")}}, description);
}

QJsonObject McpSchema::withDescription(QJsonObject schema, const QString &description)
{
    if (!description.isEmpty())
        schema.insert(QStringLiteral("description"), description);
    return schema;
}
