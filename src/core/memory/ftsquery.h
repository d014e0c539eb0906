#pragma once

#include <QString>
#include <QStringList>

// Turns text into FTS5 MATCH expressions that cannot be a syntax error. FTS5 gives meaning to quotes, AND,
// OR, NOT, NEAR, parentheses, column filters (title:) and `*`; a user typing any of them, or the planner's
// query being a whole kernel, must never break the search. Every word therefore becomes a quoted string
// (inner quotes doubled), which FTS5 treats as plain text; words without a letter or digit are dropped, since
// the tokenizer would make them empty phrases.
class FtsQuery
{
public:
    // The memory browser's search box: all words must occur (implicit AND); a word ending in `*` matches as a
    // prefix ("matm*" finds "matmul"). Empty when nothing searchable is left.
    static QString allWords(const QString &userText);
    // allWords for a search box that updates as the user types: a last word of two or more characters with
    // nothing after it matches as a prefix ("affi" finds "affine_range").
    static QString asTyped(const QString &userText);
    // For ranking by similarity: any of the distinct words of `text` (at most maxWords, those of 3+
    // characters), joined by OR, so bm25 rewards the experiences that share the most, and the rarest, words.
    static QString anyWord(const QString &text, int maxWords = 48);
    // The two halves of anyWord: the distinct words, lower case, in order of appearance; and the OR of some.
    static QStringList distinctWords(const QString &text, int maxWords = 48);
    static QString anyOf(const QStringList &words);
};
