#include "agents/prompttemplate.h"

#include <QRegularExpression>

std::optional<PromptTemplate> PromptTemplate::parse(const QString &text, QString *error)
{
    static const QRegularExpression name(QStringLiteral("^[a-z][a-z0-9_]*$"));
    PromptTemplate t;
    qsizetype pos = 0;
    while (pos < text.size()) {
        const qsizetype open = text.indexOf(QStringLiteral("{{"), pos);
        if (open < 0) {
            t.m_segments.append({false, text.mid(pos)});
            break;
        }
        const qsizetype close = text.indexOf(QStringLiteral("}}"), open + 2);
        const int line = int(text.left(open).count(u'\n')) + 1;
        if (close < 0) {
            if (error)
                *error = QStringLiteral("line %1: '{{' is never closed with '}}'").arg(line);
            return std::nullopt;
        }
        const QString key = text.mid(open + 2, close - open - 2).trimmed();
        if (!name.match(key).hasMatch()) {
            if (error)
                *error =
                    QStringLiteral("line %1: '{{%2}}' is not a placeholder name (lower-case letters, digits "
                                   "and '_')")
                        .arg(line)
                        .arg(key.left(40));
            return std::nullopt;
        }
        if (open > pos)
            t.m_segments.append({false, text.mid(pos, open - pos)});
        t.m_segments.append({true, key});
        pos = close + 2;
    }
    return t;
}

QStringList PromptTemplate::placeholders() const
{
    QStringList names;
    for (const Segment &s : m_segments)
        if (s.placeholder && !names.contains(s.text))
            names << s.text;
    return names;
}

QString PromptTemplate::render(const QHash<QString, QString> &values) const
{
    QString out;
    for (const Segment &s : m_segments)
        out += s.placeholder ? values.value(s.text) : s.text;
    return out;
}
