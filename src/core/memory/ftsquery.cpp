#include "memory/ftsquery.h"

#include <QRegularExpression>
#include <QSet>
#include <QStringList>

namespace {
bool hasWordCharacter(const QString &s)
{
    for (QChar c : s)
        if (c.isLetterOrNumber())
            return true;
    return false;
}

QString quoted(QString word)
{
    word.replace(u'"', QStringLiteral("\"\""));
    return u'"' + word + u'"';
}
} // namespace

QString FtsQuery::allWords(const QString &userText)
{
    QStringList terms;
    for (QString word : userText.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts)) {
        bool prefix = false;
        while (word.endsWith(u'*')) {
            word.chop(1);
            prefix = true;
        }
        if (!hasWordCharacter(word))
            continue;
        // A prefix only makes sense on a single token; "a-b*" would be a phrase with a prefix on its last
        // token, which FTS5 accepts too.
        terms.append(quoted(word) + (prefix ? QStringLiteral("*") : QString()));
    }
    return terms.join(u' ');
}

QString FtsQuery::asTyped(const QString &userText)
{
    QString text = userText;
    // The word being typed is a prefix of what the user means; one of a single character would match
    // nearly every row and is left whole.
    static const QRegularExpression lastWord(QStringLiteral("[\\p{L}\\p{N}_]{2,}$"));
    if (lastWord.match(text).hasMatch())
        text += u'*';
    return allWords(text);
}

QStringList FtsQuery::distinctWords(const QString &text, int maxWords)
{
    static const QRegularExpression word(QStringLiteral("[\\p{L}\\p{N}_]{3,}"));
    QStringList words;
    QSet<QString> seen;
    for (auto it = word.globalMatch(text); it.hasNext() && words.size() < maxWords;) {
        const QString w = it.next().captured(0).toLower();
        if (seen.contains(w))
            continue;
        seen.insert(w);
        words.append(w);
    }
    return words;
}

QString FtsQuery::anyOf(const QStringList &words)
{
    QStringList terms;
    for (const QString &w : words)
        terms.append(quoted(w));
    return terms.join(QStringLiteral(" OR "));
}

QString FtsQuery::anyWord(const QString &text, int maxWords)
{
    return anyOf(distinctWords(text, maxWords));
}
