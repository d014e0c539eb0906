#include "export/exportformat.h"

#include <QStringList>

QString ExportFormat::milliseconds(double ms)
{
    return QString::number(ms, 'g', 6) + QStringLiteral(" ms");
}

QString ExportFormat::percent(double percentOfPeak)
{
    return QString::number(percentOfPeak, 'f', 1) + u'%';
}

QString ExportFormat::speedup(double factor)
{
    return QString::number(factor, 'f', 2) + u'x';
}

QString ExportFormat::firstLine(const QString &text)
{
    for (const QString &line : text.split(u'\n')) {
        const QString trimmed = line.trimmed();
        if (!trimmed.isEmpty())
            return oneLine(trimmed);
    }
    return {};
}

QString ExportFormat::oneLine(const QString &text, qsizetype maxLength)
{
    QString result;
    result.reserve(text.size());
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        const bool breaksLine = u < 0x20 || u == 0x7f || u == 0x85 || u == 0x2028 || u == 0x2029;
        result.append(breaksLine ? QChar(u' ') : c);
    }
    result = result.trimmed();
    if (result.size() > maxLength)
        result = result.left(maxLength - 1).trimmed() + QChar(0x2026);
    return result;
}

std::optional<double> ExportFormat::speedupOver(const std::optional<double> &baselineMs,
                                               const std::optional<double> &ms)
{
    if (baselineMs && ms && *baselineMs > 0 && *ms > 0)
        return *baselineMs / *ms;
    return std::nullopt;
}
