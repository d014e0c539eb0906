#pragma once

#include <QJsonValue>
#include <QString>

// A JSON value as a person wrote it, for messages about a settings file ("'slots' must be a whole number,
// not \"4\""): compact, cut to `maxChars`.
namespace JsonText {
QString compact(const QJsonValue &value, int maxChars = 60);
}
