#include "llm/retrypolicy.h"

#include <QLocale>
#include <QRandomGenerator>

#include <algorithm>
#include <cmath>

std::optional<qint64> RetryPolicy::parseRetryAfter(const QByteArray &value, const QDateTime &now)
{
    const QByteArray text = value.trimmed();
    if (text.isEmpty())
        return std::nullopt;
    bool ok = false;
    const double seconds = text.toDouble(&ok);
    if (ok && seconds >= 0 && std::isfinite(seconds))
        return static_cast<qint64>(std::llround(seconds * 1000.0));
    // HTTP dates come in one preferred and two obsolete forms; all are in GMT.
    const QString s = QString::fromLatin1(text).replace(QStringLiteral(" GMT"), QString());
    const QLocale c = QLocale::c();
    for (const QString &format :
         {QStringLiteral("ddd, dd MMM yyyy HH:mm:ss"), QStringLiteral("dddd, dd-MMM-yy HH:mm:ss"),
          QStringLiteral("ddd MMM d HH:mm:ss yyyy")}) {
        QDateTime when = c.toDateTime(s.simplified(), format);
        if (!when.isValid())
            continue;
        if (when.date().year() < 1970)
            when = when.addYears(100); // two-digit years of the RFC 850 form
        when.setTimeSpec(Qt::UTC);
        return std::max<qint64>(0, now.msecsTo(when));
    }
    return std::nullopt;
}

std::optional<qint64> RetryPolicy::delayMs(int nextAttempt, const QByteArray &retryAfter,
                                           const QDateTime &now, QRandomGenerator &rng) const
{
    if (const auto asked = parseRetryAfter(retryAfter, now)) {
        if (*asked > maxRetryAfterMs)
            return std::nullopt;
        return *asked;
    }
    const int exponent = std::clamp(nextAttempt - 2, 0, 30);
    const double raw = std::min<double>(maxDelayMs, double(baseDelayMs) * std::pow(2.0, exponent));
    const double j = std::clamp(jitter, 0.0, 1.0);
    return static_cast<qint64>(raw * (1.0 - j) + raw * j * rng.generateDouble());
}
