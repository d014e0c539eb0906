#pragma once

#include <QHash>
#include <QList>
#include <QStringList>

#include <optional>

// A prompt text with {{name}} placeholders (names: lower-case letters, digits, underscores). Parsed once, so
// a malformed placeholder is reported at load, and rendered in one pass, so a value that itself contains
// "{{x}}" (kernels and model output can) is inserted verbatim, never expanded.
class PromptTemplate
{
public:
    static std::optional<PromptTemplate> parse(const QString &text, QString *error);

    QStringList placeholders() const;                            // distinct, in order of first use
    QString render(const QHash<QString, QString> &values) const; // absent values render as empty text

private:
    struct Segment
    {
        bool placeholder = false;
        QString text; // literal text, or the placeholder's name
    };
    QList<Segment> m_segments;
};
