#include "mcpargs.h"

#include <QCommandLineParser>
#include <QJsonArray>

QString McpArgs::text(const QJsonValue &value)
{
    if (value.isString())
        return value.toString();
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isDouble()) {
        const double d = value.toDouble();
        if (d == double(qint64(d)))
            return QString::number(qint64(d));
        return QString::number(d, 'g', 17);
    }
    return {};
}

QStringList McpArgs::argv(const QJsonObject &arguments, std::initializer_list<Option> options)
{
    QStringList positional;
    QStringList named;
    for (const Option &o : options) {
        const QJsonValue v = arguments.value(QLatin1String(o.property));
        if (v.isUndefined() || v.isNull())
            continue;
        const QString option = QStringLiteral("--") + QLatin1String(o.option);
        switch (o.kind) {
        case Kind::Positional:
            if (v.isArray())
                for (const QJsonValue &item : v.toArray())
                    positional << text(item);
            else
                positional << text(v);
            break;
        case Kind::Value:
            // --name=VALUE, so a value that starts with a dash is never read as an option
            named << option + u'=' + text(v);
            break;
        case Kind::Flag:
            if (v.toBool())
                named << option;
            break;
        case Kind::List: {
            QStringList items;
            for (const QJsonValue &item : v.toArray())
                items << text(item);
            named << option + u'=' + items.join(u',');
            break;
        }
        }
    }
    // "--" ends the options: a kernel file named "-x.py" stays a file.
    return named + (positional.isEmpty() ? QStringList{} : QStringList{QStringLiteral("--")} + positional);
}

bool McpArgs::parse(QCommandLineParser &parser, const QString &label, const QStringList &argv, QString &error)
{
    if (parser.parse(QStringList{label} + argv))
        return true;
    error = parser.errorText();
    return false;
}
