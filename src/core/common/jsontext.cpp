#include "common/jsontext.h"

#include <QJsonArray>
#include <QJsonDocument>

QString JsonText::compact(const QJsonValue &value, int maxChars)
{
    if (value.isUndefined())
        return QStringLiteral("(none)");
    // A document holds only an array or an object: wrap the value and take the brackets off again.
    const QString text = QString::fromUtf8(QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact));
    return text.mid(1).chopped(1).left(maxChars);
}
