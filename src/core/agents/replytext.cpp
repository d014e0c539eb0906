#include "agents/replytext.h"

#include <QRegularExpression>

QString ReplyText::stripLabel(QString line, const QString &label)
{
    line = line.trimmed();
    line.remove(QRegularExpression(QStringLiteral("^#+\\s*")));
    line.remove(QStringLiteral("**"));
    line = line.trimmed();
    if (!label.isEmpty() && line.startsWith(label, Qt::CaseInsensitive)) {
        line = line.mid(label.size()).trimmed();
        if (line.startsWith(u':'))
            line = line.mid(1).trimmed();
    }
    return line;
}

QString ReplyText::title(const QStringList &proseLines, int *lineIndex)
{
    static const QRegularExpression labelled(
        QStringLiteral("^\\s*(#+\\s*)?(\\*\\*)?\\s*title\\s*(\\*\\*)?\\s*:"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression bold(QStringLiteral("\\*\\*([^*]+)\\*\\*"));
    auto found = [&](int i, const QString &text) {
        if (lineIndex)
            *lineIndex = i;
        return clip(text, 120);
    };
    for (int i = 0; i < proseLines.size(); ++i)
        if (labelled.match(proseLines.at(i)).hasMatch()) {
            QString t = proseLines.at(i);
            t.remove(labelled);
            t.remove(QStringLiteral("**"));
            if (!t.trimmed().isEmpty())
                return found(i, t.trimmed());
        }
    for (int i = 0; i < proseLines.size(); ++i) {
        const QString line = proseLines.at(i).trimmed();
        if (line.isEmpty())
            continue;
        if (line.startsWith(u'#'))
            return found(i, stripLabel(line, QString()));
        const auto m = bold.match(line);
        if (m.hasMatch() && m.capturedStart() == 0)
            return found(i, m.captured(1).trimmed());
        return found(i, stripLabel(line, QString()));
    }
    if (lineIndex)
        *lineIndex = -1;
    return {};
}

QString ReplyText::clip(const QString &text, int maxChars)
{
    const QString t = text.simplified();
    return t.size() <= maxChars ? t : t.left(maxChars - 1) + QChar(0x2026);
}
